"""The Blue Chip Bridge table manager (clients.bcb) against a real server.

The robots here are BCB clients written for these tests from the published protocol (the
Blue Chip document, version 18, and a session trace of the championships' table manager):
their own line parsing, their own record of the board, their own legal cards. They know
nothing of the adapter's code but its class, to start it (the last tests read the
adapter's own parsers directly).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pytest

from bridge import (
    Auction,
    Call,
    Card,
    Contract,
    Deal,
    Hand,
    Seat,
    Suit,
    Vulnerability,
    imps,
    score,
)
from bridge.play import Trick
from clients.bcb import BcbAdapter, LineError, parse_call, parse_card, parse_connect
from clients.client import Client
from clients.robot import Robot
from protocol.messages import CallExplained, MatchCreated, PlayerView, Update, WatchView
from robots import SeatView
from robots.bidding import choose_call
from robots.play import choose_card
from server.app import Server
from server.limits import RepeatedLogFilter
from tests.server.harness import STRONG_NORTH, create

NAMES = {Seat.NORTH: "North", Seat.EAST: "East", Seat.SOUTH: "South", Seat.WEST: "West"}
BY_NAME = {name.lower(): seat for seat, name in NAMES.items()}
VULNERABLE = {
    "neither": Vulnerability.NONE,
    "n/s": Vulnerability.NS,
    "e/w": Vulnerability.EW,
    "both": Vulnerability.BOTH,
}
READ_TIMEOUT = 20.0
ROOT = Path(__file__).resolve().parents[2]
SECOND_DEAL = Deal.random(random.Random(7)).to_pbn()


def deals(*pbn: str) -> str:
    """A PBN deal file of these deals as boards 1, 2, ... (dealer and vulnerability of the
    board numbers)."""
    dealers, vulnerable = "NESW", ["None", "NS", "EW", "All"]
    return "\n".join(
        f'[Board "{n}"]\n[Dealer "{dealers[(n - 1) % 4]}"]\n'
        f'[Vulnerable "{vulnerable[n - 1]}"]\n[Deal "{deal}"]\n'
        for n, deal in enumerate(pbn, start=1)
    )


# -- a BCB robot, from the protocol ---------------------------------------------------------


class Disconnected(Exception):
    """The table manager closed the connection."""


class StartAgain(Exception):
    """The table manager started the board over ("Start of board" in the middle of one)."""


@dataclass
class Board:
    """One board as the test robot was told it."""

    number: int
    dealer: Seat
    vulnerability: Vulnerability
    me: Seat
    hand: set[Card]
    calls: list[tuple[Seat, Call]] = field(default_factory=list)
    cards: list[tuple[Seat, Card]] = field(default_factory=list)
    declarer: Seat | None = None
    contract: Contract | None = None
    dummy_hand: set[Card] = field(default_factory=set)

    @property
    def dummy(self) -> Seat | None:
        return None if self.declarer is None else self.declarer.partner

    def auction(self) -> Auction:
        return Auction.replay(self.dealer, [call for _seat, call in self.calls])

    def remaining(self, seat: Seat) -> set[Card]:
        dealt = self.hand if seat == self.me else self.dummy_hand
        return dealt - {card for who, card in self.cards if who == seat}

    def tricks(self) -> list[list[tuple[Seat, Card]]]:
        return [self.cards[i : i + 4] for i in range(0, len(self.cards), 4)]

    def winner(self, trick: list[tuple[Seat, Card]]) -> Seat:
        assert self.contract is not None
        trump = self.contract.strain.suit
        best_seat, best = trick[0]
        for seat, card in trick[1:]:
            if (card.suit == best.suit and card.rank > best.rank) or (
                card.suit == trump and best.suit != trump
            ):
                best_seat, best = seat, card
        return best_seat

    def to_play(self) -> Seat:
        assert self.declarer is not None
        if not self.cards:
            return self.declarer.lho
        if len(self.cards) % 4:
            return self.cards[-1][0].lho
        return self.winner(self.cards[-4:])

    def legal(self, seat: Seat) -> list[Card]:
        """``seat``'s legal cards, spades first, high to low (as the rules list them)."""
        held = self.remaining(seat)
        started = len(self.cards) % 4
        if started:
            led = self.cards[len(self.cards) - started][1].suit
            following = {card for card in held if card.suit == led}
            held = following or held
        return sorted(held, key=lambda card: (-card.suit, -card.rank))

    def declarer_tricks(self) -> int:
        assert self.declarer is not None
        side = self.declarer % 2
        return sum(
            1 for trick in self.tricks() if len(trick) == 4 and self.winner(trick) % 2 == side
        )


class Brain(Protocol):
    def call(self, board: Board) -> tuple[Call, str | None]:
        """The call, and its alert (None: not alerted)."""
        ...

    def card(self, board: Board, player: Seat) -> Card: ...


OPENING = "12+ points, longest suit"


class Plain:
    """Opens one of its longest suit with 12 or more points when nobody has bid (alerted:
    :data:`OPENING`), and passes otherwise; plays its lowest legal card (``high``: its
    highest)."""

    def __init__(self, high: bool = False) -> None:
        self.high = high

    def call(self, board: Board) -> tuple[Call, str | None]:
        if any(str(call) not in ("P", "X", "XX") for _seat, call in board.calls):
            return Call.parse("P"), None
        points = sum(card.hcp for card in board.hand)
        if points < 12:
            return Call.parse("P"), None
        longest = max(Suit, key=lambda suit: (sum(c.suit == suit for c in board.hand), suit))
        return Call.parse(f"1{longest.letter}"), OPENING

    def card(self, board: Board, player: Seat) -> Card:
        legal = board.legal(player)
        return max(legal, key=lambda c: c.rank) if self.high else min(legal, key=lambda c: c.rank)


