"""The terminal table: ``duplicate play SEAT-LINK``, the same table in a terminal.

A line-oriented, keyboard-only client for players, spectators and the director. It prints
the table after every update (hands with suit symbols and colours, who sits where and who
is away, the auction as a grid, the trick, whose turn it is, claims and requests to undo,
the match panel) and reads commands at a prompt while updates keep arriving. It needs no
full-screen mode, so it works over ssh, in a pseudo-terminal and in a plain pipe.

Every format is shown: the team formats with the teams' swings and running total; replay
duplicate and the individuals with the round, where the player sits and with whom, which
tables the round still waits for, where the player goes next, each play of a compared
board with the points it brought, and the standings.

    python -m clients.terminal http://127.0.0.1:8765/play#TOKEN --name Ann

Players type calls (``1nt``, ``p``, ``x``, ``xx``, ``2s!weak`` to alert with an explanation)
and cards (``sa``, ``h10`` or ``ht``, or only the rank when a single legal card has it:
``q``), and ``claim N [LINE]``, ``withdraw``, ``accept``, ``reject``, ``undo``, ``agree``,
``refuse``, ``ask N``, ``explain N TEXT``, ``say TEXT``, ``director [TEXT]``, ``name
NAME``, ``last``, ``replay [N]``, ``next``, ``prev``, ``next-board``, ``board N``,
``scores``, ``record FILE``; the director also ``say TABLE TEXT``, ``seen TABLE``,
``close TABLE``, ``rule``, ``undo TABLE``, ``agree TABLE``, ``refuse TABLE``, ``assign``, ``adjust``, ``void``,
``substitute`` and ``start N`` (a round held for the director). ``help`` lists the commands of the viewer's role. A command is parsed
straight into the protocol's message (:class:`protocol.messages.MakeCall`, ...) and
checked against the view first: what cannot be sent now is refused here, with the reason,
and nothing is sent.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import contextlib
import math
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from rich import box
from rich.console import Console, Group, RenderableType
from rich.rule import Rule as Divider
from rich.table import Table
from rich.text import Text
from websockets.exceptions import WebSocketException

from bridge import BridgeError
from bridge.commitment import verify_record
from clients.client import UNKNOWN_OUTCOME, Client, ClientError
from protocol.errors import ErrorCode
from protocol.messages import (
    AdjustScore,
    AnswerClaim,
    AnswerUndo,
    AskAboutCall,
    AssignResult,
    BoardCompared,
    BoardFinished,
    BoardRecord,
    BoardStarted,
    BoardView,
    CallDirector,
    CallExplained,
    CallMade,
    CardPlayed,
    ChatLine,
    ChatSent,
    ClaimAnswered,
    ClaimMade,
    ClaimWithdrawn,
    CloseCalls,
    ComparisonView,
    ConcessionWithdrawalAsked,
    ConcessionWithdrawalRefused,
    ConcessionWithdrawn,
    DecideWithdrawal,
    DirectorCalled,
    DirectorCallsClosed,
    DirectorCallsSeen,
    DirectorCallView,
    DirectorRuled,
    Event,
    ExplainCall,
    FaceLead,
    GetBoard,
    GetRecord,
    LeadFaceDown,
    MakeCall,
    MakeClaim,
    MatchFinished,
    MatchRecord,
    MatchSummary,
    NameSet,
    NextBoard,
    NextSeat,
    PlayCard,
    PlayerInfo,
    PlayerView,
    PresenceChanged,
    QuestionAsked,
    ReadyForNext,
    ResultAssigned,
    ReviewEnded,
    RoundClock,
    Rule,
    Seat,
    SeatSubstituted,
    SeeCalls,
    SendChat,
    ServerMessage,
    SetName,
    Snapshot,
    Standing,
    StartRound,
    Substitute,
    Substituted,
    TableAction,
    TableResultView,
    TimeUp,
    TrickView,
    Undo,
    UndoAnswered,
    Undone,
    UndoRequested,
    Update,
    VoidBoard,
    WatchView,
    WithdrawClaim,
    WithdrawConcession,
)

__all__ = [
    "Command",
    "CommandError",
    "LocalCommand",
    "ReplayCommand",
    "SaveRecordCommand",
    "Sendable",
    "TerminalTable",
    "VerifyDealsCommand",
    "board_record_screen",
    "card_text",
    "contract_text",
    "main",
    "parse_call",
    "parse_card",
    "parse_command",
    "render_player",
    "render_watch",
    "replay_screen",
    "result_text",
    "run_terminal",
    "score_sheet",
]

SEAT_NAMES: dict[str, str] = {"N": "North", "E": "East", "S": "South", "W": "West"}
SEAT_LETTERS: dict[str, Seat] = {"n": "N", "e": "E", "s": "S", "w": "W"}
PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}
SEAT_ORDER: tuple[Seat, ...] = ("N", "E", "S", "W")
LHO = {"N": "E", "E": "S", "S": "W", "W": "N"}
RHO = {"N": "W", "E": "N", "S": "E", "W": "S"}
SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_STYLES = {"S": "bold", "H": "bold red", "D": "bold dark_orange", "C": "bold green"}
"""A four-colour deck: spades in the terminal's own colour, so they show on any background."""
RANKS = "AKQJT98765432"
VULNERABLE_STYLE = "bold red"
TURN_STYLE = "bold reverse"
AWAY_STYLE = "bold yellow"
CHAT_SHOWN = 5
DIRECTOR_CHAT_SHOWN = 10
COMPASS_SIDE = 22
COMPASS_MIDDLE = 25
NAME_SHOWN = 18
"""The longest name shown beside a seat in the compass (names run up to 40 characters)."""
COMPARISONS_SHOWN = 6
ROBOT_NAMES = {"Robot": "robot", "Robot (strong)": "strong robot"}
"""The names the server gives its robots, by level: a robot is shown by its number instead."""
TEAM_FORMATS = ("teams", "robot-table", "team-of-four")
POINT_PLACES = {"imps": 1, "matchpoints": 2, "board_a_match": 2, "total_points": 0}
"""Decimals shown of a score: cross-IMPs to one, matchpoints and board-a-match as they come
(halves, quarters), total points whole."""
POINT_UNITS = {
    "imps": ("IMP", "IMPs"),
    "matchpoints": ("matchpoint", "matchpoints"),
    "board_a_match": ("point", "points"),
    "total_points": ("point", "points"),
}
SCORING_WORDS = {
    "imps": "IMPs",
    "matchpoints": "matchpoints",
    "board_a_match": "board-a-match",
    "total_points": "total points",
}
STANDINGS_PER_ROW = 3
"""Competitors side by side in the standings of a long list (an individual's)."""
BACKOFF_FIRST = 0.5
BACKOFF_LONGEST = 15.0
MAX_TEXT = 300
MAX_NAME = 40

PLAYER_HELP = """\
Commands (type one and press Enter):
  a call           1nt  1c  p (pass)  x (double)  xx (redouble)
                   2s!text  or  2s ! text   alert the call, with its explanation
  a card           sa  h10 (or ht)  as  10h ... or only the rank (q) when one legal card has it;
                   declarer plays dummy's cards the same way, on dummy's turn
  face             your partner led face down (law 41A): done asking about the
                   auction, face the lead (it is played, dummy goes down)
  claim N [LINE]   claim N of the remaining tricks (fewer than all concedes the rest),
                   with your line of play: claim 9 cash the spades, then the hearts
  withdraw         withdraw your pending claim: play goes on
  accept, reject   accept or reject an opponent's claim (rejected: play goes on)
  withdraw-concession yes   after an accepted claim, before the next board: ask the
                   director to let your side withdraw its concession (laws 69 and 71);
                   allowed, the play resumes
  undo             ask to take back your last call or card (the opponents decide)
  agree, refuse    answer an opponent's request to take back a call or card
  ask N            ask the opponent what call #N means (the numbers are in the auction)
  explain N TEXT   explain your own call #N to the opponents (also to answer a question)
  say TEXT         table chat (the match's chat mode says whom it reaches)
  chat             the table's chat so far
  director [TEXT]  call the director to the table, maybe saying why
  name NAME        your name at the table (when the organiser gave none)
  last             the last trick, while the laws let you see it
  replay [N]       after a board: its tricks one by one (then next, prev, or replay N)
  next-board, n    done with the finished board: on to the next one
  board N          board N as the tables played it (once all have finished it)
  scores           the score sheet so far
  record FILE      save the match record (every board finished at both tables): PBN,
                   or LIN (BBO) when FILE ends .lin
  verify           once the match is over: are its deals the ones committed to?
  table            show the table again
  help             this list
  quit             leave the table (you can come back with the same link)"""

SPECTATOR_HELP = """\
Commands (type one and press Enter):
  board N          board N as the tables played it (as far as you may see it)
  scores           the score sheet so far
  record FILE      save the match record (every board finished at both tables): PBN,
                   or LIN (BBO) when FILE ends .lin
  verify           once the match is over: are its deals the ones committed to?
  last             each table's last trick
  table            show the tables again
  help             this list
  quit             stop watching"""

DIRECTOR_HELP = """\
Commands (type one and press Enter):
  say TABLE TEXT          to the four players at TABLE (answers the table's calls)
  seen TABLE              TABLE's calls for the director are seen: you are on your way
  close TABLE             TABLE's calls are dealt with (a ruling on their board closes
                          them too)
  withdrawal TABLE allow|refuse   a player at TABLE asked to withdraw a concession:
                          allow it (the play resumes) or refuse it (it stands)
  chat                    every chat line of every table
  rule TABLE TRICKS       end the play at TABLE (any time during the play), declarer's
                          side taking TRICKS in all (tricks already won included)
  undo TABLE              take back TABLE's last call or card at once
  agree TABLE, refuse TABLE   decide TABLE's pending request to take back a call or card
  assign TABLE BOARD CONTRACT DECLARER TRICKS   an assigned adjusted score, like
                          assign 1 3 4sx n 9  (or assign TABLE BOARD pass: passed out)
  adjust BOARD IMPS       an artificial adjusted score: IMPs to team A, like adjust 3 +3
  void BOARD              void a board: it counts for no one
  substitute TABLE SEAT [robot]   a new player for a seat (a new link; the old one
                          stops working), or the server's robot
  start N                 start round N, which waits for you once every table has
                          played the round before (or just start: the round waiting)
  board N                 board N as the tables played it
  scores                  the score sheet so far
  record FILE             save the match record (every board finished at both tables):
                          PBN, or LIN (BBO) when FILE ends .lin
  verify                  once the match is over: are its deals the ones committed to?
  last                    each table's last trick
  table                   show the tables again
  help                    this list
  quit                    stop directing (come back any time with the same link)"""


def now_ms() -> int:
    """This machine's clock in milliseconds since the epoch, like the server's ``at``."""
    return int(time.time() * 1000)


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
    >>> result_text(TableResultView(table=1, board=1, contract="4S", declarer="S",
    ...     tricks=10, ns_score=420, ruled=True)).plain
    '4♠ by South, 10 tricks (made): N-S +420 (tricks ruled by the director)'
    """
    assigned = (
        " (assigned by the director)"
        if result.assigned
        else " (tricks ruled by the director)"
        if result.ruled
        else ""
    )
    if result.contract is None or result.declarer is None:
        return Text(f"passed out: 0{assigned}")
    needed = int(result.contract[0]) + 6
    over = result.tricks - needed
    outcome = "made" if over == 0 else f"made +{over}" if over > 0 else f"down {-over}"
    return Text.assemble(
        contract_text(result.contract),
        f" by {SEAT_NAMES[result.declarer]}, {result.tricks} tricks ({outcome}): ",
        (score_words(result.ns_score), "bold"),
        assigned,
    )


def short_result(result: TableResultView | None) -> Text:
    """``1♣ N +3 (N-S +130)``: a result in a comparison line; ``—`` for none.

    >>> short_result(TableResultView(table=1, board=1, contract="3NT", declarer="S",
    ...     tricks=9, ns_score=400, assigned=True)).plain
    '3NT S = (N-S +400, assigned)'
    """
    if result is None:
        return Text("—", style="dim")
    assigned = ", assigned" if result.assigned else ", ruled" if result.ruled else ""
    if result.contract is None or result.declarer is None:
        return Text(f"passed out (0{assigned})")
    over = result.tricks - int(result.contract[0]) - 6
    outcome = "=" if over == 0 else f"{over:+d}"
    return Text.assemble(
        contract_text(result.contract),
        f" {result.declarer} {outcome} ({score_words(result.ns_score)}{assigned})",
    )


def vulnerability_words(vulnerability: str) -> str:
    return {"None": "none", "NS": "N-S", "EW": "E-W", "All": "all"}[vulnerability]


def is_vulnerable(seat: str, vulnerability: str) -> bool:
    return vulnerability == "All" or seat in vulnerability


def team_name(match: MatchSummary, team: str) -> str:
    return match.team_a if team == "A" else match.team_b


def is_team_match(match: MatchSummary) -> bool:
    """Whether two teams play the match (``teams``, ``robot-table``, ``team-of-four``):
    IMPs swing between them; the other formats rank pairs or players in standings."""
    return match.format in TEAM_FORMATS


def has_rounds(match: MatchSummary) -> bool:
    """Whether players may change tables or seats between rounds: the round is shown."""
    return match.rounds > 1 or not is_team_match(match)


def table_numbers(match: MatchSummary, seen: Iterable[int] = ()) -> list[int]:
    """The match's tables: one in replay duplicate, two or three in an individual (one for
    each four players), two in the team formats; any ``seen`` in a view besides."""
    if match.format == "replay":
        count = 1
    elif match.format == "individual":
        count = max(2, len(match.standings) // 4)
    else:
        count = 2
    return sorted(set(range(1, count + 1)) | set(seen))


def points_text(points: float, scoring: str, *, signed: bool = False) -> str:
    """Points as the match is scored: IMPs with one decimal when fractional (cross-IMPs),
    matchpoints and board-a-match as they come, total points whole; ``signed``: with a
    ``+`` when above zero.

    >>> points_text(10 / 3, "imps"), points_text(1.5, "board_a_match"), points_text(3.0, "imps")
    ('3.3', '1.5', '3')
    >>> points_text(420.0, "total_points", signed=True), points_text(-2.5, "imps", signed=True)
    ('+420', '-2.5')
    """
    shown = round(points) if scoring == "total_points" else round(points, POINT_PLACES[scoring])
    if shown == 0:
        shown = 0  # no "-0"
    text = str(int(abs(shown))) if shown == int(shown) else f"{abs(shown):g}"
    return ("-" if shown < 0 else "+" if signed and shown > 0 else "") + text


def points_words(points: float, scoring: str, *, signed: bool = False) -> str:
    """Points with their unit: ``3.3 IMPs``, ``1 IMP``, ``2 matchpoints``, ``+420 points``.

    >>> points_words(1.0, "imps"), points_words(0.5, "board_a_match")
    ('1 IMP', '0.5 points')
    """
    text = points_text(points, scoring, signed=signed)
    one, many = POINT_UNITS[scoring]
    return f"{text} {one if text.lstrip('+-') == '1' else many}"


def _signs_points(scoring: str) -> bool:
    """Whether a board's points may be below zero (then shown with their sign)."""
    return scoring in ("imps", "total_points")


