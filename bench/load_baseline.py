"""The views reference of ``bench/load.py``: a bare ``websockets`` server that builds each
recipient's whole view for every action and sends what changed in it, to price our CPU per
delivered frame against (``bench/load_deltas.py`` is the other reference, and shares this
module's protocol subset, rules and views).

    .venv/bin/python -m bench.load_baseline --port 9000 --boards 4

It speaks enough of the protocol for the load's scripted players to play against it
unchanged: ``hello`` with a token ``base M T S`` (match M, table T, seat S) or ``base M
watch`` (M's live spectator), then calls, cards, claims, claim answers, ``next_board`` and
``ping``. It keeps each table's board in the rules library (``bridge``), and for each action
builds every recipient's view as a plain dict of the same shape as our server's
(``player_view``, ``watch_view``: every field, the cards each may see), and queues one update
for each (the table's four players and the spectators; a comparison to all nine), with what
changed in the view since the last one sent there (``protocol.changes.diff``; the first: the
whole view), then the actor's ``ack``. It stores nothing, checks no limits, keeps no log,
and has no review timer (the players ask for the next board): what is left is the work
every server of this protocol must do, done the simple way.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import random
import signal
import time
from dataclasses import dataclass, field
from typing import Any, cast

import msgpack
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

from bench.load_clients import PROTOCOL_VERSION
from bridge import (
    Auction,
    BridgeError,
    Call,
    Card,
    Claim,
    Deal,
    OutOfTurn,
    Play,
    Seat,
    Trick,
    WrongPhase,
    board_dealer,
    board_vulnerability,
    imps,
    score,
)
from bridge.lin import LinBoard, LinCall, handviewer_url
from protocol.changes import diff

SEATS = "NESW"
PLAYER_NUMBERS = {
    (1, "N"): 1, (1, "E"): 5, (1, "S"): 3, (1, "W"): 7,
    (2, "N"): 6, (2, "E"): 2, (2, "S"): 8, (2, "W"): 4,
}  # fmt: skip
"""Team A (players 1-4) sits North-South at table 1 and East-West at table 2."""
DOUBLE_DUMMY = {seat: dict.fromkeys(("C", "D", "H", "S", "NT"), 7) for seat in SEATS}
"""A comparison's double-dummy table: the same shape as ours, not solved (our server solves
each board when the match is created, not when it is compared)."""
CONNECTED_SINCE = 1_800_000_000_000
"""The ``since`` of a seat whose player is connected (our server: when they came)."""

Data = dict[str, Any]


@dataclass(eq=False)
class Recipient:
    """A connection: its outbox, written by its own task, and its updates' count."""

    websocket: ServerConnection
    outbox: asyncio.Queue[bytes | None] = field(default_factory=asyncio.Queue)
    seq: int = 0

    def put(self, frame: bytes) -> None:
        """Send a frame: written at once when nothing waits before it (websockets'
        ``broadcast``), else queued for the connection's writer, as our server does."""
        if self.outbox.empty() and not self.websocket.transport.get_write_buffer_size():
            broadcast((self.websocket,), frame)
        else:
            self.outbox.put_nowait(frame)

    def snapshot(self, view: Data) -> None:
        """The first update: the whole view."""
        self.seq += 1
        update = {"type": "update", "seq": self.seq, "events": [{"type": "snapshot"}]}
        self.put(msgpack.packb(update | {"view": view, "changes": []}))

    def answer(self, message: Data) -> None:
        self.put(msgpack.packb(message))


@dataclass(eq=False)
class Link(Recipient):
    """A connection of the views reference: it keeps the view it last sent, to diff."""

    sent: bytes | None = None
    """The view last sent, packed, without its comparisons (they go in events)."""

    def snapshot(self, view: Data) -> None:
        self.update([{"type": "snapshot"}], view)

    def update(self, events: list[Data], view: Data) -> None:
        """The first update carries the whole view, every later one what changed."""
        self.seq += 1
        match = {key: value for key, value in view["match"].items() if key != "comparisons"}
        bare = {**view, "match": match}
        packed = msgpack.packb(bare)
        update: Data = {"type": "update", "seq": self.seq, "events": events}
        if self.sent is None:
            update |= {"view": view, "changes": []}
        else:
            update |= {"view": None, "changes": diff(msgpack.unpackb(self.sent), bare)}
        self.sent = packed
        self.put(msgpack.packb(update))


