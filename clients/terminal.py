"""The terminal table: ``duplicate play SEAT-LINK``, the same table in a terminal.

A line-oriented, keyboard-only client for players, spectators and the director. It prints
the table after every update (hands with suit symbols and colours, the auction as a grid,
the trick, whose turn it is, the match panel) and reads commands at a prompt while updates
keep arriving. It needs no full-screen mode, so it works over ssh, in a pseudo-terminal
and in a plain pipe.

    python -m clients.terminal http://127.0.0.1:8765/play#TOKEN

Commands (``help`` lists them): a call (``1nt``, ``p``, ``x``, ``xx``, ``2s!weak`` to alert
with an explanation), a card (``sa``, ``h10`` or ``ht``, or only the rank when a single
legal card has it: ``q``), ``claim N``, ``accept``, ``reject``, ``ask N``, ``explain N
TEXT``, ``say TEXT``, ``last``, ``help``, ``quit``; the director also ``rule TABLE TRICKS``.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import contextlib
import os
import re
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Literal

from rich import box
from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text
from websockets.exceptions import WebSocketException

from clients.client import Client, ClientError
from protocol.errors import ErrorCode
from protocol.messages import (
    BoardCompared,
    BoardFinished,
    BoardStarted,
    BoardView,
    CallExplained,
    CallMade,
    CardPlayed,
    ChatSent,
    ClaimAnswered,
    ClaimMade,
    ComparisonView,
    DirectorRuled,
    Event,
    MatchFinished,
    MatchSummary,
    PlayerView,
    QuestionAsked,
    Seat,
    Snapshot,
    TableResultView,
    TrickView,
    Update,
    WatchView,
)

__all__ = [
    "CommandError",
    "TerminalTable",
    "card_text",
    "contract_text",
    "main",
    "parse_call",
    "parse_card",
    "parse_command",
    "render_player",
    "render_watch",
    "result_text",
    "run_terminal",
]

SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}
PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}
SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_STYLES = {"S": "bold", "H": "bold red", "D": "bold dark_orange", "C": "bold green"}
"""A four-colour deck: spades in the terminal's own colour, so they show on any background."""
RANKS = "AKQJT98765432"
VULNERABLE_STYLE = "bold red"
TURN_STYLE = "bold reverse"
CHAT_SHOWN = 5
COMPASS_SIDE = 20
COMPASS_MIDDLE = 25
COMPARISONS_SHOWN = 6
BACKOFF_FIRST = 0.5
BACKOFF_LONGEST = 15.0

HELP = """\
Commands (type one and press Enter):
  a call        1nt  1c  p (pass)  x (double)  xx (redouble)
                2s!text  or  2s ! text   alert the call, with its explanation
  a card        sa  h10 (or ht)  as  10h ... or only the rank (q) when one legal card has it;
                declarer plays dummy's cards the same way, on dummy's turn
  claim N       claim N of the remaining tricks (fewer than all concedes the rest)
  accept        accept the pending claim          reject   reject it (calls the director)
  ask N         ask the opponent what call #N means (the numbers are in the auction)
  explain N T   explain your own call #N to the opponents (also to answer a question)
  say TEXT      table chat (to the four players at your table)
  last          show the last trick
  help          this list
  quit          leave the table (you can come back with the same link)"""

WATCH_HELP = """\
Commands:
  rule TABLE TRICKS   director: end a table's board after a rejected claim, declarer's
                      side taking TRICKS in all (tricks already won included)
  help                this list
  quit                stop watching"""


# -- words and values ------------------------------------------------------------------------


def rank_text(rank: str) -> str:
    """``"T"`` -> ``"10"``; other ranks as they are."""
    return "10" if rank == "T" else rank


def card_text(card: str) -> Text:
    """A card with its suit symbol, in the suit's colour: ``"HT"`` -> ``♥10``.

    >>> card_text("HT").plain
    '♥10'
    """
    return Text(SUIT_SYMBOLS[card[0]] + rank_text(card[1]), style=SUIT_STYLES[card[0]])


def strain_text(strain: str) -> Text:
    """``"S"`` -> a coloured ``♠``; ``"NT"`` -> ``NT``."""
    if strain == "NT":
        return Text("NT", style="bold")
    return Text(SUIT_SYMBOLS[strain], style=SUIT_STYLES[strain])


def call_text(call: str) -> Text:
    """A call as players write it: ``1♣``, ``3NT``, ``Pass``, ``Dbl``, ``Rdbl``.

    >>> [call_text(c).plain for c in ("1C", "3NT", "P", "X", "XX")]
    ['1♣', '3NT', 'Pass', 'Dbl', 'Rdbl']
    """
    if call == "P":
        return Text("Pass", style="green")
    if call == "X":
        return Text("Dbl", style="bold red")
    if call == "XX":
        return Text("Rdbl", style="bold blue")
    return Text.assemble(call[0], strain_text(call[1:]))


def contract_text(contract: str) -> Text:
    """``"4SX"`` -> ``4♠X``.

    >>> contract_text("6HXX").plain
    '6♥XX'
    """
    doubled = "XX" if contract.endswith("XX") else "X" if contract.endswith("X") else ""
    bid = contract.removesuffix(doubled)
    return Text.assemble(call_text(bid), (doubled, "bold red"))


def score_words(ns_score: int) -> str:
    """A score signed from North-South, as a player says it.

    >>> score_words(-100), score_words(420), score_words(0)
    ('E-W +100', 'N-S +420', '0')
    """
    if ns_score == 0:
        return "0"
    return f"N-S +{ns_score}" if ns_score > 0 else f"E-W +{-ns_score}"