def competitor_name(match: MatchSummary, competitor: str) -> str:
    """A competitor's name in the standings: a team's name, a pair's or a player's names
    (``player 7`` or ``pair 1-3`` before the standings name them)."""
    standing = next((s for s in match.standings if s.competitor == competitor), None)
    if standing is not None:
        return standing_name(standing)
    if competitor in ("A", "B"):
        return team_name(match, competitor)
    return f"player {competitor}" if competitor.isdigit() else f"pair {competitor}"


def side_words(view: PlayerView) -> str:
    """What the player plays for: their team's name, ``player 5`` or ``pair 1-3``."""
    if view.team is not None:
        return team_name(view.match, view.team)
    if view.competitor == str(view.player):
        return f"player {view.player}"
    return f"pair {view.competitor}"


def player_name(number: int, names: Mapping[str, str], players: Sequence[PlayerInfo] = ()) -> str:
    """A player's name by their number: from the players at the table, else ``names`` (a
    next seat's), else ``player 5``; a robot without a name of its own (the server calls
    its robots ``Robot``, or ``Robot (strong)``) is ``player 6 (robot)``, ``player 8
    (strong robot)``.

    >>> player_name(5, {"5": "Bo"}), player_name(6, {}), player_name(7, {"7": "Robot"})
    ('Bo', 'player 6', 'player 7 (robot)')
    >>> player_name(8, {"8": "Robot (strong)"})
    'player 8 (strong robot)'
    """
    info = next((p for p in players if p.player == number), None)
    name = info.name if info is not None and info.name is not None else names.get(str(number))
    robot = info.robot if info is not None else name in ROBOT_NAMES
    if name is None or (robot and name in ROBOT_NAMES):
        kind = ROBOT_NAMES.get(name or "Robot", "robot")
        return f"player {number}" + (f" ({kind})" if robot else "")
    return name


def standing_name(standing: Standing) -> str:
    """A competitor's name in the standings, its robots (named ``Robot`` by the server)
    told apart by their numbers: ``Ann & player 3 (robot)``."""
    parts = standing.name.split(" & ")
    if len(parts) != len(standing.players):
        return standing.name
    return " & ".join(
        player_name(number, {str(number): part})
        for number, part in zip(standing.players, parts, strict=True)
    )


def duration_words(milliseconds: int) -> str:
    """How long, as a person says it at the table.

    >>> duration_words(20_000), duration_words(150_000), duration_words(3_900_000)
    ('<1 min', '2 min', '1 h 5 min')
    """
    minutes = max(0, milliseconds) // 60_000
    if minutes < 1:
        return "<1 min"
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"


def _find_player(players: Sequence[PlayerInfo], table: int, seat: str) -> PlayerInfo | None:
    return next((p for p in players if p.table == table and p.seat == seat), None)


def is_away(info: PlayerInfo | None) -> bool:
    """A person's seat with nobody connected (robots are never away)."""
    return info is not None and not info.connected and not info.robot


def presence_words(info: PlayerInfo | None, now: int) -> str | None:
    """``robot``, ``away 2 min``, ``not here yet``, or None for a person at the table."""
    if info is None:
        return None
    if info.robot:
        return "robot"
    if info.connected:
        return None
    if info.since is None:
        return "not here yet"
    return f"away {duration_words(now - info.since)}"


def seat_words(seat: str, info: PlayerInfo | None) -> str:
    """A seat and who sits there: ``East (Bob)``, ``West (robot)``, ``North``.

    >>> seat_words("E", PlayerInfo(table=1, seat="E", name="Bob", connected=True))
    'East (Bob)'
    """
    name = SEAT_NAMES[seat]
    if info is None:
        return name
    if info.name is not None and not (info.robot and info.name == "Robot"):
        return f"{name} ({info.name})"
    return f"{name} (robot)" if info.robot else name


def audience_words(sender: str | None, to: Sequence[str]) -> str:
    """Whom a chat line reached, from the sender's seat (None: the director).

    >>> audience_words("N", ["N", "E", "W"]), audience_words(None, ["N", "E", "S", "W"])
    ('to the opponents', 'to the table')
    """
    reached = set(to)
    if reached == set("NESW"):
        return "to the table"
    if sender is not None and reached == {sender, LHO[sender], RHO[sender]}:
        return "to the opponents"
    others = [SEAT_NAMES[s] for s in "NESW" if s in reached and s != sender]
    return "to " + (" and ".join(others) if others else "nobody")


def _undo_what(call: str | None, card: str | None) -> Text:
    if call is not None:
        return call_text(call)
    if card is not None:
        return card_text(card)
    return Text("last action")


# -- commands --------------------------------------------------------------------------------


class CommandError(ValueError):
    """A command the table cannot send: its message says what to type instead."""


@dataclass(frozen=True, slots=True)
class LocalCommand:
    """A command answered here, without the server."""

    name: Literal["help", "last", "table", "scores", "chat", "quit"]


@dataclass(frozen=True, slots=True)
class ReplayCommand:
    """Go through the finished board's tricks: the first, the next, the previous, or trick N."""

    step: Literal["first", "next", "prev"] | int


@dataclass(frozen=True, slots=True)
class SaveRecordCommand:
    """Ask for the match record (``get_record``) and save it to ``path``: as LIN when the
    path ends ``.lin``, else as PBN."""

    path: str

    @property
    def format(self) -> Literal["pbn", "lin"]:
        return "lin" if self.path.lower().endswith(".lin") else "pbn"


@dataclass(frozen=True, slots=True)
class VerifyDealsCommand:
    """Ask for the match record and check its deals against the commitment the views
    carried from the start (:func:`bridge.commitment.verify_record`)."""


Sendable = TableAction | Substitute | GetBoard
"""The protocol's messages a typed command becomes (sent as they are, with a ``ref``)."""

Command = Sendable | LocalCommand | ReplayCommand | SaveRecordCommand | VerifyDealsCommand

_SYMBOL_LETTERS = str.maketrans(
    {"♠": "s", "♥": "h", "♦": "d", "♣": "c"} | dict.fromkeys("♤♡♢♧", "")
)
_BID = re.compile(r"^([1-7])(c|d|h|s|n|nt)$")
_CONTRACT = re.compile(r"^([1-7])(c|d|h|s|n|nt)(x|xx)?$")
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
_SEAT_WORDS: dict[str, Seat] = {
    **SEAT_LETTERS,
    "north": "N",
    "east": "E",
    "south": "S",
    "west": "W",
}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _normalise(word: str) -> str:
    return word.strip().lower().replace(" ", "").translate(_SYMBOL_LETTERS)


def parse_call(text: str) -> MakeCall:
    """A call as typed: ``1nt``, ``1n``, ``p``, ``x``, ``xx``, ``2s!weak`` (alerted).

    >>> parse_call("2s ! weak, 6-10")
    MakeCall(type='call', call='2S', alert='weak, 6-10', action_id=None, ref=None)
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
    _check_text(explanation, "an explanation")
    return MakeCall(call=call, alert=explanation or None)


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


def parse_contract(text: str) -> str:
    """A contract as typed: ``4s``, ``3nt``, ``4♠x``, ``6hxx`` -> ``"4S"``, ``"3NT"``, ...

    >>> parse_contract("4♠x"), parse_contract("3n"), parse_contract("6HXX")
    ('4SX', '3NT', '6HXX')
    """
    found = _CONTRACT.match(_normalise(text))
    if found is None:
        raise CommandError(f"{text!r} is not a contract: type it like 4s, 3nt, 4sx or 6hxx")
    strain = found.group(2).upper()
    return (
        found.group(1)
        + ("NT" if strain.startswith("N") else strain)
        + (found.group(3) or "").upper()
    )


def parse_seat(text: str) -> Seat:
    """``n``, ``North``, ... -> ``"N"``."""
    seat = _SEAT_WORDS.get(text.strip().lower())
    if seat is None:
        raise CommandError(f"{text!r} is not a seat: type n, e, s or w")
    return seat


def plain_cards(cards: Sequence[str]) -> str:
    return " ".join(card_text(card).plain for card in cards)


def _number(word: str, what: str) -> int:
    if not word.isdigit():
        raise CommandError(f"{what} must be a number, not {word!r}")
    return int(word)


def _signed(word: str, what: str) -> int:
    if not re.fullmatch(r"[+-]?\d+", word):
        raise CommandError(f"{what} must be a whole number like +3 or -2, not {word!r}")
    return int(word)


def _check_text(text: str, what: str) -> None:
    if len(text) > MAX_TEXT:
        raise CommandError(f"{what} has at most {MAX_TEXT} characters")
    if _CONTROL.search(text):
        raise CommandError(f"{what} may not hold control characters")


def _check_board(number: int, view: PlayerView | WatchView | None) -> None:
    if view is not None and number not in view.match.boards:
        boards = view.match.boards
        span = f"{boards[0]} to {boards[-1]}" if boards else "none"
        raise CommandError(f"there is no board {number} in this match (boards {span})")


def _check_table(table: int, view: WatchView | None) -> None:
    tables = [1, 2]
    if view is not None:
        seen = [b.table for b in view.tables] + [p.table for p in view.players]
        tables = table_numbers(view.match, seen)
    if table not in tables:
        if len(tables) == 1:
            raise CommandError(f"there is no table {table}: there is only table {tables[0]}")
        listed = ", ".join(map(str, tables[:-1])) + f" and {tables[-1]}"
        raise CommandError(f"there is no table {table}: the tables are {listed}")


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
    that should not be sent now. Spectators and the director (``director``) have their
    own commands.

    >>> parse_command("claim 3 the rest are good", None)
    MakeClaim(type='claim', tricks=3, statement='the rest are good', action_id=None, ref=None)
    >>> parse_command("adjust 3 +3", None, director=True)
    AdjustScore(type='adjust_score', board=3, imps_a=3, action_id=None, ref=None)
    >>> parse_command("replay 4", None)
    ReplayCommand(step=4)
    """
    line = text.strip()
    if not line:
        return None
    words = line.split()
    verb = words[0].lower()
    rest = line[len(words[0]) :].strip()
    common = _parse_common(verb, words, rest, view)
    if common is not None:
        return common
    if isinstance(view, WatchView) or (view is None and director):
        return _parse_watcher(verb, words, rest, view, director=director)
    return _parse_player(verb, words, rest, line, view)


def _parse_common(
    verb: str, words: list[str], rest: str, view: PlayerView | WatchView | None
) -> Command | None:
    """The commands everyone has."""
    if verb in ("quit", "exit"):
        return LocalCommand("quit")
    if verb in ("help", "?"):
        return LocalCommand("help")
    if verb == "table":
        return LocalCommand("table")
    if verb in ("scores", "score"):
        return LocalCommand("scores")
    if verb == "last":
        return LocalCommand("last")
    if verb == "chat" and len(words) == 1:
        return LocalCommand("chat")
    if verb == "board":
        if len(words) != 2:
            raise CommandError("type board N, like board 3")
        number = _number(words[1], "the board")
        _check_board(number, view)
        return GetBoard(board=number)
    if verb == "record":
        if not rest:
            raise CommandError("type record FILE, like record match.pbn")
        return SaveRecordCommand(rest)
    if verb == "verify":
        if view is None or not view.match.finished:
            raise CommandError("the deals are published when the match is over: verify then")
        return VerifyDealsCommand()
    return None


