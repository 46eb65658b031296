"""At the table: alerts, chat, claims and the director, spectators, dealt boards."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable

import pytest

from bridge import Deal, Seat
from clients.client import Client, ClientError
from protocol.errors import ErrorCode
from protocol.messages import Ack, ChatSent, PlayerView, QuestionAsked, Update, WatchView
from server.app import Server
from tests.server.harness import (
    STRONG_NORTH,
    audit_match,
    audit_player_frame,
    bid,
    board_view,
    create,
    one_board,
    play_cards,
    player_updates,
    seat_everyone,
    settle,
)

DEALS = one_board()


@pytest.mark.asyncio
async def test_alert_goes_to_the_opponents_only(server: Server) -> None:
    match = await seat_everyone(server, await create(server, boards=1, deals_pbn=DEALS))
    table = match.table(1)
    await bid(table, 1, [("2C", "strong, artificial"), "P"])
    for seat, client in table.items():
        view = await board_view(client, 1)
        alert = view.auction[0].alert
        assert alert == (None if seat == "S" else "strong, artificial"), seat
    await match.close()


@pytest.mark.asyncio
async def test_chat_stays_at_its_table(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS, spectators="live", chat="table")
    match = await seat_everyone(server, created)
    spectator = await Client.connect(created.spectator or "")
    ack = await match.players[(1, "E")].chat("good luck")
    await settle(match.table(1), ack.seq)
    for seat, client in match.table(1).items():
        assert isinstance(client.view, PlayerView)
        assert [(line.seat, line.text) for line in client.view.chat] == [("E", "good luck")], seat
    # A frame to table 2 would have arrived before this ping's answer if there were one.
    for client in [*match.table(2).values(), spectator]:
        await client.ping()
        for message in client.received:
            if isinstance(message, Update):
                assert not any(isinstance(e, ChatSent) for e in message.events)
                if isinstance(message.view, PlayerView):
                    assert message.view.chat == []
    await match.close()
    await spectator.close()


@pytest.mark.asyncio
async def test_a_rejected_claim_lets_play_go_on_until_the_director_rules(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS)
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    table = match.table(1)
    await bid(table, 1, ["4S", "P", "P", "P"])  # N declares, S is dummy, E leads
    await play_cards(table, 1, count=4)
    ack = await table["N"].claim(12, "drawing trumps, then the rest are high")
    await settle(table, ack.seq)
    west = await board_view(table["W"], 1)
    south = await board_view(table["S"], 1)
    assert west.claim is not None
    assert west.claim.deciders == ["E", "W"]
    assert west.claim.statement == "drawing trumps, then the rest are high"
    assert west.claim.cards == west.hands["N"]  # shown to the defenders who decide
    assert "N" not in south.hands  # dummy does not decide, and does not see declarer's cards
    ack = await table["W"].answer_claim(False)
    await settle(table, ack.seq)
    view = await board_view(table["N"], 1)
    assert view.phase == "play"  # nobody waits for a director who may not come
    assert view.claim is not None
    assert view.claim.status == "rejected"
    west = await board_view(table["W"], 1)
    assert "N" not in west.hands  # the claimer's cards are hidden again
    # The play goes on; then East calls the director, who sees the call and rules.
    await play_cards(table, 1, count=1)
    ack = await table["E"].call_director("North claimed 12, we disagree")
    await settle(table, ack.seq)
    for client in table.values():
        calls = (await client.wait_for(lambda v: v if v.director_calls else None)).director_calls
        assert [(c.table, c.seat, c.board) for c in calls] == [(1, "E", 1)]
    watched = await director.wait_for(
        lambda v: v if isinstance(v, WatchView) and v.director_calls else None
    )
    assert watched.director_calls[0].text == "North claimed 12, we disagree"
    await director.chat("Coming: play on while I look", table=1)
    answered = await table["E"].wait_for(lambda v: v if not v.director_calls else None)
    assert [c.state for c in answered.answered_calls] == ["answered"]  # until closed
    assert answered.chat[-1].seat is None  # the director's line: the call is answered
    assert answered.chat[-1].to == ["N", "E", "S", "W"]
    ack = await director.rule(1, 11)
    final = await table["N"].wait_for(lambda v: v if v.results else None)
    assert final.results[0].tricks == 11
    assert final.results[0].ns_score == 450  # 4S+1, not vulnerable
    assert final.answered_calls == []  # the ruling on its board closed the call
    await match.close()
    await director.close()


@pytest.mark.asyncio
async def test_a_disputed_claim_stops_the_play_and_brings_the_director(server: Server) -> None:
    # Law 68D: in a match created so, a claim an opponent rejects is disputed; play ceases
    # and the director is summoned at once, who rules (law 70).
    created = await create(server, boards=1, deals_pbn=DEALS, disputed_claims="director")
    match = await seat_everyone(server, created)
    director = await Client.connect(created.director)
    table = match.table(1)
    await bid(table, 1, ["4S", "P", "P", "P"])  # N declares, S is dummy, E leads
    await play_cards(table, 1, count=4)
    ack = await table["N"].claim(12, "drawing trumps, then the rest are high")
    await settle(table, ack.seq)
    ack = await table["W"].answer_claim(False)
    await settle(table, ack.seq)
    for seat, client in table.items():
        view = await board_view(client, 1)
        assert view.phase == "claim", seat
        assert view.claim is not None
        assert view.claim.status == "disputed"
        assert (view.turn, view.acting, view.legal) == (None, None, []), seat
        assert not {"claim", "undo", "claim_answer"} & set(view.actions), seat
        # The claimer's cards stay in view of those who decided it, for the director's ruling.
        assert (view.claim.cards is not None) == (seat != "S"), seat
        calls = (await client.wait_for(lambda v: v if v.director_calls else None)).director_calls
        assert [(c.table, c.seat, c.board) for c in calls] == [(1, "W", 1)], seat
    watched = await director.wait_for(
        lambda v: v if isinstance(v, WatchView) and v.director_calls else None
    )
    assert "law 68D" in (watched.director_calls[0].text or "")
    before = await board_view(table["E"], 1)
    attempts: list[Callable[[], Awaitable[Ack]]] = [
        lambda: table["E"].play(before.hands["E"][0]),
        lambda: table["N"].claim(11),
        lambda: table["N"].undo(),
        lambda: table["N"].withdraw_claim(),
    ]
    for attempt in attempts:
        with pytest.raises(ClientError) as refused:
            await attempt()
        assert refused.value.code == ErrorCode.WRONG_PHASE
    ack = await director.rule(1, 11)
    final = await table["N"].wait_for(lambda v: v if v.results else None)
    assert final.results[0].tricks == 11
    assert final.director_calls == []  # the ruling on its board closed the call
    assert final.board is not None
    assert final.board.claim is not None
    assert final.board.claim.status == "disputed"  # what happened, kept with the board
    await match.close()
    await director.close()


@pytest.mark.asyncio
async def test_the_opening_lead_is_face_down_until_the_leaders_partner_faces_it(
    server: Server,
) -> None:
    # Law 41A, in a match created so: East leads face down; West (East's partner) may ask
    # about the auction, then faces it; only then is it played and dummy goes down.
    created = await create(
        server, boards=1, deals_pbn=DEALS, face_down_lead=True, spectators="live"
    )
    match = await seat_everyone(server, created)
    spectator = await Client.connect(created.spectator or "")
    table = match.table(1)
    calls: list[str | tuple[str, str]] = [("2C", "strong"), "P", "2D", "P", "4S", "P", "P", "P"]
    await bid(table, 1, calls)  # N declares, E leads
    lead = (await board_view(table["E"], 1)).legal[0]
    ack = await table["E"].play(lead)
    await settle(table, ack.seq)
    for seat, client in table.items():
        assert isinstance(client.view, PlayerView)
        shown = client.view.face_down_lead
        assert shown is not None
        assert (shown.table, shown.seat) == (1, "E")
        assert shown.card == (lead if seat == "E" else None), seat  # the leader's own card
        view = await board_view(client, 1)
        assert (view.phase, view.turn, view.acting, view.legal) == ("play", None, "W", [])
        assert ("face_lead" in view.actions) == (seat == "W"), seat
        assert view.hand_sizes["E"] == 12
        assert view.current_trick is not None
        assert view.current_trick.cards == []
        assert "S" not in view.hands or seat == "S"  # dummy is not down yet
    watched = await spectator.wait_for(
        lambda v: v if isinstance(v, WatchView) and v.face_down_leads else None
    )
    assert [(f.table, f.seat, f.card) for f in watched.face_down_leads] == [(1, "E", lead)]
    # Nothing moves meanwhile: no card, claim or undo, and only West faces it.
    north_card = (await board_view(table["N"], 1)).hands["N"][0]
    attempts: list[Callable[[], Awaitable[Ack]]] = [
        lambda: table["N"].play(north_card),
        lambda: table["N"].claim(10),
        lambda: table["E"].undo(),
    ]
    for attempt in attempts:
        with pytest.raises(ClientError) as refused:
            await attempt()
        assert refused.value.code == ErrorCode.WRONG_PHASE
    with pytest.raises(ClientError) as refused:
        await table["E"].face_lead()
    assert refused.value.code == ErrorCode.OUT_OF_TURN
    # West asks what South's 2D means first (as the law allows), then faces the lead.
    ack = await table["W"].ask(2)
    await settle(table, ack.seq)
    ack = await table["W"].face_lead()
    await settle(table, ack.seq)
    for seat, client in table.items():
        assert isinstance(client.view, PlayerView)
        assert client.view.face_down_lead is None
        view = await board_view(client, 1)
        assert view.current_trick is not None
        assert [(c.seat, c.card) for c in view.current_trick.cards] == [("E", lead)]
        assert "S" in view.hands, seat  # dummy is down
        assert (view.turn, view.acting) == ("S", "N")
    events = [e for m in table["N"].received if isinstance(m, Update) for e in m.events]
    assert [e.type for e in events if e.type in ("lead_face_down", "card_played")] == [
        "lead_face_down",
        "card_played",
    ]
    await play_cards(table, 1)  # the rest of the board as usual
    await audit_match(match, Deal.from_pbn(STRONG_NORTH))
    await match.close()
    await spectator.close()


@pytest.mark.asyncio
async def test_a_defenders_claim_is_decided_by_declarer_and_partner(server: Server) -> None:
    # E-W hold the top cards here: W declares 3NT... so N-S defend and N claims.
    pbn = one_board(dealer="E")
    match = await seat_everyone(server, await create(server, boards=1, deals_pbn=pbn))
    table = match.table(1)
    await bid(table, 1, ["1C", "P", "P", "P"])  # E declares 1C, N leads
    ack = await table["N"].claim(13)
    await settle(table, ack.seq)
    east = await board_view(table["E"], 1)
    assert east.claim is not None
    assert east.claim.deciders == ["E", "S"]
    assert sorted(east.claim.cards or []) == sorted(east.hands["N"])
    assert "N" not in (await board_view(table["W"], 1)).hands  # dummy is not shown the hand
    for seat in ("S", "E"):
        ack = await table[seat].answer_claim(True)
        await settle(table, ack.seq)
    final = await table["E"].wait_for(lambda v: v if v.results else None)
    assert (final.results[0].contract, final.results[0].tricks) == ("1C", 0)
    await match.close()


@pytest.mark.asyncio
async def test_live_spectators_see_both_tables_and_all_hands(server: Server) -> None:
    created = await create(server, boards=1, deals_pbn=DEALS, spectators="live")
    match = await seat_everyone(server, created)
    spectator = await Client.connect(created.spectator or "")
    await bid(match.table(2), 1, ["1NT", "P"])
    view = await spectator.wait_for(
        lambda v: v if isinstance(v, WatchView) and len(v.tables[1].auction) == 2 else None
    )
    assert view.mode == "live"
    assert [t.table for t in view.tables] == [1, 2]
    deal = Deal.from_pbn(STRONG_NORTH)
    for board in view.tables:
        assert {s: sorted(c) for s, c in board.hands.items()} == {
            seat.letter: sorted(str(c) for c in deal[seat]) for seat in Seat
        }
    await match.close()
    await spectator.close()


@pytest.mark.asyncio
async def test_a_match_dealt_by_the_server_plays_out_and_passes_the_audit(server: Server) -> None:
    created = await create(server, boards=2, spectators="off")
    assert created.spectator is None
    match = await seat_everyone(server, created)
    rng = random.Random(7)
    for board in (1, 2):
        for table in (1, 2):
            players = match.table(table)
            view = await board_view(players["N"], board)
            # A short random auction: a bid or two from whoever is on turn, then passes.
            calls: list[str | tuple[str, str]] = []
            while True:
                view = await board_view(players["N"], board)
                if view.phase != "auction":
                    break
                actor = players[view.acting or "N"]
                legal = (await board_view(actor, board)).legal
                call = "P" if len(calls) > 3 or rng.random() < 0.5 else rng.choice(legal[1:6])
                calls.append(call)
                ack = await actor.call(call)
                await settle(players, ack.seq)
            await play_cards(players, board)
    for client in match.players.values():
        await client.wait_for(lambda v: v.match.finished or None)
    # Every hand the players were dealt is the one the audit checks against.
    deals: dict[int, Deal] = {}
    for client in match.players.values():
        for update in player_updates(client):
            board_view_ = update.view.board if isinstance(update.view, PlayerView) else None
            if board_view_ is not None and board_view_.deal is not None:
                deal = Deal.from_pbn(
                    "N:" + " ".join(_pbn_hand(board_view_.deal[s]) for s in "NESW")
                )
                assert deals.setdefault(board_view_.board, deal) == deal
    assert sorted(deals) == [1, 2]
    for (table, seat), client in match.players.items():
        for update in player_updates(client):
            audit_player_frame(update, table, seat, deals)
    await match.close()


def _pbn_hand(cards: list[str]) -> str:
    return ".".join("".join(c[1] for c in cards if c[0] == suit) for suit in "SHDC")


@pytest.mark.asyncio
async def test_questions_go_to_the_caller_and_answers_to_the_opponents(server: Server) -> None:
    match = await seat_everyone(server, await create(server, boards=1, deals_pbn=DEALS))
    table = match.table(1)
    await bid(table, 1, ["1NT", "P"])
    ack = await table["E"].ask(0)
    await settle(table, ack.seq)
    assert (await board_view(table["N"], 1)).questions == [0]
    for seat in "ESW":
        assert (await board_view(table[seat], 1)).questions == []
    asked = [e for m in table["N"].received if isinstance(m, Update) for e in m.events]
    assert any(isinstance(e, QuestionAsked) and e.seat == "E" for e in asked)
    assert not any(
        isinstance(e, QuestionAsked)
        for m in table["S"].received
        if isinstance(m, Update)
        for e in m.events
    )
    with pytest.raises(ClientError) as refused:
        await table["S"].ask(0)  # partner's call: not S's to ask about
    assert refused.value.code == ErrorCode.ILLEGAL_CALL
    with pytest.raises(ClientError):
        await table["E"].explain(0, "I know what it means")  # only the caller explains
    ack = await table["N"].explain(0, "15-17 balanced")
    await settle(table, ack.seq)
    for seat, client in table.items():
        view = await board_view(client, 1)
        assert view.auction[0].alert == (None if seat == "S" else "15-17 balanced"), seat
        assert view.questions == []
    await match.close()


@pytest.mark.asyncio
async def test_the_last_trick_only_until_the_side_has_played_to_the_next(server: Server) -> None:
    match = await seat_everyone(server, await create(server, boards=1, deals_pbn=DEALS))
    table = match.table(1)
    await bid(table, 1, ["3NT", "P", "P", "P"])  # North declares; East leads
    await play_cards(table, 1, count=4)
    views = {seat: await board_view(client, 1) for seat, client in table.items()}
    winner = views["N"].last_trick.winner if views["N"].last_trick else None
    assert winner is not None
    for seat, view in views.items():
        assert view.tricks == []  # quitted tricks are not for inspection (law 66)
        assert view.last_trick is not None, seat  # nobody has played to trick 2 yet
    # The winner's side leads to trick 2: from then on only the other side may look.
    await play_cards(table, 1, count=1)
    side = {winner, {"N": "S", "S": "N", "E": "W", "W": "E"}[winner]}
    for seat, client in table.items():
        view = await board_view(client, 1)
        assert (view.last_trick is None) == (seat in side), seat
    await play_cards(table, 1, count=1)  # now the other side has played too
    for seat, client in table.items():
        assert (await board_view(client, 1)).last_trick is None, seat
    await play_cards(table, 1)
    final = await board_view(table["E"], 1)
    assert final.phase == "finished"
    assert len(final.tricks) == 13
    await audit_match(match, Deal.from_pbn(STRONG_NORTH))
    await match.close()
