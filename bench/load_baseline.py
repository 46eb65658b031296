"""The baseline of ``bench/load.py``: a bare ``websockets`` server doing the least that our
server's job takes, to price our CPU per delivered frame against.

    .venv/bin/python -m bench.load_baseline --port 9000 --boards 4

It speaks enough of the protocol for the load's scripted players to play against it
unchanged: ``hello`` with a token ``base M T S`` (match M, table T, seat S) or ``base M
watch`` (M's live spectator), then calls, cards, claims, claim answers and ``next_board``.
It keeps each table's board in the rules library (``bridge``), and for each action builds
every recipient's view as a plain dict of the same shape as our server's (``player_view``,
``watch_view``: every field, the cards each may see), and queues one update for each, with
what changed in the view since the last one sent there (the first: the whole view) (the table's four players and the spectators; a comparison to all nine),
then the actor's ``ack``. It stores nothing, checks no limits, keeps no log, and has no
review timer (the players ask for the next board): what is left is the work every server
of this protocol must do.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import signal
import time
from dataclasses import dataclass, field
from typing import Any

import msgpack
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from bench.load_clients import PROTOCOL_VERSION
from bridge import (
    Auction,
    BridgeError,
    Call,
    Card,
    Deal,
    OutOfTurn,
    Play,
    Seat,
    WrongPhase,
    board_dealer,
    board_vulnerability,
    imps,
    score,
)
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


@dataclass(eq=False)
class Link:
    """A connection: its outbox, written by its own task, and whom it speaks for."""

    websocket: ServerConnection
    outbox: asyncio.Queue[bytes | None] = field(default_factory=asyncio.Queue)
    seq: int = 0
    sent: bytes | None = None
    """The view last sent, packed, without its comparisons (they go in events)."""

    def update(self, events: list[dict[str, Any]], view: dict[str, Any]) -> None:
        """The first update carries the whole view, every later one what changed."""
        self.seq += 1
        match = {key: value for key, value in view["match"].items() if key != "comparisons"}
        bare = {**view, "match": match}
        packed = msgpack.packb(bare)
        update: dict[str, Any] = {"type": "update", "seq": self.seq, "events": events}
        if self.sent is None:
            update |= {"view": view, "changes": []}
        else:
            update |= {"view": None, "changes": diff(msgpack.unpackb(self.sent), bare)}
        self.sent = packed
        self.outbox.put_nowait(msgpack.packb(update))

    def answer(self, message: dict[str, Any]) -> None:
        self.outbox.put_nowait(msgpack.packb(message))


@dataclass(eq=False)
class Table:
    """One table's current board."""

    number: int
    index: int = 0
    """The board being played, as an index into the match's boards."""
    auction: Auction = field(default_factory=lambda: Auction(Seat.NORTH))
    play: Play | None = None
    result: dict[str, Any] | None = None
    ready: list[str] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)


