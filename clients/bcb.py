"""A Blue Chip Bridge table manager: BCB robots take seats in a duplicate match.

The programs of the World Computer Bridge Championships speak the Blue Chip Bridge
"Table Manager" protocol, version 18: plain ASCII lines over TCP, one robot per hand, a
table manager (TM) in the middle that deals, relays every call and card and keeps time.
This module is that table manager for the seats of one of our matches: each robot plays
its seat through our own protocol, with the seat's link, exactly as :mod:`clients.robot`
does for our robots. It imports nothing of ``server``.

    duplicate bcb --port 2000 LINK_1N LINK_1E LINK_1S LINK_1W LINK_2N ...

**Tables and seats.** Each table of the given links has its own TCP port: table 1 listens
on ``--port``, table 2 on ``--port`` + 1, and so on. A robot connects to its table's port
and names its seat (``North`` ... ``West``; ``ANYPL``: the first free seat) and its team.
Partners give the same team name: a robot whose partner's robot is connected with another
is refused (``Error: Team name mismatch: ...``), as Blue Chip's TM does. The ``Teams``
line carries the names the robots gave (its own side's, and the other side's once a robot
of it has connected: the TM waits for one), the match's for a side no robot plays from
here; the name also becomes the seat's name when the organiser gave none.

**The protocol as this TM speaks it** (texts from the Blue Chip document, version 18, and
from a session trace of the championships' TM; the robot's lines are matched without
regard to case, runs of spaces, or a final period):

=========================================================  ================================
Robot                                                      Table manager
=========================================================  ================================
``Connecting "Team" as North using protocol version 18``   ``North ("Team") seated``
``North ready for teams``                                  ``Teams : N/S : "Team" E/W : "Other"``
``North ready to start``                                   ``Start of board``
``North ready for deal``                                   ``Board number 1. Dealer North. Neither vulnerable.``
``North ready for cards``                                  ``North's cards : S A K 2. H -. D Q J 8 7 6. C 9 8 7 3 2.``
``North bids 1H`` (own turn; ``passes``, ``doubles``,      (relayed to the other three)
``redoubles``; ``Alert. text`` or ``Infos. text`` after)
``North ready for East's bid``                             ``East passes`` / ``East bids 1NT Alert. 15-17``
(nothing: the TM speaks first)                             ``West to lead`` / ``Dummy to lead`` (to declarer)
``West plays 7C`` (rank, then suit)                        (relayed; dummy gets its own cards too)
``North ready for dummy`` (all but dummy, after the lead)  ``Dummy's cards : S ... C ....``
``North ready for West's card to trick 1``                 ``West plays 7C``
``South ready for dummy's card to trick 2`` (dummy)        ``South plays 4D``
(declarer, for dummy: ``South plays 4D``)                  (not echoed to declarer)
(or, the same: ``Dummy plays 4D``)
(after the last card, or four passes)                      ``Timing - N/S : this board  01:10,  total  0:05:21.  E/W : this board  00:58,  total  0:04:40.``
(after the match)                                          ``End of session``
=========================================================  ================================

Between boards the TM sends ``Timing ...`` then ``Start of board``: no ``ready to start``
again. A ``Start of board`` in the middle of a board means the board starts over (the TM
replays it): after a call or card was taken back, and when a robot reconnects.

**What goes wrong.** A line the protocol does not allow at that moment (garbage, a line
over :data:`MAX_LINE` bytes, the wrong seat, a call out of turn, an illegal call, a card
not held, a revoke) changes nothing: it is logged, the robot is told ``Error: ...`` and its
connection is closed, as the championship managers do. Nothing was sent to the server;
the table waits for the seat. The robot may connect again at any time (so may one whose
connection dropped): it is seated again and the board in progress is replayed to it from
``Start of board``, its own earlier calls and cards read back and checked (a different
one is refused the same way). A robot that says nothing for ``timeout`` seconds is
disconnected. Claims and undo requests at its table are declined for it (the protocol
has neither); an opponent's question about its call is answered with its ``Alert.`` or
``Infos.`` text. A board that ends early (an accepted claim, a ruling) is followed by
``Start of board`` of the next, without ``Timing``. ``docs/bcb.md`` says the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from bridge import Auction, Bid, Call, Card, Contract, Hand, Seat, Suit, Vulnerability
from bridge.errors import ParseError
from clients.client import Client, ClientError, Link
from protocol.errors import ErrorCode
from protocol.messages import (
    BoardFinished,
    BoardStarted,
    BoardView,
    CallMade,
    CardPlayed,
    ConcessionWithdrawn,
    PlayerView,
    Snapshot,
    Undone,
    Update,
)

__all__ = [
    "MAX_LINE",
    "PROTOCOL_VERSIONS",
    "BcbAdapter",
    "BcbError",
    "LineError",
    "RobotGone",
    "board_text",
    "call_text",
    "card_text",
    "hand_text",
    "parse_call",
    "parse_card",
    "parse_connect",
    "timing_text",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

MAX_LINE = 1024
"""The longest line read or written, in bytes, its CR LF included."""
PROTOCOL_VERSIONS = frozenset({18, 19})
"""The versions a robot may say it speaks (19 only adds what this TM never asks)."""
DEFAULT_TIMEOUT = 300.0
"""Seconds a robot may take over any one line (a call or card included)."""
ALERT_WORDS = ("alert.", "infos.")
STALE_LINES = 8
"""After a board starts over, at most this many lines the robot sent before it heard so
are let pass (a robot has one or two in flight)."""

SEAT_NAMES = {Seat.NORTH: "North", Seat.EAST: "East", Seat.SOUTH: "South", Seat.WEST: "West"}
_SEAT_WORDS = {name.lower(): seat for seat, name in SEAT_NAMES.items()} | {
    seat.letter.lower(): seat for seat in Seat
}
_VULNERABLE = {
    Vulnerability.NONE: "Neither",
    Vulnerability.NS: "N/S",
    Vulnerability.EW: "E/W",
    Vulnerability.BOTH: "Both",
}
_SUITS = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_CONNECT = re.compile(
    r'connecting\s+"(?P<team>[^"]*)"\s+as\s+(?P<seat>\w+)\s+using\s+protocol\s+version\s+'
    r"(?P<version>\d{1,4})",
    re.IGNORECASE,
)


class BcbError(Exception):
    """The root of this module's errors."""


class LineError(BcbError):
    """A robot's line the protocol does not allow at this moment: it changes nothing, and
    the robot's connection is closed (the message says what was expected)."""


class RobotGone(BcbError):
    """The robot's connection closed, or it said nothing in time."""


class _BoardOver(BcbError):
    """The board ended before the robot was told all of it (a claim, a ruling)."""


class _Restart(BcbError):
    """A call or card the robot was told was taken back: the board is told again."""