class Robots:
    """Our own robots' decisions (robots.bidding, robots.play), from what the test robot
    was told, as our server's robots see it."""

    def call(self, board: Board) -> tuple[Call, str | None]:
        auction = board.auction()
        view = SeatView.from_auction(auction, Hand(board.hand), board.vulnerability)
        return choose_call(view)[0], None  # told on request, as our robots do

    def card(self, board: Board, player: Seat) -> Card:
        assert board.declarer is not None
        assert board.contract is not None
        me = board.me
        tricks = []
        for trick in board.tricks():
            if len(trick) == 4:
                tricks.append(Trick(trick[0][0], tuple(c for _s, c in trick), board.winner(trick)))
        started = len(board.cards) % 4
        current = board.cards[len(board.cards) - started :] if started else []
        leader = current[0][0] if current else board.to_play()
        dummy = board.dummy
        view = SeatView(
            me=me,
            turn=player,
            dealer=board.dealer,
            vulnerability=board.vulnerability,
            calls=tuple(call for _seat, call in board.calls),
            hand=Hand(board.remaining(me)),
            contract=board.contract,
            declarer=board.declarer,
            dummy_hand=Hand(board.remaining(dummy)) if dummy is not None and dummy != me else None,
            tricks=tuple(tricks),
            current=Trick(leader, tuple(c for _s, c in current), None),
            legal_cards=tuple(board.legal(player)),
        )
        return choose_card(view)


class BcbRobot:
    """A BCB robot at one seat: connects, says its lines, reads the table manager's, plays
    until "End of session". After the table manager closes the connection (an error), it
    connects again. ``mischief``: bad lines to send, each once, at the first chance;
    ``drop_after``: (board, cards) at which it drops its connection once, then comes back;
    ``pause``: (board, cards, event): once that many cards are played, it waits for the
    event before it plays its next card; ``say_dummy``: as declarer, it plays dummy's cards
    as ``Dummy plays 7C`` (the protocol's other form) rather than with dummy's seat."""

    def __init__(
        self,
        port: int,
        seat: Seat,
        team: str,
        brain: Brain,
        mischief: list[str] | None = None,
        drop_after: tuple[int, int] | None = None,
        pause: tuple[int, int, asyncio.Event] | None = None,
        say_dummy: bool = False,
    ) -> None:
        self.port = port
        self.me = seat
        self.name = NAMES[seat]
        self.team = team
        self.brain = brain
        self.mischief = list(mischief or [])
        self.drop_after = drop_after
        self.pause = pause
        self.say_dummy = say_dummy
        self.sessions: list[list[tuple[str, str]]] = []
        """Each connection's lines: ("<", received) and (">", sent)."""
        self.errors: list[str] = []
        self.boards: dict[int, Board] = {}
        self.timings: list[str] = []
        self.teams: tuple[str, str] | None = None
        self.ended = False
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    # -- lines --

    async def send(self, line: str | bytes) -> None:
        assert self._writer is not None
        data = line if isinstance(line, bytes) else line.encode("ascii") + b"\r\n"
        self.sessions[-1].append((">", data.decode("latin-1").rstrip("\r\n")))
        self._writer.write(data)
        await self._writer.drain()

    async def read(self) -> str:
        assert self._reader is not None
        async with asyncio.timeout(READ_TIMEOUT):
            data = await self._reader.readline()
        if not data:
            raise Disconnected("the table manager closed the connection")
        line = data.decode("ascii").rstrip("\r\n")
        self.sessions[-1].append(("<", line))
        if line.startswith("Error"):
            self.errors.append(line)
        return line

    async def read_in_board(self) -> str:
        line = await self.read()
        if line.lower() == "start of board":
            raise StartAgain
        return line

    async def expect(self, pattern: str) -> re.Match[str]:
        line = await self.read_in_board()
        match = re.fullmatch(pattern, line)
        assert match is not None, f"{self.name}: expected {pattern!r}, got {line!r}"
        return match

    def due(self, kind: str) -> bool:
        """Whether the next mischief is ``kind`` (and it is spent)."""
        if self.mischief and self.mischief[0] == kind:
            self.mischief.pop(0)
            return True
        return False

    async def misbehave(self, line: str | bytes) -> None:
        """Send a bad line: the table manager answers "Error: ..." and hangs up."""
        await self.send(line)
        while True:
            try:
                await self.read()
            except (Disconnected, ConnectionResetError):
                break
        assert self.sessions[-1][-1][1].startswith("Error: "), self.sessions[-1]
        raise Disconnected("refused")

    # -- the session --

    async def run(self) -> None:
        while not self.ended:
            try:
                await self.session()
            except (Disconnected, ConnectionResetError):
                await asyncio.sleep(0.05)
            finally:
                if self._writer is not None:
                    self._writer.close()
                    with contextlib.suppress(OSError):
                        await self._writer.wait_closed()

    async def session(self) -> None:
        self._reader, self._writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.sessions.append([])
        if self.due("garbage"):
            await self.misbehave(b"\x00\x01GET / HTTP/1.1\xff\r\n")
        await self.send(f'Connecting "{self.team}" as {self.name} using protocol version 18')
        assert await self.read() == f'{self.name} ("{self.team}") seated'
        await self.send(f"{self.name} ready for teams")
        teams = re.fullmatch(r'Teams : N/S : "(.*)" E/W : "(.*)"', await self.read())
        assert teams is not None
        self.teams = (teams[1], teams[2])
        await self.send(f"{self.name} ready to start")
        line = await self.read()
        while True:
            if line == "End of session":
                self.ended = True
                return
            if line.startswith("Timing - "):
                self.timings.append(line)
                line = await self.read()
                continue
            assert line == "Start of board", line
            try:
                await self.board()
                line = await self.read()
            except StartAgain:
                line = "Start of board"

    async def board(self) -> None:
        name = self.name
        if self.due("overlong"):
            await self.misbehave("x" * 5000)
        if self.due("wrong seat"):
            await self.misbehave(f"{NAMES[self.me.lho]} ready for deal")
        await self.send(f"{name} ready for deal")
        told = await self.expect(r"Board number (\d+)\. Dealer (\w+)\. (\S+) vulnerable\.")
        await self.send(f"{name} ready for cards")
        cards = await self.read_in_board()
        assert cards.startswith(f"{name}'s cards : "), cards
        board = Board(
            int(told[1]),
            BY_NAME[told[2].lower()],
            VULNERABLE[told[3].lower()],
            self.me,
            hand_of(cards),
        )
        self.boards[board.number] = board
        # The auction.
        auction = Auction(board.dealer)
        while not auction.is_complete:
            caller = auction.turn
            assert caller is not None
            if caller == self.me:
                if self.due("illegal call"):
                    bid = any(str(c) not in ("P", "X", "XX") for c in auction.calls)
                    bad = "bids 1C" if bid else "doubles"  # insufficient, or nothing to double
                    await self.misbehave(f"{name} {bad}")
                call, alert = self.brain.call(board)
                alerted = f" Alert. {alert}" if alert else ""
                await self.send(f"{name} {call_words(call)}{alerted}")
            else:
                if self.due("out of turn"):
                    await self.misbehave(f"{name} bids 7NT")
                await self.send(f"{name} ready for {NAMES[caller]}'s bid")
                line = await self.read_in_board()
                seat, call = call_of(line)
                assert seat == caller, line
            auction.call(call)
            board.calls.append((caller, call))
        board.contract, board.declarer = auction.contract, auction.declarer
        if board.declarer is None:
            return
        dummy = board.declarer.partner
        if dummy == self.me:
            board.dummy_hand = set(board.hand)
        # The play.
        while len(board.cards) < 52:
            if self.drop_after == (board.number, len(board.cards)):
                self.drop_after = None
                assert self._writer is not None
                self._writer.transport.abort()
                raise Disconnected("dropped on purpose")
            player = board.to_play()
            controller = board.declarer if player == dummy else player
            trick = len(board.cards) // 4 + 1
            if controller == self.me:
                if len(board.cards) % 4 == 0:
                    whom = "Dummy" if player == dummy else name
                    await self.expect(f"{whom} to lead")
                if self.due("card not held"):
                    held = board.remaining(player)
                    stranger = next(
                        c
                        for c in sorted(Card.parse(s + r) for s in "SHDC" for r in "AKQJT98765432")
                        if c not in held
                    )
                    await self.misbehave(
                        f"{NAMES[player]} plays {stranger.rank.letter}{stranger.suit.letter}"
                    )
                legal = board.legal(player)
                revokes = sorted(board.remaining(player) - set(legal))
                if revokes and self.mischief[:1] == ["revoke"]:
                    self.mischief.pop(0)
                    await self.misbehave(
                        f"{NAMES[player]} plays {revokes[0].rank.letter}{revokes[0].suit.letter}"
                    )
                card = self.brain.card(board, player)
                assert card in legal
                if (
                    self.pause
                    and self.pause[0] == board.number
                    and len(board.cards) >= self.pause[1]
                ):
                    release, self.pause = self.pause[2], None
                    await release.wait()
                who = "Dummy" if self.say_dummy and player == dummy != self.me else NAMES[player]
                await self.send(f"{who} plays {card.rank.letter}{card.suit.letter}")
            else:
                label = "dummy" if player == dummy == self.me else NAMES[player]
                await self.send(f"{name} ready for {label}'s card to trick {trick}")
                line = await self.read_in_board()
                seat, card = card_of(line)
                assert seat == player, line
                assert player == self.me or card not in board.remaining(self.me)
            board.cards.append((player, card))
            if len(board.cards) == 1 and dummy != self.me:
                await self.send(f"{name} ready for dummy")
                shown = await self.read_in_board()
                assert shown.startswith("Dummy's cards : "), shown
                board.dummy_hand = hand_of(shown)