@dataclass(eq=False)
class Table:
    """One table's current board."""

    number: int
    index: int = 0
    """The board being played, as an index into the match's boards."""
    auction: Auction = field(default_factory=lambda: Auction(Seat.NORTH))
    play: Play | None = None
    claim: Claim | None = None
    """The board's last claim: pending, or accepted (it ended the play)."""
    result: Data | None = None
    ready: list[str] = field(default_factory=list)
    """The seats ready for the next board, in seat order."""
    results: list[Data] = field(default_factory=list)
    link: str | None = None
    """The finished board's hand-viewer link, made once."""

    def last_actor(self) -> str | None:
        """Who made the last call or card (declarer for dummy's card), as ours says it."""
        play = self.play
        last = None if play is None else play.last_played
        if play is not None and last is not None:
            owner = last[0]
            return (play.declarer if owner == play.dummy else owner).letter
        calls = len(self.auction.calls)
        return SEATS[(self.auction.dealer + calls - 1) % 4] if calls else None


class Match:
    """One teams match of two tables, dealt from its number."""

    def __init__(self, number: int, boards: int, review_seconds: int) -> None:
        rng = random.Random(f"baseline {number}")
        self.match_id = f"{number:016x}"
        self.review_seconds = review_seconds
        self.deals = [Deal.random(rng) for _ in range(boards)]
        self.commitment = hashlib.sha256(self.match_id.encode()).hexdigest()
        self.tables = {table: Table(table) for table in (1, 2)}
        for table in self.tables.values():
            self.start(table, 0)
        self.players: dict[tuple[int, str], Recipient] = {}
        self.spectators: list[Recipient] = []
        self.comparisons: list[Data] = []
        self.imps_a = 0
        self.over = False
        """Whether the match's end was told (after its last comparison, as ours does)."""

    # -- the play ----------------------------------------------------------------------

    def start(self, table: Table, index: int) -> None:
        table.index = index
        table.auction = Auction(board_dealer(index + 1))
        table.play = None
        table.claim = None
        table.result = None
        table.ready = []
        table.link = None

    def act(self, table_number: int, seat: str, message: Data) -> list[Data]:
        """Apply a player's action; return the events it caused at the table (raises
        BridgeError for one the laws refuse)."""
        table = self.tables[table_number]
        kind = message["type"]
        if kind == "next_board":
            return self._ready(table, seat)
        if table.result is not None:
            raise WrongPhase("the board is over")
        if kind == "call":
            return self._call(table, seat, message["call"])
        play = table.play
        if play is None:
            raise WrongPhase("the auction is on")
        if kind == "card":
            card = Card.parse(message["card"])
            owner = play.turn
            before = len(play.tricks)
            play.play(card, Seat.parse(seat))
            winner = play.tricks[-1].winner if len(play.tricks) > before else None
            event = {
                "type": "card_played",
                "table": table.number,
                "seat": owner.letter if owner is not None else seat,
                "card": message["card"],
                "trick_winner": None if winner is None else winner.letter,
            }
            return [event, *self._finished(table)]
        if kind == "claim":
            table.claim = play.claim(Seat.parse(seat), message["tricks"])
            made = {"type": "claim_made", "table": table.number, "claimer": seat}
            return [made | {"tricks": table.claim.tricks}]
        if kind == "claim_answer":
            table.claim = play.accept_claim(Seat.parse(seat))
            answered = {"type": "claim_answered", "table": table.number, "seat": seat}
            return [{**answered, "accept": True}, *self._finished(table)]
        raise WrongPhase(f"the reference does not take {kind}")

    def _call(self, table: Table, seat: str, text: str) -> list[Data]:
        auction = table.auction
        if auction.turn is None or auction.turn.letter != seat:
            raise OutOfTurn("not your turn to call")
        auction.call(Call.parse(text))
        event = {"type": "call_made", "table": table.number, "seat": seat, "call": text}
        events = [{**event, "alert": None}]
        if auction.is_complete:
            if auction.contract is not None and auction.declarer is not None:
                table.play = Play(self.deals[table.index], auction.contract, auction.declarer)
            events += self._finished(table)
        return events

    def _finished(self, table: Table) -> list[Data]:
        """The board's end, when the last card, acceptance or pass made one."""
        play = table.play
        if play is not None and not play.is_complete:
            return []
        if play is None and not table.auction.is_passed_out:
            return []
        number = table.index + 1
        contract = table.auction.contract
        declarer = table.auction.declarer
        tricks = 0 if play is None else play.declarer_tricks
        table.result = {
            "table": table.number,
            "round": 1,
            "board": number,
            "contract": None if contract is None else str(contract),
            "declarer": None if declarer is None else declarer.letter,
            "tricks": tricks,
            "ns_score": score(contract, declarer, board_vulnerability(number), tricks),
            "assigned": False,
            "ruled": False,
        }
        table.results.append(table.result)
        return [{"type": "board_finished", "table": table.number, "result": table.result}]

    def _ready(self, table: Table, seat: str) -> list[Data]:
        if table.result is None or seat in table.ready:
            raise WrongPhase("no board is on review")
        table.ready = [s for s in SEATS if s in table.ready or s == seat]
        events = [{"type": "ready_for_next", "table": table.number, "seat": seat}]
        if len(table.ready) == 4:
            events.append({"type": "review_ended", "table": table.number, "board": table.index + 1})
        return events

    def after_review(self, table: Table) -> tuple[Data | None, list[Data]]:
        """Once a table's review ended: the board's comparison if the other table is done
        with it too, and the table's next board's start (if any)."""
        other = self.tables[3 - table.number]
        index = table.index
        compared = None
        if other.index > index or (other.index == index and len(other.ready) == 4):
            compared = self._compare(index)
        started = []
        if index + 1 < len(self.deals):
            self.start(table, index + 1)
            started = [
                {"type": "board_started", "table": table.number, "board": index + 2, "round": 1}
            ]
        return compared, started

    def _compare(self, index: int) -> Data:
        one, two = (self.tables[t].results[index] for t in (1, 2))
        difference = one["ns_score"] - two["ns_score"]
        swing = imps(difference)
        self.imps_a += swing
        comparison = {
            "board": index + 1,
            "results": [one, two],
            "points": {"A": float(swing), "B": float(-swing)},
            "table1": one,
            "table2": two,
            "difference": difference,
            "swing": swing,
            "running_total": self.imps_a,
            "artificial": None,
            "void": False,
            "double_dummy": DOUBLE_DUMMY,
            "par": {"score": 0, "contracts": ["3NT N ="]},
        }
        self.comparisons.append(comparison)
        return comparison

    @property
    def finished(self) -> bool:
        return len(self.comparisons) == len(self.deals)

    def played(self, table: Table) -> bool:
        """Whether ``table`` has played all its boards (its last one is over)."""
        return table.result is not None and table.index + 1 == len(self.deals)

    def waiting_for(self, table: Table) -> list[int]:
        """The other table, while ``table`` has played its boards and the other may not
        be known to have (the round is not over at both: each last review ended)."""
        done = all(self.played(t) and len(t.ready) == 4 for t in self.tables.values())
        return [3 - table.number] if self.played(table) and not done else []

    # -- what each viewer sees -------------------------------------------------------

    def summary(self) -> Data:
        a = max(self.imps_a, 0)
        b = max(-self.imps_a, 0)
        standings = [
            {"competitor": "A", "name": "Team A", "players": [1, 2, 3, 4], "points": float(a)},
            {"competitor": "B", "name": "Team B", "players": [5, 6, 7, 8], "points": float(b)},
        ]
        return {
            "match_id": self.match_id,
            "format": "teams",
            "scoring": "imps",
            "rounds": 1,
            "team_a": "Team A",
            "team_b": "Team B",
            "boards": list(range(1, len(self.deals) + 1)),
            "comparisons": self.comparisons,
            "standings": standings[::-1] if b > a else standings,  # best first
            "imps_a": a,
            "imps_b": b,
            "finished": self.over,
            "winner": ("A" if a > b else "B" if b > a else "draw") if self.over else None,
            "held_round": None,
            "sessions": [],
            "chat": "opponents",
            "review_seconds": self.review_seconds,
            "deals_commitment": self.commitment,
            "deals_seed_commitment": None,
            "deals_public_value": None,
            "deals_public_form": None,
        }

    def seating(self, table: int) -> list[Data]:
        seats = []
        for seat in SEATS:
            connected = (table, seat) in self.players
            seats.append(
                {
                    "table": table,
                    "seat": seat,
                    "player": PLAYER_NUMBERS[(table, seat)],
                    "name": None,
                    "robot": False,
                    "connected": connected,
                    "since": CONNECTED_SINCE if connected else None,
                }
            )
        return seats

    def player_view(self, table_number: int, seat: str, summary: Data) -> Data:
        table = self.tables[table_number]
        number = PLAYER_NUMBERS[(table_number, seat)]
        left, partner, right = (SEATS[(SEATS.index(seat) + i) % 4] for i in (1, 2, 3))
        played = self.played(table)
        return {
            "type": "player_view",
            "match": summary,
            "player": number,
            "round": 1,
            "table": table_number,
            "seat": seat,
            "team": "A" if number <= 4 else "B",
            "competitor": "A" if number <= 4 else "B",
            "partner": PLAYER_NUMBERS[(table_number, partner)],
            "opponents": [PLAYER_NUMBERS[(table_number, s)] for s in (left, right)],
            "played_round": played,
            "waiting_for": self.waiting_for(table),
            "next_seat": None,
            "board": self.board_view(table, seat),
            "results": list(table.results),
            "players": self.seating(table_number),
            "chat": [],
            "review": self.review(table),
            "director_calls": [],
            "answered_calls": [],
            "waiting_for_seats": [],
            "clock": None,
            "face_down_lead": None,
        }

    def review(self, table: Table) -> Data | None:
        if table.result is None:
            return None
        until = int(time.time() * 1000) + self.review_seconds * 1000
        return {"board": table.index + 1, "until": until, "ready": list(table.ready)}

    def watch_view(self, summary: Data) -> Data:
        return {
            "type": "watch_view",
            "match": summary,
            "mode": "live",
            "tables": [self.board_view(table, None) for table in self.tables.values()],
            "results": [r for table in self.tables.values() for r in table.results],
            "players": self.seating(1) + self.seating(2),
            "chat": [],
            "director_calls": [],
            "answered_calls": [],
            "waiting": [],
            "clocks": [],
            "face_down_leads": [],
        }

    def board_view(self, table: Table, seat: str | None) -> Data:
        """The table's board as ``seat`` sees it (None: a spectator, who sees everything)."""
        number = table.index + 1
        deal = self.deals[table.index]
        auction = table.auction
        play = table.play
        finished = table.result is not None
        phase = board_phase(table)
        visible = set(SEATS) if seat is None or finished else {seat}
        if play is not None and play.is_dummy_exposed:
            visible.add(play.dummy.letter)
        if claim_shown(table, seat) and table.claim is not None:
            visible.add(table.claim.claimer.letter)
        turn, acting = turn_and_acting(table)
        calls = []
        caller = auction.dealer
        for call in auction.calls:
            calls.append({"seat": caller.letter, "call": str(call), "alert": None})
            caller = caller.next
        completed = [] if play is None else [trick_data(t) for t in play.tricks]
        current = current_trick(play)
        contract = auction.contract
        return {
            "table": table.number,
            "round": 1,
            "board": number,
            "dealer": board_dealer(number).letter,
            "vulnerability": board_vulnerability(number).value,
            "phase": phase,
            "hands": {s.letter: held(deal, play, s) for s in Seat if s.letter in visible},
            "hand_sizes": {s.letter: len(held(deal, play, s)) for s in Seat},
            "deal": (
                {s.letter: [str(c) for c in deal[s]] for s in Seat}
                if finished or seat is None
                else None
            ),
            "auction": calls,
            "contract": None if contract is None else str(contract),
            "declarer": None if auction.declarer is None else auction.declarer.letter,
            "dummy": None if play is None else play.dummy.letter,
            "tricks": completed if seat is None or finished else [],
            "last_trick": (
                completed[-1] if completed and sees_last_trick(table, seat, current) else None
            ),
            "current_trick": None if current is None else trick_data(current),
            "turn": turn,
            "acting": acting,
            "tricks_ns": side_tricks(play, north_south=True),
            "tricks_ew": side_tricks(play, north_south=False),
            "claim": claim_data(table, seat),
            "undo": None,
            "result": table.result,
            "legal": legal(table) if seat is not None and seat == acting else [],
            "actions": actions(table, seat),
            "questions": [],
            "handviewer": None if table.result is None else self.handviewer(table),
        }

    def handviewer(self, table: Table) -> str:
        """The finished board's BBO hand-viewer link (nameless players), as ours makes it."""
        if table.link is None:
            number = table.index + 1
            play = table.play
            cards = () if play is None else tuple(card for _, card in play.cards_played)
            claim = None if play is None or len(cards) == 52 else play.declarer_tricks
            board = LinBoard(
                deal=self.deals[table.index],
                dealer=board_dealer(number),
                vulnerability=board_vulnerability(number),
                number=number,
                calls=tuple(LinCall(call) for call in table.auction.calls),
                cards=cards,
                claim=claim,
            )
            table.link = handviewer_url(board)
        return table.link