# -- the texts of the protocol ---------------------------------------------------------------


def _ascii(text: str) -> str:
    """``text`` in the protocol's characters: printable ASCII (others become ``?``)."""
    return "".join(c if " " <= c <= "~" else "?" for c in text)


def _plain(text: str) -> str:
    """A name to put between double quotes: printable ASCII, no double quote."""
    return _ascii(text).replace('"', "'")


def _normal(line: str) -> str:
    """A line as compared: lower case, single spaces, no final period."""
    return " ".join(line.lower().split()).rstrip(". ")


def hand_text(hand: Hand) -> str:
    """A hand as the protocol writes it, spades first, each suit high to low.

    >>> hand_text(Hand.from_pbn("AK2..QJ876.98732"))
    'S A K 2. H -. D Q J 8 7 6. C 9 8 7 3 2.'
    """
    parts = []
    for suit in _SUITS:
        ranks = sorted((card.rank for card in hand.suit(suit)), reverse=True)
        parts.append(f"{suit.letter} {' '.join(rank.letter for rank in ranks) or '-'}.")
    return " ".join(parts)


def board_text(number: int, dealer: Seat, vulnerability: Vulnerability) -> str:
    """The board line.

    >>> board_text(2, Seat.EAST, Vulnerability.NS)
    'Board number 2. Dealer East. N/S vulnerable.'
    """
    return f"Board number {number}. Dealer {SEAT_NAMES[dealer]}. {_VULNERABLE[vulnerability]} vulnerable."


def call_text(seat: Seat, call: Call, alert: str | None = None) -> str:
    """A call as the TM relays it (with the caller's alert, for its opponents).

    >>> call_text(Seat.EAST, Call.parse("P")), call_text(Seat.SOUTH, Call.parse("XX"))
    ('East passes', 'South redoubles')
    >>> call_text(Seat.NORTH, Call.parse("1NT"), "15-17")
    'North bids 1NT Alert. 15-17'
    """
    words = {"P": "passes", "X": "doubles", "XX": "redoubles"}
    text = f"{SEAT_NAMES[seat]} {words.get(str(call)) or f'bids {call}'}"
    return f"{text} Alert. {_ascii(alert)}" if alert else text


def card_text(card: Card) -> str:
    """A card as the protocol writes it: rank, then suit.

    >>> card_text(Card.parse("C7")), card_text(Card.parse("ST"))
    ('7C', 'TS')
    """
    return card.rank.letter + card.suit.letter


def timing_text(board: tuple[float, float], total: tuple[float, float]) -> str:
    """The timing line after a board: each side's time on it and in all, in seconds.

    >>> timing_text((70, 58), (321, 3880))
    'Timing - N/S : this board  01:10,  total  0:05:21.  E/W : this board  00:58,  total  1:04:40.'
    """

    def clock(seconds: float) -> str:
        whole = round(seconds)
        return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"

    def minutes(seconds: float) -> str:
        whole = round(seconds)
        return f"{whole // 60:02d}:{whole % 60:02d}"

    return (
        f"Timing - N/S : this board  {minutes(board[0])},  total  {clock(total[0])}.  "
        f"E/W : this board  {minutes(board[1])},  total  {clock(total[1])}."
    )


@dataclass(frozen=True, slots=True)
class Connect:
    """A robot's first line: its team, the seat it asks for (None: any), its version."""

    team: str
    seat: Seat | None
    version: int


def parse_connect(line: str) -> Connect:
    """``Connecting "Team" as North using protocol version 18``; raises :class:`LineError`.

    >>> parse_connect('Connecting "Ben" as ANYPL using protocol version 18')
    Connect(team='Ben', seat=None, version=18)
    """
    match = _CONNECT.fullmatch(line.strip().rstrip(".").strip())
    if match is None:
        raise LineError('expected: Connecting "TEAM" as SEAT using protocol version 18')
    word = match["seat"].lower()
    seat = None if word == "anypl" else _SEAT_WORDS.get(word)
    if seat is None and word != "anypl":
        raise LineError(f"no seat {match['seat']!r}: North, East, South, West or ANYPL")
    version = int(match["version"])
    if version not in PROTOCOL_VERSIONS:
        raise LineError(f"protocol version {version} is not spoken here: 18")
    return Connect(match["team"].strip(), seat, version)


def _seat_word(word: str) -> Seat:
    seat = _SEAT_WORDS.get(word.lower())
    if seat is None:
        raise LineError(f"{word!r} is not a seat")
    return seat


@dataclass(frozen=True, slots=True)
class CallLine:
    """A robot's call: who, what, its alert (the ``Alert.`` text, shown to the opponents)
    and its explanation (the ``Alert.`` or ``Infos.`` text: the answer to their question)."""

    seat: Seat
    call: Call
    alert: str | None
    explanation: str | None


def parse_call(line: str) -> CallLine:
    """``North bids 1NT Alert. 15-17``, ``East passes``, ``South doubles.``; raises
    :class:`LineError`.

    >>> parse_call("north bids 1nt Alert. 15-17")
    CallLine(seat=<Seat.NORTH: 0>, call=Bid(level=1, strain=<Strain.NOTRUMP: 4>), alert='15-17', explanation='15-17')
    >>> parse_call("East passes.").call
    Pass()
    """
    lowered = line.lower()
    cut = min((i for i in (lowered.find(w) for w in ALERT_WORDS) if i >= 0), default=-1)
    head, note, kind = line, None, ""
    if cut >= 0:
        head, kind = line[:cut], lowered[cut : cut + 6]
        note = " ".join(line[cut + 6 :].split()).strip() or "alerted, without an explanation"
    words = _normal(head).split()
    verbs = {"passes": "P", "doubles": "X", "redoubles": "XX"}
    if len(words) == 2 and words[1] in verbs:
        call = Call.parse(verbs[words[1]])
    elif len(words) == 3 and words[1] == "bids":
        try:
            call = Call.parse(words[2])
        except ParseError:
            raise LineError(f"{words[2]!r} is not a bid") from None
        if not isinstance(call, Bid):
            raise LineError(f"{words[2]!r} is not a bid: say passes, doubles or redoubles")
    else:
        raise LineError("expected a call: SEAT passes, doubles, redoubles or bids 1NT")
    note = None if note is None else note[:300]
    alert = note if kind == "alert." else None
    return CallLine(_seat_word(words[0]), call, alert, note)