def hand_of(line: str) -> set[Card]:
    """The cards of "North's cards : S A K 2. H -. D ... C ...." (or Dummy's)."""
    _label, _, suits = line.partition(" : ")
    cards = set()
    for chunk in suits.split("."):
        words = chunk.split()
        if not words:
            continue
        for rank in words[1:]:
            if rank != "-":
                cards.add(Card.parse(words[0] + rank))
    assert len(cards) == 13, line
    return cards


def call_words(call: Call) -> str:
    text = str(call)
    return {"P": "passes", "X": "doubles", "XX": "redoubles"}.get(text) or f"bids {text}"


def call_of(line: str) -> tuple[Seat, Call]:
    """ "East bids 1NT Alert. ..." -> (East, 1NT)."""
    words = line.split(" Alert.")[0].split()
    verbs = {"passes": "P", "doubles": "X", "redoubles": "XX"}
    text = verbs.get(words[1]) or words[2]
    return BY_NAME[words[0].lower()], Call.parse(text)


def card_of(line: str) -> tuple[Seat, Card]:
    """ "West plays 7C" -> (West, C7)."""
    seat, verb, card = line.split()
    assert verb == "plays", line
    return BY_NAME[seat.lower()], Card.parse(card[1] + card[0])


# -- setting a match up ---------------------------------------------------------------------


def every_log_line(caplog: pytest.LogCaptureFixture) -> None:
    """Capture every line the adapter logs: the server in this process lets at most five
    like lines a second through each handler (RepeatedLogFilter), and a robot refused six
    times in a second is logged six times (``duplicate bcb`` runs in a process of its own)."""
    caplog.set_level(logging.INFO, logger="clients.bcb")
    for found in list(caplog.handler.filters):
        if isinstance(found, RepeatedLogFilter):
            caplog.handler.removeFilter(found)


