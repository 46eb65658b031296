"""Updates carry what changed (protocol 5): a whole view once, then its changes; a
comparison whole once, then patched; the server's idea of what each viewer holds."""

from __future__ import annotations

import asyncio

import msgpack
import pytest

from clients.client import Client
from protocol.codec import encode
from protocol.messages import BoardCompared, PlayerView, Update, WatchView
from server import frames
from server.app import Server
from server.frames import Publication, Sent
from server.store import MatchLogs
from server.views import Player, Watcher
from tests.server.harness import (
    analysed,
    assert_live_views_current,
    bid,
    board_view,
    check_changes_rebuild_every_view,
    create,
    one_board,
    play_cards,
    player_updates,
    seat_everyone,
    settle,
)
from tests.server.test_director import boards


async def logs_of(server: Server, match_id: str) -> MatchLogs:
    logs = await server.store.load(match_id)
    assert logs is not None
    return logs


@pytest.mark.asyncio
async def test_after_the_first_view_an_update_carries_only_what_changed(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=boards(1))
    match = await seat_everyone(server, created)
    table = match.table(1)
    north = table["N"]
    await bid(table, 1, ["1NT", "P"])
    ack = await table["S"].call("3NT")
    await settle(table, ack.seq)
    first = player_updates(north)[0]
    assert first.events[0].type == "snapshot"
    assert first.view is not None
    whole = len(msgpack.packb(first.view.model_dump(mode="json")))
    last = player_updates(north)[-1]
    assert last.events[0].type == "call_made"
    assert isinstance(last.view, PlayerView)  # the client library filled it in
    paths = [change.path for change in last.changes]
    assert "/board/auction/2" in paths  # the new call, added at the auction's end
    assert all(path.startswith("/board/") for path in paths), paths
    assert not any(path.startswith("/match") for path in paths)
    # As it came (the client library filled in its view): a fraction of the whole view.
    frame = encode(last.model_copy(update={"view": None}))
    assert len(frame) * 4 < whole, (len(frame), whole)
    await match.close()


@pytest.mark.asyncio
async def test_a_late_analysis_patches_the_comparison_sent_before(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=boards(1))
    match = await seat_everyone(server, created)
    for number in (1, 2):
        await bid(match.table(number), 1, ["P", "P", "P", "P"])
    await match.players[(1, "N")].wait_for(lambda v: v.match.comparisons or None)
    await analysed(server, created.match_id)
    logs = await logs_of(server, created.match_id)
    # As if the double-dummy analysis had come only after the board was compared.
    kinds = [event["type"] for _table, event in logs.watch]
    analysis = logs.watch.pop(kinds.index("analysed"))
    logs.watch.append(analysis)
    checked = check_changes_rebuild_every_view(logs)
    for viewer in (Player(1), Player(8), Watcher("delayed"), Watcher("director")):
        updates = [update for who, _event, update in checked if who == viewer]
        told = [e for u in updates for e in u.events if isinstance(e, BoardCompared)]
        assert len(told) == 1, viewer  # the comparison once, whole
        assert told[0].comparison.double_dummy is None
        late = next(u for who, event, u in checked if who == viewer and event is analysis[1])
        assert late.events == []
        paths = {change.path for change in late.changes}
        assert paths == {"/match/comparisons/0/double_dummy", "/match/comparisons/0/par"}
    await match.close()


@pytest.mark.asyncio
async def test_a_fix_of_an_earlier_board_patches_the_later_running_totals(
    server: Server,
) -> None:
    created = await create(server, boards=2, deals_pbn=boards(2))
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    for board in (1, 2):
        for number in (1, 2):
            await bid(match.table(number), board, ["P", "P", "P", "P"])
    await director.wait_for(lambda v: len(v.match.comparisons) == 2 or None)
    await director.adjust_score(1, 3)
    fixed = await director.wait_for(lambda v: v if v.match.comparisons[1].running_total else None)
    assert [c.running_total for c in fixed.match.comparisons] == [3, 3]
    update = next(u for u in reversed(director.received) if isinstance(u, Update) and u.events)
    told = [e.comparison.board for e in update.events if isinstance(e, BoardCompared)]
    assert told == [1]  # the board fixed, whole; the one after it only changed
    assert "/match/comparisons/1/running_total" in {c.path for c in update.changes}
    await assert_live_views_current([director, *match.players.values()])
    await director.close()
    await match.close()