def board_phase(table: Table) -> str:
    play = table.play
    if table.result is not None:
        return "finished"
    if play is None:
        return "auction"
    return "claim" if play.pending_claim is not None else "play"


def turn_and_acting(table: Table) -> tuple[str | None, str | None]:
    """Whose turn it is (dummy's seat when dummy plays) and who acts (declarer for dummy)."""
    phase = board_phase(table)
    play = table.play
    if phase == "auction":
        turn = table.auction.turn
        return (None, None) if turn is None else (turn.letter, turn.letter)
    if phase == "play" and play is not None:
        turn, acting = play.turn, play.acting_seat
        return (None if turn is None else turn.letter, None if acting is None else acting.letter)
    return None, None


def legal(table: Table) -> list[str]:
    """The calls or cards the acting seat may make now."""
    play = table.play
    if play is None:
        return [str(call) for call in table.auction.legal_calls()]
    return [str(card) for card in play.legal_cards()]


def current_trick(play: Play | None) -> Trick | None:
    """The trick being played (an unfinished one, when a claim ended the play)."""
    if play is None:
        return None
    return play.unfinished_trick if play.is_complete else play.current_trick


def sees_last_trick(table: Table, seat: str | None, current: Trick | None) -> bool:
    """Law 66: a player sees the last quitted trick until their side has played to the next
    (dummy's cards count for declarer's side)."""
    if seat is None or table.result is not None or current is None:
        return True
    me = Seat.parse(seat)
    return not any(played in (me, me.partner) for played, _ in current.plays())


