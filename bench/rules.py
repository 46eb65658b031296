"""Speed of the play engine: our `Play` against endplay's `Deal.play`/`legal_moves`.

Both engines play the same random deals to the end, card for card: each card is chosen
from our legal cards by a seeded index, and endplay replays that sequence, asking for its
legal moves before every card just as a robot or a simulation would. Prints a table and
exits non-zero when ours is below the target ratio.

    .venv/bin/python -m bench.rules [--deals 400] [--target 40]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from endplay.types import Card as EndplayCard
from endplay.types import Deal as EndplayDeal
from endplay.types import Denom, Player

from bridge import Card, Contract, Deal, Play, Seat, Strain

_DENOMS = {
    Strain.CLUBS: Denom.clubs,
    Strain.DIAMONDS: Denom.diamonds,
    Strain.HEARTS: Denom.hearts,
    Strain.SPADES: Denom.spades,
    Strain.NOTRUMP: Denom.nt,
}
_PLAYERS = {
    Seat.NORTH: Player.north,
    Seat.EAST: Player.east,
    Seat.SOUTH: Player.south,
    Seat.WEST: Player.west,
}

Board = tuple[Deal, Contract, Seat, list[int]]


def make_boards(count: int, seed: int) -> list[Board]:
    """Random deals, contracts and declarers, each with a seeded stream of card choices."""
    rng = random.Random(seed)
    boards = []
    for _ in range(count):
        deal = Deal.random(rng)
        contract = Contract(rng.randint(1, 7), Strain(rng.randrange(5)))
        boards.append(
            (deal, contract, Seat(rng.randrange(4)), [rng.randrange(1 << 30) for _ in range(52)])
        )
    return boards


def play_ours(boards: list[Board]) -> list[list[Card]]:
    """Play every board to the end with our engine; return the card sequences."""
    sequences = []
    for deal, contract, declarer, choices in boards:
        play = Play(deal, contract, declarer)
        sequence = []
        for choice in choices:
            legal = play.legal_cards()
            card = legal[choice % len(legal)]
            play.play(card)
            sequence.append(card)
        sequences.append(sequence)
    return sequences


def _endplay_setup(
    boards: list[Board], sequences: list[list[Card]]
) -> list[tuple[EndplayDeal, list[EndplayCard]]]:
    prepared = []
    for (deal, contract, declarer, _), sequence in zip(boards, sequences, strict=True):
        endplay_deal = EndplayDeal(deal.to_pbn())
        endplay_deal.first = _PLAYERS[declarer.lho]
        endplay_deal.trump = _DENOMS[contract.strain]
        prepared.append((endplay_deal, [EndplayCard(str(card)) for card in sequence]))
    return prepared


def play_endplay(prepared: list[tuple[EndplayDeal, list[EndplayCard]]]) -> int:
    """Replay the sequences through endplay, asking for legal moves before each card."""
    cards = 0
    for endplay_deal, sequence in prepared:
        deal = endplay_deal.copy()
        for card in sequence:
            legal = deal.legal_moves()
            if card not in legal:
                raise AssertionError(f"endplay disagrees: {card} is not legal there")
            deal.play(card)
            cards += 1
    return cards


def play_ours_timed(boards: list[Board]) -> int:
    """The timed loop of our engine (the same work as :func:`play_ours`, no recording)."""
    cards = 0
    for deal, contract, declarer, choices in boards:
        play = Play(deal, contract, declarer)
        for choice in choices:
            legal = play.legal_cards()
            play.play(legal[choice % len(legal)])
            cards += 1
    return cards


def best_rate(run: Callable[[], int], repeats: int) -> float:
    """The best cards-per-second rate over ``repeats`` runs."""
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        cards = run()
        best = max(best, cards / (time.perf_counter() - start))
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--target", type=float, default=40.0, help="minimum ours/endplay ratio")
    args = parser.parse_args(argv)

    boards = make_boards(args.deals, args.seed)
    sequences = play_ours(boards)
    prepared = _endplay_setup(boards, sequences)
    ours = best_rate(lambda: play_ours_timed(boards), repeats=10)
    theirs = best_rate(lambda: play_endplay(prepared), repeats=3)
    ratio = ours / theirs
    ok = ratio >= args.target

    rows = [
        ("engine", "cards/s", "deals", "cards"),
        ("duplicate bridge.Play", f"{ours:,.0f}", str(args.deals), str(52 * args.deals)),
        ("endplay Deal.play", f"{theirs:,.0f}", str(args.deals), str(52 * args.deals)),
        ("ratio (target)", f"{ratio:.1f}x", f"(>= {args.target:g}x)", "PASS" if ok else "MISS"),
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
