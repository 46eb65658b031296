"""Robot strength and speed: the robot second table over many random deals.

    .venv/bin/python -m bench.robots [--deals 1000] [--seed 2026]

Prints, as a table: how often the table-2 robots make the contract they declare (with a
95% Wilson interval) against the seeds' "roughly 69%"; how many tricks the robot declarer
takes below (or above) the double-dummy result for its contract; and the decision time per
call and per card (median and 99th percentile). Exits non-zero when a target is missed:
make rate within 62-76% (69% +- 7), decision time p99 at most 20 ms.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time

from bridge import Auction, Bid, Deal, Play, Seat, board_dealer, board_vulnerability
from robots import SeatView
from robots.bidding import choose_call, choose_contract, stronger_side
from robots.play import choose_card
from robots.table2 import robot_auction
from server.solver import analyse

SEEDS_MAKE_RATE = 0.69
MAKE_RATE_BAND = (0.62, 0.76)
DECISION_P99_MS = 20.0


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = (
        z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    )
    return (centre - half, centre + half)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    made = 0
    below_dd: list[int] = []
    card_times: list[float] = []
    call_times: list[float] = []
    for number in range(1, args.deals + 1):
        deal = Deal.random(rng)
        dealer, vulnerability = board_dealer(number), board_vulnerability(number)
        hands = {seat: deal[seat] for seat in Seat}

        # The robot table: one contract per side, the stronger side declares it, robots play.
        contract, declarer = choose_contract(hands, stronger_side(hands), vulnerability)
        auction = robot_auction(dealer, declarer, Bid(contract.level, contract.strain))
        play = Play(deal, contract, declarer)
        while not play.is_complete:
            view = SeatView.from_play(play, auction, vulnerability)
            start = time.perf_counter()
            card = choose_card(view)
            card_times.append(time.perf_counter() - start)
            play.play(card)
        made += play.declarer_tricks >= contract.tricks_needed
        double_dummy = analyse(deal, dealer, vulnerability).tricks
        below_dd.append(
            play.declarer_tricks - double_dummy[declarer.letter][contract.strain.letter]
        )

        # An ordinary auction by four robots, for the time per call.
        bidding = Auction(dealer)
        while not bidding.is_complete and len(bidding.calls) < 60:
            seat = bidding.turn
            assert seat is not None
            view = SeatView.from_auction(bidding, deal[seat], vulnerability)
            start = time.perf_counter()
            call, _meaning = choose_call(view)
            call_times.append(time.perf_counter() - start)
            bidding.call(call)

    rate = made / args.deals
    low, high = wilson(made, args.deals)
    mean_dd = statistics.fmean(below_dd)
    call_median, call_p99 = statistics.median(call_times) * 1e3, percentile(call_times, 0.99) * 1e3
    card_median, card_p99 = statistics.median(card_times) * 1e3, percentile(card_times, 0.99) * 1e3
    rate_ok = MAKE_RATE_BAND[0] <= rate <= MAKE_RATE_BAND[1]
    speed_ok = call_p99 <= DECISION_P99_MS and card_p99 <= DECISION_P99_MS
    seeds_inside = low <= SEEDS_MAKE_RATE <= high
    rows = [
        ("measure", "value", "target / reference", "verdict"),
        (
            f"contracts made ({args.deals} deals)",
            f"{rate:.1%} (95% CI {low:.1%}-{high:.1%})",
            f"seeds ~69%; band {MAKE_RATE_BAND[0]:.0%}-{MAKE_RATE_BAND[1]:.0%}",
            ("PASS" if rate_ok else "MISS")
            + ("; 69% inside CI" if seeds_inside else "; 69% outside CI"),
        ),
        (
            "declarer tricks vs double dummy",
            f"{mean_dd:+.2f} per board",
            "(negative: below DD)",
            "",
        ),
        (
            "time per call",
            f"median {call_median:.2f} ms, p99 {call_p99:.2f} ms",
            f"p99 <= {DECISION_P99_MS:g} ms",
            "PASS" if call_p99 <= DECISION_P99_MS else "MISS",
        ),
        (
            "time per card",
            f"median {card_median:.2f} ms, p99 {card_p99:.2f} ms",
            f"p99 <= {DECISION_P99_MS:g} ms",
            "PASS" if card_p99 <= DECISION_P99_MS else "MISS",
        ),
        ("decisions timed", f"{len(call_times)} calls, {len(card_times)} cards", "", ""),
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    return 0 if rate_ok and speed_ok else 1


if __name__ == "__main__":
    sys.exit(main())
