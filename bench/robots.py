"""Robot strength and speed, at both robot levels.

    .venv/bin/python -m bench.robots [--deals 1000] [--seed 2026] [--dd-deals 1000]
        [--teams-deals 200] [--only seed,dd,teams]

Prints a table per section and exits non-zero when a target is missed:

* ``seed``: the seed level's robot second table over random deals: how often it makes the
  contract it declares (95% Wilson interval) against the seeds' "roughly 69%" (target: the
  rate within 62-76% and 69% inside the interval); its declarer's tricks against double
  dummy; its time per call and per card (target: p99 at most 20 ms).
* ``dd``: each level at all four seats bids and plays random deals; declarer's tricks below
  the double-dummy result for the contract (mean and 95% interval), overall, at notrump, and
  where the contract is exactly the double-dummy level. Targets for the strong level: at
  most 0.15 below overall and 0.3 at notrump, and its time per card p99 at most 1 s.
* ``teams``: the strong level against the seed level as a teams match: strong robots sit
  North-South at one table and East-West at the other. IMPs per board for the strong team
  (mean and 95% interval); target: at least +1.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping

from bridge import (
    Auction,
    Bid,
    Card,
    Deal,
    Play,
    Seat,
    Strain,
    Vulnerability,
    board_dealer,
    board_vulnerability,
)
from bridge.scoring import imps, score
from robots import SeatView, sampling
from robots.bidding import choose_call, choose_contract, stronger_side
from robots.play import choose_card
from robots.table2 import robot_auction
from server.solver import analyse

SEEDS_MAKE_RATE = 0.69
MAKE_RATE_BAND = (0.62, 0.76)
DECISION_P99_MS = 20.0
STRONG_DECISION_P99_MS = 1000.0
STRONG_BELOW_DD = 0.15
STRONG_BELOW_DD_NOTRUMP = 0.3
STRONG_TEAMS_IMPS = 1.0
LEVELS = ("seed", "strong")
CARDS: dict[str, Callable[[SeatView], Card]] = {
    "seed": choose_card,
    "strong": sampling.choose_card,
}
"""Each level's card play (both levels bid the same system for now)."""


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