@contextlib.contextmanager
def logged(words: str) -> Iterator[asyncio.Event]:
    """An event set once the adapter logs a message with ``words`` in it (the test's
    caplog sets the level)."""
    seen = asyncio.Event()

    class Watch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if words in record.getMessage():
                seen.set()

    watch = Watch()
    logger = logging.getLogger("clients.bcb")
    logger.addHandler(watch)
    try:
        yield seen
    finally:
        logger.removeHandler(watch)


def seat_links(created: MatchCreated) -> dict[tuple[int, Seat], str]:
    return {(s.table, Seat.parse(s.seat)): s.link for s in created.seats if s.link is not None}


def team_at(created: MatchCreated, table: int, seat: str) -> str | None:
    return next(s.team for s in created.seats if (s.table, s.seat) == (table, seat))


def program(team: str | None) -> str:
    """The team name the BCB program of the match's team ``team`` connects with."""
    return f"Program {team}"


async def finished_match(created: MatchCreated, timeout: float = 60) -> WatchView:
    director = await Client.connect(created.director, name="test director")
    try:
        view = await director.wait_for(
            lambda v: v if isinstance(v, WatchView) and v.match.finished else None, timeout
        )
    finally:
        await director.close()
    assert isinstance(view, WatchView)
    return view


async def play(adapter: BcbAdapter, robots: list[BcbRobot], timeout: float = 60) -> None:
    """Run the robots to the end of the session, and the adapter to the end of the match."""
    async with asyncio.timeout(timeout):
        await asyncio.gather(*(robot.run() for robot in robots))
        await adapter.wait_finished()


class Wire:
    """A bare connection to a table's port, for the tests that say each line themselves."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, port: int) -> Wire:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def say(self, line: str) -> None:
        self.writer.write(line.encode("ascii") + b"\r\n")
        await self.writer.drain()

    async def hear(self) -> str:
        """The table manager's next line ("" once it hung up)."""
        async with asyncio.timeout(READ_TIMEOUT):
            data = await self.reader.readline()
        return data.decode("ascii").rstrip("\r\n")

    async def rest(self) -> list[str]:
        """Every line until the table manager hangs up."""
        heard = []
        while line := await self.hear():
            heard.append(line)
        return heard

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError):
            await self.writer.wait_closed()


# -- the tests ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_eight_bcb_robots_play_a_teams_match(server: Server) -> None:
    created = await create(server, boards=2, deals_pbn=deals(STRONG_NORTH, SECOND_DEAL))
    links = seat_links(created)
    assert len(links) == 8
    adapter = BcbAdapter(list(links.values()), port=0)
    await adapter.start()
    try:
        assert set(adapter.ports) == {1, 2}
        # Each team's program plays N-S at one table and E-W at the other, under one name.
        robots = [
            BcbRobot(
                adapter.ports[table],
                seat,
                program(team_at(created, table, seat.letter)),
                Plain(high=table == 2),
            )
            for table, seat in links
        ]
        await play(adapter, robots)
        final = await finished_match(created)
    finally:
        await adapter.close()

    by_place = dict(zip(links, robots, strict=True))
    for (table, seat), robot in by_place.items():
        assert robot.ended
        assert not robot.errors
        assert len(robot.sessions) == 1
        transcript = robot.sessions[0]
        name = NAMES[seat]
        # The Teams line carries the names the programs connected with, not the match's:
        # a program that checks its own side's name there (ComputerBridge's) plays on.
        ns, ew = program(team_at(created, table, "N")), program(team_at(created, table, "E"))
        assert robot.team == (ns if seat.is_north_south else ew)
        assert robot.team not in (final.match.team_a, final.match.team_b)
        assert transcript[:6] == [
            (">", f'Connecting "{robot.team}" as {name} using protocol version 18'),
            ("<", f'{name} ("{robot.team}") seated'),
            (">", f"{name} ready for teams"),
            ("<", f'Teams : N/S : "{ns}" E/W : "{ew}"'),
            (">", f"{name} ready to start"),
            ("<", "Start of board"),
        ]
        assert ("<", "Board number 1. Dealer North. Neither vulnerable.") in transcript
        assert ("<", "Board number 2. Dealer East. N/S vulnerable.") in transcript
        assert transcript[-1] == ("<", "End of session")
        assert len(robot.timings) == 2
        assert all(
            re.fullmatch(
                r"Timing - N/S : this board  \d\d:\d\d,  total  \d:\d\d:\d\d\.  E/W : this board  \d\d:\d\d,  total  \d:\d\d:\d\d\.",
                t,
            )
            for t in robot.timings
        )
        # Each robot was dealt its hand of the deal, and saw the same auction and play as
        # the others at its table.
        deal = Deal.from_pbn(STRONG_NORTH)
        assert robot.boards[1].hand == set(deal[seat])
        for number in (1, 2):
            seen = by_place[(table, Seat.NORTH)].boards[number]
            assert robot.boards[number].calls == seen.calls
            assert robot.boards[number].cards == seen.cards
    # Board 1: North opens 1S with its 25 points; East leads; dummy's cards come as dealt.
    north = by_place[(1, Seat.NORTH)]
    assert ("<", "North's cards : S A K Q J. H A K Q. D A K Q. C A K Q.") in north.sessions[0]
    assert ("<", "Dummy's cards : S 7 6 5. H 7 6 5. D 8 7 6 5. C 8 7 6.") in north.sessions[0]
    assert ("<", "East to lead") in by_place[(1, Seat.EAST)].sessions[0]
    # North's alert reaches its opponents, never its partner.
    for seat in (Seat.EAST, Seat.WEST):
        assert ("<", f"North bids 1S Alert. {OPENING}") in by_place[(1, seat)].sessions[0]
    assert ("<", "North bids 1S") in by_place[(1, Seat.SOUTH)].sessions[0]
    # Declarer plays dummy's cards; they are not echoed back to declarer.
    first = north.sessions[0][: north.sessions[0].index(("<", north.timings[0]))]
    assert not [line for way, line in first if way == "<" and line.startswith("South plays")]
    assert len([line for way, line in first if way == ">" and line.startswith("South plays")]) == 13
    assert [str(c) for _s, c in north.boards[1].calls] == ["1S", "P", "P", "P"]
    # The results, the swings and the total are the server's, from what the robots played.
    total = 0
    for comparison in final.match.comparisons:
        scores = {}
        for result in comparison.results:
            board = by_place[(result.table, Seat.NORTH)].boards[comparison.board]
            contract, declarer = board.contract, board.declarer
            assert result.contract == (None if contract is None else str(contract))
            tricks = 0 if declarer is None else board.declarer_tricks()
            assert result.tricks == tricks
            vulnerability = board.vulnerability
            scores[result.table] = score(contract, declarer, vulnerability, tricks)
            assert result.ns_score == scores[result.table]
        team_a_ns_at_1 = team_at(created, 1, "N") == "A"
        difference = scores[1] - scores[2] if team_a_ns_at_1 else scores[2] - scores[1]
        assert comparison.swing == imps(difference)
        total += imps(difference)
    assert len(final.match.comparisons) == 2
    assert final.match.imps_a - final.match.imps_b == total