def result_text(result: TableResultView) -> Text:
    """A table's result: ``1♣ by North, 10 tricks (made +3): N-S +130``.

    >>> result_text(TableResultView(table=1, board=1, contract="4S", declarer="S",
    ...     tricks=8, ns_score=-100)).plain
    '4♠ by South, 8 tricks (down 2): E-W +100'
    """
    if result.contract is None or result.declarer is None:
        return Text("passed out: 0")
    needed = int(result.contract[0]) + 6
    over = result.tricks - needed
    outcome = "made" if over == 0 else f"made +{over}" if over > 0 else f"down {-over}"
    return Text.assemble(
        contract_text(result.contract),
        f" by {SEAT_NAMES[result.declarer]}, {result.tricks} tricks ({outcome}): ",
        (score_words(result.ns_score), "bold"),
    )


def short_result(result: TableResultView) -> Text:
    """``1♣ N +3 (N-S +130)``: a result in a comparison line."""
    if result.contract is None or result.declarer is None:
        return Text("passed out (0)")
    over = result.tricks - int(result.contract[0]) - 6
    outcome = "=" if over == 0 else f"{over:+d}"
    return Text.assemble(
        contract_text(result.contract),
        f" {result.declarer} {outcome} ({score_words(result.ns_score)})",
    )


def vulnerability_words(vulnerability: str) -> str:
    return {"None": "none", "NS": "N-S", "EW": "E-W", "All": "all"}[vulnerability]


def is_vulnerable(seat: str, vulnerability: str) -> bool:
    return vulnerability == "All" or seat in vulnerability


def side_of(seat: str) -> str:
    return "N-S" if seat in "NS" else "E-W"


def team_name(match: MatchSummary, team: str) -> str:
    return match.team_a if team == "A" else match.team_b


# -- parsing commands ------------------------------------------------------------------------


class CommandError(ValueError):
    """A command the table cannot send: its message says what to type instead."""


@dataclass(frozen=True, slots=True)
class CallCommand:
    call: str
    alert: str | None = None


@dataclass(frozen=True, slots=True)
class CardCommand:
    card: str


@dataclass(frozen=True, slots=True)
class ClaimCommand:
    tricks: int


@dataclass(frozen=True, slots=True)
class AnswerCommand:
    accept: bool


@dataclass(frozen=True, slots=True)
class AskCommand:
    index: int
    """From 0, as on the wire (players type the number shown, from 1)."""


@dataclass(frozen=True, slots=True)
class ExplainCommand:
    index: int
    text: str


@dataclass(frozen=True, slots=True)
class SayCommand:
    text: str


@dataclass(frozen=True, slots=True)
class RuleCommand:
    table: int
    declarer_tricks: int


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """A command that sends nothing: ``help``, ``last`` or ``quit``."""

    name: Literal["help", "last", "quit"]


Command = (
    CallCommand
    | CardCommand
    | ClaimCommand
    | AnswerCommand
    | AskCommand
    | ExplainCommand
    | SayCommand
    | RuleCommand
    | SimpleCommand
)

_SYMBOL_LETTERS = str.maketrans(
    {"♠": "s", "♥": "h", "♦": "d", "♣": "c"} | dict.fromkeys("♤♡♢♧", "")
)
_BID = re.compile(r"^([1-7])(c|d|h|s|n|nt)$")
_CALL_WORDS = {
    "p": "P",
    "pass": "P",
    "x": "X",
    "dbl": "X",
    "double": "X",
    "xx": "XX",
    "rdbl": "XX",
    "redouble": "XX",
}
MAX_TEXT = 300


def _normalise(word: str) -> str:
    return word.strip().lower().replace(" ", "").translate(_SYMBOL_LETTERS)


def parse_call(text: str) -> CallCommand:
    """A call as typed: ``1nt``, ``1n``, ``p``, ``x``, ``xx``, ``2s!weak`` (alerted).

    >>> parse_call("2s ! weak, 6-10")
    CallCommand(call='2S', alert='weak, 6-10')
    >>> parse_call("1N").call, parse_call("pass").call, parse_call("1♥").call
    ('1NT', 'P', '1H')
    """
    head, bang, alert = text.partition("!")
    word = _normalise(head)
    call = _CALL_WORDS.get(word)
    if call is None:
        bid = _BID.match(word)
        if bid is None:
            raise CommandError(
                f"{head.strip()!r} is not a call: type a bid (1c ... 7nt), p (pass), x (double) "
                "or xx (redouble)"
            )
        strain = bid.group(2).upper()
        call = bid.group(1) + ("NT" if strain.startswith("N") else strain)
    explanation = alert.strip()
    if bang and not explanation:
        raise CommandError(f"an alert needs its explanation: type {word}!TEXT or {word} ! TEXT")
    if len(explanation) > MAX_TEXT:
        raise CommandError(f"an explanation has at most {MAX_TEXT} characters")
    return CallCommand(call, explanation or None)


def parse_card(text: str, legal: Sequence[str] = ()) -> str:
    """A card as typed: ``sa``, ``as``, ``h10``, ``ht``, ``10h``, ``♥q``; only the rank
    (``q``) names the one legal card of that rank. Returns the wire form (``"SA"``).

    >>> parse_card("h10"), parse_card("ah"), parse_card("♦2"), parse_card("q", ["SQ", "S2"])
    ('HT', 'HA', 'D2', 'SQ')
    """
    word = _normalise(text).replace("10", "t")
    suits, ranks = "shdc", RANKS.lower()
    if len(word) == 1 and word in ranks:
        rank = word.upper()
        matching = [card for card in legal if card[1] == rank]
        if len(matching) == 1:
            return matching[0]
        if not matching:
            raise CommandError(
                f"no legal card is a {rank_text(rank)}"
                + (f": legal cards are {plain_cards(legal)}" if legal else "")
            )
        choices = " or ".join(c[0].lower() + rank_text(c[1]).lower() for c in matching)
        raise CommandError(f"which {rank_text(rank)}? Type {choices}")
    if len(word) == 2:
        if word[0] in suits and word[1] in ranks:
            return (word[0] + word[1]).upper()
        if word[1] in suits and word[0] in ranks:
            return (word[1] + word[0]).upper()
    raise CommandError(
        f"{text.strip()!r} is not a card: type the suit and the rank, like sa, h10 or dq"
    )


