"""Driving a match from the tests: eight real clients, and the checks every frame must pass."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from redis.asyncio import Redis

from bridge import Deal, Seat
from bridge.formats import Movement
from bridge.lin import parse_handviewer_url
from clients.client import Client, Link
from protocol import codec
from protocol.changes import patch
from protocol.codec import decode_server
from protocol.messages import BoardCompared, BoardView, MatchCreated, PlayerView, Update, WatchView
from server.app import Server
from server.frames import Publication, Sent
from server.matches import WATCH_MODES, fold, players_of
from server.redis_process import free_port
from server.state import StoredEvent
from server.store import MatchLogs
from server.views import Viewer, Watcher, receives, view_of
from tests.conftest import ORGANISER_KEY

SEATS = "NESW"
ROOT = Path(__file__).resolve().parents[2]
STRONG_NORTH = "N:AKQJ.AKQ.AKQ.AKQ T98.JT98.JT9.JT9 765.765.8765.876 432.432.432.5432"
"""North holds every ace, king and queen: contracts by North-South make their top tricks."""


def http_get(url: str) -> tuple[int, str, bytes]:
    """GET ``url``: the status, the content type and the body (of an error response too)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers["Content-Type"], error.read()


@contextlib.contextmanager
def loop_held(each_turn: float = 0.12) -> Iterator[None]:
    """Hold the running event loop ``each_turn`` seconds at every turn until the block
    ends: a process past what it can serve, as its loop sees it (every look of a
    :class:`server.limits.LagWatch` comes late)."""
    loop = asyncio.get_running_loop()
    holding = True

    def hold() -> None:
        time.sleep(each_turn)
        if holding:
            loop.call_soon(hold)

    loop.call_soon(hold)
    try:
        yield
    finally:
        holding = False


async def stored_events(
    redis: Redis, match_id: str, table: int, kind: str | None = None
) -> list[dict[str, Any]]:
    """A table's log as the store holds it (its JSON entries), only those of type ``kind``
    when one is given."""
    entries = cast(
        list[tuple[bytes, dict[bytes, bytes]]],
        await redis.xrange(f"{{m:{match_id}}}:t{table}:events"),
    )
    events = [json.loads(fields[b"e"]) for _, fields in entries]
    return [e for e in events if kind is None or e["type"] == kind]


def one_board(deal: str = STRONG_NORTH, dealer: str = "N", vulnerable: str = "None") -> str:
    """A PBN deal file of one board, for ``create(..., deals_pbn=...)``."""
    return f'[Board "1"]\n[Dealer "{dealer}"]\n[Vulnerable "{vulnerable}"]\n[Deal "{deal}"]\n'


@dataclass
class Match:
    """A match on a test server and a client for every seat."""

    created: MatchCreated
    players: dict[tuple[int, str], Client]
    server: Server | None = None

    def table(self, number: int) -> dict[str, Client]:
        return {
            seat: self.players[(number, seat)] for seat in SEATS if (number, seat) in self.players
        }

    async def close(self) -> None:
        for client in self.players.values():
            await client.close()


async def eventually(condition: Callable[[], object], timeout: float, what: str) -> None:
    """Wait until ``condition()`` holds (polling): a wait, not a measurement; only a
    condition that does not come within ``timeout`` seconds fails, saying ``what`` it was."""
    try:
        async with asyncio.timeout(timeout):
            while not condition():
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"not {what} within {timeout:g} s") from None


async def create(server: Server, **options: object) -> MatchCreated:
    """Create a match as the organiser; unless the test says otherwise, a table's next board
    starts as soon as it finished one (no review time)."""
    return await create_at(server.ws_url, **options)


async def create_at(ws_url: str, **options: object) -> MatchCreated:
    """:func:`create` through whatever server listens at ``ws_url`` (another process)."""
    options.setdefault("review_seconds", 0)
    organiser = await Client.connect(Link(ws_url, ORGANISER_KEY), name="test organiser")
    try:
        return await organiser.create_match(**options)  # type: ignore[arg-type]
    finally:
        await organiser.close()


ANALYSIS_WAIT = 300.0
"""How long a test waits for a match's double-dummy analysis: the solver works in a worker
process at a lower priority, which a machine busy with other work starves for minutes (a
fresh-clone run beside another suite on 2 cores waited over 60 s). A wait, not a
measurement: only an analysis that never comes fails it."""