def _parse_player(
    verb: str, words: list[str], rest: str, line: str, view: PlayerView | WatchView | None
) -> Command:
    player = view if isinstance(view, PlayerView) else None
    board = None if player is None else player.board
    actions = [] if board is None else board.actions
    if verb == "replay":
        if len(words) > 2:
            raise CommandError("type replay, or replay N for trick N")
        return ReplayCommand(_number(words[1], "the trick") if len(words) == 2 else "first")
    if verb in ("next", "prev", "previous") and len(words) == 1:
        return ReplayCommand("next" if verb == "next" else "prev")
    if verb in ("next-board", "nextboard", "n", "nb"):
        if len(words) != 1:
            raise CommandError(f"type just {verb}")
        if "next_board" not in actions and player is not None:
            review = player.review
            if review is None:
                raise CommandError("no finished board is on review now")
            waiting = [SEAT_NAMES[s] for s in "NESW" if s not in review.ready]
            raise CommandError(
                "you have already asked for the next board"
                + (f": waiting for {' and '.join(waiting)}" if waiting else "")
            )
        return NextBoard()
    if verb in ("say", "chat"):
        if not rest:
            raise CommandError("type say and your message, like: say well played")
        _check_text(rest, "a chat line")
        if (
            player is not None
            and player.match.chat == "off"
            and board is not None
            and board.phase != "finished"
        ):
            raise CommandError(
                "table chat is off during a board in this match: it opens between boards "
                "(to call the director, type director TEXT)"
            )
        return SendChat(text=rest)
    if verb == "director":
        _check_text(rest, "a word for the director")
        return CallDirector(text=rest or None)
    if verb == "name":
        if not rest:
            raise CommandError("type name and your name, like: name Ann")
        if len(rest) > MAX_NAME or _CONTROL.search(rest):
            raise CommandError(f"a name has 1 to {MAX_NAME} characters, no control characters")
        return SetName(name=rest)
    if verb == "claim":
        return _parse_claim(words, rest, player)
    if verb == "face" and len(words) == 1:
        if "face_lead" not in actions:
            raise CommandError("there is no opening lead of your partner's face down to face")
        return FaceLead()
    if verb == "withdraw" and len(words) == 1:
        if "withdraw_claim" not in actions:
            raise CommandError("you have no pending claim to withdraw")
        return WithdrawClaim()
    lowered = line.lower().split()
    if verb in ("withdraw-concession", "withdrawconcession") or lowered[:2] == [
        "withdraw",
        "concession",
    ]:
        if "withdraw_concession" not in actions:
            raise CommandError(
                "there is no concession of your side to withdraw: that is only after an "
                "accepted claim conceded tricks, before the next board starts"
            )
        if lowered[-1] != "yes":
            raise CommandError(
                "withdrawing a concession needs the director (laws 69 and 71): they are "
                "called, and the board stays finished until they decide; to ask, type "
                "withdraw-concession yes"
            )
        return WithdrawConcession()
    if verb in ("accept", "reject"):
        if len(words) != 1:
            raise CommandError(f"type just {verb}")
        if "claim_answer" not in actions:
            claim = None if board is None else board.claim
            if claim is not None and claim.status == "pending" and player is not None:
                if player.seat in claim.accepted:
                    raise CommandError("you have already accepted this claim")
                if player.seat == claim.claimer:
                    raise CommandError("the claim is yours: type withdraw to withdraw it")
                raise CommandError("the claim is not yours to decide")
            raise CommandError("there is no claim for you to accept or reject")
        return AnswerClaim(accept=verb == "accept")
    if verb == "undo":
        if len(words) != 1:
            raise CommandError("type just undo: it asks to take back your own last call or card")
        if "undo" not in actions and player is not None:
            raise CommandError(_why_no_undo(player))
        return Undo()
    if verb in ("agree", "refuse"):
        if len(words) != 1:
            raise CommandError(f"type just {verb}")
        if "undo_answer" not in actions:
            raise CommandError("no request to take back a call or card waits for your answer")
        return AnswerUndo(accept=verb == "agree")
    if verb == "ask":
        if len(words) != 2:
            raise CommandError("type ask N, N being the call's number (#N in the auction)")
        return AskAboutCall(index=_call_number(words, "ask", view))
    if verb == "explain":
        index = _call_number(words, "explain", view)
        explanation = line.split(None, 2)[2].strip() if len(words) > 2 else ""
        if not explanation:
            raise CommandError(f"type explain {index + 1} and the explanation")
        _check_text(explanation, "an explanation")
        return ExplainCall(index=index, text=explanation)
    if verb in _DIRECTOR_VERBS:
        raise CommandError(f"only the director may {verb} (to call the director: director TEXT)")
    return _parse_action(line, player)


def _parse_claim(words: list[str], rest: str, player: PlayerView | None) -> MakeClaim:
    if len(words) < 2:
        raise CommandError("type claim N, N being the tricks you claim of those remaining")
    tricks = _number(words[1], "the tricks claimed")
    statement = rest[len(words[1]) :].strip()
    _check_text(statement, "the statement of a claim")
    board = None if player is None else player.board
    if player is not None and (board is None or "claim" not in board.actions):
        raise CommandError(_why_no_claim(player))
    remaining = 13 if board is None else 13 - board.tricks_ns - board.tricks_ew
    if tricks > remaining:
        raise CommandError(f"a claim is of 0 to {remaining} tricks: {remaining} remain")
    return MakeClaim(tricks=tricks, statement=statement or None)


def _why_no_claim(player: PlayerView) -> str:
    board = player.board
    if board is None or board.phase == "finished":
        return "there is no board in play to claim on"
    if board.phase == "auction":
        return "the auction is still on: a claim comes in the play"
    if board.dummy == player.seat:
        return "dummy takes no part in the play and cannot claim"
    if board.undo is not None:
        return "a request to take back a card waits for its answer first"
    return "a claim is already pending: it must be settled first"


def _why_no_undo(player: PlayerView) -> str:
    board = player.board
    if board is None or board.phase == "finished":
        return "there is no board in play: nothing to take back"
    if board.undo is not None:
        return "a request to take back a call or card is already waiting for its answer"
    if board.phase == "claim":
        return "a claim is pending: withdraw it or wait for the answer first"
    if board.phase == "play" and board.dummy == player.seat:
        return "dummy's cards are declarer's to take back"
    return (
        "you may take back only your own last call or card, and only before anyone has "
        "called or played after it"
    )


_DIRECTOR_VERBS = (
    "rule",
    "assign",
    "adjust",
    "void",
    "substitute",
    "start",
    "seen",
    "close",
    "withdrawal",
)


def _parse_watcher(
    verb: str, words: list[str], rest: str, view: WatchView | None, *, director: bool
) -> Command:
    directing = (
        "say",
        "seen",
        "close",
        "withdrawal",
        "rule",
        "undo",
        "agree",
        "refuse",
        "assign",
        "adjust",
        "void",
        "substitute",
        "start",
    )
    if verb == "chat":
        verb = "say"
    if verb not in directing:
        allowed = "type help for the director's commands" if director else "type help"
        raise CommandError(f"{words[0]!r} is not a command here: you are watching ({allowed})")
    if not director:
        raise CommandError(f"only the director may {verb}: spectators watch (type help)")
    if verb == "say":
        if len(words) < 3:
            raise CommandError("type say TABLE TEXT, like: say 1 I am on my way")
        table = _number(words[1], "the table")
        _check_table(table, view)
        text = rest[len(words[1]) :].strip()
        _check_text(text, "a chat line")
        return SendChat(text=text, table=table)
    if verb in ("seen", "close"):
        if len(words) != 2:
            raise CommandError(f"type {verb} TABLE, like {verb} 1")
        table = _number(words[1], "the table")
        _check_table(table, view)
        if view is not None:
            calls = [c for c in view.director_calls + view.answered_calls if c.table == table]
            if verb == "seen" and not any(c.state == "open" for c in calls):
                raise CommandError(f"no new call for the director waits at table {table}")
            if not calls:
                raise CommandError(f"no call for the director is open at table {table}")
        return SeeCalls(table=table) if verb == "seen" else CloseCalls(table=table)
    if verb == "withdrawal":
        if len(words) != 3 or words[2].lower() not in ("allow", "refuse"):
            raise CommandError("type withdrawal TABLE allow, or withdrawal TABLE refuse")
        table = _number(words[1], "the table")
        _check_table(table, view)
        board = _table_board(view, table)
        if view is not None and (
            board is None or board.claim is None or not board.claim.withdrawal
        ):
            raise CommandError(f"nobody at table {table} asked to withdraw a concession")
        return DecideWithdrawal(table=table, allow=words[2].lower() == "allow")
    if verb == "rule":
        if len(words) != 3:
            raise CommandError("type rule TABLE TRICKS, like rule 1 9")
        table = _number(words[1], "the table")
        tricks = _number(words[2], "the tricks")
        _check_table(table, view)
        if tricks > 13:
            raise CommandError("declarer's side takes 0 to 13 tricks")
        board = _table_board(view, table)
        if view is not None:
            if board is None or board.phase not in ("play", "claim"):
                raise CommandError(f"table {table} is not in the play: there is nothing to rule")
            low, high = ruling_range(board)
            if not low <= tricks <= high:
                raise CommandError(
                    f"at table {table} declarer's side can end with {low} to {high} tricks"
                )
        return Rule(table=table, declarer_tricks=tricks)
    if verb == "undo":
        if len(words) != 2:
            raise CommandError("type undo TABLE: it takes back the table's last call or card")
        table = _number(words[1], "the table")
        _check_table(table, view)
        board = _table_board(view, table)
        if view is not None:
            if board is None or board.phase == "finished":
                raise CommandError(f"table {table} has no board in play: nothing to take back")
            if not board.auction:
                raise CommandError(f"nothing has been called at table {table} yet")
            if board.phase == "claim":
                raise CommandError(f"a claim is pending at table {table}: it must be settled first")
        return Undo(table=table)
    if verb in ("agree", "refuse"):
        if len(words) != 2:
            raise CommandError(f"type {verb} TABLE: it decides the table's request to undo")
        table = _number(words[1], "the table")
        _check_table(table, view)
        board = _table_board(view, table)
        if view is not None and (board is None or board.undo is None):
            raise CommandError(f"no request to take back a call or card waits at table {table}")
        return AnswerUndo(accept=verb == "agree", table=table)
    if verb == "assign":
        return _parse_assign(words, view)
    if verb in ("adjust", "void"):
        want = 3 if verb == "adjust" else 2
        if len(words) != want:
            raise CommandError(
                "type adjust BOARD IMPS, like adjust 3 +3 (IMPs to team A)"
                if verb == "adjust"
                else "type void BOARD, like void 3"
            )
        number = _number(words[1], "the board")
        _check_board(number, view)
        if verb == "void":
            return VoidBoard(board=number)
        if view is not None and not is_team_match(view.match):
            raise CommandError(
                "an artificial adjusted score gives IMPs to team A: this match has no teams "
                "(void the board instead)"
            )
        imps = _signed(words[2], "the IMPs")
        if not -24 <= imps <= 24:
            raise CommandError("an artificial adjusted score is of -24 to +24 IMPs")
        return AdjustScore(board=number, imps_a=imps)
    if verb == "start":
        return _parse_start(words, view)
    # substitute
    if len(words) not in (3, 4) or (len(words) == 4 and words[3].lower() != "robot"):
        raise CommandError("type substitute TABLE SEAT, or substitute TABLE SEAT robot")
    table = _number(words[1], "the table")
    _check_table(table, view)
    seat = parse_seat(words[2])
    if view is not None and table == 2 and not any(p.table == 2 for p in view.players):
        raise CommandError("table 2 is the robots' table in this match")
    return Substitute(table=table, seat=seat, robot=len(words) == 4)


def _parse_start(words: list[str], view: WatchView | None) -> StartRound:
    """``start N`` (``start round N``, or just ``start`` for the round that waits): start
    a round the match holds for the director."""
    numbers = words[2:] if len(words) > 1 and words[1].lower() == "round" else words[1:]
    if len(numbers) > 1:
        raise CommandError("type start N, like start 2: it starts round N")
    held = None if view is None else view.match.held_round
    if not numbers:
        if held is None:
            raise CommandError(
                "type start N, like start 2"
                if view is None
                else "no round waits for the director now"
            )
        return StartRound(round=held)
    number = _number(numbers[0], "the round")
    if view is not None:
        if held is None:
            raise CommandError(
                f"round {number} does not wait for the director now: a round waits once "
                "every table has played the round before"
            )
        if number != held:
            raise CommandError(f"round {held} is the round that waits for the director")
    elif not 2 <= number <= 11:
        raise CommandError("a round the director starts is round 2 to 11")
    return StartRound(round=number)


def _parse_assign(words: list[str], view: WatchView | None) -> AssignResult:
    usage = "type assign TABLE BOARD CONTRACT DECLARER TRICKS (like assign 1 3 4sx n 9) or assign TABLE BOARD pass"
    if len(words) < 4:
        raise CommandError(usage)
    table = _number(words[1], "the table")
    _check_table(table, view)
    number = _number(words[2], "the board")
    _check_board(number, view)
    if len(words) == 4 and words[3].lower() in ("pass", "p", "passed"):
        return AssignResult(table=table, board=number, contract=None, declarer=None, tricks=0)
    if len(words) != 6:
        raise CommandError(usage)
    contract = parse_contract(words[3])
    declarer = parse_seat(words[4])
    tricks = _number(words[5], "the tricks")
    if tricks > 13:
        raise CommandError("declarer takes 0 to 13 tricks")
    return AssignResult(
        table=table, board=number, contract=contract, declarer=declarer, tricks=tricks
    )


def _table_board(view: WatchView | None, table: int) -> BoardView | None:
    if view is None:
        return None
    return next((b for b in view.tables if b.table == table), None)


def _parse_action(line: str, view: PlayerView | None) -> Sendable:
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
        _check_undo_waits(board)
        if not board.legal:
            raise CommandError(
                f"it is not your turn: {_waiting_for(board, view.players, view.waiting_for_seats)}"
            )
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
        _check_undo_waits(board)
        if not board.legal:
            if board.dummy == view.seat:
                raise CommandError("you are dummy: declarer plays your cards")
            raise CommandError(
                f"it is not your turn: {_waiting_for(board, view.players, view.waiting_for_seats)}"
            )
        if card not in board.legal:
            raise CommandError(
                f"{card_text(card).plain} is not a legal card now; "
                f"legal cards: {plain_cards(board.legal)}"
            )
        return PlayCard(card=card)
    if board.phase == "claim":
        raise CommandError("no card can be played while a claim is pending (accept or reject)")
    raise CommandError("this board is over: wait for the next one (type help for the commands)")


def _check_undo_waits(board: BoardView) -> None:
    if board.undo is not None:
        raise CommandError(
            "a request to take back a call or card waits for its answer: nothing else is "
            "called or played until then"
        )


def _parses(parse: Callable[[str], object], line: str) -> bool:
    try:
        parse(line)
    except CommandError:
        return False
    return True


def _waiting_for(
    board: BoardView, players: Sequence[PlayerInfo] = (), absent: Sequence[str] = ()
) -> str:
    if absent:
        who = " and ".join(
            seat_words(seat, _find_player(players, board.table, seat)) for seat in absent
        )
        return f"the table waits for {who} to come (the board starts when all four are here)"
    if board.acting is None:
        return "nobody is to act now"
    who = seat_words(board.acting, _find_player(players, board.table, board.acting))
    if board.phase == "play" and board.turn is not None and board.turn != board.acting:
        return f"{who} is to play from dummy"
    return f"{who} is to {'call' if board.phase == 'auction' else 'play'}"


def _away_line(
    board: BoardView, players: Sequence[PlayerInfo], now: int, me: str | None = None
) -> Text | None:
    """Who the table waits for, when the seat to act is away (never the viewer's own)."""
    if board.phase not in ("auction", "play") or board.acting in (None, me):
        return None
    info = _find_player(players, board.table, board.acting)
    if not is_away(info):
        return None
    away = presence_words(info, now)
    return Text(
        f"The table waits for {seat_words(board.acting, info)}, who is {away}.", style=AWAY_STYLE
    )


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


def ruling_range(board: BoardView) -> tuple[int, int]:
    """The declarer's side's tricks a ruling may give: those won so far to all the rest."""
    declarer = board.declarer or "N"
    won = board.tricks_ns if declarer in "NS" else board.tricks_ew
    return won, won + 13 - board.tricks_ns - board.tricks_ew