def plain_cards(cards: Sequence[str]) -> str:
    return " ".join(card_text(card).plain for card in cards)


def _number(word: str, what: str) -> int:
    if not word.isdigit():
        raise CommandError(f"{what} must be a number, not {word!r}")
    return int(word)


def _call_number(words: list[str], command: str, view: PlayerView | WatchView | None) -> int:
    """The auction index (from 0) of the call number a player typed (from 1)."""
    if len(words) < 2:
        raise CommandError(f"say which call: {command} N, N being the call's number (#N)")
    number = _number(words[1], "the call's number")
    made = 0
    if isinstance(view, PlayerView) and view.board is not None:
        made = len(view.board.auction)
    if not 1 <= number <= made:
        raise CommandError(
            f"there is no call #{number}: the auction's calls are numbered #1 to #{made}"
            if made
            else "no call has been made yet"
        )
    return number - 1


def parse_command(
    text: str, view: PlayerView | WatchView | None, *, director: bool = False
) -> Command | None:
    """What a line typed at the prompt asks for, checked against the view: None for an
    empty line; raises :class:`CommandError` (with what to type instead) for anything
    that should not be sent.

    >>> parse_command("claim 3", None)
    ClaimCommand(tricks=3)
    >>> parse_command("say well played", None)
    SayCommand(text='well played')
    """
    line = text.strip()
    if not line:
        return None
    words = line.split()
    verb = words[0].lower()
    rest = line[len(words[0]) :].strip()
    if verb in ("quit", "exit"):
        return SimpleCommand("quit")
    if verb in ("help", "?"):
        return SimpleCommand("help")
    if isinstance(view, WatchView) or (view is None and director):
        if verb == "rule":
            if not director:
                raise CommandError("only the director rules")
            if len(words) != 3:
                raise CommandError("type rule TABLE TRICKS, like rule 1 9")
            table = _number(words[1], "the table")
            tricks = _number(words[2], "the tricks")
            if table not in (1, 2) or tricks > 13:
                raise CommandError("the table is 1 or 2, and the tricks 0 to 13")
            return RuleCommand(table, tricks)
        allowed = "rule, help or quit" if director else "help or quit"
        raise CommandError(f"you are watching: type {allowed}")
    if verb == "last":
        return SimpleCommand("last")
    if verb in ("say", "chat"):
        if not rest:
            raise CommandError("type say and your message, like: say well played")
        if len(rest) > MAX_TEXT:
            raise CommandError(f"a chat line has at most {MAX_TEXT} characters")
        return SayCommand(rest)
    if verb == "claim":
        if len(words) != 2:
            raise CommandError("type claim N, N being the tricks you claim of those remaining")
        tricks = _number(words[1], "the tricks claimed")
        if tricks > 13:
            raise CommandError("a claim is of 0 to 13 tricks")
        return ClaimCommand(tricks)
    if verb in ("accept", "reject"):
        if len(words) != 1:
            raise CommandError(f"type just {verb}")
        return AnswerCommand(verb == "accept")
    if verb == "ask":
        if len(words) != 2:
            raise CommandError("type ask N, N being the call's number (#N in the auction)")
        return AskCommand(_call_number(words, "ask", view))
    if verb == "explain":
        index = _call_number(words, "explain", view)
        explanation = line.split(None, 2)[2].strip() if len(words) > 2 else ""
        if not explanation:
            raise CommandError(f"type explain {index + 1} and the explanation")
        if len(explanation) > MAX_TEXT:
            raise CommandError(f"an explanation has at most {MAX_TEXT} characters")
        return ExplainCommand(index, explanation)
    return _parse_action(line, view)


def _parse_action(line: str, view: PlayerView | None) -> Command:
    """A call or a card, whichever the board's phase wants, if it is legal now."""
    board = None if view is None else view.board
    if view is None or board is None:
        raise CommandError(f"{line!r}: there is no board in play now (type help)")
    if board.phase == "auction":
        try:
            call = parse_call(line)
        except CommandError as error:
            if _parses(parse_card, line):
                raise CommandError(
                    "the auction is still on: type a call, like 1nt, p, x or 2s!explanation"
                ) from None
            raise CommandError(f"{error} (type help for the commands)") from None
        if not board.legal:
            raise CommandError(f"it is not your turn: {_waiting_for(board)}")
        if call.call not in board.legal:
            raise CommandError(
                f"{call_text(call.call).plain} is not a legal call now; "
                f"legal calls: {legal_calls_words(board.legal)}"
            )
        return call
    if board.phase == "play":
        try:
            card = parse_card(line, board.legal)
        except CommandError as error:
            if _parses(parse_call, line):
                raise CommandError(
                    "the auction is over: type a card, like sa, h10 or just its rank"
                ) from None
            raise CommandError(f"{error} (type help for the commands)") from None
        if not board.legal:
            if board.dummy == view.seat:
                raise CommandError("you are dummy: declarer plays your cards")
            raise CommandError(f"it is not your turn: {_waiting_for(board)}")
        if card not in board.legal:
            raise CommandError(
                f"{card_text(card).plain} is not a legal card now; "
                f"legal cards: {plain_cards(board.legal)}"
            )
        return CardCommand(card)
    if board.phase == "claim":
        raise CommandError("no card can be played while a claim is pending (accept or reject)")
    if board.phase == "director":
        raise CommandError("the claim was rejected: the director must rule first")
    raise CommandError("this board is over: wait for the next one (type help for the commands)")