async def analysed(server: Server, match_id: str, timeout: float = ANALYSIS_WAIT) -> None:
    """Wait until the match's double-dummy analysis is logged: it is worked out in the
    background after the match is created, and its ``analysed`` entry is appended to every
    log whenever it comes (a test that compares the logs before and after must not see it
    land in between)."""
    runtime = await server.runtime(match_id)
    async with asyncio.timeout(timeout):
        while runtime.unanalysed() or match_id in server.analyses.under_way:
            await asyncio.sleep(0.05)


# -- updates carry what changed -----------------------------------------------------------


async def assert_changes_rebuild_every_view(server: Server, match_id: str) -> int:
    """:func:`check_changes_rebuild_every_view` on the match's logs as stored."""
    logs = await server.store.load(match_id)
    assert logs is not None
    return len(check_changes_rebuild_every_view(logs))


def check_changes_rebuild_every_view(logs: MatchLogs) -> list[tuple[Viewer, StoredEvent, Update]]:
    """For every viewer of the match (each player, the live and delayed spectators and the
    director), from its first update to its last as the logs make them: a client that takes
    the first whole view and applies each update's changes holds, after every update,
    exactly the view a snapshot would carry at that point. Returns every update checked,
    with its viewer and the entry it is for."""
    viewers: list[Viewer] = [Watcher(mode) for mode in WATCH_MODES]
    viewers += players_of(logs.config)
    checked = []
    # As the server does it: the state folded once, one publication of each entry shared by
    # every viewer that receives it (and its memo of what they see alike); the snapshot each
    # is compared with is made apart from all that, by view_of, and validated.
    state = fold(logs.config, logs.tables, ())
    held: dict[Viewer, dict[str, Any]] = {}
    sent: dict[Viewer, Sent] = {}
    seqs = dict.fromkeys(viewers, 0)
    for table, event in logs.watch:
        effect = state.apply(table, event)
        publication = Publication(state, table, event, effect)
        for viewer in viewers:
            if not receives(state, viewer, table, event):
                continue
            seq = seqs[viewer] = seqs[viewer] + 1
            frame, sent[viewer] = publication.frame(viewer, seq, sent.get(viewer))
            update = decode_server(frame)
            assert isinstance(update, Update)
            assert codec.encode(update) == frame  # the frame is the codec's, byte for byte
            view = held.get(viewer)
            if view is None:
                assert update.view is not None, (viewer, seq)
                view = held[viewer] = update.view.model_dump(mode="json")
            else:
                assert update.view is None, (viewer, seq)
                compared = [
                    e.comparison.model_dump(mode="json")
                    for e in update.events
                    if isinstance(e, BoardCompared)
                ]
                patch(view, [c.model_dump(mode="json") for c in update.changes], compared)
            snapshot = view_of(state, viewer).model_dump(mode="json")
            assert view == snapshot, f"{viewer} after update {seq} ({event['type']})"
            checked.append((viewer, event, update))
    return checked


async def assert_live_views_current(clients: list[Client]) -> None:
    """Each connected client's view, built from the updates' changes as they came live, is
    the whole view a new connection of the same link gets now."""
    for client in clients:
        if not client.is_connected:
            continue
        await client.ping()  # every update queued before the pong has been applied
        fresh = await Client.connect(client.link, name="view check")
        try:
            await client.ping()  # and any the new connection's presence caused
            assert client.seq == fresh.seq, client.name
            assert client.view == fresh.view, client.name
        finally:
            await fresh.close()


async def seat_everyone(server: Server, created: MatchCreated) -> Match:
    players: dict[tuple[int, str], Client] = {}
    for link in created.seats:
        if link.link is None:
            continue  # the server's robot plays it
        players[(link.table, link.seat)] = await Client.connect(
            link.link, name=f"t{link.table}{link.seat}"
        )
    return Match(created, players, server)


async def board_view(client: Client, board: int, timeout: float = 10.0) -> BoardView:
    """The client's view of ``board`` once it is the table's current board, started (it
    waits for its table's four players: the client may not have heard of the last yet)."""

    def current(view: PlayerView) -> BoardView | None:
        shown = view.board
        if shown is None or shown.board != board or view.waiting_for_seats:
            return None
        return shown

    return await client.wait_for(current, timeout)