@pytest.mark.asyncio
async def test_our_robots_behind_the_adapter_play_as_our_robots_do(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=deals(SECOND_DEAL), robots=["t2"])
    links = seat_links(created)
    adapter = BcbAdapter([links[(1, Seat.NORTH)], links[(1, Seat.SOUTH)]], port=0)
    await adapter.start()
    opponents = [Robot(links[(1, seat)], name=f"robot {seat}") for seat in (Seat.EAST, Seat.WEST)]
    running = [asyncio.create_task(robot.run()) for robot in opponents]
    try:
        assert set(adapter.ports) == {1}
        robots = [
            BcbRobot(adapter.ports[1], seat, "Ours", Robots()) for seat in (Seat.NORTH, Seat.SOUTH)
        ]
        await play(adapter, robots)
        final = await finished_match(created)
        async with asyncio.timeout(10):
            await asyncio.gather(*running)
    finally:
        for task in running:
            task.cancel()
        for robot in opponents:
            await robot.close()
        await adapter.close()
    assert all(robot.ended and not robot.errors for robot in robots)
    assert not any(robot.errors for robot in opponents)
    # Our robots decide from what a seat may know, however it is told: behind the BCB
    # table manager they play table 1 exactly as the server's robots play table 2.
    (comparison,) = final.match.comparisons
    one, two = sorted(comparison.results, key=lambda r: r.table)
    assert (one.contract, one.declarer, one.tricks) == (two.contract, two.declarer, two.tricks)
    assert comparison.swing == 0
    observer = await Client.connect(links[(1, Seat.NORTH)], name="test observer")
    try:
        record = await observer.board(1)
    finally:
        await observer.close()
    table1, table2 = sorted(record.tables, key=lambda b: b.table)
    assert [e.call for e in table1.auction] == [e.call for e in table2.auction]
    assert [[c.card for c in t.cards] for t in table1.tricks] == [
        [c.card for c in t.cards] for t in table2.tricks
    ]
    north = robots[0].boards[1]
    assert [str(c) for _s, c in north.calls] == [e.call for e in table1.auction]


MISCHIEF = [
    "garbage",
    "overlong",
    "wrong seat",
    "illegal call",
    "out of turn",
    "card not held",
    "revoke",
]