# -- rendering a board -----------------------------------------------------------------------


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
    if board.turn == seat and board.phase in ("auction", "play"):
        label = Text.assemble(("▶ ", "bold"), label)
        label.stylize(TURN_STYLE)
    return label


def _who_line(info: PlayerInfo | None, now: int) -> Text | None:
    """The seat's player's name, ``robot`` or how long they have been away."""
    if info is None:
        return None
    parts: list[Text] = []
    if info.name is not None and not (info.robot and info.name == "Robot"):
        name = info.name if len(info.name) <= NAME_SHOWN else info.name[: NAME_SHOWN - 1] + "…"
        parts.append(Text(name, style="italic"))
    presence = presence_words(info, now)
    if presence is not None:
        parts.append(Text(presence, style="dim" if info.robot else AWAY_STYLE))
    if not parts:
        return None
    return Text(" · ").join(parts)


def _hand_block(
    seat: Seat, board: BoardView, me: str | None, info: PlayerInfo | None, now: int
) -> Text:
    lines = [_seat_label(seat, board, me)]
    if seat == me and info is not None:
        info = info.model_copy(update={"connected": True})  # here, whatever the view says
    who = _who_line(info, now)
    if who is not None:
        lines.append(who)
    if board.phase == "finished" and board.deal is not None:
        cards: list[str] | None = board.deal[seat]
    else:
        cards = board.hands.get(seat)
    if cards is None:
        count = board.hand_sizes.get(seat, 0)
        lines.append(Text(f"{count} card{'s' if count != 1 else ''}", style="dim"))
    else:
        lines += hand_lines(cards)
    return Text("\n").join(lines)


def _trick_cell(trick: TrickView, seat: str) -> Text:
    for played in trick.cards:
        if played.seat == seat:
            cell = card_text(played.card)
            if trick.winner == seat:
                cell.stylize("underline")
            return cell
    return Text("·", style="dim")


def _trick_grid(title: Text, trick: TrickView) -> RenderableType:
    grid = Table.grid(padding=(0, 1))
    for _ in range(3):
        grid.add_column(justify="center", min_width=3)
    grid.add_row("", _trick_cell(trick, "N"), "")
    grid.add_row(_trick_cell(trick, "W"), "", _trick_cell(trick, "E"))
    grid.add_row("", _trick_cell(trick, "S"), "")
    return Group(title, grid)


def _board_facts(board: BoardView) -> Text:
    return Text.assemble(
        f"Board {board.board}\n",
        f"Dealer {SEAT_NAMES[board.dealer]}\n",
        "Vul: ",
        (
            vulnerability_words(board.vulnerability),
            VULNERABLE_STYLE if board.vulnerability != "None" else "",
        ),
    )


def _centre(board: BoardView) -> RenderableType:
    """The middle of the table: the board during the auction, the trick during the play
    (the last quitted trick only while the viewer may see it)."""
    if board.phase == "auction" or board.contract is None:
        return _board_facts(board)
    completed = board.tricks_ns + board.tricks_ew
    trick = board.current_trick
    if trick is not None and trick.cards:
        number = min(completed + 1, 13) if board.phase != "finished" else len(board.tricks) + 1
        return _trick_grid(Text(f"Trick {number} ({trick.leader} led)", style="bold"), trick)
    last = board.last_trick or (board.tricks[-1] if board.tricks else None)
    if last is not None:
        number = len(board.tricks) if board.tricks else completed
        return _trick_grid(
            Text(f"Trick {number} ({last.leader} led) → {last.winner}", style="dim"), last
        )
    return Text("Opening lead" if board.phase != "finished" else "No card played", style="dim")


def _compass_grid(blocks: dict[str, RenderableType], centre: RenderableType) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(min_width=COMPASS_SIDE)  # fixed widths: the table does not jump about
    grid.add_column(min_width=COMPASS_MIDDLE)
    grid.add_column(min_width=COMPASS_SIDE)
    grid.add_row("", blocks["N"], "")
    grid.add_row(blocks["W"], centre, blocks["E"])
    grid.add_row("", blocks["S"], "")
    return grid


def compass(
    board: BoardView, me: str | None, players: Sequence[PlayerInfo] = (), now: int | None = None
) -> Table:
    """The four hands round the table (those this viewer may see) with who sits at each
    seat, and the trick in the middle."""
    at = now_ms() if now is None else now
    blocks: dict[str, RenderableType] = {
        seat: _hand_block(seat, board, me, _find_player(players, board.table, seat), at)
        for seat in SEAT_ORDER
    }
    return _compass_grid(blocks, _centre(board))


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
    if claim is None:
        return []
    claimer = SEAT_NAMES[claim.claimer]
    what = f"{claim.tricks} of the {claim.remaining} remaining tricks" + (
        " (concedes all)" if claim.tricks == 0 else ""
    )
    lines: list[Text] = []
    if claim.status == "pending":
        lines.append(Text(f"{claimer} claims {what}", style="bold yellow"))
    elif claim.status == "rejected":
        lines.append(Text(f"{claimer} claimed {what}: rejected: play goes on", style="bold red"))
    elif claim.status == "withdrawn":
        lines.append(Text(f"{claimer}'s claim of {what} was withdrawn: play goes on", "yellow"))
    elif claim.status == "disputed":
        by = claim.disputed_by
        who = "you" if by == me else SEAT_NAMES[by] if by is not None else "a decider"
        lines.append(
            Text(
                f"{claimer} claimed {what}: disputed by {who}: play has stopped until the "
                "director rules (law 68D)",
                style="bold red",
            )
        )
    else:
        lines.append(Text(f"{claimer} claimed {what}: accepted", style="bold"))
    if claim.statement is not None:
        lines.append(Text.assemble(("Statement: ", "bold"), claim.statement))
    if claim.cards is not None and claim.status in ("pending", "disputed"):
        lines.append(Text.assemble(f"{claimer}'s cards: ", *_spaced(claim.cards)))
    if claim.status != "pending":
        if claim.withdrawal is not None:
            who = "You" if claim.withdrawal == me else SEAT_NAMES[claim.withdrawal]
            lines.append(
                Text(
                    f"{who} asked the director to let the concession be withdrawn: the "
                    "board stays as it is until the director decides",
                    style="bold magenta",
                )
            )
        elif claim.status == "accepted" and "withdraw_concession" in board.actions:
            lines.append(
                Text(
                    "Your side conceded tricks: type withdraw-concession yes to ask the "
                    "director to let you withdraw the concession (laws 69 and 71)",
                    style="yellow",
                )
            )
        return lines
    waiting = [s for s in claim.deciders if s not in claim.accepted]
    if me in waiting:
        lines.append(Text("YOU DECIDE: type accept or reject", style=TURN_STYLE))
    elif waiting:
        names = " and ".join(SEAT_NAMES[s] for s in waiting)
        lines.append(Text(f"Waiting for {names} to accept or reject", style="yellow"))
    if me == claim.claimer:
        lines.append(Text("(type withdraw to withdraw your claim)", style="dim"))
    return lines


def _undo_lines(board: BoardView, me: str | None, *, director: bool = False) -> list[Text]:
    request = board.undo
    if request is None:
        return []
    what = _undo_what(request.call, request.card)
    waiting = [s for s in request.deciders if s not in request.accepted]
    names = " and ".join(SEAT_NAMES[s] for s in waiting)
    if request.seat == me:
        return [
            Text.assemble(
                ("You asked to take back your ", "bold yellow"),
                what,
                (f": waiting for {names} to agree", "bold yellow"),
            )
        ]
    asked = Text.assemble(f"{SEAT_NAMES[request.seat]} asks to take back their ", what)
    if me in waiting:
        return [
            Text.assemble(("YOU DECIDE: ", TURN_STYLE), asked, (": type agree or refuse", "bold"))
        ]
    lines = [Text.assemble(asked, (f": waiting for {names} to agree", "yellow"))]
    if director:
        lines.append(
            Text(
                f"DIRECTOR: type agree {board.table} or refuse {board.table} to decide it",
                style=TURN_STYLE,
            )
        )
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
    if board.phase not in ("auction", "play") or board.undo is not None:
        return []
    lead = view.face_down_lead
    if lead is not None:  # law 41A: led face down, faced by the leader's partner
        leader = "You" if lead.seat == me else SEAT_NAMES[lead.seat]
        shown = f" ({lead.card})" if lead.card is not None else ""
        if "face_lead" in board.actions:
            return [
                Text(
                    f"YOUR TURN: {leader} led face down. Ask about the auction if you wish "
                    "(ask N), then type face to face the lead",
                    style=TURN_STYLE,
                )
            ]
        partner = SEAT_NAMES[{"N": "S", "S": "N", "E": "W", "W": "E"}[lead.seat]]
        return [
            Text(
                f"{leader} led face down{shown}: waiting for {partner} to face the lead.",
                style="dim",
            )
        ]
    if board.phase == "auction":
        if board.legal:
            return [
                Text("YOUR TURN: your call", style=TURN_STYLE),
                Text.assemble(("Legal calls: ", "bold"), legal_calls_words(board.legal)),
            ]
        return [
            Text(
                f"Waiting: {_waiting_for(board, view.players, view.waiting_for_seats)}.",
                style="dim",
            )
        ]
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
        return [
            Text(
                f"You are dummy: {declarer} plays your cards. {_waiting_for(board, view.players, view.waiting_for_seats)}."
            )
        ]
    return [
        Text(f"Waiting: {_waiting_for(board, view.players, view.waiting_for_seats)}.", style="dim")
    ]


def _review_lines(view: PlayerView, now: int) -> list[Text]:
    """The finished board on review: when the next board starts, who is ready."""
    review = view.review
    if review is None:
        return []
    if not view.played_round:
        starts = "the next board starts"
    elif view.next_seat is not None:
        starts = "the round ends"
    else:
        starts = "the review ends"
    seconds = max(0, math.ceil((review.until - now) / 1000))
    when = f"{starts} in {seconds} s, or as soon as all four type next-board"
    lines = [Text(f"REVIEW of board {review.board}: {when}", style="bold cyan")]
    ready = [SEAT_NAMES[s] for s in "NESW" if s in review.ready]
    waiting = [SEAT_NAMES[s] for s in "NESW" if s not in review.ready]
    lines.append(
        Text.assemble(
            ("Ready: ", "bold"),
            ", ".join(ready) if ready else "nobody yet",
            f" · waiting for {', '.join(waiting)}" if ready and waiting else "",
        )
    )
    board = view.board
    if board is not None and "next_board" in board.actions:
        lines.append(
            Text("Type replay to go through the tricks, next-board (or n) when you are done.")
        )
    return lines


def handviewer_line(board: BoardView) -> Text:
    """The finished board's link to BBO's hand viewer, printed as a line of its own (left
    whole for the terminal to wrap: it stays one link to click or copy)."""
    return Text.assemble(
        (f"Board {board.board}, table {board.table}, in BBO's hand viewer: ", "dim"),
        board.handviewer or "",
    )


CALL_STATE_WORDS = {"open": "new", "seen": "the director is on the way", "answered": "answered"}
"""Where a call for the director stands, as the terminal says it."""


def _director_call_line(call: DirectorCallView, now: int, *, with_table: bool) -> Text:
    where = f"Table {call.table} · " if with_table else ""
    board = f"board {call.board}" if call.board is not None else "between boards"
    return Text.assemble(
        f"  {where}{SEAT_NAMES[call.seat]} ({board})",
        (f": {call.text}" if call.text else ""),
        (f" · {duration_words(now - call.at)} ago", "dim"),
        (f" · {CALL_STATE_WORDS.get(call.state, call.state)}", "magenta"),
    )


def _chat_text(
    line: ChatLine | ChatSent,
    me: str | None,
    players: Sequence[PlayerInfo] = (),
    *,
    with_table: bool = False,
) -> Text:
    """A chat line: who said it (the director, you, a seat and its player), whom it
    reached, what was said."""
    where = f"Table {line.table} · " if with_table else ""
    if line.seat is None:
        who = "Director says"
    elif line.seat == me:
        who = "You say"
    else:
        who = f"{seat_words(line.seat, _find_player(players, line.table, line.seat))} says"
    return Text.assemble(
        (f"{where}{who} ", "bold magenta" if line.seat is None else "bold cyan"),
        (f"({audience_words(line.seat, line.to)}): ", "cyan"),
        line.text,
    )


def _chat_lines(
    lines: Sequence[ChatLine], me: str | None, players: Sequence[PlayerInfo], *, with_table: bool
) -> list[Text]:
    return [
        Text("  ").append_text(_chat_text(line, me, players, with_table=with_table))
        for line in lines
    ]


# -- the match -------------------------------------------------------------------------------


def _swing_words(match: MatchSummary, swing: int) -> str:
    if swing > 0:
        return f"swing {swing} IMPs to {match.team_a}"
    if swing < 0:
        return f"swing {-swing} IMPs to {match.team_b}"
    return "swing 0 IMPs (a push)"


def _own_plays(you: PlayerView | None) -> set[tuple[int, int, int]]:
    """The (board, round, table) plays the player took part in."""
    return set() if you is None else {(r.board, r.round, r.table) for r in you.results}


def _played_at(you: PlayerView | None, board: int) -> int | None:
    """The table at which the player played ``board``, if they did (in team-of-four a
    player may have changed tables since)."""
    if you is None:
        return None
    return next((r.table for r in reversed(you.results) if r.board == board), None)


def _play_label(play: TableResultView, plays: Sequence[TableResultView]) -> str:
    """A play of a board among its plays: ``table 2`` when every play was in the same round
    (an individual), ``round 2`` when at the same table (replay duplicate), else both."""
    if len({p.round for p in plays}) <= 1:
        return f"table {play.table}"
    if len({p.table for p in plays}) <= 1:
        return f"round {play.round}"
    return f"round {play.round}, table {play.table}"