async def settle(table: dict[str, Client], seq: int | None = None) -> None:
    """Wait until every client at the table has every update the server sent it so far.

    An action's updates are queued to every viewer before its ``ack`` goes out, and each
    connection's frames leave in order: a ``pong`` asked for after the ack arrives after
    them. (Players' numbering differs once chat or questions reached some and not others,
    so waiting for a number would not do; ``seq``, the acting viewer's, is only checked.)"""
    for client in table.values():
        await client.ping()
    if seq is not None:
        assert any(client.seq >= seq for client in table.values())


async def bid(
    table: dict[str, Client],
    board: int,
    calls: list[str | tuple[str, str]],
    before_last: Callable[[], None] | None = None,
) -> None:
    """Make ``calls`` in turn at a table (a pair is a call with its alert); ``before_last``
    runs right before the last call."""
    for index, item in enumerate(calls):
        if before_last is not None and index == len(calls) - 1:
            before_last()
        call, alert = (item, None) if isinstance(item, str) else item
        view = await board_view(table["N"], board)
        assert view.phase == "auction", view
        assert view.acting is not None
        ack = await table[view.acting].call(call, alert)
        await settle(table, ack.seq)


async def play_cards(
    table: dict[str, Client],
    board: int,
    count: int | None = None,
    before_last: Callable[[], None] | None = None,
) -> None:
    """Play ``count`` cards (None: to the end of the board), each the acting seat's first
    legal card, as the acting player's client offers it; ``before_last`` runs right before
    the board's last card."""
    played = 0
    while count is None or played < count:
        view: BoardView | bool = await table["N"].wait_for(lambda v: _current_or_done(v, board))
        if isinstance(view, bool) or view.phase != "play":
            assert count is None, f"board {board} ended after {played} of {count} cards"
            return
        assert view.acting is not None
        if before_last is not None and sum(view.hand_sizes.values()) == 1:
            before_last()
        actor = table[view.acting]
        own = await board_view(actor, board)
        ack = await actor.play(own.legal[0])
        await settle(table, ack.seq)
        played += 1


def _current_or_done(view: PlayerView, board: int) -> BoardView | bool | None:
    """The view of ``board`` while it is current, True once the table has finished it."""
    if any(result.board == board for result in view.results):
        return True
    shown = view.board
    if shown is None or shown.board != board or view.waiting_for_seats:
        return None
    return shown


# -- the leak audit ------------------------------------------------------------------------


def _cards_in(value: object) -> set[str]:
    """Every card-like string anywhere in a JSON value."""
    found: set[str] = set()
    waiting = [value]
    while waiting:
        item = waiting.pop()
        if isinstance(item, str):
            if len(item) == 2 and item[0] in "SHDC" and item[1] in "AKQJT98765432":
                found.add(item)
        elif isinstance(item, dict):
            waiting.extend(item.values())
        elif isinstance(item, list):
            waiting.extend(item)
    return found


def audit_player_frame(update: Update, table: int, seat: str, deals: dict[int, Deal]) -> None:
    """Everything in one update to a player is something that player may see now."""
    view = update.view
    assert isinstance(view, PlayerView)
    assert (view.table, view.seat) == (table, seat)
    for result in view.results:
        assert result.table == table
    for player in view.players:
        assert player.table == table
    _audit_table_talk(update, table, seat)
    _audit_face_down_lead(view, table, seat)
    board = view.board
    if board is None:
        return
    assert board.table == table
    audit_player_board(board, seat, deals[board.board])


def _audit_face_down_lead(view: PlayerView, table: int, seat: str) -> None:
    """Law 41A: an opening lead made face down is the leader's to see, nobody else's at the
    table, until their partner faces it; meanwhile dummy stays face down too."""
    lead = view.face_down_lead
    if lead is None:
        return
    assert lead.table == table
    if lead.seat != seat:
        assert lead.card is None, f"{seat} was shown {lead.seat}'s lead while face down"
    board = view.board
    assert board is not None
    assert board.current_trick is None or board.current_trick.cards == []
    assert board.dummy is None or board.dummy == seat or board.dummy not in board.hands