def _parses(parse: Callable[[str], object], line: str) -> bool:
    try:
        parse(line)
    except CommandError:
        return False
    return True


def _waiting_for(board: BoardView) -> str:
    if board.acting is None:
        return "nobody is to act now"
    verb = "call" if board.phase == "auction" else "play"
    if board.turn is not None and board.turn != board.acting:
        return f"{SEAT_NAMES[board.acting]} is to play from dummy"
    return f"{SEAT_NAMES[board.acting]} is to {verb}"


def legal_calls_words(legal: Sequence[str]) -> str:
    """The legal calls, the bids as a range: ``Pass · Dbl · bids 2♣ to 7NT``.

    >>> legal_calls_words(["P", "X", "2C", "2D", "7NT"])
    'Pass · Dbl · bids 2♣ to 7NT'
    """
    others = [call_text(c).plain for c in legal if c in ("P", "X", "XX")]
    bids = [c for c in legal if c not in ("P", "X", "XX")]
    if len(bids) == 1:
        others.append(call_text(bids[0]).plain)
    elif bids:
        others.append(f"bids {call_text(bids[0]).plain} to {call_text(bids[-1]).plain}")
    return " · ".join(others)


# -- rendering -------------------------------------------------------------------------------


def _sorted_hand(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=lambda card: (SUITS.index(card[0]), RANKS.index(card[1])))


def hand_lines(cards: Sequence[str]) -> list[Text]:
    """A hand by suit, spades first, each suit's cards from the ace down."""
    hand = _sorted_hand(cards)
    lines = []
    for suit in SUITS:
        ranks = [rank_text(card[1]) for card in hand if card[0] == suit]
        lines.append(
            Text.assemble(
                (SUIT_SYMBOLS[suit] + " ", SUIT_STYLES[suit]),
                (" ".join(ranks), SUIT_STYLES[suit]) if ranks else ("—", "dim"),
            )
        )
    return lines


def _seat_label(seat: str, board: BoardView, me: str | None) -> Text:
    name = SEAT_NAMES[seat]
    roles = []
    if seat == me:
        roles.append("you")
    if board.declarer == seat and board.phase != "auction":
        roles.append("declarer")
    if board.dummy == seat:
        roles.append("dummy")
    label = Text(name, style=VULNERABLE_STYLE if is_vulnerable(seat, board.vulnerability) else "")
    if roles:
        label.append(f" ({', '.join(roles)})")
    if board.turn == seat:
        label = Text.assemble(("▶ ", "bold"), label)
        label.stylize(TURN_STYLE)
    return label


def _hand_block(seat: Seat, board: BoardView, me: str | None) -> Text:
    label = _seat_label(seat, board, me)
    if board.phase == "finished" and board.deal is not None:
        cards: list[str] | None = board.deal[seat]
    else:
        cards = board.hands.get(seat)
    if cards is None:
        count = board.hand_sizes.get(seat, 0)
        return Text.assemble(label, "\n", (f"{count} card{'s' if count != 1 else ''}", "dim"))
    return Text("\n").join([label, *hand_lines(cards)])


def _trick_cell(trick: TrickView, seat: str) -> Text:
    for played in trick.cards:
        if played.seat == seat:
            cell = card_text(played.card)
            if trick.winner == seat:
                cell.stylize("underline")
            return cell
    return Text("·", style="dim")


def _centre(board: BoardView) -> RenderableType:
    """The middle of the table: the board during the auction, the trick during the play."""
    if board.phase == "auction" or (board.contract is None and board.phase != "finished"):
        return Text.assemble(
            f"Board {board.board}\n",
            f"Dealer {SEAT_NAMES[board.dealer]}\n",
            "Vul: ",
            (
                vulnerability_words(board.vulnerability),
                VULNERABLE_STYLE if board.vulnerability != "None" else "",
            ),
        )
    trick = board.current_trick
    if trick is not None and trick.cards:
        title = Text(f"Trick {len(board.tricks) + 1} ({trick.leader} led)", style="bold")
    elif board.tricks:
        trick = board.tricks[-1]
        title = Text(f"Trick {len(board.tricks)} ({trick.leader} led) → {trick.winner}", "dim")
    else:
        return Text("Opening lead" if board.phase == "play" else "No card played", style="dim")
    grid = Table.grid(padding=(0, 1))
    for _ in range(3):
        grid.add_column(justify="center", min_width=3)
    grid.add_row("", _trick_cell(trick, "N"), "")
    grid.add_row(_trick_cell(trick, "W"), "", _trick_cell(trick, "E"))
    grid.add_row("", _trick_cell(trick, "S"), "")
    return Group(title, grid)


