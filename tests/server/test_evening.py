"""A whole evening of random, legal table behaviour: eight players do whatever their views
offer them (calls, cards, claims and answers, undo requests and answers, withdrawals, chat,
the next board), every offered action is accepted, and every frame passes the leak audit."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable

import pytest

from bridge import Deal
from clients.client import Client
from protocol.messages import PlayerView
from server.app import Server
from tests.server.harness import (
    audit_player_frame,
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


@pytest.mark.asyncio
@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_an_evening_of_random_legal_play(server: Server, seed: int) -> None:
    rng = random.Random(seed)
    # Seeded deals: the same evening, choice for choice, every run.
    deals_pbn = "\n".join(f'[Board "{n}"]\n[Deal "{Deal.random(rng).to_pbn()}"]\n' for n in (1, 2))
    created = await create(
        server, boards=2, deals_pbn=deals_pbn, review_seconds=600, chat="opponents"
    )
    match = await seat_everyone(server, created)
    done: dict[str, int] = {}
    for _step in range(3000):
        if all(
            isinstance(c.view, PlayerView) and c.view.match.finished for c in match.players.values()
        ):
            break
        seats = sorted(match.players.items())
        offers = {key: offered(client, rng) for key, client in seats}
        moving = {key: [c for c in choices if c[0] in MOVING] for key, choices in offers.items()}
        # Mostly someone who moves the evening on (a call, a card, an answer, the next
        # board); now and then anyone doing anything they may (a line of chat seldom).
        if rng.random() < 0.65 and any(moving.values()):
            (table, _seat), client = rng.choice([(k, c) for k, c in seats if moving[k]])
            choices = moving[(table, _seat)]
        else:
            (table, _seat), client = rng.choice(seats)
            choices = offers[(table, _seat)]
            if rng.random() < 0.9:
                choices = [c for c in choices if c[0] != "chat"]
        if not choices:
            continue
        name, action = rng.choice(choices)
        await action()  # an offered action is never refused: a refusal raises here
        done[name] = done.get(name, 0) + 1
        # Everyone up to date: the next choice depends on the views alone, so on the seed.
        await settle({f"{k[0]}{k[1]}": c for k, c in match.players.items()})
    views = [c.view for c in match.players.values()]
    assert all(isinstance(v, PlayerView) and v.match.finished for v in views), done
    every = ("call", "card", "claim", "claim_answer", "undo", "undo_answer", "next_board")
    for kind in (*every, "withdraw_claim", "withdraw_concession"):
        assert done.get(kind, 0) > 0, (kind, done)
    deals: dict[int, Deal] = {}
    for client in match.players.values():
        for update in player_updates(client):
            board = update.view.board if isinstance(update.view, PlayerView) else None
            if board is not None and board.deal is not None:
                deals[board.board] = Deal.from_pbn(
                    "N:"
                    + " ".join(
                        ".".join(
                            "".join(c[1] for c in board.deal[s] if c[0] == suit) for suit in "SHDC"
                        )
                        for s in "NESW"
                    )
                )
    assert sorted(deals) == [1, 2]
    for (table, seat), client in match.players.items():
        updates = player_updates(client)
        assert [u.seq for u in updates] == list(range(updates[0].seq, updates[-1].seq + 1))
        for update in updates:
            audit_player_frame(update, table, seat, deals)
    await match.close()