def _audit_table_talk(update: Update, table: int, seat: str) -> None:
    """The calls for the director, the chat and the events of one update to the player at
    ``seat`` of ``table``: all of that table, chat lines sent to the seat, no explanation of
    partner's calls."""
    view = update.view
    assert isinstance(view, PlayerView)
    # The changes the update came with hold values of the new view only: no card it
    # does not show.
    changed = _cards_in([change.value for change in update.changes])
    if changed:  # (the whole view's cards are looked for only when there are some to find)
        assert changed <= _cards_in(view.model_dump(mode="json")), changed
    me = Seat.parse(seat)
    for call in view.director_calls + view.answered_calls:
        assert call.table == table
    for line in view.chat:
        assert line.table == table
        assert seat in line.to, f"{seat} was sent a chat line meant for {line.to}"
    for event in update.events:
        assert getattr(event, "table", table) == table, event
        if event.type == "chat_sent":
            assert seat in event.to, event
        if event.type == "call_explained":
            assert Seat.parse(event.seat) != me.partner, "partner saw an explanation"


def audit_moving_player(update: Update, movement: Movement, deals: dict[int, Deal]) -> None:
    """One update to a player of any movement: they sit where the movement says in the
    view's round, see their own results only, the players, chat and calls of their table
    now, and of its board only what their seat may see."""
    view = update.view
    assert isinstance(view, PlayerView)
    table, seat = view.table, view.seat
    assert movement.seat_of(view.player, view.round) == (table, Seat.parse(seat))
    sitting = movement.sitting(view.round, table)
    assert view.partner == sitting.partner(view.player)
    assert view.opponents == list(sitting.opponents(view.player))
    shown = {(result.board, result.round) for result in view.results}
    for result in view.results:
        played = movement.sitting(result.round, result.table).seat_of(view.player)
        assert played is not None, f"player {view.player} was shown another table's result"
        # A board the player replays later (replay duplicate): its first result only once
        # the replay is finished too.
        for round_number, again in movement.plays(result.board):
            if round_number > result.round and movement.sitting(round_number, again).seat_of(
                view.player
            ):
                assert (result.board, round_number) in shown, (
                    f"board {result.board}'s result was shown before its replay was finished"
                )
    if view.waiting_for:
        # Only a table that has played its boards of the round waits, and for the others.
        assert view.played_round
        assert table not in view.waiting_for, (table, view.waiting_for)
    board = view.board
    if board is not None and board.phase != "finished":
        assert not view.played_round, "a table in the middle of a board has not played its round"
    later = [r for r in movement.rounds if r > view.round]
    if later:
        assert view.next_seat is not None
        where = movement.seat_of(view.player, later[0])
        assert where == (view.next_seat.table, Seat.parse(view.next_seat.seat))
    else:
        assert view.next_seat is None
    for player in view.players:
        assert player.table == table
        assert player.player == sitting.player(Seat.parse(player.seat))
    _audit_table_talk(update, table, seat)
    for event in update.events:
        if event.type == "board_finished":
            assert (event.result.table, event.result.round) == (table, view.round)
    board = view.board
    if board is not None:
        assert board.table == table
        assert board.round == view.round
        if board.result is not None:
            assert board.result.round == board.round
        audit_player_board(board, seat, deals[board.board])


async def audit_match(match: Match, deals: dict[int, Deal] | Deal) -> None:
    """Every update each player of ``match`` received passes :func:`audit_player_frame`
    (``deals``: each board's deal, or one deal for every board); each player's view, built
    from changes, is the one a new connection gets; and the changes of every update of
    every viewer rebuild each view exactly."""
    for (table, seat), client in match.players.items():
        for update in player_updates(client):
            known = deals
            if isinstance(deals, Deal):
                board = update.view.board if isinstance(update.view, PlayerView) else None
                known = {} if board is None else {board.board: deals}
            assert isinstance(known, dict)
            audit_player_frame(update, table, seat, known)
    if match.server is not None:
        await assert_live_views_current(list(match.players.values()))
        assert await assert_changes_rebuild_every_view(match.server, match.created.match_id)