def comparison_line(
    comparison: ComparisonView,
    match: MatchSummary,
    table: int | None,
    you: PlayerView | None = None,
) -> Text:
    """One compared board. In the team formats: both tables' results (``here`` is the
    table where ``you`` played it, or ``table``), the swing and the running total; in the
    others: every play's result and the points it brought ``you`` (watchers: everyone)."""
    if not is_team_match(match):
        return _movement_comparison(comparison, match, you)
    head = Text(f"Board {comparison.board}: ", style="bold")
    standing = (
        Text()
        if comparison.running_total is None
        else Text.assemble(" · running total: ", _standing(match, comparison.running_total))
    )
    if comparison.void:
        return Text.assemble(head, "void (the director's decision): it counts for neither team")
    if comparison.artificial is not None:
        return Text.assemble(
            head,
            "artificial adjusted score: ",
            (_swing_words(match, comparison.artificial).removeprefix("swing "), "bold"),
            standing,
        )
    here = _played_at(you, comparison.board) or table
    first, second = comparison.table1, comparison.table2
    if here == 2:
        first, second = second, first
    names = ("here", "other table") if here is not None else ("table 1", "table 2")
    swing = (
        Text()
        if comparison.swing is None
        else Text(_swing_words(match, comparison.swing), style="bold")
    )
    return Text.assemble(
        head,
        f"{names[0]} ",
        short_result(first),
        f" · {names[1]} ",
        short_result(second),
        "\n    ",
        swing,
        standing,
    )


def _play_texts(
    plays: Sequence[TableResultView], you: PlayerView | None, separator: str = " "
) -> list[Text]:
    """Each play of a board, as ``table 3 (yours) 3NT S +1 (N-S +430)``: ``(yours)`` only
    when some of the plays are not (in replay duplicate the player plays every board
    twice)."""
    mine = _own_plays(you)
    own = [(p.board, p.round, p.table) in mine for p in plays]
    mark = any(own) and not all(own)
    return [
        Text.assemble(
            _play_label(play, plays),
            " (yours)" if mark and yours else "",
            separator,
            short_result(play),
        )
        for play, yours in zip(plays, own, strict=True)
    ]


def _movement_comparison(
    comparison: ComparisonView, match: MatchSummary, you: PlayerView | None
) -> Text:
    """A board compared in a format without teams: the viewer's competitor's points on it
    (every competitor's, for watchers) and the viewer's own play, then the other plays.

    ``Board 2: you score +3.3 IMPs · table 3 (yours) 3NT S +1 (N-S +430)``
    ``    table 1 4♠ N = (N-S +420) · table 2 4♠ N -1 (E-W +50)``"""
    head = Text(f"Board {comparison.board}: ", style="bold")
    if comparison.void:
        return Text.assemble(head, "void (the director's decision): it counts for no one")
    plays = sorted(comparison.results, key=lambda r: (r.round, r.table))
    texts = _play_texts(plays, you)
    mine = _own_plays(you)
    own = [(p.board, p.round, p.table) in mine for p in plays]
    first = [t for t, yours in zip(texts, own, strict=True) if yours and not all(own)]
    rest = [t for t, yours in zip(texts, own, strict=True) if not yours or all(own)]
    points = _board_points(comparison, match, you)
    line = Text.assemble(head, Text(" · ").join([t for t in (points, *first) if t is not None]))
    if rest:
        line.append("\n    ")
        line.append_text(Text(" · ").join(rest))
    return line


def _board_points(
    comparison: ComparisonView, match: MatchSummary, you: PlayerView | None
) -> Text | None:
    """``you score +3.3 IMPs`` (``your pair scores 1 point``); for watchers every
    competitor's points on the board, best first."""
    scoring, signed = match.scoring, _signs_points(match.scoring)
    if you is not None:
        points = comparison.points.get(you.competitor)
        if points is None:
            return None
        who = "you score" if you.competitor == str(you.player) else "your pair scores"
        return Text(f"{who} {points_words(points, scoring, signed=signed)}", style="bold")
    if not comparison.points:
        return None
    best = sorted(comparison.points.items(), key=lambda item: -item[1])
    return Text.assemble(
        ("points: ", "bold"),
        " · ".join(
            f"{competitor_name(match, name)} {points_text(points, scoring, signed=signed)}"
            for name, points in best
        ),
        f" ({SCORING_WORDS[scoring]})",
    )


def _standing(match: MatchSummary, running_total: int) -> str:
    if running_total > 0:
        return f"{match.team_a} by {running_total}"
    if running_total < 0:
        return f"{match.team_b} by {-running_total}"
    return "all square"


def standings_lines(match: MatchSummary, competitor: str | None = None) -> list[RenderableType]:
    """The standings of a match without teams, best first: each competitor's place, name
    and points, the viewer's (``competitor``) marked ``(you)``; side by side when many."""
    scoring = match.scoring
    heading = Text.assemble(
        ("Standings", "bold"),
        f" ({SCORING_WORDS[scoring]}) · compared {len(match.comparisons)} of "
        f"{len(match.boards)} boards",
    )
    standings = match.standings
    if not standings:
        return [heading]
    entries: list[tuple[Text, Text]] = []
    for standing in standings:
        place = 1 + sum(other.points > standing.points + 1e-9 for other in standings)
        mine = standing.competitor == competitor
        style = "bold" if mine else ""
        entries.append(
            (
                Text(f"{place}. {standing_name(standing)}{' (you)' if mine else ''}", style=style),
                Text(points_text(standing.points, scoring), style=style),
            )
        )
    per_row = 1 if len(entries) <= 4 else STANDINGS_PER_ROW
    grid = Table.grid(padding=(0, 1))
    grid.add_column(min_width=1)  # the indent
    for slot in range(per_row):
        grid.add_column()
        grid.add_column(justify="right", min_width=4)
        if slot < per_row - 1:
            grid.add_column(min_width=2)  # between competitors
    for start in range(0, len(entries), per_row):
        row: list[Text] = [Text("")]
        for slot in range(per_row):
            name, points = (
                entries[start + slot] if start + slot < len(entries) else (Text(""), Text(""))
            )
            row += [name, points] + ([Text("")] if slot < per_row - 1 else [])
        grid.add_row(*row)
    return [heading, grid]


def meeting_of(match: MatchSummary, round_number: int) -> int | None:
    """The meeting of a replay-duplicate series that ``round_number`` belongs to (None for
    any other match)."""
    return next((s.session for s in match.sessions if round_number in s.rounds), None)


def boards_words(boards: list[int]) -> str:
    """``boards 1-3``, ``board 4``, ``boards 1, 3`` (consecutive numbers as a range).

    >>> boards_words([1, 2, 3]), boards_words([4]), boards_words([2, 5])
    ('boards 1-3', 'board 4', 'boards 2, 5')
    """
    if len(boards) == 1:
        return f"board {boards[0]}"
    if boards == list(range(boards[0], boards[-1] + 1)):
        return f"boards {boards[0]}-{boards[-1]}"
    return "boards " + ", ".join(map(str, boards))


def sessions_lines(
    match: MatchSummary, competitor: str | None = None, current: int | None = None
) -> list[RenderableType]:
    """A replay-duplicate series, meeting by meeting: the boards each replays (where they
    are scored) and each pair's points on them, the series' total below; the viewer's pair
    (``competitor``) marked ``(you)``, the meeting under way (``current``) with ``<``.
    Nothing for any other match."""
    if not match.sessions:
        return []
    scoring = match.scoring
    pairs = sorted(match.standings, key=lambda s: s.competitor)
    grid = Table.grid(padding=(0, 2))
    grid.add_column(min_width=1)  # the indent
    grid.add_column()
    grid.add_column()
    for _ in pairs:
        grid.add_column(justify="right")
    grid.add_row(
        Text(""),
        Text("Meeting", "bold"),
        Text("Replays", "bold"),
        *(
            Text(
                standing_name(p) + (" (you)" if p.competitor == competitor else ""),
                "bold",
            )
            for p in pairs
        ),
    )
    for session in match.sessions:
        mark = " <" if session.session == current else ""
        scored = bool(session.boards) and any(c.board in session.boards for c in match.comparisons)
        grid.add_row(
            Text(""),
            Text(f"{session.session}{mark}"),
            Text(boards_words(session.boards) if session.boards else "(new boards only)"),
            *(
                Text(
                    points_text(session.points.get(p.competitor, 0.0), scoring, signed=True)
                    if scored
                    else "-"
                )
                for p in pairs
            ),
        )
    grid.add_row(
        Text(""),
        Text("Series", "bold"),
        Text(""),
        *(Text(points_text(p.points, scoring, signed=True), "bold") for p in pairs),
    )
    heading = Text.assemble(
        ("Meetings", "bold"), f" ({len(match.sessions)}: each scores the boards it replays)"
    )
    return [heading, grid]


def match_panel(
    match: MatchSummary, table: int | None, team: str | None, you: PlayerView | None = None
) -> list[RenderableType]:
    """The match panel: the teams and their IMPs (or the standings), each compared board,
    the final result."""
    if is_team_match(match):
        you_a = " (you)" if team == "A" else ""
        you_b = " (you)" if team == "B" else ""
        lines: list[RenderableType] = [
            Text.assemble(
                ("Match: ", "bold"),
                f"{match.team_a}{you_a} {match.imps_a} IMPs · {match.team_b}{you_b} "
                f"{match.imps_b} IMPs · compared {len(match.comparisons)} of "
                f"{len(match.boards)} boards",
            )
        ]
    else:
        competitor = None if you is None else you.competitor
        lines = standings_lines(match, competitor)
        lines += sessions_lines(
            match, competitor, None if you is None else meeting_of(match, you.round)
        )
    shown = match.comparisons[-COMPARISONS_SHOWN:]
    if len(match.comparisons) > len(shown):
        lines.append(Text(f"  ({len(match.comparisons) - len(shown)} earlier boards)", "dim"))
    lines += [Text("  ").append_text(comparison_line(c, match, table, you)) for c in shown]
    if (sealed := deals_line(match)) is not None:
        lines.append(sealed)
    if match.finished:
        lines.append(Text(final_words(match), style="bold reverse"))
        if match.deals_commitment is not None:
            lines.append(Text("Type verify to check the deals against their commitment.", "dim"))
    return lines


def deals_line(match: MatchSummary) -> Text | None:
    """The commitment to the deals, which every viewer holds from the start."""
    if match.deals_commitment is None:
        return None
    line = Text.assemble(
        ("Deals sealed before play: ", "dim"), (f"sha256 {match.deals_commitment}", "dim")
    )
    if match.deals_seed_commitment is not None:
        line.append(
            f", drawn from the seed sha256 {match.deals_seed_commitment} and the public "
            f"value “{match.deals_public_value}”"
            + ("" if match.deals_public_form is None else f" ({match.deals_public_form})"),
            style="dim",
        )
    return line


def deals_verdict(record: str, match: MatchSummary | None) -> Text:
    """Whether the deals of a finished match's record are the ones committed to."""
    expected = None if match is None else match.deals_commitment
    seed = None if match is None else match.deals_seed_commitment
    try:
        checked = verify_record(record, expected, seed)
    except BridgeError as error:
        return Text(f"The deals do NOT match their commitment: {error}", style="bold red")
    seeded = (
        ""
        if checked.seed_commitment is None
        else f" Each board is the one drawn from the seed committed to (sha256 "
        f"{checked.seed_commitment}) and the public value “{checked.public}”."
    )
    return Text(
        f"Deals verified: the {checked.games} tables' deals are the {checked.boards} boards "
        f"committed to when the match was created (sha256 {checked.commitment}).{seeded}",
        style="bold green",
    )


def final_words(match: MatchSummary) -> str:
    """``MATCH OVER: Sharks beat Minnows by 9 IMPs (9 to 0)``; without teams, who won the
    standings: ``MATCH OVER: Ann wins with 12.5 IMPs; next Bo with 8 IMPs``."""
    if not is_team_match(match):
        return _standings_words(match)
    if match.winner == "draw" or match.winner is None:
        return f"MATCH OVER: a draw, {match.imps_a} IMPs each"
    winner, loser = (
        (match.team_a, match.team_b) if match.winner == "A" else (match.team_b, match.team_a)
    )
    high, low = max(match.imps_a, match.imps_b), min(match.imps_a, match.imps_b)
    return f"MATCH OVER: {winner} beat {loser} by {high - low} IMPs ({high} to {low})"


def _standings_words(match: MatchSummary) -> str:
    standings, scoring = match.standings, match.scoring
    if not standings:
        return "MATCH OVER"
    top = standings[0]
    if match.winner == "draw" or match.winner is None:
        tied = [standing_name(s) for s in standings if abs(s.points - top.points) < 1e-9]
        names = ", ".join(tied[:-1]) + f" and {tied[-1]}" if len(tied) > 1 else tied[0]
        return (
            f"MATCH OVER: a draw: {names} share first place with "
            f"{points_words(top.points, scoring)}"
        )
    winner = next((s for s in standings if s.competitor == match.winner), top)
    wins = "win" if len(winner.players) > 1 else "wins"
    words = (
        f"MATCH OVER: {standing_name(winner)} {wins} with {points_words(winner.points, scoring)}"
    )
    runner_up = next((s for s in standings if s is not winner), None)
    if runner_up is not None:
        words += f"; next {standing_name(runner_up)} with {points_words(runner_up.points, scoring)}"
    return words


def results_table(
    match: MatchSummary,
    results: Sequence[TableResultView] = (),
    *,
    title: str = "",
    you: PlayerView | None = None,
) -> Table:
    """Every board with a result so far: each table's result, the swing and the running
    total once the board is compared (without teams: each play's result and the points)."""
    grid = Table(
        title=Text(title, style="bold") if title else None,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
    )
    if not is_team_match(match):
        return _movement_results(grid, match, results, you)
    grid.add_column("Board", justify="right")
    grid.add_column("Table 1")
    grid.add_column("Table 2")
    grid.add_column(match.team_a, justify="right")
    grid.add_column(match.team_b, justify="right")
    grid.add_column("Running total")
    compared = {c.board: c for c in match.comparisons}
    known = {(r.board, r.table): r for r in results}
    for number in match.boards:
        comparison = compared.get(number)
        first = known.get((number, 1))
        second = known.get((number, 2))
        if comparison is None and first is None and second is None:
            continue
        if comparison is not None:
            first = comparison.table1 or first
            second = comparison.table2 or second
        cells: list[Text] = [Text(str(number)), short_result(first), short_result(second)]
        total = "" if comparison is None else _standing(match, comparison.running_total or 0)
        if comparison is None:
            cells += [Text("·", "dim"), Text("·", "dim"), Text("not compared yet", "dim")]
        elif comparison.void:
            cells += [Text("void"), Text("void"), Text(total)]
        else:
            swing = comparison.swing or 0
            note = " (artificial)" if comparison.artificial is not None else ""
            cells += [
                Text(str(swing) if swing > 0 else "·"),
                Text(str(-swing) if swing < 0 else "·"),
                Text(total + note),
            ]
        grid.add_row(*cells)
    return grid


