"""The WBF continuous victory-point scale: a team match's IMP margin as 20-point VPs.

These are the World Bridge Federation's scales of 2013, described in "The New WBF IMP to VP
Scales", the technical report of the WBF Scoring Panel (Max Bavin, Henry Bethe, Bart
Bramley, Peter Buchen). A match of ``N`` boards won by ``M`` IMPs gives the winners

    V(M) = 10 + 10 * (1 - tau ** (3 * M / X)) / (1 - tau ** 3)

victory points, to two decimal places, and their opponents ``20 - V(M)``. Here
``tau = (sqrt(5) - 1) / 2`` (so ``tau ** 3 = 0.236068...``) and ``X = 15 * sqrt(N)`` is the
blitz: a margin of ``X`` IMPs or more is a 20.00-0.00 win. A draw is 10.00-10.00.

Each extra IMP is worth no more than the one before it (the scale is concave), which
rounding to hundredths can break: 19.62, 19.73, 19.85 (8 boards, margins 39 to 41) rise by
0.11, then 0.12. The WBF's tables put such a middle value up by 0.01 (19.74), and so does
:func:`vp_scale`, again and again until no step is larger than the one before it. That is the
least concave table at or above the rounded values (the first and last values never move),
whatever order the fixes are made in. Up to 32 boards no value moves by more than 0.01;
past that one fix can call for another below it, and a few values end 0.02 or more above
the rounding. The WBF's published tables for 8 and 12 boards are reproduced to the
hundredth (tests/data/wbf_vp); those for other numbers of boards were not to hand.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, localcontext
from functools import lru_cache

from bridge.errors import BridgeError

__all__ = ["victory_points", "vp_scale"]

_TWENTY = Decimal("20.00")


def victory_points(margin: int, boards: int) -> tuple[Decimal, Decimal]:
    """The VPs of a team that won by ``margin`` IMPs over ``boards`` boards, then its opponents'.

    A negative margin is a loss, so the loser's VPs come first. The two always add up to
    exactly 20.00; a margin at or beyond the blitz is 20.00-0.00.

    >>> victory_points(10, 8)
    (Decimal('13.78'), Decimal('6.22'))
    >>> victory_points(-10, 8)
    (Decimal('6.22'), Decimal('13.78'))
    >>> victory_points(0, 12), victory_points(75, 12)
    ((Decimal('10.00'), Decimal('10.00')), (Decimal('20.00'), Decimal('0.00')))
    """
    if isinstance(margin, bool) or not isinstance(margin, int):
        raise BridgeError(f"an IMP margin is a whole number, got {margin!r}")
    scale = vp_scale(boards)
    winners = scale[min(abs(margin), len(scale) - 1)]
    losers = _TWENTY - winners
    return (winners, losers) if margin >= 0 else (losers, winners)


def vp_scale(boards: int) -> tuple[Decimal, ...]:
    """The winners' VPs for a margin of 0, 1, 2, ... IMPs, up to the first that is a blitz.

    The last value is always 20.00, at the smallest whole margin at or above
    ``15 * sqrt(boards)``; a larger margin gets 20.00 too. Tables are kept once made.

    >>> scale = vp_scale(8)
    >>> scale[:4], len(scale), scale[-1]
    ((Decimal('10.00'), Decimal('10.44'), Decimal('10.86'), Decimal('11.27')), 44, Decimal('20.00'))
    """
    if isinstance(boards, bool) or not isinstance(boards, int):
        raise BridgeError(f"a match has a whole number of boards, got {boards!r}")
    if boards < 1:
        raise BridgeError(f"a match has at least one board, got {boards}")
    return _scale(boards)


@lru_cache(maxsize=64)
def _scale(boards: int) -> tuple[Decimal, ...]:
    return tuple(Decimal(hundredths).scaleb(-2) for hundredths in _concave(_rounded(boards)))


def _rounded(boards: int) -> list[int]:
    """The formula's VPs in hundredths, rounded half up, for margins 0 to the blitz."""
    with localcontext() as context:
        # Far more digits than the rounding needs: for 1 to 100 boards no value comes
        # nearer than 1e-7 VP to a half hundredth.
        context.prec = 40
        tau = (Decimal(5).sqrt() - 1) / 2
        log_tau = tau.ln()
        spread = 1 - tau**3
        blitz = 15 * Decimal(boards).sqrt()
        hundredths: list[int] = []
        for margin in range(math.ceil(blitz)):
            vp = 10 + 10 * (1 - (3 * margin / blitz * log_tau).exp()) / spread
            hundredths.append(int((100 * vp).to_integral_value(rounding=ROUND_HALF_UP)))
    hundredths.append(2000)
    return hundredths


def _concave(hundredths: list[int]) -> list[int]:
    """Raises by one hundredth each value whose next step is larger than its last, until no
    step is; the ends stay where they are."""
    values = list(hundredths)
    changed = True
    while changed:
        changed = False
        for margin in range(1, len(values) - 1):
            if values[margin + 1] - values[margin] > values[margin] - values[margin - 1]:
                values[margin] += 1
                changed = True
    return values