@pytest.mark.asyncio
async def test_a_viewer_whose_view_the_server_does_not_hold_gets_it_whole(
    server: Server,
) -> None:
    created = await create(server, boards=1, deals_pbn=boards(1))
    match = await seat_everyone(server, created)
    table = match.table(1)
    north = table["N"]
    await bid(table, 1, ["1NT"])
    seen, view = north.seq, north.view
    await north.close()  # its last connection: the server forgets what it was sent
    runtime = await server.runtime(created.match_id)
    async with asyncio.timeout(5):
        while any(s.viewer == Player(1) for s in runtime.subscribers):
            await asyncio.sleep(0.01)
    back = await Client.connect(north.link, last_seq=seen, view=view)
    assert [m for m in back.received if isinstance(m, Update)] == []  # it missed nothing
    await table["E"].call("P")
    await back.wait_for(lambda _v: back.seq > seen or None)
    whole = [m for m in back.received if isinstance(m, Update)]
    assert [u.seq for u in whole] == [seen + 1]
    assert whole[0].changes == []  # the whole view, though no snapshot
    assert whole[0].events[0].type == "call_made"
    # And the updates after it are changes again.
    await table["S"].call("P")
    await back.wait_for(lambda _v: back.seq > seen + 1 or None)
    assert [m for m in back.received if isinstance(m, Update)][-1].changes != []
    await assert_live_views_current([back, *[c for s, c in table.items() if s != "N"]])
    await back.close()
    await match.close()


@pytest.mark.asyncio
async def test_spectators_of_every_kind_get_changes_that_rebuild_their_view(
    server: Server,
) -> None:
    created = await create(server, boards=2, deals_pbn=boards(2), spectators="live")
    match = await seat_everyone(server, created)
    assert created.spectator is not None
    spectator = await Client.connect(created.spectator)
    director = await Client.connect(created.director)
    for board in (1, 2):
        for number in (1, 2):
            players = match.table(number)
            await bid(players, board, ["1S", "P", "P", "P"] if number == 1 else ["P"] * 4)
            if number == 1:
                await board_view(players["N"], board)
                await play_cards(players, board)
    await director.wait_for(lambda v: v.match.finished or None)
    await spectator.wait_for(lambda v: v.match.finished or None)
    for watcher in (spectator, director):
        assert isinstance(watcher.view, WatchView)
        updates = [m for m in watcher.received if isinstance(m, Update)]
        assert sum(u.view is not None and not u.changes for u in updates) >= 1
        assert sum(bool(u.changes) for u in updates) > 40
    await assert_live_views_current([spectator, director])
    checked = check_changes_rebuild_every_view(await logs_of(server, created.match_id))
    assert {viewer for viewer, _event, _update in checked} >= {
        Watcher("live"),
        Watcher("delayed"),
        Watcher("director"),
        *(Player(n) for n in range(1, 9)),
    }
    await spectator.close()
    await director.close()
    await match.close()


@pytest.mark.asyncio
async def test_the_match_summary_is_never_replaced_whole(server: Server) -> None:
    # However much of the summary changed, it is changed field by field: replaced whole, it
    # would take the comparisons (never in changes) away from the client's view.
    created = await create(server, boards=1, deals_pbn=boards(1))
    runtime = await server.runtime(created.match_id)
    publication = Publication(runtime.state, 1, {"type": "ready", "seat": "N"})
    before = publication.sent(Player(1))
    summary = msgpack.unpackb(before.fields["match"])
    changed = {key: (None if value is not None else 1) for key, value in summary.items()}
    assert "comparisons" not in changed
    # Sent at another epoch (as a summary that changed was): the update is made the whole
    # way (a ready at the same epoch would be plain, its summary unchanged).
    old = Sent.of({**before.fields, "match": msgpack.packb(changed)}, before.comparisons, (-1, -1))
    frame, _sent = publication.frame(Player(1), 7, old)
    update = msgpack.unpackb(frame)
    paths = [change["path"] for change in update["changes"]]
    assert len(paths) == len(summary)
    assert all(path.startswith("/match/") for path in paths), paths