def _movement_results(
    grid: Table, match: MatchSummary, results: Sequence[TableResultView], you: PlayerView | None
) -> Table:
    """The results table without teams: every play of each board (``yours`` marked), then
    your points on it and your total so far; for watchers, each competitor's points when
    there are few (replay duplicate's two pairs)."""
    scoring, signed = match.scoring, _signs_points(match.scoring)
    grid.add_column("Board", justify="right")
    grid.add_column("Results")
    columns: list[str] = []
    if you is not None:
        grid.add_column("Points", justify="right")
        grid.add_column("Total", justify="right")
    elif len(match.standings) <= 4:
        columns = sorted(s.competitor for s in match.standings)
        for competitor in columns:
            grid.add_column(competitor_name(match, competitor), justify="right")
    compared = {c.board: c for c in match.comparisons}
    total = 0.0
    for number in match.boards:
        comparison = compared.get(number)
        plays = list(comparison.results) if comparison is not None else []
        if not plays:
            plays = [r for r in results if r.board == number]
        if comparison is None and not plays:
            continue
        plays.sort(key=lambda r: (r.round, r.table))
        played = _play_texts(plays, you, ": ")
        cells = [Text(str(number)), Text("\n").join(played) if played else Text("—", "dim")]
        if you is not None:
            if comparison is None:
                cells += [Text("·", "dim"), Text("not compared yet", "dim")]
            elif comparison.void:
                cells += [Text("void"), Text(points_text(total, scoring))]
            else:
                points = comparison.points.get(you.competitor)
                total += points or 0.0
                shown = "·" if points is None else points_text(points, scoring, signed=signed)
                cells += [Text(shown), Text(points_text(total, scoring))]
        for competitor in columns:
            if comparison is None:
                cells.append(Text("·", "dim"))
            elif comparison.void:
                cells.append(Text("void"))
            else:
                points = comparison.points.get(competitor)
                shown = "·" if points is None else points_text(points, scoring, signed=signed)
                cells.append(Text(shown))
        grid.add_row(*cells)
    return grid


FORMAT_WORDS = {
    "teams": "teams",
    "robot-table": "against the robots",
    "team-of-four": "team of four",
    "replay": "replay duplicate",
    "individual": "individual",
}


def score_sheet(
    match: MatchSummary, results: Sequence[TableResultView] = (), *, you: PlayerView | None = None
) -> RenderableType:
    """The score sheet: every board, both tables, the swing, the running total, and the
    final result once the match is over; without teams every play, ``you``'s points and
    the standings."""
    if is_team_match(match):
        parts: list[RenderableType] = [
            results_table(match, results, title=f"Score sheet: {match.team_a} v {match.team_b}"),
            Text(
                f"Total: {match.team_a} {match.imps_a} IMPs · {match.team_b} {match.imps_b} "
                f"IMPs · compared {len(match.comparisons)} of {len(match.boards)} boards",
                style="bold",
            ),
        ]
    else:
        title = f"Score sheet: {FORMAT_WORDS[match.format]}, {SCORING_WORDS[match.scoring]}"
        parts = [
            results_table(match, results, title=title, you=you),
            *standings_lines(match, None if you is None else you.competitor),
            *sessions_lines(match, None if you is None else you.competitor),
        ]
    if match.finished:
        parts.append(Text(final_words(match), style="bold reverse"))
    return Group(*parts)


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


def clock_line(clock: RoundClock | None, at: int) -> Text | None:
    """The round's clock at a table: the board it is on and the time left (``behind time``
    once the board in play is past its due moment), or that the time is up; None without a
    clock, or once the round's boards are played. ``at``: now, by the server's clock."""
    if clock is None or clock.played >= clock.boards:
        return None
    if clock.time_up:
        left = clock.boards - clock.played
        return Text(
            f"Round clock: time is up with {left} of {clock.boards} boards to play: "
            "the director decides",
            style="bold red",
        )
    remaining = max(0, clock.ends_at - at) // 1000
    line = Text(
        f"Round clock: board {clock.played + 1} of {clock.boards} · "
        f"{remaining // 60}:{remaining % 60:02d} left"
    )
    if at > clock.due_at:
        line.append(" · behind time", style="bold red")
    return line


def _named_seat(number: int, players: Sequence[PlayerInfo], seat: str | None = None) -> str:
    """A player at the viewer's table by number: ``Bo (West)``, ``player 6 (North, robot)``."""
    info = next((p for p in players if p.player == number), None)
    if info is None:
        return f"player {number}" + (f" ({SEAT_NAMES[seat]})" if seat is not None else "")
    server_robot = info.robot and (info.name or "Robot") in ROBOT_NAMES
    named = info.name is not None and not server_robot
    kind = ROBOT_NAMES.get(info.name or "Robot", "robot") if server_robot else "robot"
    about = [SEAT_NAMES[info.seat]] + ([kind] if info.robot else [])
    return f"{info.name if named else f'player {number}'} ({', '.join(about)})"


def seating_line(view: PlayerView) -> Text:
    """The round and where the player sits in it, with whom: ``Round 3 of 7 · you are
    player 5 at table 2, East``, then ``Partner Bo (West) · opponents Cy (North) and
    player 4 (South)``."""
    opponents = " and ".join(_named_seat(n, view.players) for n in view.opponents)
    meeting = meeting_of(view.match, view.round)
    during = "" if meeting is None else f"Meeting {meeting} of {len(view.match.sessions)} · "
    return Text.assemble(
        (f"{during}Round {view.round} of {view.match.rounds}", "bold"),
        f" · you are player {view.player} at table {view.table}, {SEAT_NAMES[view.seat]}\n",
        "Partner ",
        _named_seat(view.partner, view.players, PARTNER[view.seat]),
        f" · opponents {opponents}" if opponents else "",
    )


def move_words(next_seat: NextSeat, table: int, seat: str) -> str:
    """Where to go for the next round, from ``table`` and ``seat``, and who partners you
    there.

    >>> ahead = NextSeat(round=4, table=2, seat="E", partner=5, opponents=[1, 7],
    ...     names={"5": "Bo"})
    >>> move_words(ahead, 1, "N")
    'Round 4: go to table 2, East; your partner is Bo'
    >>> move_words(ahead.model_copy(update={"table": 1, "names": {}}), 1, "N")
    'Round 4: stay at table 1, move to East; your partner is player 5'
    """
    partner = player_name(next_seat.partner, next_seat.names)
    where = SEAT_NAMES[next_seat.seat]
    if next_seat.table != table:
        go = f"go to table {next_seat.table}, {where}"
    elif next_seat.seat != seat:
        go = f"stay at table {next_seat.table}, move to {where}"
    else:
        go = f"stay at table {next_seat.table}, {where}"
    return f"Round {next_seat.round}: {go}; your partner is {partner}"


def held_words(match: MatchSummary, *, director: bool = False) -> str | None:
    """The round that waits for the director's ``start_round``, in words (None: none).

    >>> match = MatchSummary(match_id="m", team_a="A", team_b="B", boards=[1, 2],
    ...     comparisons=[], imps_a=0, imps_b=0, finished=False, held_round=2)
    >>> held_words(match)
    'Round 2 waits for the director'
    >>> held_words(match, director=True)
    'Round 2 waits for you: type start 2 to start it'
    """
    held = match.held_round
    if held is None or match.finished:
        return None
    if director:
        return f"Round {held} waits for you: type start {held} to start it"
    return f"Round {held} waits for the director"


def round_end_lines(view: PlayerView) -> list[Text]:
    """Once the player's table has played the round (``played_round``): the tables it
    waits for, the round held for the director, and where the player goes next (nothing
    while the table still plays the round)."""
    if not view.played_round:
        return []
    waiting = view.waiting_for
    lines: list[Text] = []
    if waiting:
        tables = (
            f"table {waiting[0]}"
            if len(waiting) == 1
            else "tables " + ", ".join(map(str, waiting[:-1])) + f" and {waiting[-1]}"
        )
        lines.append(Text(f"Waiting for {tables} to finish round {view.round}", style="yellow"))
    held = held_words(view.match)
    if held is not None:
        lines.append(Text(held, style="bold yellow"))
    ahead = view.next_seat
    if ahead is not None:
        lines.append(Text(move_words(ahead, view.table, view.seat), style=TURN_STYLE))
        opponents = " and ".join(player_name(n, ahead.names) for n in ahead.opponents)
        if opponents:
            lines.append(Text(f"Your opponents there: {opponents}"))
    return lines


def render_player(
    view: PlayerView, seq: int, *, with_chat: bool = False, now: int | None = None
) -> RenderableType:
    """A player's table: who sits where, the board, the auction, the play, whose turn,
    claims and requests to undo, the review of a finished board, the calls for the
    director, the match panel."""
    at = now_ms() if now is None else now
    board = view.board
    me = view.seat
    mine = _find_player(view.players, view.table, me)
    name = f" ({mine.name})" if mine is not None and mine.name else ""
    who = f"you: {SEAT_NAMES[me]}{name}, {side_words(view)}"
    parts: list[RenderableType] = []
    seating = seating_line(view) if has_rounds(view.match) else None
    if board is None:
        parts.append(Text(f"No board in play · {who} · #{seq}", style="bold"))
        if seating is not None:
            parts.append(seating)
    else:
        parts.append(Divider(_header(board, seq, who), style="cyan"))
        if seating is not None:
            parts.append(seating)
        if (timed := clock_line(view.clock, at)) is not None:
            parts.append(timed)
        parts.append(compass(board, me, view.players, at))
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
        parts += _undo_lines(board, me)
        if board.result is not None:
            parts.append(
                Text.assemble((f"Board {board.board} result: ", "bold"), result_text(board.result))
            )
        parts += _turn_lines(view, board)
        away = _away_line(board, view.players, at, me)
        if away is not None:
            parts.append(away)
        parts += _review_lines(view, at)
    parts += round_end_lines(view)
    calls = view.director_calls + view.answered_calls
    if calls:
        parts.append(Text("The director is called:", style="bold magenta"))
        parts += [_director_call_line(c, at, with_table=False) for c in calls]
    if with_chat and view.chat:
        parts.append(Text("Chat:", style="bold"))
        parts += _chat_lines(view.chat[-CHAT_SHOWN:], me, view.players, with_table=False)
    parts += match_panel(view.match, view.table, view.team, view)
    return Group(*parts)


def render_watch(
    view: WatchView,
    seq: int,
    *,
    director: bool = False,
    with_chat: bool = False,
    now: int | None = None,
) -> RenderableType:
    """What spectators and the director see: both tables, all hands, who sits where, the
    finished boards of each table, the match panel; the director also the queue of calls
    and the chat."""
    at = now_ms() if now is None else now
    parts: list[RenderableType] = []
    who = "director" if director else f"spectator ({view.mode})"
    if not view.tables:
        parts.append(Text(f"Nothing to show yet · {who} · #{seq}", style="bold"))
    for board in view.tables:
        parts.append(Divider(_header(board, seq, who), style="cyan"))
        clock = next((c for c in view.clocks if c.table == board.table), None)
        if (timed := clock_line(clock, at)) is not None:
            parts.append(timed)
        parts.append(compass(board, None, view.players, at))
        if board.auction:
            parts.append(auction_grid(board))
        parts += _alert_lines(board)
        contract = _contract_line(board)
        if contract is not None and board.phase != "finished":
            parts.append(contract)
        parts += _claim_lines(board, None)
        if (
            director
            and board.phase in ("play", "claim")
            and board.claim is not None
            and board.claim.status in ("rejected", "disputed")
        ):
            low, high = ruling_range(board)
            rest = "" if board.claim.status == "disputed" else ", or let the play go on"
            parts.append(
                Text(
                    f"DIRECTOR: type rule {board.table} TRICKS, declarer's side's tricks in all "
                    f"({low} to {high}){rest}",
                    style=TURN_STYLE,
                )
            )
        parts += _undo_lines(board, None, director=director)
        if board.result is not None:
            parts.append(
                Text.assemble((f"Table {board.table} result: ", "bold"), result_text(board.result))
            )
        elif board.phase in ("auction", "play"):
            absent = next((w.seats for w in view.waiting if w.table == board.table), [])
            waiting = _waiting_for(board, view.players, absent)
            parts.append(Text(f"{waiting[0].upper()}{waiting[1:]}."))
            away = _away_line(board, view.players, at)
            if away is not None:
                parts.append(away)
    if director:
        calls = view.director_calls + view.answered_calls
        if calls:
            parts.append(
                Text(
                    "CALLS FOR THE DIRECTOR (seen TABLE, say TABLE TEXT, close TABLE):",
                    style=TURN_STYLE,
                )
            )
            parts += [_director_call_line(c, at, with_table=True) for c in calls]
        if with_chat and view.chat:
            parts.append(Text("Chat:", style="bold"))
            parts += _chat_lines(
                view.chat[-DIRECTOR_CHAT_SHOWN:], None, view.players, with_table=True
            )
    held = held_words(view.match, director=director)
    if held is not None:
        parts.append(Text(held, style=TURN_STYLE if director else "bold yellow"))
    if view.results or view.match.comparisons:
        parts.append(results_table(view.match, view.results, title="Finished boards"))
    if is_team_match(view.match):
        parts.append(
            Text.assemble(
                ("Match: ", "bold"),
                f"{view.match.team_a} {view.match.imps_a} IMPs · {view.match.team_b} "
                f"{view.match.imps_b} IMPs · compared {len(view.match.comparisons)} of "
                f"{len(view.match.boards)} boards",
            )
        )
    else:
        parts += standings_lines(view.match)
        parts += sessions_lines(view.match)
    if view.match.finished:
        parts.append(Text(final_words(view.match), style="bold reverse"))
    return Group(*parts)


# -- a finished board: replay, both tables ---------------------------------------------------


def replay_steps(board: BoardView) -> list[TrickView]:
    """A finished board's tricks in order, with the trick the play stopped in (a claim or a
    ruling ended it) as the last."""
    steps = list(board.tricks)
    if board.current_trick is not None and board.current_trick.cards:
        steps.append(board.current_trick)
    return steps