def parse_card(line: str, dummy: Seat | None = None) -> tuple[Seat, Card]:
    """``West plays 7C`` (rank then suit; suit then rank and ``10`` are read too), or, from
    declarer, ``Dummy plays 7C``: ``Dummy`` stands for ``dummy``'s seat (None: there is no
    dummy yet, and the line is refused); raises :class:`LineError`.

    >>> parse_card("south plays tD")
    (<Seat.SOUTH: 2>, Card.parse('DT'))
    >>> parse_card("Dummy plays 5S", dummy=Seat.SOUTH)
    (<Seat.SOUTH: 2>, Card.parse('S5'))
    """
    words = _normal(line).split()
    if len(words) != 3 or words[1] != "plays":
        raise LineError("expected a card: SEAT plays 7C")
    word = words[2].upper().replace("10", "T")
    if len(word) == 2 and word[0] in "AKQJT98765432":
        word = word[1] + word[0]
    if words[0] == "dummy":
        if dummy is None:
            raise LineError("there is no dummy yet")
        seat = dummy
    else:
        seat = _seat_word(words[0])
    try:
        return seat, Card.parse(word)
    except ParseError:
        raise LineError(f"{words[2]!r} is not a card (rank then suit: 7C, TD, AS)") from None


def _shown(line: str) -> str:
    """A robot's line as logged: quoted, and cut short."""
    return repr(line if len(line) <= 80 else line[:80] + "...")


# -- one robot's connection ------------------------------------------------------------------


class Channel:
    """One robot's TCP connection: lines of at most :data:`MAX_LINE` bytes each way, and
    no read waits longer than ``timeout`` seconds."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.timeout = timeout
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "?"

    async def read(self) -> str:
        """The next line that is not blank, without its line end. Raises :class:`LineError`
        (too long, or not the protocol's characters) or :class:`RobotGone`."""
        while True:
            try:
                async with asyncio.timeout(self.timeout):
                    data = await self.reader.readuntil(b"\n")
            except asyncio.LimitOverrunError:
                raise LineError(f"a line longer than {MAX_LINE} bytes") from None
            except asyncio.IncompleteReadError:
                raise RobotGone("the connection closed") from None
            except TimeoutError:
                raise RobotGone(f"nothing said in {self.timeout:g} seconds") from None
            except OSError as error:
                raise RobotGone(f"the connection failed: {error}") from None
            line = data.rstrip(b"\r\n")
            if any(byte < 32 or byte > 127 for byte in line):
                raise LineError("characters outside the protocol's ASCII")
            text = line.decode("ascii").strip()
            if text:
                return text

    async def send(self, line: str) -> None:
        """Send one line (cut to :data:`MAX_LINE`), CR LF ended."""
        if self.writer.is_closing():
            raise RobotGone("the connection is closed")
        data = line.encode("ascii", "replace")[: MAX_LINE - 2] + b"\r\n"
        try:
            self.writer.write(data)
            async with asyncio.timeout(self.timeout):
                await self.writer.drain()
        except (OSError, TimeoutError) as error:
            raise RobotGone(f"could not send: {error or 'no room in time'}") from None

    async def refuse(self, reason: str) -> None:
        """Send ``Error: reason`` and end the connection: our side first, then what the
        robot still sends is read and dropped for a moment (up to 64 KB), so that the
        robot gets the line rather than a reset."""
        with contextlib.suppress(RobotGone):
            await self.send(f"Error: {reason}")
        with contextlib.suppress(OSError, RuntimeError):
            if self.writer.can_write_eof():
                self.writer.write_eof()
        dropped = 0
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(1):
                while dropped < 65536:
                    data = await self.reader.read(4096)
                    if not data:
                        break
                    dropped += len(data)
        await self.close()

    async def close(self) -> None:
        if not self.writer.is_closing():
            self.writer.close()
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(1):
                await self.writer.wait_closed()


# -- a board as one seat saw it --------------------------------------------------------------


@dataclass
class BoardLog:
    """One board as one seat saw it played, from its updates in order: what the TM tells
    that seat's robot (and replays to it after a reconnection)."""

    table: int
    round: int
    number: int
    me: Seat
    dealer: Seat | None = None
    vulnerability: Vulnerability | None = None
    hand: Hand | None = None
    """The seat's thirteen cards, as dealt."""
    dummy_hand: Hand | None = None
    """Dummy's thirteen cards, as dealt (known once the opening lead is made)."""
    calls: list[tuple[Seat, Call, str | None]] = field(default_factory=list)
    cards: list[tuple[Seat, Card]] = field(default_factory=list)
    finished: bool = False
    complete: bool = True
    """Every call and card of the board was seen (False after a snapshot mid-play)."""
    rewrites: int = 0
    """Calls and cards taken back (each starts the board over for the robot)."""
    seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])
    """Time taken by N-S and by E-W so far, as this seat saw the calls and cards come."""
    moment: float = field(default_factory=time.monotonic)
    """When the last call or card (or the board's start) was seen, by the monotonic clock."""

    @property
    def key(self) -> tuple[int, int]:
        return (self.round, self.number)

    def auction(self, count: int | None = None) -> Auction:
        """The auction of the first ``count`` calls (all of them: None)."""
        assert self.dealer is not None
        calls = self.calls if count is None else self.calls[:count]
        return Auction.replay(self.dealer, [call for _seat, call, _alert in calls])

    def note_time(self, seat: Seat) -> None:
        now = time.monotonic()
        self.seconds[seat % 2] += now - self.moment
        self.moment = now

    def played_by(self, seat: Seat) -> list[Card]:
        return [card for who, card in self.cards if who == seat]


def _trick_winner(plays: Sequence[tuple[Seat, Card]], trump: Suit | None) -> Seat:
    """Who won a complete trick: the highest trump, else the highest card of the suit led."""
    best_seat, best = plays[0]
    for seat, card in plays[1:]:
        if card.suit == best.suit:
            if card.rank > best.rank:
                best_seat, best = seat, card
        elif card.suit == trump:
            best_seat, best = seat, card
    return best_seat


def _next_player(log: BoardLog, contract: Contract, declarer: Seat, position: int) -> Seat:
    """The seat whose card is number ``position`` (from 0) of the play."""
    if position == 0:
        return declarer.lho
    if position % 4:
        return log.cards[position - 1][0].next
    trump = contract.strain.suit
    return _trick_winner(log.cards[position - 4 : position], trump)


def _table_free(view: PlayerView) -> bool | None:
    """True once no undo request or claim holds the table."""
    board = view.board
    return True if board is None or (board.undo is None and board.phase != "claim") else None


def _seen_through(task: asyncio.Future[None]) -> None:
    """A shielded submission's outcome is looked at, even when its robot is gone."""
    if not task.cancelled() and task.exception() is not None:
        log.debug("a submission ended: %s", task.exception())


def _lowest_legal(board: BoardView) -> str:
    """The lowest legal card: the adapter's own card for a seat whose robot cannot be told
    the board (its play was not all seen)."""
    legal = [Card.parse(card) for card in board.legal]
    return str(min(legal, key=lambda card: (card.rank, card.suit)))