@pytest.mark.asyncio
async def test_bad_lines_are_refused_logged_and_change_nothing(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    every_log_line(caplog)
    created = await create(server, boards=1, deals_pbn=deals(STRONG_NORTH), robots=["t2"])
    links = seat_links(created)
    adapter = BcbAdapter(list(links.values()), port=0)
    await adapter.start()
    try:
        port = adapter.ports[1]
        robots = {
            seat: BcbRobot(
                port, seat, "Robots", Plain(), mischief=MISCHIEF if seat == Seat.EAST else None
            )
            for seat in Seat
        }
        await play(adapter, list(robots.values()))
        final = await finished_match(created)
    finally:
        await adapter.close()
    east = robots[Seat.EAST]
    assert not east.mischief, "every bad line was sent"
    assert len(east.errors) == len(MISCHIEF)
    assert len(east.sessions) == len(MISCHIEF) + 1
    expected = [
        "characters outside the protocol's ASCII",
        "a line longer than 1024 bytes",
        "expected 'East ready for deal', got 'South ready for deal'",
        "1C is not a legal call now",
        "expected \"East ready for North's bid\", got 'East bids 7NT'",
        "does not hold",
        "must follow suit",
    ]
    for error, words in zip(east.errors, expected, strict=True):
        assert error.startswith("Error: "), error
        assert words in error, (error, words)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    for words in expected:  # the first, before East named its seat, by its address
        assert any("table 1" in w and words in w for w in warnings), (words, warnings)
    assert sum("table 1 East" in w for w in warnings) == len(MISCHIEF) - 1
    # The other seats carried on, on their first connection, and never saw an error.
    for seat in (Seat.NORTH, Seat.SOUTH, Seat.WEST):
        assert robots[seat].ended
        assert len(robots[seat].sessions) == 1
        assert not robots[seat].errors
    # Nothing of the bad lines reached the server: the board was played as the robots saw it.
    board = robots[Seat.NORTH].boards[1]
    assert [str(c) for _s, c in board.calls] == ["1S", "P", "P", "P"]
    result = next(r for r in final.match.comparisons[0].results if r.table == 1)
    assert (result.contract, result.declarer, result.tricks) == ("1S", "N", board.declarer_tricks())
    for robot in robots.values():
        assert robot.boards[1].cards == board.cards


@pytest.mark.asyncio
async def test_a_robot_that_drops_mid_board_comes_back_to_where_it_was(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    every_log_line(caplog)
    created = await create(server, boards=1, deals_pbn=deals(STRONG_NORTH), robots=["t2"])
    links = seat_links(created)
    adapter = BcbAdapter(list(links.values()), port=0)
    await adapter.start()
    try:
        port = adapter.ports[1]
        # North, declarer, drops its connection after trick 5 (and after dummy's first
        # card of trick 6 for South, dummy): each comes back and is told the board again.
        robots = {
            seat: BcbRobot(
                port,
                seat,
                "Robots",
                Plain(),
                drop_after={Seat.NORTH: (1, 20), Seat.SOUTH: (1, 22)}.get(seat),
            )
            for seat in Seat
        }
        await play(adapter, list(robots.values()))
        final = await finished_match(created)
    finally:
        await adapter.close()
    north, south = robots[Seat.NORTH], robots[Seat.SOUTH]
    assert len(north.sessions) == 2
    assert len(south.sessions) == 2
    assert not any(robot.errors for robot in robots.values())
    # The second session replays the board: the deal, the auction, the cards so far.
    again = north.sessions[1]
    assert ("<", "Start of board") in again
    assert ("<", "North's cards : S A K Q J. H A K Q. D A K Q. C A K Q.") in again
    assert ("<", "Dummy's cards : S 7 6 5. H 7 6 5. D 8 7 6 5. C 8 7 6.") in again
    board = north.boards[1]
    assert len(board.cards) == 52
    for robot in robots.values():
        assert robot.boards[1].cards == board.cards
    result = next(r for r in final.match.comparisons[0].results if r.table == 1)
    assert result.tricks == board.declarer_tricks()
    assert any("North" in r.getMessage() and "robot gone" in r.getMessage() for r in caplog.records)


@pytest.mark.asyncio
async def test_a_card_taken_back_by_the_director_starts_the_board_over(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    every_log_line(caplog)
    caplog.set_level(logging.DEBUG, logger="clients.bcb")
    created = await create(server, boards=1, deals_pbn=deals(STRONG_NORTH), robots=["t2"])
    links = seat_links(created)
    adapter = BcbAdapter([links[(1, seat)] for seat in Seat], port=0)
    await adapter.start()
    director = await Client.connect(created.director, name="test director")
    release = asyncio.Event()
    robots = {
        seat: BcbRobot(
            adapter.ports[1],
            seat,
            "Robots",
            Plain(),
            pause=(1, 10, release) if seat == Seat.NORTH else None,
        )
        for seat in Seat
    }
    running = asyncio.gather(*(robot.run() for robot in robots.values()))

    def waiting_for_north(view: object) -> int | None:
        """The cards played at table 1 once it waits for North (who holds still)."""
        assert isinstance(view, WatchView)
        table = next(board for board in view.tables if board.table == 1)
        trick = table.current_trick
        played = 4 * (table.tricks_ns + table.tricks_ew) + (len(trick.cards) if trick else 0)
        return played if table.phase == "play" and table.acting == "N" and played >= 10 else None

    try:
        played = await director.wait_for(waiting_for_north)
        await director.undo(table=1)  # the table's last card goes back to its hand
        release.set()
        async with asyncio.timeout(30):
            await running
            await adapter.wait_finished()
    finally:
        running.cancel()
        await director.close()
        await adapter.close()
    # Every robot was told the board again from its start ("Start of board" in the middle of
    # it), in the same session, and played it to the end.
    for robot in robots.values():
        assert robot.ended
        assert not robot.errors
        assert len(robot.sessions) == 1
        assert robot.sessions[0].count(("<", "Start of board")) == 2
        assert robot.boards[1].cards == robots[Seat.NORTH].boards[1].cards
        assert len(robot.boards[1].cards) == 52
    assert played >= 10
    messages = [r.getMessage() for r in caplog.records]
    assert sum("board 1 starts over" in m for m in messages) == 4, messages
    # North played its card and went on before it heard the board start over: what it
    # said meanwhile was let pass.
    assert any(m.startswith("table 1 North: ") and m.endswith(" let pass") for m in messages)


@pytest.mark.asyncio
async def test_an_opponent_asks_and_the_robots_alert_answers(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=deals(STRONG_NORTH), robots=["t2", "1W"])
    links = seat_links(created)
    adapter = BcbAdapter([links[(1, Seat.NORTH)], links[(1, Seat.SOUTH)]], port=0)
    await adapter.start()
    east = await Client.connect(links[(1, Seat.EAST)], name="a person at East")
    robots = [
        BcbRobot(adapter.ports[1], seat, "Robots", Plain()) for seat in (Seat.NORTH, Seat.SOUTH)
    ]
    running = asyncio.gather(*(robot.run() for robot in robots))
    try:
        view = await east.wait_for(lambda v: v if v.board and v.board.auction else None)
        assert isinstance(view, PlayerView)
        assert view.board is not None
        assert (view.board.auction[0].call, view.board.auction[0].alert) == ("1S", OPENING)
        await east.ask(0)  # what does North's 1S mean? The robot's alert says.

        def explained(_view: object) -> CallExplained | None:
            for message in east.received:
                for event in message.events if isinstance(message, Update) else []:
                    if isinstance(event, CallExplained):
                        return event
            return None

        answer = await east.wait_for(explained)
        assert (answer.seat, answer.index, answer.text) == ("N", 0, OPENING)
        while True:  # East plays its turns: the first legal call or card
            view = await east.wait_for(
                lambda v: (
                    v
                    if v.match.finished
                    or (
                        v.board
                        and (
                            v.board.phase == "finished" or (v.board.acting == "E" and v.board.legal)
                        )
                    )
                    else None
                )
            )
            board = view.board
            if view.match.finished or board is None or board.phase == "finished":
                break
            await (east.call("P") if board.phase == "auction" else east.play(board.legal[0]))
        async with asyncio.timeout(30):
            await running
            await adapter.wait_finished()
    finally:
        running.cancel()
        await east.close()
        await adapter.close()
    assert all(robot.ended and not robot.errors for robot in robots)
    assert len(robots[0].boards[1].cards) == 52
    # No robot plays E-W from here: the Teams line names that side as the match does.
    names = {"A": "Team A", "B": "Team B"}
    assert all(robot.teams == ("Robots", names[team_at(created, 1, "E") or ""]) for robot in robots)


@pytest.mark.asyncio
async def test_who_may_connect_and_a_silent_robot(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    every_log_line(caplog)
    created = await create(server, boards=1, robots=["t2"])
    links = seat_links(created)
    adapter = BcbAdapter([links[(1, Seat.NORTH)]], port=0, timeout=0.5)
    await adapter.start()

    async def exchange(line: str) -> list[str]:
        """Say ``line`` and read everything the table manager says until it hangs up."""
        reader, writer = await asyncio.open_connection("127.0.0.1", adapter.ports[1])
        writer.write(line.encode("ascii") + b"\r\n")
        heard = []
        try:
            async with asyncio.timeout(5):
                while data := await reader.readline():
                    heard.append(data.decode("ascii").rstrip("\r\n"))
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        return heard

    try:
        assert await exchange('Connecting "Them" as West using protocol version 18') == [
            "Error: West at table 1 is not played from here"
        ]
        assert await exchange('Connecting "Them" as North using protocol version 17') == [
            "Error: protocol version 17 is not spoken here: 18"
        ]
        # ANYPL takes the free seat; a robot that then says nothing is let go in time.
        started = asyncio.get_running_loop().time()
        heard = await exchange('Connecting "Silent" as ANYPL using protocol version 18')
        assert heard == ['North ("Silent") seated']
        assert asyncio.get_running_loop().time() - started >= 0.5
    finally:
        await adapter.close()
    messages = [r.getMessage() for r in caplog.records]
    assert any("table 1 North: robot gone (nothing said in 0.5 seconds)" in m for m in messages)
    assert any("West at table 1 is not played from here" in m for m in messages)


@pytest.mark.asyncio
async def test_partners_must_give_one_team_name(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    every_log_line(caplog)
    created = await create(server, boards=1, robots=["t2"], team_a="Sharks", team_b="Minnows")
    links = seat_links(created)
    adapter = BcbAdapter([links[(1, Seat.NORTH)], links[(1, Seat.SOUTH)]], port=0)
    await adapter.start()
    port = adapter.ports[1]
    wires = [north := await Wire.open(port)]
    try:
        await north.say('Connecting "Alpha" as North using protocol version 18')
        assert await north.hear() == 'North ("Alpha") seated'
        # While North is seated for "Alpha", South cannot sit down for another team.
        wires.append(south := await Wire.open(port))
        await south.say('Connecting "Beta" as South using protocol version 18')
        assert await south.rest() == ['Error: Team name mismatch: North is seated for "Alpha"']
        # North was not disturbed, and South sits down under North's name.
        wires.append(south := await Wire.open(port))
        await south.say('Connecting "Alpha" as South using protocol version 18')
        assert await south.hear() == 'South ("Alpha") seated'
        east_west = {"A": "Sharks", "B": "Minnows"}[team_at(created, 1, "E") or ""]
        for wire, name in ((south, "South"), (north, "North")):
            await wire.say(f"{name} ready for teams")
            assert await wire.hear() == f'Teams : N/S : "Alpha" E/W : "{east_west}"'
    finally:
        for wire in wires:
            await wire.close()
        await adapter.close()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(w.startswith("table 1 South: Team name mismatch") for w in warnings), warnings


@pytest.mark.asyncio
async def test_the_teams_line_names_the_other_sides_robots_once_they_connect(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    every_log_line(caplog)
    created = await create(server, boards=1, robots=["t2"])
    links = seat_links(created)
    adapter = BcbAdapter([links[(1, Seat.NORTH)], links[(1, Seat.EAST)]], port=0)
    await adapter.start()
    port = adapter.ports[1]
    wires = [north := await Wire.open(port)]
    try:
        with logged("table 1 North: waiting for a robot at East or West") as waiting:
            await north.say('Connecting "Alpha" as North using protocol version 18')
            assert await north.hear() == 'North ("Alpha") seated'
            await north.say("North ready for teams")
            # North asked before any E-W robot connected: the table manager waits for one.
            async with asyncio.timeout(READ_TIMEOUT):
                await waiting.wait()
        wires.append(east := await Wire.open(port))
        await east.say('Connecting "Beta" as East using protocol version 18')
        assert await east.hear() == 'East ("Beta") seated'
        await east.say("East ready for teams")
        assert await east.hear() == 'Teams : N/S : "Alpha" E/W : "Beta"'
        assert await north.hear() == 'Teams : N/S : "Alpha" E/W : "Beta"'
    finally:
        for wire in wires:
            await wire.close()
        await adapter.close()


@pytest.mark.asyncio
async def test_declarer_may_play_dummys_cards_as_dummy(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=deals(STRONG_NORTH), robots=["t2"])
    links = seat_links(created)
    adapter = BcbAdapter([links[(1, seat)] for seat in Seat], port=0)
    await adapter.start()
    try:
        robots = {
            seat: BcbRobot(adapter.ports[1], seat, "Robots", Plain(), say_dummy=seat == Seat.NORTH)
            for seat in Seat
        }
        await play(adapter, list(robots.values()), timeout=30)
        final = await finished_match(created)
    finally:
        await adapter.close()
    for robot in robots.values():
        assert robot.ended
        assert not robot.errors
        assert len(robot.sessions) == 1
    north = robots[Seat.NORTH]
    board = north.boards[1]
    assert board.declarer == Seat.NORTH
    dummys = [card for seat, card in board.cards if seat == Seat.SOUTH]
    said = [line for way, line in north.sessions[0] if way == ">" and line.startswith("Dummy ")]
    assert said == [f"Dummy plays {card.rank.letter}{card.suit.letter}" for card in dummys]
    # The others (dummy too) are told dummy's cards by dummy's seat, as ever.
    for seat in (Seat.EAST, Seat.SOUTH, Seat.WEST):
        heard = [
            line
            for way, line in robots[seat].sessions[0]
            if way == "<" and line.startswith("South plays ")
        ]
        assert heard == [f"South plays {card.rank.letter}{card.suit.letter}" for card in dummys]
        assert robots[seat].boards[1].cards == board.cards
    result = next(r for r in final.match.comparisons[0].results if r.table == 1)
    assert (result.declarer, result.tricks) == ("N", board.declarer_tricks())


COMMAND = ["-m", "duplicate"]
"""The ``duplicate`` command, as a user runs it."""


@pytest.mark.asyncio
async def test_the_bcb_command_serves_a_match_to_its_end(server: Server) -> None:
    refused = await asyncio.create_subprocess_exec(
        sys.executable, *COMMAND, "bcb", "--port", "0", "http://127.0.0.1:1/play",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
    )  # fmt: skip
    _out, error = await asyncio.wait_for(refused.communicate(), timeout=30)
    assert refused.returncode == 2
    assert error.decode().startswith("duplicate bcb: bad_link: the link has no token")

    created = await create(server, boards=1, deals_pbn=deals(STRONG_NORTH), robots=["t2"])
    links = seat_links(created)
    process = await asyncio.create_subprocess_exec(
        sys.executable, *COMMAND, "bcb", "--port", "0", *(links[(1, s)] for s in Seat),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
    )  # fmt: skip
    assert process.stderr is not None
    try:
        async with asyncio.timeout(30):
            port = None
            while port is None:
                line = (await process.stderr.readline()).decode()
                assert line, "the command ended before it listened"
                found = re.search(r"table 1: BCB robots connect to 127\.0\.0\.1:(\d+)", line)
                port = None if found is None else int(found[1])
            robots = [BcbRobot(port, seat, "Robots", Plain()) for seat in Seat]
            draining = asyncio.create_task(process.stderr.read())
            await asyncio.gather(*(robot.run() for robot in robots))
            output = await process.stdout.read() if process.stdout else b""
            await process.wait()
            log_lines = (await draining).decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, log_lines
    assert output.decode().strip() == "The match is over."
    assert all(robot.ended and not robot.errors for robot in robots)
    final = await finished_match(created)
    assert len(final.match.comparisons) == 1


# -- the protocol's lines, as the adapter reads them ------------------------------------------


@pytest.mark.parametrize(
    ("line", "call", "alert", "explanation"),
    [
        ("North passes", "P", None, None),
        ("north PASSES.", "P", None, None),
        ("East doubles", "X", None, None),
        ("South redoubles", "XX", None, None),
        ("West bids 1NT", "1NT", None, None),
        ("West bids 2C Alert. Stayman", "2C", "Stayman", "Stayman"),
        (
            "West bids 2C Alert.",
            "2C",
            "alerted, without an explanation",
            "alerted, without an explanation",
        ),
        ("North bids 1H.Infos.C=0-8,HCP=17-19", "1H", None, "C=0-8,HCP=17-19"),
    ],
)
def test_calls_are_read_as_robots_write_them(
    line: str, call: str, alert: str | None, explanation: str | None
) -> None:
    read = parse_call(line)
    assert (str(read.call), read.alert, read.explanation) == (call, alert, explanation)


@pytest.mark.parametrize(
    "line",
    ["North bids", "North bids 8S", "North bids P", "North plays 7C", "North", "bids 1S North x"],
)
def test_what_is_not_a_call_is_refused(line: str) -> None:
    with pytest.raises(LineError):
        parse_call(line)


@pytest.mark.parametrize(
    ("line", "card"),
    [
        ("West plays 7C", "C7"),
        ("west plays tc", "CT"),
        ("West plays 10C", "CT"),
        ("West plays CA", "CA"),
    ],
)
def test_cards_are_read_rank_then_suit(line: str, card: str) -> None:
    assert parse_card(line) == (Seat.WEST, Card.parse(card))


def test_dummy_plays_is_dummys_card() -> None:
    assert parse_card("Dummy plays 5S", Seat.SOUTH) == (Seat.SOUTH, Card.parse("S5"))
    assert parse_card("dummy plays 10h.", Seat.WEST) == (Seat.WEST, Card.parse("HT"))
    with pytest.raises(LineError):
        parse_card("Dummy plays 5S")  # no dummy yet


@pytest.mark.parametrize(
    "line",
    [
        "Connecting Ben as North using protocol version 18",
        'Connecting "Ben" as Northeast using protocol version 18',
        'Connecting "Ben" as North using protocol version 17',
        "GET / HTTP/1.1",
    ],
)
def test_a_bad_connecting_line_is_refused(line: str) -> None:
    with pytest.raises(LineError):
        parse_connect(line)