def replay_screen(board: BoardView, number: int) -> RenderableType:
    """Trick ``number`` (from 1) of a finished board: the hands as they stood before it,
    its cards, who led and who won it, and the tricks each side had won after it."""
    steps = replay_steps(board)
    trick = steps[number - 1]
    before = {played.card for t in steps[: number - 1] for played in t.cards}
    deal = board.deal or {}
    blocks: dict[str, RenderableType] = {}
    for seat in SEAT_ORDER:
        label = Text(SEAT_NAMES[seat], style="bold")
        if seat == trick.leader:
            label.append(" (leads)")
        remaining = [c for c in deal.get(seat, []) if c not in before]
        blocks[seat] = Text("\n").join([label, *hand_lines(remaining)])
    unfinished = trick.winner is None
    title = Text(f"Trick {number} of {len(steps)}", style="bold")
    won = [t.winner for t in steps[:number] if t.winner is not None]
    ns = sum(1 for w in won if w in "NS")
    cards: list[Text] = []
    for played in trick.cards:
        cards += [Text(f" {played.seat} "), card_text(played.card)]
    summary = Text.assemble(
        (f"Board {board.board}, trick {number} of {len(steps)}:", "bold"),
        *cards,
        (
            " · the play stopped here (a claim or a ruling)"
            if unfinished
            else f" · won by {SEAT_NAMES[trick.winner or trick.leader]}"
        ),
        f" · N-S {ns}, E-W {len(won) - ns}",
    )
    hint = Text(
        "next, prev, replay N"
        + (f" (1 to {len(steps)})" if len(steps) > 1 else "")
        + "; the board's review goes on meanwhile",
        style="dim",
    )
    return Group(_compass_grid(blocks, _trick_grid(title, trick)), summary, hint)


def _play_lines(board: BoardView) -> list[Text]:
    lines = []
    for number, trick in enumerate(replay_steps(board), start=1):
        line = Text(f"{number:>2}. ", style="dim")
        for played in trick.cards:
            line.append(played.seat + " ")
            line.append_text(card_text(played.card))
            line.append(" ")
        line.append(f"→ {trick.winner}" if trick.winner else "(claim)", style="bold")
        lines.append(line)
    return lines


def _played_board(board: BoardView) -> RenderableType:
    parts: list[RenderableType] = [auction_grid(board)]
    parts += _alert_lines(board)
    if board.result is not None:
        parts.append(result_text(board.result))
    elif board.phase != "finished":
        parts.append(Text(f"still in play ({board.phase})", style="dim"))
    claim = board.claim
    if claim is not None and claim.status == "accepted":
        parts.append(Text(f"{SEAT_NAMES[claim.claimer]} claimed {claim.tricks}: accepted"))
    parts += _play_lines(board)
    return Group(*parts)


def _double_dummy(comparison: ComparisonView) -> list[RenderableType]:
    parts: list[RenderableType] = []
    table = comparison.double_dummy
    if table is not None:
        parts.append(Text("Double dummy: tricks for each declarer", style="bold"))
        grid = Table(
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
        )
        strains: tuple[Literal["NT", "S", "H", "D", "C"], ...] = ("NT", "S", "H", "D", "C")
        grid.add_column("")
        for strain in strains:
            grid.add_column(strain_text(strain), justify="right")
        dd_order: tuple[Seat, ...] = ("N", "S", "E", "W")
        for seat in dd_order:
            row = table.get(seat)
            if row is not None:
                grid.add_row(SEAT_NAMES[seat], *[str(row.get(s, "")) for s in strains])
        parts.append(grid)
    if comparison.par is not None:
        contracts = ", ".join(comparison.par.contracts) or "—"
        parts.append(
            Text.assemble(("Par: ", "bold"), score_words(comparison.par.score), f" ({contracts})")
        )
    return parts


def _table_title(
    board: BoardView, record: BoardRecord, table: int | None, you: PlayerView | None
) -> Text:
    """A play's column in ``board N``: its table (and round, when the table played the
    board twice), ``(yours)`` when the viewer played it."""
    title = f"Table {board.table}"
    result = board.result
    if result is not None and [b.table for b in record.tables].count(board.table) > 1:
        title += f", round {result.round}"
    if you is not None and result is not None and not is_team_match(you.match):
        yours = (record.board, result.round, board.table) in _own_plays(you)
    else:
        yours = board.table == (_played_at(you, record.board) or table)
    return Text(title + (" (yours)" if yours else ""), "bold")


def board_record_screen(
    record: BoardRecord,
    match: MatchSummary,
    table: int | None = None,
    you: PlayerView | None = None,
) -> RenderableType:
    """``board N``: the deal, every table's auction and play side by side (as far as the
    viewer may see them), the swing (or the points), the double-dummy tricks and the
    par. ``table`` (or where ``you`` played the board) is marked as yours."""
    parts: list[RenderableType] = [
        Divider(Text(f"Board {record.board} as the tables played it", style="bold"), style="cyan")
    ]
    dealt = next((b for b in record.tables if b.deal is not None), None)
    if dealt is not None and dealt.deal is not None:
        blocks: dict[str, RenderableType] = {
            seat: Text("\n").join(
                [Text(SEAT_NAMES[seat], style="bold"), *hand_lines(dealt.deal[seat])]
            )
            for seat in SEAT_ORDER
        }
        parts.append(_compass_grid(blocks, _board_facts(dealt)))
    if record.tables:
        grid = Table(box=box.SQUARE, show_lines=False, pad_edge=True)
        for board in record.tables:
            grid.add_column(_table_title(board, record, table, you))
        grid.add_row(*[_played_board(board) for board in record.tables])
        parts.append(grid)
    comparison = record.comparison
    if comparison is None:
        hidden = "the other table's play stays" if is_team_match(match) else "the other plays stay"
        parts.append(Text(f"Not compared yet: {hidden} hidden.", style="dim"))
    else:
        parts.append(comparison_line(comparison, match, table, you))
        parts += _double_dummy(comparison)
    for board in record.tables:
        if board.handviewer is not None:
            parts.append(
                Text(f"Table {board.table}: ", style="bold").append_text(handviewer_line(board))
            )
    return Group(*parts)


# -- events ----------------------------------------------------------------------------------


def event_lines(update: Update, me: str | None) -> list[Text]:
    """One line for each thing that happened worth telling apart from the table itself."""
    lines = []
    for event in update.events:
        line = _event_line(event, update, me)
        if line is not None:
            lines.append(Text("• ", style="dim").append_text(line))
    return lines


def _event_line(event: Event, update: Update, me: str | None) -> Text | None:
    view = update.view  # the client library fills it in: the whole view after the update
    assert view is not None
    table_number = getattr(event, "table", None)
    at = f"Table {table_number}: " if isinstance(view, WatchView) and table_number else ""

    def who(seat: str) -> str:
        table = table_number if isinstance(table_number, int) else 0
        return seat_words(seat, _find_player(view.players, table, seat))

    if isinstance(event, Snapshot | CallMade):
        return None
    if isinstance(event, LeadFaceDown):
        return Text(f"{at}{who(event.seat)} leads face down (law 41A)", style="bold")
    if isinstance(event, CardPlayed):
        if event.trick_winner is None:
            return None
        board = _board_of(view, event.table)
        if board is None:
            return None
        trick = board.last_trick or (board.tricks[-1] if board.tricks else None)
        if trick is None:
            return None
        number = len(board.tricks) if board.tricks else board.tricks_ns + board.tricks_ew
        cards: list[Text] = []
        for played in trick.cards:
            cards += [Text(f" {played.seat} "), card_text(played.card)]
        return Text.assemble(at, f"Trick {number} to {SEAT_NAMES[event.trick_winner]}:", *cards)
    if isinstance(event, BoardStarted):
        round_words = f" (round {event.round})" if has_rounds(view.match) else ""
        return Text(f"{at}Board {event.board} starts{round_words}", style="bold")
    if isinstance(event, ClaimMade):
        return Text(f"{at}{who(event.claimer)} claims {event.tricks} tricks")
    if isinstance(event, ClaimAnswered):
        answer = "accepts the claim" if event.accept else "rejects the claim: play goes on"
        return Text(f"{at}{who(event.seat)} {answer}")
    if isinstance(event, ClaimWithdrawn):
        return Text(f"{at}{who(event.seat)} withdrew the claim: play goes on")
    if isinstance(event, ConcessionWithdrawn):
        return Text(
            f"{at}{who(event.seat)} withdrew the concession, as the director allowed: "
            "the play resumes"
        )
    if isinstance(event, ConcessionWithdrawalAsked):
        return Text(
            f"{at}{who(event.seat)} asks the director to let the concession be withdrawn "
            "(laws 69 and 71)",
            style="bold magenta",
        )
    if isinstance(event, ConcessionWithdrawalRefused):
        return Text(f"{at}The director refused: {who(event.seat)}'s concession stands")
    if isinstance(event, UndoRequested):
        return Text.assemble(
            f"{at}{who(event.seat)} asked to take back ",
            _undo_what(event.call, event.card),
            style="yellow",
        )
    if isinstance(event, UndoAnswered):
        if event.seat is None:
            verdict = "allows" if event.accept else "refuses"
            return Text(f"{at}The director {verdict} the undo")
        verdict = "agrees to" if event.accept else "refuses"
        return Text(f"{at}{who(event.seat)} {verdict} the undo")
    if isinstance(event, Undone):
        owner = "Your" if event.seat == me else f"{SEAT_NAMES[event.seat]}'s"
        return Text.assemble(
            f"{at}{owner} ", _undo_what(event.call, event.card), " is taken back", style="bold"
        )
    if isinstance(event, DirectorRuled):
        ruler = "The server ruled on the claim a robot disputed" if event.by_server else ""
        return Text(
            f"{at}{ruler or 'The director ruled'}: declarer's side takes "
            f"{event.declarer_tricks} tricks in all"
        )
    if isinstance(event, ResultAssigned):
        return Text.assemble(
            f"{at}The director assigned table {event.table}'s result on board "
            f"{event.result.board}: ",
            result_text(event.result),
        )
    if isinstance(event, BoardFinished):
        return Text.assemble(
            (f"{at}Board {event.result.board} result: ", "bold"), result_text(event.result)
        )
    if isinstance(event, ReadyForNext):
        return Text(f"{at}{who(event.seat)} is ready for the next board")
    if isinstance(event, ReviewEnded):
        return Text(f"{at}The review of board {event.board} is over")
    if isinstance(event, BoardCompared):
        you = view if isinstance(view, PlayerView) else None
        table = None if you is None else you.table
        return comparison_line(event.comparison, view.match, table, you)
    if isinstance(event, MatchFinished):
        return Text(final_words(view.match), style="bold reverse")
    if isinstance(event, ChatSent):
        return _chat_text(event, me, view.players, with_table=isinstance(view, WatchView))
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
    if isinstance(event, DirectorCalled):
        during = f"board {event.board}" if event.board is not None else "between boards"
        text = f": {event.text}" if event.text else ""
        line = Text(f"{at}{who(event.seat)} called the director ({during}){text}", "bold magenta")
        if isinstance(view, WatchView) and view.mode == "director":
            line.append(f" — answer with say {event.table} TEXT", style="magenta")
        return line
    if isinstance(event, DirectorCallsSeen):
        return Text(f"{at}The director has seen the call at table {event.table}", "magenta")
    if isinstance(event, DirectorCallsClosed):
        return Text(f"{at}The director closed the call at table {event.table}", "magenta")
    if isinstance(event, NameSet):
        seat = SEAT_NAMES[event.seat]
        if event.name is None:
            return Text(f"{at}{seat} has no name now")
        whose = "Your name" if event.seat == me else f"{seat}'s name"
        return Text(f"{at}{whose} is now {event.name}")
    if isinstance(event, PresenceChanged):
        if event.seat == me:
            return None
        if event.robot:
            state = "joined the table" if event.connected else "left the table"
        else:
            state = "is back at the table" if event.connected else "has gone away"
        return Text(f"{at}{who(event.seat)} {state}", style="" if event.connected else AWAY_STYLE)
    if isinstance(event, SeatSubstituted):
        player = "the server's robot" if event.robot else "a new player (a new link)"
        return Text(f"{at}The director gave {SEAT_NAMES[event.seat]}'s seat to {player}", "bold")
    if isinstance(event, TimeUp):
        where = "" if isinstance(view, PlayerView) else f" at table {event.table}"
        return Text(
            f"{at}The round's time is up{where}: the director decides what happens", "bold red"
        )
    return None


def _board_of(view: PlayerView | WatchView, table: int) -> BoardView | None:
    if isinstance(view, PlayerView):
        return view.board
    return next((b for b in view.tables if b.table == table), None)


def last_trick_text(board: BoardView | None) -> Text:
    """The last quitted trick, for ``last``: only while the view carries it (law 66: a
    player sees it until their side has played to the next trick)."""
    if board is None or board.contract is None or board.phase == "auction":
        return Text("No trick has been completed yet.")
    trick = board.last_trick
    if trick is None and board.tricks and board.phase == "finished":
        trick = board.tricks[-1]
    completed = board.tricks_ns + board.tricks_ew
    if trick is None:
        if completed == 0 and not board.tricks:
            return Text("No trick has been completed yet.")
        return Text(
            "The last trick is turned over: your side has played to the next trick "
            "(law 66 lets you look at it only until then)."
        )
    number = len(board.tricks) if board.tricks else completed
    cards: list[Text] = []
    for played in trick.cards:
        cards += [Text(f" {SEAT_NAMES[played.seat]} "), card_text(played.card)]
    return Text.assemble(
        f"Trick {number}, led by {SEAT_NAMES[trick.leader]}, won by "
        f"{SEAT_NAMES[trick.winner or trick.leader]}:",
        *cards,
    )


QUIET_EVENTS = (
    ChatSent,
    QuestionAsked,
    CallExplained,
    DirectorCalled,
    ReadyForNext,
    PresenceChanged,
)
"""Events told in a line of their own, without printing the table again."""