def audit_player_board(board: BoardView, seat: str, deal: Deal) -> None:
    """One board view sent to a player at ``seat`` holds nothing that player may not see."""
    me = Seat.parse(seat)
    finished = board.phase == "finished"
    current = [c.card for c in board.current_trick.cards] if board.current_trick else []
    if not finished:
        # Law 66: during the play the quitted tricks are not shown, but the last one, until
        # the player's side has played to the next.
        assert board.tricks == [], "quitted tricks shown during the play"
        if board.last_trick is not None:
            assert board.current_trick is not None
            side = {seat, me.partner.letter}
            assert not any(c.seat in side for c in board.current_trick.cards), (
                "the last trick is shown after the player's side played to the next"
            )
    seen_played = set(current)
    if board.last_trick is not None:
        seen_played |= {c.card for c in board.last_trick.cards}
    if finished:
        seen_played |= {c.card for t in board.tricks for c in t.cards}
    allowed_hands = {seat}
    opening_lead_made = bool(board.tricks or board.last_trick or current)
    if opening_lead_made and board.dummy is not None:
        allowed_hands.add(board.dummy)
    claim = board.claim
    pending = claim is not None and claim.status == "pending" and board.phase == "claim"
    if claim is not None and pending and seat in [*claim.deciders, claim.claimer]:
        allowed_hands.add(claim.claimer)
    if finished:
        allowed_hands = set(SEATS)
    else:
        assert board.deal is None, "the deal is shown before the board is finished"
    assert set(board.hands) <= allowed_hands, (seat, set(board.hands), allowed_hands)
    if board.claim is not None and board.claim.cards is not None and not finished:
        assert pending, "the claimer's cards are shown after the claim was settled"
        assert seat in board.claim.deciders or seat == board.claim.claimer
    # Alerts go to the caller's opponents (and the caller), never to partner.
    for entry in board.auction:
        if entry.alert is not None:
            assert Seat.parse(entry.seat) != me.partner, "partner saw an alert"
    # The hand-viewer link holds the whole deal and the play: only once the board is over,
    # and with the alerts this seat sees.
    if board.handviewer is not None:
        assert finished, "a hand-viewer link before the board is over"
        linked = parse_handviewer_url(board.handviewer)
        assert linked.deal == deal
        assert [str(c.call) for c in linked.calls] == [e.call for e in board.auction]
        for entry, call in zip(board.auction, linked.calls, strict=True):
            assert call.alert == (entry.alert is not None), "a link shows another alert"
            shown = None if entry.alert is None else " ".join(entry.alert.replace("|", "/").split())
            assert call.explanation == (shown or ""), "a link shows another explanation"
    else:
        assert not finished or board.result is None, "a finished board without its link"
    # Every card named anywhere in the board's view was seen played or is in a hand this
    # seat may see.
    visible = seen_played | {str(c) for s in allowed_hands for c in deal[Seat.parse(s)]}
    named = _cards_in(json.loads(board.model_dump_json()))
    assert named <= visible, f"{seat} at table {board.table} was shown {sorted(named - visible)}"


def audit_watch_frame(update: Update, finished_at_both: set[int]) -> None:
    """A spectator sees no table's chat nor its calls for the director (the director's);
    a delayed spectator sees a board only once both tables finished it."""
    view = update.view
    assert isinstance(view, WatchView)
    if view.mode != "director":
        assert not view.chat
        assert not view.director_calls
        assert not view.answered_calls
    if view.mode == "delayed":
        for board in view.tables:
            assert board.board in finished_at_both, board.board
        for event in update.events:
            assert event.type in ("board_compared", "match_finished", "snapshot"), event


def player_updates(client: Client) -> list[Update]:
    return [m for m in client.received if isinstance(m, Update)]


class ServeProcess:
    """A ``duplicate serve`` process on a Redis (its URL), sharing the tests' organiser key."""

    def __init__(self, redis_url: str, data: Path) -> None:
        self.port = free_port()
        environment = {**os.environ, "DUPLICATE_ORGANISER_KEY": ORGANISER_KEY}
        data.mkdir(mode=0o700)
        self.output = data / "serve.log"
        with self.output.open("w") as output:
            self.popen = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "duplicate",
                    "serve",
                    "--redis",
                    redis_url,
                    "--port",
                    str(self.port),
                    "--data",
                    str(data),
                    "--server-robot-delay",
                    "0",
                    # Tests act as fast as answered, beside other tests: never refused for
                    # an overload (tests/server/test_hostile.py makes one on purpose).
                    "--overload-lag",
                    "0",
                ],
                cwd=ROOT,
                env=environment,
                stdout=output,
                stderr=subprocess.STDOUT,
                text=True,
            )
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
        deadline = time.monotonic() + 30
        while "Serving on" not in self.output.read_text():
            if self.popen.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError("the server did not start:\n" + self.output.read_text())
            time.sleep(0.05)

    def kill(self) -> None:
        self.popen.send_signal(signal.SIGKILL)
        self.popen.wait(10)

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