def seed_section(deals: int, seed: int) -> bool:
    """The seed level's robot second table (see the module's text)."""
    rng = random.Random(seed)

    made = 0
    below_dd: list[int] = []
    card_times: list[float] = []
    call_times: list[float] = []
    for number in range(1, deals + 1):
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

    rate = made / deals
    low, high = wilson(made, deals)
    mean_dd = statistics.fmean(below_dd)
    call_median, call_p99 = statistics.median(call_times) * 1e3, percentile(call_times, 0.99) * 1e3
    card_median, card_p99 = statistics.median(card_times) * 1e3, percentile(card_times, 0.99) * 1e3
    rate_ok = MAKE_RATE_BAND[0] <= rate <= MAKE_RATE_BAND[1]
    speed_ok = call_p99 <= DECISION_P99_MS and card_p99 <= DECISION_P99_MS
    seeds_inside = low <= SEEDS_MAKE_RATE <= high
    rows = [
        ("measure", "value", "target / reference", "verdict"),
        (
            f"contracts made ({deals} deals)",
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
    print_table("seed level: the robot second table", rows)
    return rate_ok and speed_ok and seeds_inside


def print_table(title: str, rows: list[tuple[str, str, str, str]]) -> None:
    print(f"\n{title}")
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )


def counted(number: int, noun: str) -> str:
    """``1 deal``, ``300 deals``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def mean_interval(values: list[float]) -> tuple[float, float, float]:
    """The mean and its 95% interval (normal approximation)."""
    if not values:
        return (math.nan, math.nan, math.nan)
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return (mean, mean - half, mean + half)


def with_interval(values: list[float], unit: str = "") -> str:
    mean, low, high = mean_interval(values)
    return f"{mean:+.2f}{unit} (95% CI {low:+.2f} to {high:+.2f}; n={len(values)})"


def play_board(
    deal: Deal,
    dealer: Seat,
    vulnerability: Vulnerability,
    levels: Mapping[Seat, str],
    card_times: dict[str, list[float]],
) -> tuple[Auction, Play | None]:
    """Four robots bid and play a board, each seat at its level (declarer plays dummy's
    cards at declarer's level); the time of every card decision noted by level."""
    auction = Auction(dealer)
    while not auction.is_complete:
        seat = auction.turn
        assert seat is not None
        call, _meaning = choose_call(SeatView.from_auction(auction, deal[seat], vulnerability))
        auction.call(call)
    if auction.contract is None or auction.declarer is None:
        return auction, None
    play = Play(deal, auction.contract, auction.declarer)
    while not play.is_complete:
        view = SeatView.from_play(play, auction, vulnerability)
        level = levels[view.me]
        start = time.perf_counter()
        card = CARDS[level](view)
        card_times[level].append(time.perf_counter() - start)
        play.play(card)
    return auction, play


def dd_section(deals: int, seed: int, card_times: dict[str, list[float]]) -> bool:
    """Each level at all four seats against double dummy (see the module's text)."""
    rng = random.Random(seed)
    below: dict[str, list[float]] = {level: [] for level in LEVELS}
    notrump: dict[str, list[float]] = {level: [] for level in LEVELS}
    at_level: dict[str, list[float]] = {level: [] for level in LEVELS}
    for number in range(1, deals + 1):
        deal = Deal.random(rng)
        dealer, vulnerability = board_dealer(number), board_vulnerability(number)
        double_dummy = analyse(deal, dealer, vulnerability).tricks
        for level in LEVELS:
            _auction, play = play_board(
                deal, dealer, vulnerability, dict.fromkeys(Seat, level), card_times
            )
            if play is None:
                continue
            contract, declarer = play.contract, play.declarer
            best = double_dummy[declarer.letter][contract.strain.letter]
            missed = best - play.declarer_tricks
            below[level].append(missed)
            if contract.strain == Strain.NOTRUMP:
                notrump[level].append(missed)
            if best == contract.tricks_needed:
                at_level[level].append(missed)
        if number % 50 == 0:
            so_far = ", ".join(f"{lv} {statistics.fmean(below[lv] or [0]):+.3f}" for lv in LEVELS)
            print(f"  dd: {number}/{deals} deals; below DD {so_far}", file=sys.stderr, flush=True)
    rows = [("measure", "seed level", "strong level", "target (strong)")]
    rows.append(
        (
            "declarer's tricks below double dummy",
            with_interval(below["seed"]),
            with_interval(below["strong"]),
            f"<= {STRONG_BELOW_DD}",
        )
    )
    rows.append(
        (
            "... at notrump",
            with_interval(notrump["seed"]),
            with_interval(notrump["strong"]),
            f"<= {STRONG_BELOW_DD_NOTRUMP}",
        )
    )
    rows.append(
        (
            "... contract at the double-dummy level",
            with_interval(at_level["seed"]),
            with_interval(at_level["strong"]),
            "",
        )
    )
    times = sorted(card_times["strong"])
    p99 = percentile(times, 0.99) * 1e3 if times else math.nan
    rows.append(
        (
            "time per card, strong (all sections so far)",
            "",
            f"median {statistics.median(times) * 1e3:.0f} ms, p99 {p99:.0f} ms, max {times[-1] * 1e3:.0f} ms"
            if times
            else "none",
            f"p99 <= {STRONG_DECISION_P99_MS:g} ms",
        )
    )
    print_table(
        f"each level at all four seats against double dummy ({counted(deals, 'deal')})", rows
    )
    ok = (
        mean_interval(below["strong"])[0] <= STRONG_BELOW_DD  # (no boards: nan, a miss)
        and mean_interval(notrump["strong"])[0] <= STRONG_BELOW_DD_NOTRUMP
        and p99 <= STRONG_DECISION_P99_MS
    )
    print("dd:", "PASS" if ok else "MISS")
    return ok


def teams_section(deals: int, seed: int, card_times: dict[str, list[float]]) -> bool:
    """The strong level against the seed level as a teams match (see the module's text)."""
    rng = random.Random(seed)
    swings: list[float] = []
    for number in range(1, deals + 1):
        deal = Deal.random(rng)
        dealer, vulnerability = board_dealer(number), board_vulnerability(number)
        ns_strong = {seat: "strong" if seat.is_north_south else "seed" for seat in Seat}
        ew_strong = {seat: "seed" if seat.is_north_south else "strong" for seat in Seat}
        results = []
        for levels in (ns_strong, ew_strong):
            auction, play = play_board(deal, dealer, vulnerability, levels, card_times)
            tricks = play.declarer_tricks if play is not None else 0
            results.append(score(auction.contract, auction.declarer, vulnerability, tricks))
        swings.append(imps(results[0] - results[1]))  # the strong team's N-S minus its E-W
        if number % 50 == 0:
            print(
                f"  teams: {number}/{deals} deals; {statistics.fmean(swings):+.2f} IMPs a board",
                file=sys.stderr,
                flush=True,
            )
    mean, _low, _high = mean_interval(swings)
    ok = mean >= STRONG_TEAMS_IMPS
    rows = [
        ("measure", "value", "target", "verdict"),
        (
            "IMPs per board to the strong team",
            with_interval(swings),
            f">= +{STRONG_TEAMS_IMPS:g}",
            "PASS" if ok else "MISS",
        ),
        ("boards that swung", f"{sum(1 for s in swings if s)} of {len(swings)}", "", ""),
    ]
    print_table(f"strong against seed, a teams match ({counted(deals, 'deal')})", rows)
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000, help="deals of the seed section")
    parser.add_argument("--dd-deals", type=int, default=1000)
    parser.add_argument("--teams-deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--only", default="seed,dd,teams", help="sections, comma-separated")
    args = parser.parse_args(argv)
    sections = set(args.only.split(","))
    unknown = sections - {"seed", "dd", "teams"}
    if unknown:
        parser.error(f"no such section: {', '.join(sorted(unknown))}")
    card_times: dict[str, list[float]] = {level: [] for level in LEVELS}
    ok = True
    if "seed" in sections:
        ok &= seed_section(args.deals, args.seed)
    if "dd" in sections:
        ok &= dd_section(args.dd_deals, args.seed + 1, card_times)
    if "teams" in sections:
        ok &= teams_section(args.teams_deals, args.seed + 2, card_times)
    print("\nall targets met" if ok else "\nsome target missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