TWO_BOARDS = one_board() + "\n" + one_board().replace('[Board "1"]', '[Board "2"]')
"""Two boards of the same deal, North able to take all thirteen tricks."""


async def first_three_ready(table: dict[str, Client], spectator: Client) -> None:
    """North, East and South ask for the next board; the spectator has had every update."""
    for seat in ("N", "E", "S"):
        await settle(table, (await table[seat].next_board()).seq)
    await spectator.ping()


def count_built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the updates built from their event from now on (one item each)."""
    counted: list[int] = []
    plain = Publication._plain

    def counting(self: Publication, *args: object) -> object:
        built = plain(self, *args)  # type: ignore[arg-type]
        if built is not None:
            counted.append(1)
        return built

    monkeypatch.setattr(Publication, "_plain", counting)
    return counted


@pytest.mark.asyncio
async def test_most_updates_are_built_from_their_event_and_equal_those_made_whole(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A match of robots played out: its calls and cards (but those that end a board) are
    # built from the fields they change; in check mode (the tests') each is made the whole
    # way too, and they are the same.
    created = await create(server, boards=4, robots=["t1", "t2"], spectators="live")
    director = await Client.connect(created.director)
    await director.wait_for(lambda v: v.match.finished or None, timeout=120)
    assert frames.CHECK
    built = count_built(monkeypatch)
    updates = len(check_changes_rebuild_every_view(await logs_of(server, created.match_id)))
    assert len(built) > updates * 2 // 3, (len(built), updates)
    assert frames.MISMATCHES == []
    await director.close()


@pytest.mark.asyncio
async def test_an_update_built_wrong_from_its_event_is_caught_and_not_sent(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check is not blind: a board's moving fields made wrong (the turn left out of the
    # changes) is told apart from the update made the whole way, which is the one sent.
    created = await create(server, boards=1, robots=["t1", "t2"], spectators="live")
    director = await Client.connect(created.director)
    await director.wait_for(lambda v: v.match.finished or None, timeout=120)
    logs = await logs_of(server, created.match_id)
    made = frames.board_moving

    def wrong(*args: object) -> dict[str, object] | None:
        moving = made(*args)  # type: ignore[arg-type]
        return None if moving is None else {**moving, "turn": None}

    monkeypatch.setattr(frames, "board_moving", wrong)
    check_changes_rebuild_every_view(logs)  # the updates sent: those made whole
    assert frames.MISMATCHES
    assert "but made" in frames.MISMATCHES[0]
    frames.MISMATCHES.clear()  # what this test wanted: not a failure of it
    monkeypatch.undo()
    checked = check_changes_rebuild_every_view(logs)  # the views built so are whole ones
    assert checked
    await director.close()


@pytest.mark.asyncio
async def test_a_ready_for_the_next_board_is_built_from_its_event(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A board passed out, on review: each of the first three players' ready changes their
    # table's review (and the ready one's actions) only, built from those fields for the
    # table's four players and the spectator, and equal to the update made the whole way
    # (check mode); the fourth, which starts the next board, is made the whole way.
    created = await create(server, boards=2, deals_pbn=boards(2), review_seconds=120)
    assert created.spectator is not None
    # The double-dummy analysis, worked out in the background, lands whenever it comes: the
    # update after it is made the whole way (the comparisons' epoch moved), not counted here.
    await analysed(server, created.match_id)
    spectator = await Client.connect(created.spectator)
    match = await seat_everyone(server, created)
    table = match.table(1)
    await bid(table, 1, ["P", "P", "P", "P"])
    north = table["N"]
    await north.wait_for(lambda v: v if v.review is not None else None)
    built = count_built(monkeypatch)
    await first_three_ready(table, spectator)
    assert len(built) == 3 * 5  # three readies, to four players and the spectator
    last = player_updates(north)[-1]
    assert last.events[0].type == "ready_for_next"
    assert [change.path for change in last.changes] == ["/review/ready/2"]
    assert north.view.review is not None
    assert north.view.review.ready == ["N", "E", "S"]
    await settle(table, (await table["W"].next_board()).seq)
    assert len(built) == 3 * 5  # the board's start: made the whole way
    assert north.view.board is not None
    assert north.view.board.board == 2
    assert frames.MISMATCHES == []
    await spectator.close()
    await match.close()


@pytest.mark.asyncio
async def test_a_ready_after_a_claimed_board_is_built_from_its_event(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A board ended by a conceded claim, on review: each player may still withdraw the
    # concession while the first three say they are ready; each of those readies is built from
    # its event for the four players and the spectator, and equals the update made the whole
    # way (check mode), the claim left in the view as it was.
    created = await create(server, boards=2, deals_pbn=TWO_BOARDS, review_seconds=120)
    assert created.spectator is not None
    # The double-dummy analysis, worked out in the background, lands whenever it comes: the
    # update after it is made the whole way (the comparisons' epoch moved), not counted here.
    await analysed(server, created.match_id)
    spectator = await Client.connect(created.spectator)
    match = await seat_everyone(server, created)
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])
    await play_cards(table, 1, count=4)
    await settle(table, (await table["N"].claim(10)).seq)
    for seat in "EW":
        await settle(table, (await table[seat].answer_claim(True)).seq)
    north = table["N"]
    await north.wait_for(lambda v: v if v.review is not None else None)
    built = count_built(monkeypatch)
    await first_three_ready(table, spectator)
    assert len(built) == 3 * 5  # three readies, to four players and the spectator
    assert north.view.board is not None
    assert north.view.board.claim is not None
    assert "withdraw_concession" in north.view.board.actions
    assert "next_board" not in north.view.board.actions
    assert north.view.review is not None
    assert north.view.review.ready == ["N", "E", "S"]
    assert frames.MISMATCHES == []
    await spectator.close()
    await match.close()


@pytest.mark.asyncio
async def test_a_claim_and_its_first_acceptance_are_built_from_their_events(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Board 1: North claims, East accepts: both updates built from their events for the
    # table's players and the spectator (the director, a watcher too, gets them built); West's
    # acceptance ends the board and is made the whole way. Board 2: a claim that a defender
    # disputes goes to the director (made the whole way: the director's queue moves). Every
    # viewer's updates, replayed from the logs, rebuild its view, and the built ones equal
    # those made the whole way (check mode).
    created = await create(server, boards=2, deals_pbn=TWO_BOARDS, disputed_claims="director")
    assert created.spectator is not None
    # The double-dummy analysis, worked out in the background, lands whenever it comes: the
    # update after it is made the whole way (the comparisons' epoch moved), not counted here.
    await analysed(server, created.match_id)
    spectator = await Client.connect(created.spectator)
    director = await Client.connect(created.director)
    match = await seat_everyone(server, created)
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])
    await play_cards(table, 1, count=4)
    built = count_built(monkeypatch)
    await settle(table, (await table["N"].claim(12)).seq)
    await settle(table, (await table["E"].answer_claim(True)).seq)
    await spectator.ping()
    await director.ping()
    assert len(built) == 2 * 6  # to four players, the spectator and the director
    await settle(table, (await table["W"].answer_claim(True)).seq)
    assert len(built) == 2 * 6
    await bid(table, 2, ["3NT", "P", "P", "P"])
    await play_cards(table, 2, count=4)
    await settle(table, (await table["N"].claim(12)).seq)
    built.clear()
    await settle(table, (await table["W"].answer_claim(False)).seq)
    await director.wait_for(
        lambda v: (v.tables[0].claim is not None and v.tables[0].claim.status == "disputed") or None
    )
    assert built == []
    assert frames.MISMATCHES == []
    assert check_changes_rebuild_every_view(await logs_of(server, created.match_id))
    await spectator.close()
    await director.close()
    await match.close()
