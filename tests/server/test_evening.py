"""Evenings of random, legal table behaviour: eight players do whatever their views offer
them (calls, cards, claims and answers, undo requests and answers, withdrawals, chat, the
next board); every offered action is accepted, every action not offered is refused with a
typed error and changes nothing, and every frame passes the leak audit."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable

import pytest

from bridge import Deal
from clients.client import Client, ClientError
from protocol.errors import ErrorCode
from protocol.messages import PlayerView, WatchView
from server.app import Server
from tests.server.harness import (
    analysed,
    audit_match,
    create,
    player_updates,
    seat_everyone,
    settle,
)

Action = Callable[[], Awaitable[object]]
MOVING = frozenset({"call", "card", "next_board", "claim_answer"})


def offered(client: Client, rng: random.Random) -> list[tuple[str, Action]]:
    """What the client's view offers it now, as (name, action) pairs."""
    view = client.view
    assert isinstance(view, PlayerView)
    board = view.board
    choices: list[tuple[str, Action]] = []
    if view.match.chat != "off" or board is None or board.phase == "finished":
        choices.append(("chat", lambda: client.chat(f"{view.seat} says {rng.randint(0, 99)}")))
    if board is None:
        return choices
    for item in board.legal:
        if board.phase == "auction":
            choices.append(("call", lambda call=item: client.call(call)))
        else:
            choices.append(("card", lambda card=item: client.play(card)))
    left = 13 - board.tricks_ns - board.tricks_ew
    for action in board.actions:
        if action == "claim":
            tricks = rng.randint(0, left)
            choices.append(("claim", lambda t=tricks: client.claim(t, "the rest are mine")))
        elif action == "claim_answer":
            choices.append(("claim_answer", lambda: client.answer_claim(rng.random() < 0.6)))
        elif action == "undo_answer":
            choices.append(("undo_answer", lambda: client.answer_undo(rng.random() < 0.5)))
        else:
            choices.append((action, getattr(client, action)))
    return choices


NOT_OFFERED: dict[str, Callable[[Client], Awaitable[object]]] = {
    "claim": lambda c: c.claim(0),
    "claim_answer": lambda c: c.answer_claim(True),
    "withdraw_claim": lambda c: c.withdraw_claim(),
    "withdraw_concession": lambda c: c.withdraw_concession(),
    "undo": lambda c: c.undo(),
    "undo_answer": lambda c: c.answer_undo(True),
    "next_board": lambda c: c.next_board(),
}


async def try_what_is_not_offered(client: Client, offers: set[str], rng: random.Random) -> int:
    """Send one action the client's view does not offer it: the server must refuse it (a
    typed error, never ``internal``) and nobody's view may change. Returns 1 if sent."""
    missing = sorted(set(NOT_OFFERED) - offers)
    if not missing:
        return 0
    before = client.view
    seq = client.seq
    with pytest.raises(ClientError) as refusal:
        await NOT_OFFERED[rng.choice(missing)](client)
    assert refusal.value.code not in (ErrorCode.INTERNAL, ErrorCode.UNAVAILABLE)
    await client.ping()
    assert (client.seq, client.view) == (seq, before)
    return 1


async def evening(server: Server, seed: int) -> tuple[dict[str, int], int]:
    """A two-board match of random behaviour from ``seed``: what was done (kind -> count)
    and how many actions not offered were refused. Every frame passes the leak audit."""
    rng = random.Random(seed)
    # Seeded deals: the same evening, choice for choice, every run.
    deals = {n: Deal.random(rng) for n in (1, 2)}
    deals_pbn = "\n".join(f'[Board "{n}"]\n[Deal "{deal.to_pbn()}"]\n' for n, deal in deals.items())
    created = await create(
        server, boards=2, deals_pbn=deals_pbn, review_seconds=600, chat="opponents"
    )
    # The double-dummy analysis lands in every view whenever it is worked out: waited for,
    # so that the only changes around a refused action are the ones it could have made.
    await analysed(server, created.match_id)
    match = await seat_everyone(server, created)
    # The director decides the withdrawals of concessions the players ask for (the board
    # waits for them meanwhile).
    director = await Client.connect(created.director)
    everyone = {f"{table}{seat}": client for (table, seat), client in match.players.items()}
    everyone["director"] = director
    done: dict[str, int] = {}
    refused = 0
    for _step in range(3000):
        if all(
            isinstance(c.view, PlayerView) and c.view.match.finished for c in match.players.values()
        ):
            break
        asked = [
            board.table
            for board in (director.view.tables if isinstance(director.view, WatchView) else [])
            if board.claim is not None and board.claim.withdrawal is not None
        ]
        if asked and rng.random() < 0.5:
            await director.decide_withdrawal(rng.choice(asked), rng.random() < 0.5)
            done["decide_withdrawal"] = done.get("decide_withdrawal", 0) + 1
            await settle(everyone)
            continue
        seats = sorted(match.players.items())
        offers = {key: offered(client, rng) for key, client in seats}
        moving = {key: [c for c in choices if c[0] in MOVING] for key, choices in offers.items()}
        # Mostly someone who moves the evening on (a call, a card, an answer, the next
        # board); now and then anyone doing anything they may (a line of chat seldom).
        if rng.random() < 0.65 and any(moving.values()):
            key, client = rng.choice([(k, c) for k, c in seats if moving[k]])
            choices = moving[key]
        else:
            key, client = rng.choice(seats)
            choices = offers[key]
            if rng.random() < 0.9:
                choices = [c for c in choices if c[0] != "chat"]
        if rng.random() < 0.15:
            # Now and then an action the view does not offer: refused, and nothing changes.
            refused += await try_what_is_not_offered(client, {c[0] for c in offers[key]}, rng)
            await settle(everyone)
        if not choices:
            continue
        name, action = rng.choice(choices)
        await action()  # an offered action is never refused: a refusal raises here
        done[name] = done.get(name, 0) + 1
        # Everyone up to date: the next choice depends on the views alone, so on the seed.
        await settle(everyone)
    views = [c.view for c in match.players.values()]
    assert all(isinstance(v, PlayerView) and v.match.finished for v in views), done
    for client in match.players.values():
        updates = player_updates(client)
        assert [u.seq for u in updates] == list(range(updates[0].seq, updates[-1].seq + 1))
    await audit_match(match, deals)
    await match.close()
    await director.close()
    return done, refused


@pytest.mark.asyncio
async def test_evenings_of_random_legal_play(server: Server) -> None:
    done: dict[str, int] = {}
    refused = 0
    for seed in (1, 2, 3):
        did, refusals = await evening(server, seed)
        for kind, count in did.items():
            done[kind] = done.get(kind, 0) + count
        refused += refusals
    every = ("call", "card", "claim", "claim_answer", "undo", "undo_answer", "next_board")
    for kind in (*every, "withdraw_claim", "withdraw_concession", "decide_withdrawal"):
        assert done.get(kind, 0) > 0, (kind, done)
    assert refused > 30