def _is_quiet(event: Event, view: PlayerView | WatchView, me: str | None) -> bool:
    """Whether a line says all about ``event``. A player going away or coming back while
    their table waits for them changes what the table says, and so does anyone coming or
    going before a board's first call (the board starts once its four are there): it is
    shown again."""
    if isinstance(event, ReadyForNext) and event.seat == me:
        return False
    if not isinstance(event, QUIET_EVENTS):
        return False
    if isinstance(event, PresenceChanged):
        board = _board_of(view, event.table)
        if board is not None and board.phase == "auction" and not board.auction:
            return False  # before the first call: who is there decides whether it starts
        if event.seat != me:
            return board is None or board.acting != event.seat
    return True


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
        self._replay: tuple[int, int] | None = None
        """The board being replayed and the trick shown (from 1)."""
        self._linked: str | None = None
        """The hand-viewer link last printed for the board on review."""

    @property
    def role(self) -> str:
        return self.client.welcome.role if self.client.welcome is not None else "player"

    @property
    def prompt_text(self) -> str:
        seat = self.seat
        if seat is not None:
            return f"{SEAT_NAMES[seat]}> "
        return "Director> " if self.role == "director" else "Spectator> "

    @property
    def seat(self) -> str | None:
        """The player's seat now: the latest view's (a player may change seats between
        rounds), else the one they joined in."""
        view = self.client.view
        if isinstance(view, PlayerView):
            return view.seat
        return self.client.welcome.seat if self.client.welcome is not None else None

    def prompt(self) -> None:
        self.console.print(Text(self.prompt_text, style="bold"), end="")
        self.console.file.flush()
        self._at_prompt = True

    def say(self, message: RenderableType | str, style: str = "") -> None:
        """A line of its own: a notice, a refusal, an answer to a command."""
        if self._at_prompt:
            self.console.print()  # an update came meanwhile and left a prompt
        if isinstance(message, str):
            message = Text(message, style=style)
        # A line of text is left to the terminal to wrap: a link stays whole for copying.
        self.console.print(message, soft_wrap=isinstance(message, Text))
        self._at_prompt = False

    def show_new(self) -> bool:
        """Print what the updates received since the last call did, then the table as the
        latest view shows it; False when there was nothing new."""
        received = self.client.received
        updates = [m for m in received[self._read :] if isinstance(m, Update)]
        self._read = len(received)
        view = self.client.view
        if not updates or view is None:
            return False
        me = self.seat
        self._shown_seq = self.client.seq
        self.console.print()
        for update in updates:
            for line in event_lines(update, me):
                self.console.print(line, soft_wrap=True)
        events = [(e, u.view) for u in updates if u.view is not None for e in u.events]
        if events and all(_is_quiet(event, seen, me) for event, seen in events):
            self.prompt()  # the line says it all: the table itself has not changed
            return True
        snapshot = any(isinstance(event, Snapshot) for event, _ in events)
        over = any(isinstance(event, MatchFinished) for event, _ in events)
        self.render(with_chat=snapshot, prompt=False)
        board = view.board if isinstance(view, PlayerView) else None
        if board is not None and board.handviewer is not None and board.handviewer != self._linked:
            self._linked = board.handviewer  # the board on review: its link, once
            self.console.print(handviewer_line(board), soft_wrap=True)
        if over or (snapshot and view.match.finished):
            self.show_scores(prompt=False)
        self.prompt()
        return True

    def render(self, *, with_chat: bool = False, prompt: bool = True) -> None:
        view = self.client.view
        if isinstance(view, PlayerView):
            now = self.client.server_now()
            self.console.print(render_player(view, self.client.seq, with_chat=with_chat, now=now))
        elif isinstance(view, WatchView):
            self.console.print(
                render_watch(
                    view,
                    self.client.seq,
                    director=self.role == "director",
                    with_chat=with_chat,
                    now=self.client.server_now(),
                )
            )
        if prompt:
            self.prompt()

    def show_scores(self, *, prompt: bool = True) -> None:
        """The score sheet (at the end of the match, and for ``scores``)."""
        view = self.client.view
        if view is not None:
            you = view if isinstance(view, PlayerView) else None
            self.console.print(score_sheet(view.match, view.results, you=you))
        if prompt:
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
        await self._resend()
        if not self.show_new():
            self.render()

    async def _resend(self) -> None:
        """What the drop left without an answer goes again, with its own action id: the
        server applies it once whatever happened to the first one. What the table has moved
        on from is not sent again (the client library's rule)."""
        try:
            answers = await self.client.resend()
        except ClientError:
            return  # dropped again: the watch reconnects, and they are still in doubt
        for message, answer in answers:
            what = describe_action(message)
            if isinstance(answer, ClientError) and answer.code == "moved_on":
                self.say(
                    f"Your {what} was not sent again: the table has moved on since "
                    "(it shows whether it was made).",
                    "yellow",
                )
            elif isinstance(answer, ClientError):
                self.say(f"Your {what} was not applied: {answer.message}", "bold red")
            elif answer.repeated:
                self.say(f"Your {what} had reached the table already.", "green")
            else:
                self.say(f"Your {what} was sent again and is done.", "green")

    async def command(self, line: str) -> bool:
        """Carry out one typed line; False once the player quits."""
        self._at_prompt = False  # the line typed ended with Enter
        view = self.client.view
        try:
            command = parse_command(line, view, director=self.role == "director")
        except CommandError as error:
            self.say(f"Not sent: {error}", style="bold yellow")
            self.prompt()
            return True
        if command is None:
            self.prompt()
            return True
        if isinstance(command, LocalCommand) and command.name == "quit":
            self.say("Goodbye: come back any time with the same link.")
            return False
        if isinstance(command, LocalCommand | ReplayCommand):
            self._local(command)
        else:
            await self._remote(command)
        if not self._at_prompt:
            self.prompt()
        return True

    def _local(self, command: LocalCommand | ReplayCommand) -> None:
        view = self.client.view
        if isinstance(command, ReplayCommand):
            self._step_replay(command)
        elif command.name == "help":
            self.say(
                PLAYER_HELP
                if self.role == "player"
                else DIRECTOR_HELP
                if self.role == "director"
                else SPECTATOR_HELP
            )
        elif command.name == "table":
            self.render(with_chat=True)
        elif command.name == "scores":
            self.show_scores()
        elif command.name == "chat":
            self._show_chat()
        elif isinstance(view, WatchView):
            for board in view.tables:
                self.say(Text(f"Table {board.table}: ").append_text(last_trick_text(board)))
            if not view.tables:
                self.say("No board is being played.")
        else:
            self.say(last_trick_text(view.board if isinstance(view, PlayerView) else None))

    def _show_chat(self) -> None:
        """``chat``: every chat line the view carries (the director's: both tables')."""
        view = self.client.view
        if view is None or not view.chat:
            self.say("No chat yet.")
            return
        watching = isinstance(view, WatchView)
        lines = _chat_lines(view.chat, self.seat, view.players, with_table=watching)
        self.say(Text("\n").join([Text("Chat:", style="bold"), *lines]))

    def _step_replay(self, command: ReplayCommand) -> None:
        view = self.client.view
        board = view.board if isinstance(view, PlayerView) else None
        if board is None or board.phase != "finished" or board.deal is None:
            self.say(
                "Not shown: replay goes through a finished board's tricks (during its review); "
                "board N shows any board both tables have finished",
                "bold yellow",
            )
            return
        steps = replay_steps(board)
        if not steps:
            self.say(f"Board {board.board} had no play: there are no tricks to replay.")
            return
        current = self._replay[1] if self._replay and self._replay[0] == board.board else 0
        if command.step == "first":
            number = 1
        elif command.step == "next":
            number = current + 1
        elif command.step == "prev":
            number = current - 1
        else:
            number = command.step
        if not 1 <= number <= len(steps):
            edge = (
                "that was the last trick"
                if command.step == "next"
                else "that was the first trick"
                if command.step == "prev"
                else f"there is no trick {number}"
            )
            self.say(f"Not shown: {edge} (tricks 1 to {len(steps)})", "bold yellow")
            return
        self._replay = (board.board, number)
        self.say(replay_screen(board, number))

    async def _remote(self, command: Sendable | SaveRecordCommand | VerifyDealsCommand) -> None:
        message: Sendable | GetRecord
        if isinstance(command, SaveRecordCommand):
            message = GetRecord(format=command.format)
        elif isinstance(command, VerifyDealsCommand):
            message = GetRecord()
        else:
            message = command
        if self.client.in_doubt:
            await self._resend()  # what is still in doubt goes first, as it was meant
        try:
            reply = await self.client.request(lambda ref: message.model_copy(update={"ref": ref}))
        except ClientError as error:
            if error.code in UNKNOWN_OUTCOME and self.client.in_doubt and error.retry_after_ms:
                # A server past what it can serve: nothing was done, and it says when to come
                # back (SPEC.md section 2).
                wait = error.retry_after_ms / 1000
                self.say(
                    f"The server is busy: your {describe_action(message)} goes again in "
                    f"{wait:.1f} s (the table never takes it twice)",
                    "yellow",
                )
                await asyncio.sleep(wait)
                await self._resend()
            elif error.code in UNKNOWN_OUTCOME and self.client.in_doubt:
                self.say(
                    "The server could not store it just now: it goes again with your next "
                    "command, or once the connection is back (the table never takes it twice)",
                    "bold red",
                )
            elif error.code == "closed" and self.client.in_doubt:
                self.say(
                    "The connection dropped before the server answered: once it is back, "
                    "what you sent goes again (the table never takes it twice)",
                    "bold red",
                )
            elif error.code == "closed":
                self.say("Not sent: the connection is down; wait until it is back", "bold red")
            else:
                self.say(f"Refused by the server: {error.message} ({error.code})", "bold red")
            return
        except TimeoutError:
            self.say("No answer from the server: check the table before trying again", "red")
            return
        self._answer(command, reply)

    def _answer(
        self, command: Sendable | SaveRecordCommand | VerifyDealsCommand, reply: ServerMessage
    ) -> None:
        """Show what the server answered, when it is more than an ``ack``."""
        view = self.client.view
        if isinstance(reply, BoardRecord) and view is not None:
            you = view if isinstance(view, PlayerView) else None
            table = None if you is None else you.table
            self.say(board_record_screen(reply, view.match, table, you))
            for board in reply.tables:
                if board.handviewer is not None:
                    self.say(handviewer_line(board))
        elif isinstance(reply, Substituted):
            seat = f"table {reply.table} {SEAT_NAMES[reply.seat]}"
            if reply.link is None:
                self.say(f"The server's robot now plays {seat}.", style="bold")
            else:
                self.say(
                    Text.assemble(
                        (f"New link for {seat} (the old one no longer works): ", "bold"),
                        reply.link,
                    )
                )
        elif isinstance(reply, MatchRecord) and isinstance(command, SaveRecordCommand):
            self._save_record(command.path, reply)
        elif isinstance(reply, MatchRecord) and isinstance(command, VerifyDealsCommand):
            self.say(deals_verdict(reply.record, None if view is None else view.match))

    def _save_record(self, path: str, reply: MatchRecord) -> None:
        lin = reply.format == "lin"
        games = reply.record.count("qx|") if lin else reply.record.count("[Board ")
        if games == 0:
            self.say("Nothing saved: no board has been finished at both tables yet.", "yellow")
            return
        try:
            Path(path).expanduser().write_text(reply.record, encoding="utf-8")
        except OSError as error:
            self.say(f"Not saved: cannot write {path}: {error.strerror or error}", "bold red")
            return
        kind = "LIN" if lin else "PBN"
        self.say(f"Saved the match record to {path} ({games} tables' boards, {kind}).", "bold")


def describe_action(message: Any) -> str:
    """An action in a player's words: "call 1NT", "card SA", "chat"."""
    if isinstance(message, MakeCall):
        return f"call {message.call}"
    if isinstance(message, PlayCard):
        return f"card {message.card}"
    return str(message.type).replace("_", " ")


async def run_terminal(
    link: str,
    *,
    name: str | None = None,
    input_stream: IO[str] | None = None,
    output: IO[str] | None = None,
) -> None:
    """Join with ``link`` and run the terminal table until ``quit`` or the end of the input;
    ``name`` is sent as the player's name after joining when the seat has none.

    Raises :class:`ClientError` (or ``OSError``) when the first connection fails: a bad
    link, an unknown token, no server there."""
    console = Console(
        file=output if output is not None else sys.stdout, highlight=False, emoji=False
    )
    console.print(Text("Joining the table...", style="dim"))
    client = await Client.connect(link, name="duplicate-terminal", heartbeat=True)
    table = TerminalTable(client, console)
    welcome = client.welcome
    assert welcome is not None
    if welcome.seq > 0:  # a snapshot follows the welcome: commands are read against it
        await client.wait_for(lambda view: view)
    if welcome.seat is not None:
        view = client.view
        number = (
            f" (player {welcome.player})"
            if welcome.player is not None
            and isinstance(view, PlayerView)
            and has_rounds(view.match)
            else ""
        )
        console.print(
            Text(
                f"Joined match {welcome.match_id} as {SEAT_NAMES[welcome.seat]} at table "
                f"{welcome.table}{number}. Type help for the commands.",
                style="bold",
            )
        )
    else:
        console.print(
            Text(f"Watching match {welcome.match_id} as {welcome.role}. Type help.", "bold")
        )
    if name is not None:
        await _send_name(client, console, name)
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


async def _send_name(client: Client, console: Console, name: str) -> None:
    """``--name``: the player's name, unless the seat already has one."""
    view = client.view
    if not isinstance(view, PlayerView):
        console.print(Text("--name is for a player's seat: not sent", style="yellow"))
        return
    mine = _find_player(view.players, view.table, view.seat)
    if mine is not None and mine.name is not None:
        console.print(
            Text(f"--name not sent: this seat's name is already {mine.name}", style="yellow")
        )
        return
    try:
        await client.request(lambda ref: SetName(name=name, ref=ref))
    except ClientError as error:
        console.print(Text(f"--name refused: {error.message} ({error.code})", style="bold red"))


def _name_argument(text: str) -> str:
    name = text.strip()
    if not 1 <= len(name) <= MAX_NAME or _CONTROL.search(name):
        raise argparse.ArgumentTypeError(
            f"a name has 1 to {MAX_NAME} characters, no control characters"
        )
    return name


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m clients.terminal LINK [--name NAME]``: run the table; the exit status is
    0 after ``quit``, 1 when the link does not join (2 for bad arguments)."""
    parser = argparse.ArgumentParser(
        prog="duplicate play", description="the duplicate bridge table in a terminal"
    )
    parser.add_argument("link", help="your seat's link (or the spectator's or director's)")
    parser.add_argument(
        "--name",
        type=_name_argument,
        help="your name at the table, sent after joining if the seat has none",
    )
    args = parser.parse_args(argv)
    try:
        asyncio.run(run_terminal(args.link, name=args.name))
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