def side_tricks(play: Play | None, *, north_south: bool) -> int:
    """The tricks one side has won (given by a claim included)."""
    if play is None:
        return 0
    declaring = play.declarer.is_north_south == north_south
    return play.declarer_tricks if declaring else play.defender_tricks


def held(deal: Deal, play: Play | None, seat: Seat) -> list[str]:
    return [str(card) for card in (deal[seat] if play is None else play.remaining(seat))]


def trick_data(trick: Trick) -> Data:
    return {
        "leader": trick.leader.letter,
        "cards": [{"seat": seat.letter, "card": str(card)} for seat, card in trick.plays()],
        "winner": None if trick.winner is None else trick.winner.letter,
    }


def claim_shown(table: Table, seat: str | None) -> bool:
    """Whether ``seat`` (None: a spectator) sees the claimer's cards: watchers always;
    players while they decide the claim (or made it), and everyone once the board is over."""
    claim = table.claim
    if claim is None or seat is None or table.result is not None:
        return claim is not None
    pending = table.play is not None and table.play.pending_claim is not None
    return pending and Seat.parse(seat) in claim.deciders | {claim.claimer}


def claim_data(table: Table, seat: str | None) -> Data | None:
    claim = table.claim
    play = table.play
    if claim is None or play is None:
        return None
    pending = play.pending_claim is not None
    return {
        "claimer": claim.claimer.letter,
        "tricks": claim.tricks,
        "remaining": claim.remaining,
        "statement": None,
        "deciders": [s.letter for s in sorted(claim.deciders)],
        "accepted": [s.letter for s in sorted(claim.accepted)],
        "status": "pending" if pending else "accepted",
        "cards": [str(c) for c in play.remaining(claim.claimer)]
        if claim_shown(table, seat)
        else None,
        "withdrawal": None,
        "disputed_by": None,
    }