# -- the teams at a table --------------------------------------------------------------------


class TableTeams:
    """The team names the robots at one table connected with, by side (``True``:
    North-South), for its ``Teams`` line: each robot is told its own side's name as it gave
    it, and the other side's once a robot of that side has connected (as the Blue Chip table
    manager tells the teams once all four robots are seated). ``played(side)`` says whether a
    seat of that side is played from here (when none is, the side's name is the match's).

    >>> teams = TableTeams(lambda north_south: north_south)
    >>> teams.seat(True, "Ben")
    >>> asyncio.run(teams.name(True)), asyncio.run(teams.name(False))
    ('Ben', None)
    """

    def __init__(self, played: Callable[[bool], bool]) -> None:
        self.played = played
        self._names: dict[bool, str] = {}
        self._named = {True: asyncio.Event(), False: asyncio.Event()}

    def seat(self, north_south: bool, team: str) -> None:
        """A robot of the side was seated with ``team``: the side's name from now on."""
        self._names[north_south] = team
        self._named[north_south].set()

    def is_named(self, north_south: bool) -> bool:
        """Whether a robot of the side has connected (its team name is known)."""
        return north_south in self._names

    async def name(self, north_south: bool) -> str | None:
        """The side's team name once a robot of it has connected (None: no seat of the side
        is played from here)."""
        if not self.played(north_south):
            return None
        await self._named[north_south].wait()
        return self._names[north_south]


# -- one seat ---------------------------------------------------------------------------------


