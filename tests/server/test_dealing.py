"""The server deals from the operating system's secure random source, and its deals follow
the laws of a well-shuffled deck: each seat's suit lengths and high-card points against
their exact probabilities (chi-squared). 10,000 deals by default; 100,000 with ``--long``."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping

import pytest

from bridge import Deal, Hand, Rank, Seat, Suit
from bridge.commitment import seeded_deal
from server import formats
from server.formats import dealt_boards

ALPHA = 1e-6
"""The chance that a fair dealer fails one statistic: the suite runs many, and a false
alarm must stay far rarer than a real one (the badly riffled deck below fails at ~1e-100)."""

HCP = {Rank.ACE: 4, Rank.KING: 3, Rank.QUEEN: 2, Rank.JACK: 1}


def length_probabilities() -> dict[int, float]:
    """P(a given hand holds k cards of a given suit): hypergeometric."""
    total = math.comb(52, 13)
    return {k: math.comb(13, k) * math.comb(39, 13 - k) / total for k in range(14)}


def hcp_probabilities() -> dict[int, float]:
    """P(a given hand holds h high-card points), counted exactly over all C(52,13) hands."""
    ways: dict[tuple[int, int], int] = {(0, 0): 1}  # (cards, points) -> hands
    for points in [4, 3, 2, 1] * 4 + [0] * 36:
        grown = dict(ways)
        for (cards, held), count in ways.items():
            if cards < 13:
                key = (cards + 1, held + points)
                grown[key] = grown.get(key, 0) + count
        ways = grown
    total = math.comb(52, 13)
    return {h: count / total for (cards, h), count in ways.items() if cards == 13}


def chi_squared_p(observed: Mapping[int, int], expected: Mapping[int, float], n: int) -> float:
    """The p-value of Pearson's chi-squared test of ``observed`` (n draws) against the
    probabilities ``expected``, the rare outcomes pooled until each bin expects 5 or more."""
    bins: list[tuple[float, int]] = []
    pool_p, pool_o = 0.0, 0
    for value in sorted(expected):
        pool_p += expected[value]
        pool_o += observed.get(value, 0)
        if pool_p * n >= 5:
            bins.append((pool_p, pool_o))
            pool_p, pool_o = 0.0, 0
    if pool_p > 0:  # the last values' tail joins the last bin
        p, o = bins.pop()
        bins.append((p + pool_p, o + pool_o))
    assert sum(observed.values()) == n
    statistic = sum((o - p * n) ** 2 / (p * n) for p, o in bins)
    return upper_regularized_gamma((len(bins) - 1) / 2, statistic / 2)


def upper_regularized_gamma(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a): the chi-squared survival function at 2x with 2a degrees
    of freedom (series below a + 1, Lentz's continued fraction above; Numerical Recipes)."""
    if x <= 0:
        return 1.0
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1 / a
        for n in range(1, 1000):
            term *= x / (a + n)
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1 - total * math.exp(log_prefix))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_prefix) * h


def p_values(deals: Iterable[Deal], n: int) -> dict[str, float]:
    """For each seat, the p-value of each suit's length and of the high-card points."""
    lengths = {(seat, suit): Counter[int]() for seat in Seat for suit in Suit}
    points = {seat: Counter[int]() for seat in Seat}
    for deal in deals:
        for seat in Seat:
            hand = deal[seat]
            for suit in Suit:
                lengths[seat, suit][len(hand.suit(suit))] += 1
            points[seat][sum(HCP.get(card.rank, 0) for card in hand)] += 1
    by_length, by_points = length_probabilities(), hcp_probabilities()
    found = {
        f"{seat.letter} {suit.letter} length": chi_squared_p(counts, by_length, n)
        for (seat, suit), counts in lengths.items()
    }
    for seat, counts in points.items():
        found[f"{seat.letter} points"] = chi_squared_p(counts, by_points, n)
    return found


def test_the_exact_probabilities() -> None:
    by_length, by_points = length_probabilities(), hcp_probabilities()
    assert math.isclose(sum(by_length.values()), 1)
    assert math.isclose(sum(by_points.values()), 1)
    assert math.isclose(by_length[0], 0.012790, rel_tol=1e-4)  # a void in a given suit
    assert math.isclose(by_points[10], 0.094, rel_tol=0.01)  # the most likely count
    assert max(by_points) == 37
    # The survival function against known chi-squared quantiles.
    assert math.isclose(upper_regularized_gamma(1 / 2, 3.841 / 2), 0.05, rel_tol=1e-3)
    assert math.isclose(upper_regularized_gamma(10 / 2, 29.588 / 2), 0.001, rel_tol=1e-2)
    assert math.isclose(upper_regularized_gamma(20 / 2, 10.851 / 2), 0.95, rel_tol=1e-3)


@pytest.fixture
def sample_size(request: pytest.FixtureRequest) -> int:
    return 100_000 if request.config.getoption("--long") else 10_000


def test_the_server_deals_follow_a_shuffled_deck(sample_size: int) -> None:
    boards = dealt_boards(sample_size)
    found = p_values((board.deal for board in boards), sample_size)
    failed = {name: p for name, p in found.items() if p < ALPHA}
    assert not failed, f"{sample_size} deals: {failed}"


def test_deals_drawn_from_a_seed_follow_a_shuffled_deck(sample_size: int) -> None:
    """The boards drawn from a seed and a public value (bridge.commitment.seeded_deal), one
    seed for every board as in a match, pass the same check."""
    seed = f"{random.SystemRandom().getrandbits(256):064x}"
    deals = (seeded_deal(seed, "the public value", n) for n in range(1, sample_size + 1))
    found = p_values(deals, sample_size)
    failed = {name: p for name, p in found.items() if p < ALPHA}
    assert not failed, f"{sample_size} deals from seed {seed}: {failed}"


def test_the_server_deals_from_the_secure_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dealer draws from ``random.SystemRandom`` (os.urandom), never from a seedable
    generator: a deal cannot be predicted from an earlier one."""
    drawn: list[str] = []

    class Watched(random.SystemRandom):
        def getrandbits(self, k: int) -> int:
            drawn.append("getrandbits")
            return super().getrandbits(k)

    monkeypatch.setattr(formats.random, "SystemRandom", Watched)
    dealt_boards(2)
    assert len(drawn) >= 2 * 51  # a shuffle of 52 cards draws at least 51 times


def riffled(rng: random.Random, riffles: int) -> Deal:
    """A new deck (in suit order) riffle-shuffled ``riffles`` times (Gilbert-Shannon-Reeds)
    and dealt round: two riffles are far from enough (seven are needed)."""
    deck = list(range(52))
    for _ in range(riffles):
        cut = sum(rng.random() < 0.5 for _ in range(52))
        left, right = deck[:cut], deck[cut:]
        deck = []
        while left or right:
            if rng.random() < len(left) / (len(left) + len(right)):
                deck.append(left.pop(0))
            else:
                deck.append(right.pop(0))
    masks = [0, 0, 0, 0]
    for position, index in enumerate(deck):
        masks[position % 4] |= 1 << index
    return Deal({seat: Hand.from_mask(masks[seat]) for seat in Seat})


def test_a_badly_shuffled_deck_fails_the_same_check() -> None:
    """The check has the power to see a dealer that is not fair, with the default sample."""
    rng = random.Random(2026)
    n = 10_000
    found = p_values((riffled(rng, 2) for _ in range(n)), n)
    assert min(found.values()) < ALPHA, found