def actions(table: Table, seat: str | None) -> list[str]:
    """What a player may do besides calls and cards: as our server lists them."""
    play = table.play
    if seat is None:
        return []
    me = Seat.parse(seat)
    claim = table.claim
    if table.result is not None:
        if len(table.ready) == 4:
            return []  # the review is over (the match's last board stays on the table)
        found = []
        if claim is not None and play is not None and me != play.dummy:
            claimers = me in (claim.claimer, claim.claimer.partner)
            if claim.tricks < claim.remaining if claimers else claim.tricks > 0:
                found.append("withdraw_concession")
        return found if seat in table.ready else [*found, "next_board"]
    if play is not None and play.pending_claim is not None:
        pending = play.pending_claim
        found = ["claim_answer"] if me in pending.deciders and me not in pending.accepted else []
        return [*found, "withdraw_claim"] if me == pending.claimer else found
    found = ["claim"] if play is not None and me != play.dummy else []
    return [*found, "undo"] if table.last_actor() == seat else found


class Baseline:
    """The views reference's server: matches made on first use, one writer task per
    connection; each action's updates built by :meth:`publish_action` and its kin (the
    delta reference, ``bench/load_deltas.py``, builds them its own way)."""

    def __init__(self, boards: int, review_seconds: int) -> None:
        self.boards = boards
        self.review_seconds = review_seconds
        self.matches: dict[int, Match] = {}

    def recipient(self, websocket: ServerConnection) -> Recipient:
        """A new connection's outbox."""
        return Link(websocket)

    def match(self, number: int) -> Match:
        """Match ``number``, made on first use."""
        match = self.matches.get(number)
        if match is None:
            match = self.matches[number] = Match(number, self.boards, self.review_seconds)
        return match

    async def handle(self, websocket: ServerConnection) -> None:
        link = self.recipient(websocket)
        writer = asyncio.create_task(self._write(link))
        where: tuple[Match, int, str] | None = None
        try:
            async for frame in websocket:
                message = msgpack.unpackb(frame)
                if message["type"] == "hello":
                    where = self._hello(link, message["token"])
                elif message["type"] == "ping":
                    link.answer({"type": "pong", "ref": message.get("ref")})
                elif where is not None:
                    self._act(link, where, message)
        except ConnectionClosed:
            pass
        finally:
            if where is not None:
                match, table, seat = where
                if table:
                    match.players.pop((table, seat), None)
                else:
                    match.spectators.remove(link)
            link.outbox.put_nowait(None)
            await writer

    async def _write(self, link: Recipient) -> None:
        with contextlib.suppress(ConnectionClosed):
            while (frame := await link.outbox.get()) is not None:
                await link.websocket.send(frame)

    def _hello(self, link: Recipient, token: str) -> tuple[Match, int, str]:
        _base, number, where = token.split()
        match = self.match(int(number))
        table, seat = (0, "") if where == "watch" else (int(where[0]), where[1])
        welcome = {
            "type": "welcome",
            "version": PROTOCOL_VERSION,
            "role": "spectator" if not table else "player",
            "match_id": match.match_id,
            "player": PLAYER_NUMBERS.get((table, seat)),
            "table": table or None,
            "seat": seat or None,
            "seq": 1,
        }
        link.answer(welcome)
        summary = match.summary()
        if table:
            match.players[(table, seat)] = link
            link.snapshot(match.player_view(table, seat, summary))
        else:
            match.spectators.append(link)
            link.snapshot(match.watch_view(summary))
        return match, table, seat

    def _act(self, link: Recipient, where: tuple[Match, int, str], message: Data) -> None:
        match, table_number, seat = where
        ref = message.get("ref")
        table = match.tables[table_number]
        before = self.before(table)
        try:
            events = match.act(table_number, seat, message)
        except BridgeError as error:
            code = "out_of_turn" if isinstance(error, OutOfTurn) else "wrong_phase"
            refusal = {"type": "error", "code": code, "message": str(error)[:200], "ref": ref}
            link.answer({**refusal, "retry_after_ms": None})
            return
        self.publish_action(match, table, events, before)
        if events[-1]["type"] == "review_ended":
            compared, started = match.after_review(table)
            if compared is not None:
                self.publish_match(match, [{"type": "board_compared", "comparison": compared}])
                if match.finished:
                    match.over = True
                    summary = match.summary()
                    finished = {"type": "match_finished", "imps_a": summary["imps_a"]}
                    finished |= {"imps_b": summary["imps_b"], "winner": summary["winner"]}
                    self.publish_match(match, [{**finished, "standings": summary["standings"]}])
            if started:
                self.publish_started(match, table, started)
        link.answer({"type": "ack", "ref": ref, "seq": link.seq, "repeated": False})

    def before(self, table: Table) -> Any:
        """What the updates of an action at ``table`` need to know of it before the action
        (the views reference: nothing, it diffs whole views)."""
        return None

    def publish_action(self, match: Match, table: Table, events: list[Data], before: Any) -> None:
        """The updates of a player's action at ``table`` (``events``: what it did)."""
        self._publish(match, table.number, events)

    def publish_match(self, match: Match, events: list[Data]) -> None:
        """The updates of a comparison or the match's end, to every viewer of the match."""
        self._publish(match, 0, events)

    def publish_started(self, match: Match, table: Table, events: list[Data]) -> None:
        """The updates of the table's next board's start."""
        self._publish(match, table.number, events)

    @staticmethod
    def _publish(match: Match, table: int, events: list[Data]) -> None:
        """One update to each viewer of the table (0: of the match), each with its own view."""
        summary = match.summary()
        for (at, seat), link in match.players.items():
            if not table or at == table:
                cast(Link, link).update(events, match.player_view(at, seat, summary))
        if match.spectators:
            view = match.watch_view(summary)
            for link in match.spectators:
                cast(Link, link).update(events, view)


async def run(server: Baseline, port: int, name: str) -> None:
    """Serve ``server`` on 127.0.0.1:``port`` until SIGINT or SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with serve(server.handle, "127.0.0.1", port, compression=None, max_size=1 << 20):
        print(f"{name} on ws://127.0.0.1:{port}/ws", flush=True)
        await stop.wait()


def options(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--boards", type=int, default=4)
    parser.add_argument("--review-seconds", type=int, default=20)
    return parser.parse_args()


def main() -> None:
    args = options((__doc__ or "").split("\n\n")[0])
    asyncio.run(run(Baseline(args.boards, args.review_seconds), args.port, "Views reference"))


if __name__ == "__main__":
    main()