class BcbSeat:
    """One seat of the match (one link), and the BCB robot that plays it when connected.

    Its :class:`Client` speaks for the seat for the whole match (reconnecting when the
    link drops); its duties answer what the table asks of the seat (questions about the
    robot's calls, claims, undo requests); each robot connection is a conversation that
    tells the robot the boards and sends its calls and cards to the server."""

    def __init__(self, link: Link, timeout: float, name: str) -> None:
        self.link = link
        self.timeout = timeout
        self.name = name
        self.client: Client | None = None
        self.logs: dict[tuple[int, int], BoardLog] = {}
        self.current: BoardLog | None = None
        self.notes: dict[tuple[int, int, int], str] = {}
        """The robot's ``Alert.``/``Infos.`` text of its calls, by (round, board, index)."""
        self.conversation: asyncio.Task[None] | None = None
        self.team: str | None = None
        """The team name the robot connected now gave (None: no robot is connected)."""
        self._seen = 0
        self._acting = asyncio.Lock()
        self._reconnecting = asyncio.Lock()
        self._duties: asyncio.Task[None] | None = None

    # -- the server side ------------------------------------------------------------------

    async def start(self) -> None:
        self.client = await Client.connect(self.link, name=self.name, robot=True, heartbeat=True)
        self._absorb()
        self._duties = asyncio.create_task(self._serve_duties())

    @property
    def position(self) -> tuple[int, Seat]:
        """The table and seat this player sits at now."""
        view = self.view
        return view.table, Seat.parse(view.seat)

    @property
    def view(self) -> PlayerView:
        client = self.client
        assert client is not None
        view = client.view
        if not isinstance(view, PlayerView):
            raise BcbError(f"{self.link.ws_url}: the link is not a player's")
        return view

    @property
    def label(self) -> str:
        table, seat = self.position
        return f"table {table} {SEAT_NAMES[seat]}"

    async def wait_finished(self) -> None:
        """Until the match is over (and the seat is done with its last board)."""
        if self._duties is not None:
            await self._duties

    async def close(self) -> None:
        for task in (self._duties, self.conversation):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self.client is not None:
            await self.client.close()

    def _absorb(self) -> None:
        """Note what each update received since the last look says about the boards."""
        client = self.client
        if client is None:
            return
        received = client.received
        for message in received[self._seen :]:
            if isinstance(message, Update) and isinstance(message.view, PlayerView):
                self._note(message, message.view)
        self._seen = len(received)

    def _note(self, update: Update, view: PlayerView) -> None:
        me = Seat.parse(view.seat)
        for event in update.events:
            if isinstance(event, Snapshot):
                self._resync(view)
                return
            if isinstance(event, BoardStarted):
                self.current = BoardLog(event.table, event.round, event.board, me)
                self.logs[self.current.key] = self.current
                continue
            log = self.current
            if log is None:
                continue
            if isinstance(event, CallMade):
                log.note_time(Seat.parse(event.seat))
                log.calls.append((Seat.parse(event.seat), Call.parse(event.call), event.alert))
            elif isinstance(event, CardPlayed):
                log.note_time(Seat.parse(event.seat))
                log.cards.append((Seat.parse(event.seat), Card.parse(event.card)))
            elif isinstance(event, Undone):
                log.rewrites += 1
                if event.call is not None and log.calls and str(log.calls[-1][1]) == event.call:
                    log.calls.pop()
                elif event.card is not None and log.cards and str(log.cards[-1][1]) == event.card:
                    log.cards.pop()
                else:
                    log.complete = False
            elif isinstance(event, BoardFinished):
                log.finished = True
            elif isinstance(event, ConcessionWithdrawn):
                log.finished = False
        self._fill(view)

    def _resync(self, view: PlayerView) -> None:
        """A whole view, after a gap: the board's calls from it, its cards when it shows
        them all (before the first trick is complete, or once the board is over)."""
        board = view.board
        if board is None:
            return
        me = Seat.parse(view.seat)
        key = (board.round, board.board)
        old = self.logs.get(key)
        log = BoardLog(board.table, board.round, board.board, me)
        if old is not None:
            log.seconds, log.rewrites = old.seconds, old.rewrites + 1
        log.calls = [(Seat.parse(e.seat), Call.parse(e.call), e.alert) for e in board.auction]
        tricks = list(board.tricks) if board.phase == "finished" else []
        if board.current_trick is not None and board.current_trick not in tricks:
            tricks.append(board.current_trick)  # in play, or where a claim stopped it
        if board.phase != "finished":
            log.complete = board.tricks_ns + board.tricks_ew == 0
        log.cards = [(Seat.parse(p.seat), Card.parse(p.card)) for t in tricks for p in t.cards]
        if old is not None and not log.complete and len(old.cards) == self._count(board):
            log.cards, log.complete = old.cards, old.complete
        log.finished = board.phase == "finished"
        self.logs[key] = self.current = log
        self._fill(view)

    @staticmethod
    def _count(board: BoardView) -> int:
        current = board.current_trick
        return 4 * (board.tricks_ns + board.tricks_ew) + (len(current.cards) if current else 0)

    def _fill(self, view: PlayerView) -> None:
        """Take from the view what the events do not say: dealer, vulnerability, hands."""
        board, log = view.board, self.current
        if board is None or log is None or (board.round, board.board) != log.key:
            return
        log.dealer = Seat.parse(board.dealer)
        log.vulnerability = Vulnerability.parse(board.vulnerability)
        if not log.complete:
            return
        mine = board.hands.get(view.seat)
        if log.hand is None and mine is not None:
            hand = [Card.parse(c) for c in mine] + log.played_by(log.me)
            log.hand = Hand(hand) if len(hand) == 13 else None
        if log.dummy_hand is None and board.dummy is not None:
            dummy = Seat.parse(board.dummy)
            shown = board.hands.get(board.dummy)
            if dummy == log.me:
                log.dummy_hand = log.hand
            elif shown is not None:
                cards = [Card.parse(c) for c in shown] + log.played_by(dummy)
                log.dummy_hand = Hand(cards) if len(cards) == 13 else None

    async def until(self, predicate: Callable[[PlayerView], T | None]) -> T:
        """Wait until ``predicate`` (given the latest view, once the boards are noted) says
        something; across dropped connections to the server."""

        def check(view: object) -> T | None:
            self._absorb()
            return predicate(view) if isinstance(view, PlayerView) else None

        while True:
            client = self.client
            assert client is not None
            try:
                return await client.wait_for(check, timeout=None)
            except ClientError as error:
                await self._recover(error)

    async def _recover(self, error: ClientError) -> None:
        """After ``error``, reconnect to the server if the connection dropped, and send
        again what is in doubt (never applied twice) until the server has settled it; a
        link that no longer works (the seat was given to someone else) ends the seat."""
        if error.code == ErrorCode.BAD_TOKEN:
            raise error
        client = self.client
        assert client is not None
        delay = max((error.retry_after_ms or 0) / 1000, 0.1)
        async with self._reconnecting:
            if error.code == ErrorCode.UNAVAILABLE and error.retry_after_ms:
                # A server past what it can serve says when to send again: not before.
                await asyncio.sleep(delay)
            while True:
                try:
                    if not client.is_connected:
                        log.info("%s: server connection lost (%s); resuming", self.label, error)
                        await asyncio.sleep(delay)
                        await client.reconnect()
                    if not client.in_doubt:
                        return
                    for message, answer in await client.resend():
                        log.info("%s: %s sent again: %s", self.label, message.type, answer)
                    if not client.in_doubt:
                        return
                except ClientError as again:
                    if again.code == ErrorCode.BAD_TOKEN:
                        raise
                    error = again
                except OSError as failed:  # the server is out of reach (restarting?)
                    error = ClientError("closed", str(failed))
                await asyncio.sleep(delay)  # not back yet, or the store cannot take it: again
                delay = min(delay * 2, 5.0)

    async def act(
        self,
        action: Callable[[Client], Awaitable[object]],
        settled: Callable[[], bool] = lambda: True,
    ) -> ClientError | None:
        """Send one action for the seat: through dropped connections to the server (an
        action in doubt is sent again by the client, never applied twice; after a drop the
        action is sent anew only while ``settled()`` says it did not take) and rate limits.
        Returns the server's refusal, if it refused."""
        async with self._acting:
            while True:
                client = self.client
                assert client is not None
                try:
                    await action(client)
                    return None
                except ClientError as error:
                    if error.code in ("closed", ErrorCode.UNAVAILABLE, ErrorCode.INTERNAL):
                        await self._recover(error)
                        self._absorb()
                        if settled():
                            return None
                        continue
                    if error.code == ErrorCode.RATE_LIMITED:
                        await asyncio.sleep((error.retry_after_ms or 1000) / 1000)
                        continue
                    return error

    async def _serve_duties(self) -> None:
        """Answer for the seat what the protocol cannot ask the robot, until the match is
        over: questions about its calls, claims and undo requests (declined), partner's
        opening lead made face down (faced at once: the robot asks nothing), the next
        board after a review when no robot is connected (a connected robot's conversation
        asks once it told the robot the whole board)."""
        done_at = -1
        try:
            while True:
                view = await self.until(functools.partial(self._due, done_at=done_at))
                if self._is_over(view):
                    return
                client = self.client
                assert client is not None
                duty = self._duty(view)
                done_at = client.seq
                if duty is None:
                    continue
                what, action = duty
                refused = await self.act(action)
                if refused is not None:
                    log.warning("%s: %s refused: %s", self.label, what, refused)
        except ClientError as error:  # only a link that no longer works gets here
            log.error("%s: the seat's link no longer works (%s)", self.link.ws_url, error)

    def _due(self, view: PlayerView, *, done_at: int) -> PlayerView | None:
        """The view, when the match is over or it asks something new of the seat."""
        if self._is_over(view):
            return view
        client = self.client
        fresh = client is not None and client.seq != done_at
        return view if fresh and self._duty(view) is not None else None

    @staticmethod
    def _is_over(view: PlayerView) -> bool:
        board = view.board
        return view.match.finished and (board is None or "next_board" not in board.actions)

    def _duty(self, view: PlayerView) -> tuple[str, Callable[[Client], Awaitable[object]]] | None:
        board = view.board
        if board is None:
            return None
        if board.questions:
            index = board.questions[0]
            text = self.notes.get((board.round, board.board, index)) or (
                "not alerted; the robot gave no explanation"
            )
            return "explanation", lambda client: client.explain(index, text)
        if "undo_answer" in board.actions:
            return "undo answer", lambda client: client.answer_undo(False)
        if "claim_answer" in board.actions:
            return "claim answer", lambda client: client.answer_claim(False)
        if "face_lead" in board.actions:  # partner's opening lead face down (law 41A)
            return "facing the lead", lambda client: client.face_lead()
        if "next_board" in board.actions and self.conversation is None:
            return "next board", lambda client: client.next_board()
        current = self.current
        if current is None or current.complete or board.acting != view.seat or not board.legal:
            return None
        # The robot cannot be told this board (its play was not all seen): play it for the
        # seat, plainly, and the robot joins at the next board.
        if board.phase == "auction":
            return "pass", lambda client: client.call("P")
        card = _lowest_legal(board)
        return f"card {card}", lambda client: client.play(card)

    # -- the robot side ---------------------------------------------------------------------

    async def converse(self, channel: Channel, request: Connect, teams: TableTeams) -> None:
        """Seat the robot and play the match with it until ``End of session`` (or until
        the connection ends: :class:`LineError`, :class:`RobotGone`). ``teams``: the team
        names the robots at its table connected with."""
        me = request.seat
        assert me is not None
        position = self.position
        await channel.send(f'{SEAT_NAMES[me]} ("{_plain(request.team)}") seated')
        await self._name(request.team)
        await self._expect(channel, f"{SEAT_NAMES[me]} ready for teams")
        north_south, east_west = await self._teams(request.team, teams)
        await channel.send(f'Teams : N/S : "{north_south}" E/W : "{east_west}"')
        await self._expect(channel, f"{SEAT_NAMES[me]} ready to start")
        told: tuple[int, int] | None = None
        cut_short = False  # the last board told ended early (it may resume: a concession withdrawn)
        clean = True  # the robot has nothing in flight: the last board was told to its end
        while True:
            board = await self._board_after(told, cut_short, position)
            if board is None:
                await channel.send("End of session")
                return
            told, cut_short = board.key, False
            while True:
                board = self.logs.get(told, board)
                if not board.complete:
                    log.warning(
                        "%s: board %d was not all seen here: the adapter plays it for the "
                        "robot, who joins at the next board",
                        self.label,
                        board.number,
                    )
                if board.finished or not board.complete:
                    break
                try:
                    await self._tell_board(channel, board, clean)
                    clean = True
                except _Restart:
                    log.info("%s: board %d starts over for the robot", self.label, board.number)
                    clean = False
                    continue
                except _BoardOver:
                    log.info("%s: board %d ended early", self.label, board.number)
                    cut_short, clean = True, False
                break
            await self._next_board(board)

    async def _name(self, team: str) -> None:
        """The robot's team name as the seat's name, when the organiser gave it none."""
        view = self.view
        named = any(p.name for p in view.players if p.seat == view.seat)
        name = _plain(team).strip()[:40]
        if named or not name:
            return
        refused = await self.act(lambda client: client.set_name(name))
        if refused is not None:
            log.info("%s: name %r not set: %s", self.label, name, refused)

    async def _teams(self, team: str, teams: TableTeams) -> tuple[str, str]:
        """The names of the N-S and the E-W team at the seat's table: the robot's own
        ``team`` for its side (robots such as ComputerBridge's check it), the other side's
        robots' (once one has connected) for the other; the match's team name for a side
        no robot plays from here."""
        view = self.view
        north_south = Seat.parse(view.seat).is_north_south
        if teams.played(not north_south) and not teams.is_named(not north_south):
            side = "East or West" if north_south else "North or South"
            log.info("%s: waiting for a robot at %s before the Teams line", self.label, side)
        theirs = await teams.name(not north_south)
        if theirs is None:
            if view.team is None:
                theirs = "E/W" if north_south else "N/S"
            else:
                theirs = view.match.team_a if view.team == "B" else view.match.team_b
        ns, ew = (team, theirs) if north_south else (theirs, team)
        return _plain(ns), _plain(ew)

    async def _board_after(
        self, told: tuple[int, int] | None, cut_short: bool, position: tuple[int, Seat]
    ) -> BoardLog | None:
        """The board to tell next: the one in play (or the one told, again, when it ended
        early and its play resumed), or the next to start; None when the match is over or
        the player moved to another seat."""

        def pick(view: PlayerView) -> BoardLog | bool | None:
            if view.match.finished or (view.table, Seat.parse(view.seat)) != position:
                return True
            current = self.current
            if current is None or current.dealer is None:
                return None
            if current.key == told and not (cut_short and not current.finished):
                return None
            return current if current.hand is not None or not current.complete else None

        found = await self.until(pick)
        return found if isinstance(found, BoardLog) else None

    async def _next_board(self, board: BoardLog) -> None:
        """Done with ``board``: ask for the next one if it is on review."""
        view = self.view
        shown = view.board
        if shown is None or (shown.round, shown.board) != board.key:
            return
        if "next_board" in shown.actions:
            refused = await self.act(lambda client: client.next_board())
            if refused is not None:
                log.debug("%s: next board refused: %s", self.label, refused)

    async def _expect(self, channel: Channel, *expected: str, stale: bool = False) -> str:
        """Read the robot's next line and check it is one of ``expected`` (a robot's spare
        ``ready to start`` is let pass); returns the one it was. ``stale``: the board
        started over, and what the robot said before it heard so is let pass too."""
        wanted = {_normal(text): text for text in expected}
        spare = {
            _normal(f"{SEAT_NAMES[self.position[1]]} {w}")
            for w in ("ready to start", "received dummy")
        }
        skipped = 0
        while True:
            line = await channel.read()
            said = _normal(line)
            if said in wanted:
                return wanted[said]
            if said in spare or (stale and skipped < STALE_LINES):
                skipped += 1
                log.debug("%s: %s let pass", self.label, _shown(line))
                continue
            raise LineError(f"expected {expected[0]!r}, got {_shown(line)}")

    async def _tell_board(self, channel: Channel, board: BoardLog, clean: bool) -> None:
        """Tell the robot ``board`` from its start, with what happened so far, reading its
        own calls and cards (checked against the ones it made before, in a replay).
        ``clean``: the robot has nothing in flight (else the board before, or this one,
        was cut short, and the robot's lines sent meanwhile are let pass)."""
        me = board.me
        name = SEAT_NAMES[me]
        rewrites = board.rewrites
        assert board.dealer is not None
        assert board.vulnerability is not None
        assert board.hand is not None
        await channel.send("Start of board")
        await self._expect(channel, f"{name} ready for deal", stale=not clean)
        await channel.send(board_text(board.number, board.dealer, board.vulnerability))
        await self._expect(channel, f"{name} ready for cards")
        await channel.send(f"{name}'s cards : {hand_text(board.hand)}")
        index = 0
        while True:
            auction = board.auction(index)
            caller = auction.turn
            if caller is None:
                break
            if caller == me:
                await self._own_call(channel, board, index, auction, rewrites)
            else:
                await self._expect(channel, f"{name} ready for {SEAT_NAMES[caller]}'s bid")
                seat, call, alert = await self._wait_for(
                    board, rewrites, lambda: board.calls, index
                )
                if seat.partner == me:
                    alert = None  # never partner's alert (the server does not show it either)
                await channel.send(call_text(seat, call, alert))
            index += 1
        contract, declarer = auction.contract, auction.declarer
        if contract is not None and declarer is not None:
            await self._tell_play(channel, board, contract, declarer, rewrites)
        seconds = (board.seconds[0], board.seconds[1])
        await channel.send(timing_text(seconds, self._totals(board)))

    async def _tell_play(
        self, channel: Channel, board: BoardLog, contract: Contract, declarer: Seat, rewrites: int
    ) -> None:
        me, dummy = board.me, declarer.partner
        name = SEAT_NAMES[me]
        for position in range(52):
            player = _next_player(board, contract, declarer, position)
            controller = declarer if player == dummy else player
            if controller == me:
                if position % 4 == 0:
                    await channel.send("Dummy to lead" if player == dummy else f"{name} to lead")
                await self._own_card(channel, board, position, player, dummy, rewrites)
            else:
                labels = [SEAT_NAMES[player]] + (["dummy"] if player == dummy else [])
                trick = position // 4 + 1
                await self._expect(
                    channel,
                    *(f"{name} ready for {label}'s card to trick {trick}" for label in labels),
                )
                seat, card = await self._wait_for(board, rewrites, lambda: board.cards, position)
                await channel.send(f"{SEAT_NAMES[seat]} plays {card_text(card)}")
            if position == 0 and me != dummy:
                await self._expect(channel, f"{name} ready for dummy")
                await self._wait_for(
                    board,
                    rewrites,
                    lambda: [] if board.dummy_hand is None else [board.dummy_hand],
                    0,
                )
                assert board.dummy_hand is not None
                await channel.send(f"Dummy's cards : {hand_text(board.dummy_hand)}")

    async def _wait_for(
        self, board: BoardLog, rewrites: int, items: Callable[[], Sequence[T]], index: int
    ) -> T:
        """Item ``index`` of the board's calls or cards, once it is there."""

        def ready(_view: PlayerView) -> bool | None:
            if board.rewrites != rewrites or self.logs.get(board.key) is not board:
                return True
            return True if len(items()) > index or board.finished else None

        await self.until(ready)
        self._check(board, rewrites)
        found = items()
        if len(found) <= index:
            raise _BoardOver("the board ended")
        return found[index]

    def _check(self, board: BoardLog, rewrites: int) -> None:
        if board.rewrites != rewrites or self.logs.get(board.key) is not board:
            raise _Restart("a call or card was taken back")

    async def _own_call(
        self, channel: Channel, board: BoardLog, index: int, auction: Auction, rewrites: int
    ) -> None:
        me = board.me
        started = time.monotonic()
        made = parse_call(await channel.read())
        if made.seat != me:
            raise LineError(f"it is {SEAT_NAMES[me]}'s turn to call, not {SEAT_NAMES[made.seat]}'s")
        self._check(board, rewrites)
        if index < len(board.calls):
            earlier = board.calls[index][1]
            if earlier != made.call:
                raise LineError(f"{SEAT_NAMES[me]} called {earlier} here before; that call stands")
            return
        if board.finished:
            raise _BoardOver("the board ended")
        if not auction.is_legal(made.call):
            raise LineError(f"{made.call} is not a legal call now")
        log.debug("%s: calls %s after %.1f s", self.label, made.call, time.monotonic() - started)
        note = made.explanation
        if note is not None:
            self.notes[(board.round, board.number, index)] = note
        text, alert = str(made.call), made.alert
        await self._submit(
            board, rewrites, lambda c: c.call(text, alert), lambda: board.calls, index
        )

    async def _own_card(
        self,
        channel: Channel,
        board: BoardLog,
        position: int,
        player: Seat,
        dummy: Seat,
        rewrites: int,
    ) -> None:
        """Read the robot's card for ``player`` (itself, or dummy when it is declarer: its
        seat's name or ``Dummy``), check it and send it to the server."""
        me = board.me
        seat, card = parse_card(await channel.read(), dummy)
        if seat != player:
            whose = f"dummy's ({SEAT_NAMES[player]})" if player != me else f"{SEAT_NAMES[me]}'s"
            raise LineError(f"it is {whose} card to play, not {SEAT_NAMES[seat]}'s")
        self._check(board, rewrites)
        if position < len(board.cards):
            earlier = board.cards[position][1]
            if earlier != card:
                raise LineError(
                    f"{SEAT_NAMES[seat]} played {card_text(earlier)} here before; that card stands"
                )
            return
        if board.finished:
            raise _BoardOver("the board ended")
        dealt = board.hand if player == me else board.dummy_hand
        assert dealt is not None
        held = set(dealt) - set(board.played_by(player))
        if card not in held:
            raise LineError(f"{SEAT_NAMES[player]} does not hold {card_text(card)}")
        if position % 4:
            led = board.cards[position - position % 4][1].suit
            if card.suit != led and any(c.suit == led for c in held):
                raise LineError(f"{SEAT_NAMES[player]} must follow suit to {led.name.lower()}")
        text = str(card)
        await self._submit(board, rewrites, lambda c: c.play(text), lambda: board.cards, position)

    async def _submit(
        self,
        board: BoardLog,
        rewrites: int,
        action: Callable[[Client], Awaitable[object]],
        items: Callable[[], Sequence[object]],
        index: int,
    ) -> None:
        """Send the robot's call or card to the server and wait until the board shows it.
        Shielded: a robot connecting again meanwhile does not cut it short."""

        def taken() -> bool:
            return len(items()) > index or board.finished or board.rewrites != rewrites

        async def submit() -> None:
            while True:
                refused = await self.act(action, taken)
                if refused is None:
                    await self._wait_for(board, rewrites, items, index)
                    return
                self._absorb()
                self._check(board, rewrites)  # the table moved on meanwhile: not the robot's fault
                if board.finished:
                    raise _BoardOver("the board ended")
                shown = self.view.board
                held = shown is not None and (shown.undo is not None or shown.phase == "claim")
                if refused.code != ErrorCode.WRONG_PHASE or not held:
                    raise LineError(f"the server refused it: {refused.message}")
                # An undo request or a claim holds the table: once settled, try again.
                await self.until(_table_free)
                self._check(board, rewrites)
                if board.finished:
                    raise _BoardOver("the board ended")
                if len(items()) > index:
                    return

        task = asyncio.ensure_future(submit())
        task.add_done_callback(_seen_through)
        await asyncio.shield(task)

    def _totals(self, board: BoardLog) -> tuple[float, float]:
        """Each side's time over the boards up to ``board``."""
        totals = [0.0, 0.0]
        for key, played in self.logs.items():
            if key <= board.key:
                totals[0] += played.seconds[0]
                totals[1] += played.seconds[1]
        return totals[0], totals[1]