def compass(board: BoardView, me: str | None) -> Table:
    """The four hands round the table (those this viewer may see), the trick in the middle."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(min_width=COMPASS_SIDE)  # fixed widths: the table does not jump about
    grid.add_column(min_width=COMPASS_MIDDLE)
    grid.add_column(min_width=COMPASS_SIDE)
    grid.add_row("", _hand_block("N", board, me), "")
    grid.add_row(_hand_block("W", board, me), _centre(board), _hand_block("E", board, me))
    grid.add_row("", _hand_block("S", board, me), "")
    return grid


def auction_grid(board: BoardView) -> Table:
    """The auction by seat, West North East South, each call with its number (#1 is the
    dealer's first call) and ``!`` when alerted; ``?`` marks whose call it is."""
    order = ("W", "N", "E", "S")
    grid = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    for seat in order:
        style = VULNERABLE_STYLE if is_vulnerable(seat, board.vulnerability) else "bold"
        grid.add_column(Text(SEAT_NAMES[seat], style=style), min_width=9)
    cells: list[Text] = [Text("") for _ in range(order.index(board.dealer))]
    for number, entry in enumerate(board.auction, start=1):
        cell = Text.assemble((f"#{number} ", "dim"), call_text(entry.call))
        if entry.alert is not None:
            cell.append("!", style="bold yellow")
        cells.append(cell)
    if board.phase == "auction" and board.turn is not None:
        cells.append(Text("?", style=TURN_STYLE))
    for start in range(0, len(cells), 4):
        row = cells[start : start + 4]
        grid.add_row(*row, *[Text("")] * (4 - len(row)))
    return grid


def _alert_lines(board: BoardView) -> list[Text]:
    lines = []
    for number, entry in enumerate(board.auction, start=1):
        if entry.alert is not None:
            lines.append(
                Text.assemble(
                    (f"  #{number} ", "dim"),
                    f"{SEAT_NAMES[entry.seat]} ",
                    call_text(entry.call),
                    ("! ", "bold yellow"),
                    entry.alert,
                )
            )
    return lines


def _claim_lines(board: BoardView, me: str | None) -> list[Text]:
    claim = board.claim
    if claim is None or board.phase not in ("claim", "director"):
        return []
    claimer = SEAT_NAMES[claim.claimer]
    lines = [
        Text(
            f"{claimer} claims {claim.tricks} of the {claim.remaining} remaining tricks"
            + (" (concedes all)" if claim.tricks == 0 else ""),
            style="bold yellow",
        )
    ]
    if claim.cards is not None:
        lines.append(Text.assemble(f"{claimer}'s cards: ", *_spaced(claim.cards)))
    if board.phase == "director":
        lines.append(
            Text("The claim was rejected: the director is called and will rule.", "bold red")
        )
        return lines
    waiting = [s for s in claim.deciders if s not in claim.accepted]
    if me in waiting:
        lines.append(Text("YOU DECIDE: type accept or reject", style=TURN_STYLE))
    elif waiting:
        names = " and ".join(SEAT_NAMES[s] for s in waiting)
        lines.append(Text(f"Waiting for {names} to accept or reject", style="yellow"))
    return lines


def _spaced(cards: Sequence[str]) -> list[Text]:
    parts: list[Text] = []
    for index, card in enumerate(_sorted_hand(cards)):
        if index:
            parts.append(Text(" "))
        parts.append(card_text(card))
    return parts


def _contract_line(board: BoardView) -> Text | None:
    if board.contract is None or board.declarer is None:
        return None
    return Text.assemble(
        "Contract ",
        contract_text(board.contract),
        f" by {SEAT_NAMES[board.declarer]}",
        f" · tricks N-S {board.tricks_ns}, E-W {board.tricks_ew}",
    )


def _turn_lines(view: PlayerView, board: BoardView) -> list[Text]:
    """Whose turn it is, unmistakably, and the legal calls or cards when it is yours."""
    me = view.seat
    if board.phase == "auction":
        if board.legal:
            return [
                Text("YOUR TURN: your call", style=TURN_STYLE),
                Text.assemble(("Legal calls: ", "bold"), legal_calls_words(board.legal)),
            ]
        return [Text(f"Waiting: {_waiting_for(board)}.", style="dim")]
    if board.phase != "play":
        return []
    if board.legal:
        if board.turn == me:
            doing = "lead" if not board.current_trick or not board.current_trick.cards else "play"
            headline = Text(f"YOUR TURN: {doing} a card from your hand", style=TURN_STYLE)
        else:
            dummy = SEAT_NAMES[board.turn or "N"]
            headline = Text(f"Dummy's turn: you play from dummy ({dummy})", style=TURN_STYLE)
        return [
            headline,
            Text.assemble(("Legal cards: ", "bold"), *_spaced(board.legal)),
        ]
    if board.dummy == me:
        declarer = SEAT_NAMES[board.declarer or "N"]
        return [Text(f"You are dummy: {declarer} plays your cards. {_waiting_for(board)}.")]
    return [Text(f"Waiting: {_waiting_for(board)}.", style="dim")]


def comparison_line(comparison: ComparisonView, match: MatchSummary, table: int | None) -> Text:
    """One compared board: both tables' results, the swing and the running total."""
    first, second = comparison.table1, comparison.table2
    if table == 2:
        first, second = second, first
    names = ("here", "other table") if table is not None else ("table 1", "table 2")
    swing = comparison.swing
    if swing > 0:
        swing_words = f"swing {swing} IMPs to {match.team_a}"
    elif swing < 0:
        swing_words = f"swing {-swing} IMPs to {match.team_b}"
    else:
        swing_words = "swing 0 IMPs (a push)"
    return Text.assemble(
        (f"Board {comparison.board}: ", "bold"),
        f"{names[0]} ",
        short_result(first),
        f" · {names[1]} ",
        short_result(second),
        "\n    ",
        (swing_words, "bold"),
        " · running total: ",
        _standing(match, comparison.running_total),
    )


def _standing(match: MatchSummary, running_total: int) -> str:
    if running_total > 0:
        return f"{match.team_a} by {running_total}"
    if running_total < 0:
        return f"{match.team_b} by {-running_total}"
    return "all square"


def match_panel(match: MatchSummary, table: int | None, team: str | None) -> list[Text]:
    """The match panel: the teams and their IMPs, each compared board, the final result."""
    you_a = " (you)" if team == "A" else ""
    you_b = " (you)" if team == "B" else ""
    lines = [
        Text.assemble(
            ("Match: ", "bold"),
            f"{match.team_a}{you_a} {match.imps_a} IMPs · {match.team_b}{you_b} "
            f"{match.imps_b} IMPs · compared {len(match.comparisons)} of "
            f"{len(match.boards)} boards",
        )
    ]
    shown = match.comparisons[-COMPARISONS_SHOWN:]
    if len(match.comparisons) > len(shown):
        lines.append(Text(f"  ({len(match.comparisons) - len(shown)} earlier boards)", "dim"))
    lines += [Text("  ").append_text(comparison_line(c, match, table)) for c in shown]
    if match.finished:
        lines.append(Text(final_words(match), style="bold reverse"))
    return lines


def final_words(match: MatchSummary) -> str:
    """``MATCH OVER: Sharks win by 9 IMPs (9 to 0)``."""
    if match.winner == "draw" or match.winner is None:
        return f"MATCH OVER: a draw, {match.imps_a} IMPs each"
    winner, loser = (
        (match.team_a, match.team_b) if match.winner == "A" else (match.team_b, match.team_a)
    )
    high, low = max(match.imps_a, match.imps_b), min(match.imps_a, match.imps_b)
    return f"MATCH OVER: {winner} beat {loser} by {high - low} IMPs ({high} to {low})"


def _header(board: BoardView, seq: int, who: str) -> Text:
    return Text.assemble(
        (f"Board {board.board}", "bold"),
        f" · Table {board.table} · Dealer {SEAT_NAMES[board.dealer]} · Vul ",
        (
            vulnerability_words(board.vulnerability),
            VULNERABLE_STYLE if board.vulnerability != "None" else "",
        ),
        f" · {who} · ",
        (f"#{seq}", "dim"),
    )


def render_player(view: PlayerView, seq: int, *, with_chat: bool = False) -> RenderableType:
    """A player's table: the board, the auction, the play, whose turn, the match panel."""
    board = view.board
    me = view.seat
    who = f"you: {SEAT_NAMES[me]}, {team_name(view.match, view.team)}"
    parts: list[RenderableType] = []
    if board is None:
        parts.append(Text(f"No board in play · {who} · #{seq}", style="bold"))
    else:
        parts.append(Rule(_header(board, seq, who), style="cyan"))
        parts.append(compass(board, me))
        if board.auction or board.phase == "auction":
            parts.append(auction_grid(board))
        parts += _alert_lines(board)
        for index in board.questions:
            entry = board.auction[index]
            parts.append(
                Text.assemble(
                    ("QUESTION: ", "bold yellow"),
                    f"an opponent asks about your call #{index + 1} (",
                    call_text(entry.call),
                    f"): type explain {index + 1} TEXT",
                )
            )
        contract = _contract_line(board)
        if contract is not None and board.phase != "finished":
            parts.append(contract)
        parts += _claim_lines(board, me)
        if board.result is not None:
            parts.append(
                Text.assemble((f"Board {board.board} result: ", "bold"), result_text(board.result))
            )
        parts += _turn_lines(view, board)
    if with_chat and view.chat:
        parts.append(Text("Chat:", style="bold"))
        parts += [_chat_line(line.seat, line.text) for line in view.chat[-CHAT_SHOWN:]]
    parts += match_panel(view.match, view.table, view.team)
    return Group(*parts)


def render_watch(view: WatchView, seq: int, *, director: bool = False) -> RenderableType:
    """What spectators and the director see: both tables, all hands, the match panel."""
    parts: list[RenderableType] = []
    who = "director" if director else f"spectator ({view.mode})"
    if not view.tables:
        parts.append(Text(f"Nothing to show yet · {who} · #{seq}", style="bold"))
    for board in view.tables:
        parts.append(Rule(_header(board, seq, who), style="cyan"))
        parts.append(compass(board, None))
        if board.auction:
            parts.append(auction_grid(board))
        parts += _alert_lines(board)
        contract = _contract_line(board)
        if contract is not None and board.phase != "finished":
            parts.append(contract)
        parts += _claim_lines(board, None)
        if board.phase == "director" and board.claim is not None and director:
            low, high = ruling_range(board)
            parts.append(
                Text(
                    f"DIRECTOR: type rule {board.table} TRICKS, declarer's side's tricks in all "
                    f"({low} to {high})",
                    style=TURN_STYLE,
                )
            )
        if board.result is not None:
            parts.append(
                Text.assemble((f"Table {board.table} result: ", "bold"), result_text(board.result))
            )
        elif board.phase in ("auction", "play"):
            waiting = _waiting_for(board)
            parts.append(Text(f"{waiting[0].upper()}{waiting[1:]}."))
    parts += match_panel(view.match, None, None)
    return Group(*parts)


def ruling_range(board: BoardView) -> tuple[int, int]:
    """The declarer's side's tricks a ruling may give: those won so far to all the rest."""
    declarer = board.declarer or "N"
    won = board.tricks_ns if declarer in "NS" else board.tricks_ew
    remaining = board.claim.remaining if board.claim is not None else 0
    return won, won + remaining


def _chat_line(seat: str, text: str) -> Text:
    return Text.assemble((f"{SEAT_NAMES[seat]} says: ", "bold cyan"), text)


def event_lines(update: Update, me: str | None) -> list[Text]:
    """One line for each thing that happened worth telling apart from the table itself."""
    lines = []
    for event in update.events:
        line = _event_line(event, update, me)
        if line is not None:
            lines.append(Text("• ", style="dim").append_text(line))
    return lines


def _event_line(event: Event, update: Update, me: str | None) -> Text | None:
    view = update.view
    table_number = getattr(event, "table", None)
    at = f"Table {table_number}: " if isinstance(view, WatchView) and table_number else ""
    if isinstance(event, Snapshot | CallMade):
        return None
    if isinstance(event, CardPlayed):
        if event.trick_winner is None:
            return None
        board = _board_of(view, event.table)
        if board is None or not board.tricks:
            return None
        trick = board.tricks[-1]
        cards: list[Text] = []
        for played in trick.cards:
            cards += [Text(f" {played.seat} "), card_text(played.card)]
        return Text.assemble(
            at, f"Trick {len(board.tricks)} to {SEAT_NAMES[event.trick_winner]}:", *cards
        )
    if isinstance(event, BoardStarted):
        return Text(f"{at}Board {event.board} starts", style="bold")
    if isinstance(event, ClaimMade):
        return Text(f"{at}{SEAT_NAMES[event.claimer]} claims {event.tricks} tricks")
    if isinstance(event, ClaimAnswered):
        answer = "accepts" if event.accept else "rejects (the director is called)"
        return Text(f"{at}{SEAT_NAMES[event.seat]} {answer} the claim")
    if isinstance(event, DirectorRuled):
        return Text(f"{at}The director ruled: declarer's side takes {event.declarer_tricks}")
    if isinstance(event, BoardFinished):
        return Text.assemble(
            (f"{at}Board {event.result.board} result: ", "bold"), result_text(event.result)
        )
    if isinstance(event, BoardCompared):
        table = view.table if isinstance(view, PlayerView) else None
        return comparison_line(event.comparison, view.match, table)
    if isinstance(event, MatchFinished):
        return Text(final_words(view.match), style="bold reverse")
    if isinstance(event, ChatSent):
        return _chat_line(event.seat, event.text)
    if isinstance(event, QuestionAsked):
        if event.seat == me:
            return Text(f"You asked about call #{event.index + 1}: only the caller is told")
        return Text(
            f"{SEAT_NAMES[event.seat]} asks about your call #{event.index + 1}: "
            f"type explain {event.index + 1} TEXT",
            style="bold yellow",
        )
    if isinstance(event, CallExplained):
        return Text(f"{at}{SEAT_NAMES[event.seat]} explains call #{event.index + 1}: {event.text}")
    return None


def _board_of(view: PlayerView | WatchView, table: int) -> BoardView | None:
    if isinstance(view, PlayerView):
        return view.board
    return next((b for b in view.tables if b.table == table), None)


def last_trick_text(board: BoardView | None) -> Text:
    """The last completed trick, for ``last``."""
    if board is None or not board.tricks:
        return Text("No trick has been completed yet.")
    trick = board.tricks[-1]
    cards: list[Text] = []
    for played in trick.cards:
        cards += [Text(f" {SEAT_NAMES[played.seat]} "), card_text(played.card)]
    return Text.assemble(
        f"Trick {len(board.tricks)}, led by {SEAT_NAMES[trick.leader]}, won by "
        f"{SEAT_NAMES[trick.winner or trick.leader]}:",
        *cards,
    )


# -- input -----------------------------------------------------------------------------------


class LineReader:
    """Lines typed at the terminal, read without blocking the event loop: through the
    event loop's reader on the input's file descriptor when it has one the loop can
    watch (a terminal, a pipe), else by a daemon thread."""

    def __init__(self, stream: IO[str]) -> None:
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._fd: int | None = None
        self._pending = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            fd = stream.fileno()
            self._loop.add_reader(fd, self._readable)
            self._fd = fd
        except (AttributeError, OSError, ValueError, NotImplementedError):
            threading.Thread(target=self._read_lines, args=(stream,), daemon=True).start()

    def _readable(self) -> None:
        assert self._fd is not None
        try:
            data = os.read(self._fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""  # EIO: the terminal went away
        if not data:
            self.close()
            if self._pending:
                self._lines.put_nowait(self._pending)
            self._lines.put_nowait(None)
            return
        self._pending += self._decoder.decode(data)
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            self._lines.put_nowait(line.rstrip("\r"))

    def _read_lines(self, stream: IO[str]) -> None:
        def put(line: str | None) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody is listening
                self._loop.call_soon_threadsafe(self._lines.put_nowait, line)

        for line in iter(stream.readline, ""):
            put(line.rstrip("\r\n"))
        put(None)

    async def readline(self) -> str | None:
        """The next line typed, without its end; None once the input has ended."""
        return await self._lines.get()

    def close(self) -> None:
        if self._fd is not None:
            self._loop.remove_reader(self._fd)
            self._fd = None


# -- the table -------------------------------------------------------------------------------


QUIET_EVENTS = (ChatSent, QuestionAsked, CallExplained)
"""Events told in a line of their own, without printing the table again."""


class TerminalTable:
    """A connected client and what it prints: a table after each batch of updates, event
    lines, answers to commands, and the prompt."""

    def __init__(self, client: Client, console: Console) -> None:
        self.client = client
        self.console = console
        self._read = 0
        """How many of the client's received messages were shown."""
        self._shown_seq = -1
        self._at_prompt = False
        """Whether the last thing printed is the prompt (so it is not printed twice)."""

    @property
    def role(self) -> str:
        return self.client.welcome.role if self.client.welcome is not None else "player"

    @property
    def prompt_text(self) -> str:
        welcome = self.client.welcome
        if welcome is not None and welcome.seat is not None:
            return f"{SEAT_NAMES[welcome.seat]}> "
        return "Director> " if self.role == "director" else "Spectator> "

    def prompt(self) -> None:
        self.console.print(Text(self.prompt_text, style="bold"), end="")
        self.console.file.flush()
        self._at_prompt = True

    def say(self, message: Text | str, style: str = "") -> None:
        """A line of its own: a notice, a refusal, an answer to a command."""
        self.console.print(message if isinstance(message, Text) else Text(message, style=style))
        self._at_prompt = False

    def show_new(self) -> bool:
        """Print what the updates received since the last call did, then the table as the
        latest view shows it; False when there was nothing new."""
        received = self.client.received
        updates = [m for m in received[self._read :] if isinstance(m, Update)]
        self._read = len(received)
        if not updates or self.client.view is None:
            return False
        me = self.client.welcome.seat if self.client.welcome is not None else None
        self._shown_seq = self.client.seq
        self.console.print()
        for update in updates:
            for line in event_lines(update, me):
                self.console.print(line)
        if all(isinstance(e, QUIET_EVENTS) for u in updates for e in u.events):
            self.prompt()  # the line says it all: the table itself has not changed
            return True
        snapshot = any(isinstance(e, Snapshot) for u in updates for e in u.events)
        self.render(with_chat=snapshot)
        return True

    def render(self, *, with_chat: bool = False) -> None:
        view = self.client.view
        if isinstance(view, PlayerView):
            self.console.print(render_player(view, self.client.seq, with_chat=with_chat))
        elif isinstance(view, WatchView):
            self.console.print(
                render_watch(view, self.client.seq, director=self.role == "director")
            )
        self.prompt()

    async def watch(self) -> None:
        """Show every update as it comes; after a dropped connection, say so, resume with
        backoff, and say when it is back."""
        while True:
            try:
                await self.client.wait_for(
                    lambda _view: self.client.seq != self._shown_seq or None, timeout=None
                )
            except ClientError:
                self.show_new()
                await self.reconnect()
                continue
            self.show_new()

    async def reconnect(self) -> None:
        self.console.print()
        self.say("Connection lost: reconnecting...", style="bold red")
        self.console.file.flush()
        delay = BACKOFF_FIRST
        while True:
            try:
                await self.client.reconnect()
                break
            except ClientError as error:
                if error.code == ErrorCode.BAD_SEQUENCE:
                    self.client.seq = 0  # the server's log is not ours: start afresh
                    continue
                failure = error.message
            except (OSError, TimeoutError, WebSocketException) as error:
                failure = str(error) or type(error).__name__
            self.say(f"Still no connection ({failure}); trying again in {delay:g} s", "red")
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_LONGEST)
        self.say("Reconnected: the table is back.", style="bold green")
        if not self.show_new():
            self.render()

    async def command(self, line: str) -> bool:
        """Carry out one typed line; False once the player quits."""
        self._at_prompt = False  # the line typed ended with Enter
        view = self.client.view
        director = self.role == "director"
        try:
            command = parse_command(line, view, director=director)
        except CommandError as error:
            self.say(f"Not sent: {error}", style="bold yellow")
            self.prompt()
            return True
        if command is None:
            self.prompt()
            return True
        if isinstance(command, SimpleCommand):
            if command.name == "quit":
                self.say("Goodbye: come back any time with the same link.")
                return False
            if command.name == "help":
                self.say(WATCH_HELP if self.role != "player" else HELP)
            else:
                board = view.board if isinstance(view, PlayerView) else None
                self.say(last_trick_text(board))
            self.prompt()
            return True
        try:
            await self._send(command)
        except ClientError as error:
            if error.code == "closed":
                self.say("Not sent: the connection is down; wait until it is back", "bold red")
            else:
                self.say(f"Refused by the server: {error.message} ({error.code})", "bold red")
        except TimeoutError:
            self.say("No answer from the server: check the table before trying again", "red")
        if not self._at_prompt:
            self.prompt()
        return True

    async def _send(self, command: Command) -> None:
        client = self.client
        if isinstance(command, CallCommand):
            await client.call(command.call, command.alert)
        elif isinstance(command, CardCommand):
            await client.play(command.card)
        elif isinstance(command, ClaimCommand):
            await client.claim(command.tricks)
        elif isinstance(command, AnswerCommand):
            await client.answer_claim(command.accept)
        elif isinstance(command, AskCommand):
            await client.ask(command.index)
        elif isinstance(command, ExplainCommand):
            await client.explain(command.index, command.text)
        elif isinstance(command, SayCommand):
            await client.chat(command.text)
        elif isinstance(command, RuleCommand):
            await client.rule(command.table, command.declarer_tricks)


async def run_terminal(
    link: str, *, input_stream: IO[str] | None = None, output: IO[str] | None = None
) -> None:
    """Join with ``link`` and run the terminal table until ``quit`` or the end of the input.

    Raises :class:`ClientError` (or ``OSError``) when the first connection fails: a bad
    link, an unknown token, no server there."""
    console = Console(
        file=output if output is not None else sys.stdout, highlight=False, emoji=False
    )
    console.print(Text("Joining the table...", style="dim"))
    client = await Client.connect(link, name="duplicate-terminal")
    table = TerminalTable(client, console)
    welcome = client.welcome
    assert welcome is not None
    if welcome.seq > 0:  # a snapshot follows the welcome: commands are read against it
        await client.wait_for(lambda view: view)
    if welcome.seat is not None:
        console.print(
            Text(
                f"Joined match {welcome.match_id} as {SEAT_NAMES[welcome.seat]} at table "
                f"{welcome.table}. Type help for the commands.",
                style="bold",
            )
        )
    else:
        console.print(
            Text(f"Watching match {welcome.match_id} as {welcome.role}. Type help.", "bold")
        )
    lines = LineReader(input_stream if input_stream is not None else sys.stdin)
    watcher = asyncio.create_task(table.watch())
    try:
        if client.view is not None:
            table.show_new()
        while True:
            line = await lines.readline()
            if line is None:
                console.print()
                break
            if not await table.command(line):
                break
    finally:
        lines.close()
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        await client.close()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m clients.terminal LINK``: run the table; the exit status is 0 after
    ``quit``, 1 when the link does not join."""
    parser = argparse.ArgumentParser(
        prog="duplicate play", description="the duplicate bridge table in a terminal"
    )
    parser.add_argument("link", help="your seat's link (or the spectator's or director's)")
    args = parser.parse_args(argv)
    try:
        asyncio.run(run_terminal(args.link))
    except ClientError as error:
        print(f"duplicate play: cannot join: {error.message}", file=sys.stderr)
        return 1
    except (OSError, TimeoutError, WebSocketException) as error:
        print(f"duplicate play: cannot reach the server: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