class Match:
    """One teams match of two tables, dealt from its number."""

    def __init__(self, number: int, boards: int, review_seconds: int) -> None:
        rng = random.Random(f"baseline {number}")
        self.match_id = f"{number:016x}"
        self.review_seconds = review_seconds
        self.deals = [Deal.random(rng) for _ in range(boards)]
        self.tables = {table: Table(table) for table in (1, 2)}
        for table in self.tables.values():
            self.start(table, 0)
        self.players: dict[tuple[int, str], Link] = {}
        self.spectators: list[Link] = []
        self.comparisons: list[dict[str, Any]] = []
        self.imps_a = 0

    # -- the play ----------------------------------------------------------------------

    def start(self, table: Table, index: int) -> None:
        table.index = index
        table.auction = Auction(board_dealer(index + 1))
        table.play = None
        table.result = None
        table.ready = []

    def act(self, table_number: int, seat: str, message: dict[str, Any]) -> list[dict[str, Any]]:
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
            claim = play.claim(Seat.parse(seat), message["tricks"])
            return [
                {
                    "type": "claim_made",
                    "table": table.number,
                    "claimer": seat,
                    "tricks": claim.tricks,
                }
            ]
        if kind == "claim_answer":
            play.accept_claim(Seat.parse(seat))
            answered = {"type": "claim_answered", "table": table.number, "seat": seat}
            return [{**answered, "accept": True}, *self._finished(table)]
        raise WrongPhase(f"the baseline does not take {kind}")

    def _call(self, table: Table, seat: str, text: str) -> list[dict[str, Any]]:
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

    def _finished(self, table: Table) -> list[dict[str, Any]]:
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
        }
        table.results.append(table.result)
        return [{"type": "board_finished", "table": table.number, "result": table.result}]

    def _ready(self, table: Table, seat: str) -> list[dict[str, Any]]:
        if table.result is None or seat in table.ready:
            raise WrongPhase("no board is on review")
        table.ready.append(seat)
        events = [{"type": "ready_for_next", "table": table.number, "seat": seat}]
        if len(table.ready) == 4:
            events.append({"type": "review_ended", "table": table.number, "board": table.index + 1})
        return events

    def after_review(self, table: Table) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
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

    def _compare(self, index: int) -> dict[str, Any]:
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

    # -- what each viewer sees -------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        a = max(self.imps_a, 0)
        b = max(-self.imps_a, 0)
        return {
            "match_id": self.match_id,
            "format": "teams",
            "scoring": "imps",
            "rounds": 1,
            "team_a": "Team A",
            "team_b": "Team B",
            "boards": list(range(1, len(self.deals) + 1)),
            "comparisons": self.comparisons,
            "standings": [
                {"competitor": "A", "name": "Team A", "players": [1, 2, 3, 4], "points": float(a)},
                {"competitor": "B", "name": "Team B", "players": [5, 6, 7, 8], "points": float(b)},
            ],
            "imps_a": a,
            "imps_b": b,
            "finished": self.finished,
            "winner": ("A" if a > b else "B" if b > a else "draw") if self.finished else None,
            "held_round": None,
            "chat": "opponents",
            "review_seconds": self.review_seconds,
        }

    def seating(self, table: int) -> list[dict[str, Any]]:
        return [
            {
                "table": table,
                "seat": seat,
                "player": PLAYER_NUMBERS[(table, seat)],
                "name": None,
                "robot": False,
                "connected": (table, seat) in self.players,
                "since": 1_800_000_000_000,
            }
            for seat in SEATS
        ]

    def player_view(self, table_number: int, seat: str, summary: dict[str, Any]) -> dict[str, Any]:
        table = self.tables[table_number]
        number = PLAYER_NUMBERS[(table_number, seat)]
        left, partner, right = (SEATS[(SEATS.index(seat) + i) % 4] for i in (1, 2, 3))
        review = None
        if table.result is not None:
            until = int(time.time() * 1000) + self.review_seconds * 1000
            review = {"board": table.index + 1, "until": until, "ready": list(table.ready)}
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
            "played_round": self.finished,
            "waiting_for": [],
            "next_seat": None,
            "board": self.board_view(table, seat),
            "results": list(table.results),
            "players": self.seating(table_number),
            "chat": [],
            "review": review,
            "director_calls": [],
        }

    def watch_view(self, summary: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "watch_view",
            "match": summary,
            "mode": "live",
            "tables": [self.board_view(table, None) for table in self.tables.values()],
            "results": [r for table in self.tables.values() for r in table.results],
            "players": self.seating(1) + self.seating(2),
            "chat": [],
            "director_calls": [],
        }

    def board_view(self, table: Table, seat: str | None) -> dict[str, Any]:
        """The table's board as ``seat`` sees it (None: a spectator, who sees everything)."""
        number = table.index + 1
        deal = self.deals[table.index]
        auction = table.auction
        play = table.play
        finished = table.result is not None
        phase = "finished" if finished else "auction" if play is None else "play"
        if play is not None and play.pending_claim is not None:
            phase = "claim"
        visible = set(SEATS) if seat is None or finished else {seat}
        if play is not None and play.is_dummy_exposed:
            visible.add(play.dummy.letter)
        turn = acting = None
        legal: list[str] = []
        if phase == "auction":
            turn = acting = auction.turn
            if seat is not None and acting is not None and acting.letter == seat:
                legal = [str(call) for call in auction.legal_calls()]
        elif phase == "play" and play is not None:
            turn, acting = play.turn, play.acting_seat
            if seat is not None and acting is not None and acting.letter == seat:
                legal = [str(card) for card in play.legal_cards()]
        calls = []
        caller = auction.dealer
        for call in auction.calls:
            calls.append({"seat": caller.letter, "call": str(call), "alert": None})
            caller = caller.next
        completed = (
            [] if play is None else [_trick(t.plays(), t.leader, t.winner) for t in play.tricks]
        )
        current = None if play is None or play.current_trick is None else play.current_trick
        contract = auction.contract
        return {
            "table": table.number,
            "round": 1,
            "board": number,
            "dealer": board_dealer(number).letter,
            "vulnerability": board_vulnerability(number).value,
            "phase": phase,
            "hands": {s.letter: _cards(deal, play, s) for s in Seat if s.letter in visible},
            "hand_sizes": {s.letter: len(_cards(deal, play, s)) for s in Seat},
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
            "last_trick": completed[-1] if completed else None,
            "current_trick": (
                None if current is None else _trick(current.plays(), current.leader, None)
            ),
            "turn": None if turn is None else turn.letter,
            "acting": None if acting is None else acting.letter,
            "tricks_ns": _side_tricks(play, north_south=True),
            "tricks_ew": _side_tricks(play, north_south=False),
            "claim": _claim(play, seat),
            "undo": None,
            "result": table.result,
            "legal": legal,
            "actions": _actions(table, seat),
            "questions": [],
        }


def _side_tricks(play: Play | None, *, north_south: bool) -> int:
    """The tricks one side has won (given by a claim included)."""
    if play is None:
        return 0
    declaring = play.declarer.is_north_south == north_south
    return play.declarer_tricks if declaring else play.defender_tricks