# -- the table manager ------------------------------------------------------------------------


class BcbAdapter:
    """The table manager: one TCP port per table, a :class:`BcbSeat` per link.

    ``port`` is table 1's (table ``t`` listens on ``port + t - 1``; 0: a free port each,
    see :attr:`ports`); ``timeout`` the seconds a robot may take over any one line.

    >>> adapter = BcbAdapter(["http://127.0.0.1:8765/play#TOKEN"], port=2000)
    >>> adapter.timeout
    300.0
    """

    def __init__(
        self,
        links: Sequence[str | Link],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        timeout: float = DEFAULT_TIMEOUT,
        name: str = "bcb table manager",
    ) -> None:
        if not links:
            raise BcbError("no seat links: give one link per seat the robots play")
        self.links = [link if isinstance(link, Link) else Link.parse(link) for link in links]
        self.host = host
        self.port = port
        self.timeout = timeout
        self.name = name
        self.seats: list[BcbSeat] = []
        self.ports: dict[int, int] = {}
        """Each table's TCP port, once started."""
        self.teams: dict[int, TableTeams] = {}
        """Each table's team names, as its robots connected with them."""
        self._servers: list[asyncio.Server] = []
        self._connections: dict[asyncio.Task[object], Channel] = {}
        """The robots' connections, each with its handler."""

    async def start(self) -> None:
        """Connect every seat to the server and open each table's port."""
        try:
            for link in self.links:
                seat = BcbSeat(link, self.timeout, self.name)
                await seat.start()
                self.seats.append(seat)
        except ClientError as error:
            await self.close()
            raise BcbError(f"cannot take a seat: {error.message}") from None
        except OSError as error:
            await self.close()
            raise BcbError(f"cannot reach the server: {error}") from None
        except BcbError:
            await self.close()
            raise
        places = [seat.position for seat in self.seats]
        if len(set(places)) != len(places):
            await self.close()
            raise BcbError("two links for the same seat")
        for table in sorted({table for table, _seat in places}):
            self.teams[table] = TableTeams(functools.partial(self._plays_side, table))
            port = 0 if self.port == 0 else self.port + table - 1

            def accept(
                reader: asyncio.StreamReader, writer: asyncio.StreamWriter, table: int = table
            ) -> Awaitable[None]:
                return self._accept(table, reader, writer)

            try:
                server = await asyncio.start_server(accept, self.host, port, limit=MAX_LINE)
            except OSError as error:
                await self.close()
                raise BcbError(
                    f"cannot listen on {self.host}:{port} for table {table}: {error}"
                ) from None
            self._servers.append(server)
            self.ports[table] = server.sockets[0].getsockname()[1]
            seats = ", ".join(SEAT_NAMES[s] for t, s in sorted(places) if t == table)
            log.info(
                "table %d: robots connect to %s:%d (%s)", table, self.host, self.ports[table], seats
            )

    async def wait_finished(self, grace: float = 5.0) -> None:
        """Until every seat's match is over, and (for up to ``grace`` seconds more) every
        robot connected has been told the end of the session."""
        for seat in self.seats:
            await seat.wait_finished()
        talking = [seat.conversation for seat in self.seats if seat.conversation is not None]
        if talking:
            await asyncio.wait(talking, timeout=grace)

    async def close(self) -> None:
        for server in self._servers:
            server.close()
        for seat in self.seats:
            await seat.close()
        for channel in list(self._connections.values()):
            await channel.close()  # a robot still saying hello: its read ends
        if self._connections:
            await asyncio.wait(list(self._connections), timeout=2)
        for server in self._servers:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2):
                    await server.wait_closed()
        self._servers = []

    def _plays_side(self, table: int, north_south: bool) -> bool:
        """Whether a seat of that side of ``table`` is played from here."""
        return any(
            seat.position[0] == table and seat.position[1].is_north_south == north_south
            for seat in self.seats
        )

    def _check_team(self, table: int, sits: Seat, team: str) -> None:
        """Partners are one team: a robot whose partner's robot is connected with another
        team name is refused, as the Blue Chip table manager does."""
        for seat in self.seats:
            if seat.position != (table, sits.partner) or seat.team is None:
                continue  # not the partner, or no robot of the partner's is connected
            if seat.team != team:
                partner, theirs = SEAT_NAMES[sits.partner], _plain(seat.team)
                raise LineError(f'Team name mismatch: {partner} is seated for "{theirs}"')

    def _seat_for(self, table: int, wanted: Seat | None) -> tuple[BcbSeat, Seat]:
        here = {seat.position[1]: seat for seat in self.seats if seat.position[0] == table}
        if wanted is None:
            free = [s for s in Seat if s in here and here[s].conversation is None]
            if not free:
                raise LineError(f"no free seat at table {table}")
            wanted = free[0]
        found = here.get(wanted)
        if found is None:
            raise LineError(f"{SEAT_NAMES[wanted]} at table {table} is not played from here")
        return found, wanted

    async def _accept(
        self, table: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """One robot connection, from its first line to its last."""
        channel = Channel(reader, writer, self.timeout)
        where = f"table {table} ({channel.peer})"
        this = asyncio.current_task()
        if this is not None:
            self._connections[this] = channel
        try:
            first = await channel.read()
            request = parse_connect(first)
            seat, sits = self._seat_for(table, request.seat)
            where = seat.label
            self._check_team(table, sits, request.team)
            await self._converse(
                seat, channel, Connect(request.team, sits, request.version), self.teams[table]
            )
        except LineError as error:
            log.warning("%s: %s; the connection is closed", where, error)
            await channel.refuse(str(error))
        except RobotGone as gone:
            log.info("%s: robot gone (%s)", where, gone)
        except ClientError as error:
            log.error("%s: the server refused the seat (%s)", where, error)
        except BcbError as error:
            log.error("%s: %s", where, error)
        except Exception:
            # The last line of defence of one connection: whatever went wrong with it is
            # logged, and the adapter and the other seats go on.
            log.exception("%s: the connection failed", where)
        finally:
            if this is not None:
                self._connections.pop(this, None)
            await channel.close()

    async def _converse(
        self, seat: BcbSeat, channel: Channel, request: Connect, teams: TableTeams
    ) -> None:
        """The robot's conversation, in a task of its own: a robot that connects again
        cancels it, and so does the end of the adapter."""
        assert request.seat is not None
        conversation = asyncio.create_task(seat.converse(channel, request, teams))
        previous, seat.conversation = seat.conversation, conversation
        seat.team = request.team
        teams.seat(request.seat.is_north_south, request.team)
        if previous is not None and not previous.done():
            log.info("%s: a new connection replaces the robot's previous one", seat.label)
            previous.cancel()
        log.info("%s: %r connects (protocol %d)", seat.label, request.team, request.version)
        try:
            await conversation
            log.info("%s: end of session", seat.label)
        except asyncio.CancelledError:
            this = asyncio.current_task()
            if this is not None and this.cancelling():
                conversation.cancel()
                raise
            log.info("%s: the conversation ended (replaced, or the adapter closes)", seat.label)
        finally:
            if seat.conversation is conversation:
                seat.conversation, seat.team = None, None


# -- the command ------------------------------------------------------------------------------


async def run_adapter(links: Sequence[str], host: str, port: int, timeout: float) -> None:
    """Run a table manager for ``links`` until their match is over."""
    adapter = BcbAdapter(links, host=host, port=port, timeout=timeout)
    await adapter.start()
    try:
        for table, bound in sorted(adapter.ports.items()):
            print(f"table {table}: BCB robots connect to {host}:{bound}", file=sys.stderr)
        await adapter.wait_finished()
    finally:
        await adapter.close()