def _cards(deal: Deal, play: Play | None, seat: Seat) -> list[str]:
    return [str(card) for card in (deal[seat] if play is None else play.remaining(seat))]


def _trick(plays: list[tuple[Seat, Card]], leader: Seat, winner: Seat | None) -> dict[str, Any]:
    return {
        "leader": leader.letter,
        "cards": [{"seat": seat.letter, "card": str(card)} for seat, card in plays],
        "winner": None if winner is None else winner.letter,
    }


def _claim(play: Play | None, seat: str | None) -> dict[str, Any] | None:
    claim = None if play is None else play.pending_claim
    if claim is None or play is None:
        return None
    shown = seat is None or seat == claim.claimer.letter or Seat.parse(seat) in claim.deciders
    return {
        "claimer": claim.claimer.letter,
        "tricks": claim.tricks,
        "remaining": claim.remaining,
        "statement": None,
        "deciders": [s.letter for s in sorted(claim.deciders)],
        "accepted": [s.letter for s in sorted(claim.accepted)],
        "status": "pending",
        "cards": [str(c) for c in play.remaining(claim.claimer)] if shown else None,
    }


def _actions(table: Table, seat: str | None) -> list[str]:
    """What a player may do besides calls and cards: as our server lists them."""
    play = table.play
    if seat is None:
        return []
    if table.result is not None:
        return [] if seat in table.ready else ["next_board"]
    if play is None:
        return []
    claim = play.pending_claim
    if claim is not None:
        deciding = Seat.parse(seat) in claim.deciders and Seat.parse(seat) not in claim.accepted
        return ["claim_answer"] if deciding else []
    return [] if seat == play.dummy.letter else ["claim"]


class Baseline:
    """The server: matches made on first use, one writer task per connection."""

    def __init__(self, boards: int, review_seconds: int) -> None:
        self.boards = boards
        self.review_seconds = review_seconds
        self.matches: dict[int, Match] = {}

    async def handle(self, websocket: ServerConnection) -> None:
        link = Link(websocket)
        writer = asyncio.create_task(self._write(link))
        where: tuple[Match, int, str] | None = None
        try:
            async for frame in websocket:
                message = msgpack.unpackb(frame)
                if message["type"] == "hello":
                    where = self._hello(link, message["token"])
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

    async def _write(self, link: Link) -> None:
        with contextlib.suppress(ConnectionClosed):
            while (frame := await link.outbox.get()) is not None:
                await link.websocket.send(frame)

    def _hello(self, link: Link, token: str) -> tuple[Match, int, str]:
        _base, number, where = token.split()
        match = self.matches.get(int(number))
        if match is None:
            match = self.matches[int(number)] = Match(int(number), self.boards, self.review_seconds)
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
            link.update([{"type": "snapshot"}], match.player_view(table, seat, summary))
        else:
            match.spectators.append(link)
            link.update([{"type": "snapshot"}], match.watch_view(summary))
        return match, table, seat

    def _act(self, link: Link, where: tuple[Match, int, str], message: dict[str, Any]) -> None:
        match, table_number, seat = where
        ref = message.get("ref")
        try:
            events = match.act(table_number, seat, message)
        except BridgeError as error:
            code = "out_of_turn" if isinstance(error, OutOfTurn) else "wrong_phase"
            refusal = {"type": "error", "code": code, "message": str(error)[:200], "ref": ref}
            link.answer({**refusal, "retry_after_ms": None})
            return
        self._publish(match, table_number, events)
        table = match.tables[table_number]
        if events[-1]["type"] == "review_ended":
            compared, started = match.after_review(table)
            if compared is not None:
                self._publish(match, 0, [{"type": "board_compared", "comparison": compared}])
                if match.finished:
                    summary = match.summary()
                    finished = {"type": "match_finished", "imps_a": summary["imps_a"]}
                    finished |= {"imps_b": summary["imps_b"], "winner": summary["winner"]}
                    self._publish(match, 0, [{**finished, "standings": summary["standings"]}])
            if started:
                self._publish(match, table_number, started)
        link.answer({"type": "ack", "ref": ref, "seq": link.seq, "repeated": False})

    @staticmethod
    def _publish(match: Match, table: int, events: list[dict[str, Any]]) -> None:
        """One update to each viewer of the table (0: of the match), each with its own view."""
        summary = match.summary()
        for (at, seat), link in match.players.items():
            if not table or at == table:
                link.update(events, match.player_view(at, seat, summary))
        if match.spectators:
            view = match.watch_view(summary)
            for link in match.spectators:
                link.update(events, view)


async def run(port: int, boards: int, review_seconds: int) -> None:
    baseline = Baseline(boards, review_seconds)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with serve(baseline.handle, "127.0.0.1", port, compression=None, max_size=1 << 20):
        print(f"Baseline on ws://127.0.0.1:{port}/ws", flush=True)
        await stop.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--boards", type=int, default=4)
    parser.add_argument("--review-seconds", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(run(args.port, args.boards, args.review_seconds))


if __name__ == "__main__":
    main()
