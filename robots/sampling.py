"""Card play by sampling: the strong robots' card play, opening leads included.

At its turn a robot deals the cards it cannot see, many times over, in ways that fit what it
knows: how many cards each hidden hand still holds, the suits a player has shown out of, and
what the auction showed of each hand (points and suit lengths, read by the same bidding
system the robots bid with, :func:`robots.bidding.shown`). Each such layout is solved double
dummy (:mod:`robots.dds`), which gives the tricks every legal card would take with all
hands in view; the robot plays the card that does best over the layouts. "Best" weighs the
contract: a trick counts one, and reaching the side's target (making the contract, or
beating it) counts :data:`TARGET_BONUS` more, so that a robot does not risk the contract
for an overtrick nor a sure defeat for one more undertrick.

A decision reads only what the seat may know (:class:`~robots.knowledge.SeatView`); the
sampling is seeded by that view, so the same view always gives the same card. Cards that
are equally good after every layout are told apart by the seed robots' rules
(:func:`robots.play.choose_card`) where they pick one of them, else the lowest is played.

Work is bounded: at most :data:`SAMPLES` layouts (fewer for the first tricks, when each
takes the solver longest), found in at most :data:`ATTEMPTS` tries; when the auction's
constraints cannot be met that often, layouts that fit only the play make up the number.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

from bridge import Card, Hand, Seat
from bridge.cards import ALL_CARDS, Suit
from robots import play
from robots.bidding import Shown, shown
from robots.dds import Position, solve
from robots.knowledge import SeatView

__all__ = [
    "ATTEMPTS",
    "HOPELESS",
    "SAMPLES",
    "TARGET_BONUS",
    "Knowledge",
    "choose_card",
    "known_to",
    "layouts",
    "sample_count",
]

SAMPLES = 24
"""Layouts solved for one decision, at most: all of them once a few tricks are played;
a half in the second trick and a third in the first, where each layout takes the solver
longest (:func:`sample_count`)."""
ATTEMPTS = 2_000
"""Deals of the hidden cards tried for one decision, at most."""
HOPELESS = 300
"""Tries after which, if none fitted the auction, the auction is not asked any more."""
TARGET_BONUS = 1.0
"""What reaching the side's target (the contract made, or beaten) is worth, in tricks."""
POINT_SLACK = 2
"""Points a hidden hand may have beyond the range its calls showed: the ranges count
length and shortness that high-card points alone do not, and players stretch."""

_FULL = (1 << 52) - 1


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What the deciding seat knows of the hands it cannot see."""

    hidden: tuple[Seat, ...]
    counts: dict[Seat, int]  # cards each hidden hand still holds
    voids: dict[Seat, int]  # bit per suit the hand has shown out of
    played: dict[Seat, int]  # mask of the cards each seat has played
    gone: int  # mask of every card played
    unknown: int  # mask of the cards held by the hidden hands
    suit_bits: tuple[list[int], ...]  # the bits of those cards, suit by suit
    known: dict[Seat, int]  # the remaining cards of the hands in view
    shown: dict[Seat, Shown]


def choose_card(view: SeatView, samples: int = SAMPLES) -> Card:
    """The card for the hand on turn in ``view``: the one that does best over layouts of
    the unseen cards that fit the auction and the play (see the module's text).

    >>> from bridge import Auction, Contract, Deal, Play, Seat, Vulnerability
    >>> deal = Deal.from_pbn("N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987")
    >>> auction = Auction.replay(Seat.NORTH, ["3NT", "P", "P", "P"])
    >>> play = Play(deal, Contract.parse("3NT"), Seat.NORTH)
    >>> str(choose_card(SeatView.from_play(play, auction, Vulnerability.NONE)))
    'DK'
    """
    legal = view.legal_cards
    contract, declarer = view.contract, view.declarer
    assert contract is not None, "not in the play"
    assert declarer is not None
    if len(legal) == 1:
        return legal[0]
    knowledge = known_to(view)
    groups = _groups(legal, view.acting_hand.mask, knowledge.gone)
    if len(groups) > 1:
        rng = random.Random(_seed(view))
        count = sample_count(52 - knowledge.gone.bit_count(), samples)
        current = view.current
        leader = current.leader if current is not None else view.turn
        trick = current.cards if current is not None else ()
        positions = []
        for layout in layouts(knowledge, rng, count):
            hands = [knowledge.known.get(seat, 0) | layout.get(seat, 0) for seat in Seat]
            masks = (hands[0], hands[1], hands[2], hands[3])
            positions.append(Position(masks, contract.strain, leader, trick))
        side = (view.turn, view.turn.partner)
        won = sum(1 for t in view.tricks if t.winner in side)
        ours = declarer in side
        target = contract.tricks_needed if ours else 14 - contract.tricks_needed
        scores = [0.0] * len(groups)
        for tricks in solve(positions):
            for index, group in enumerate(groups):
                taken = tricks[group[0]]
                scores[index] += taken + (TARGET_BONUS if won + taken >= target else 0.0)
        best = max(scores)
        groups = [
            group for group, score in zip(groups, scores, strict=True) if score >= best - 1e-9
        ]
    # Among equals, the seed robots' card where it is one of them (their leads and signals
    # read naturally), else the lowest.
    ruled = play.choose_card(view)
    for group in groups:
        if ruled in group:
            return ruled
    return min((group[0] for group in groups), key=lambda card: (card.rank, card.suit))


def sample_count(left: int, samples: int = SAMPLES) -> int:
    """Layouts to solve with ``left`` cards still to play (see :data:`SAMPLES`).

    >>> sample_count(52), sample_count(48), sample_count(44)
    (8, 12, 24)
    """
    if left > 48:
        return max(1, samples // 3)
    if left > 44:
        return max(1, samples // 2)
    return samples


def layouts(knowledge: Knowledge, rng: random.Random, count: int) -> list[dict[Seat, int]]:
    """``count`` deals of the unseen cards to the hidden hands (a mask each): every one
    fits the cards each still holds and the suits it showed out of; as many as
    :data:`ATTEMPTS` tries find also fit the auction, the rest fit the play only (after
    :data:`HOPELESS` tries without one that fits, the auction is not asked any more)."""
    fitting: list[dict[Seat, int]] = []
    loose: list[dict[Seat, int]] = []
    for attempt in range(ATTEMPTS):
        if len(fitting) >= count or (attempt >= HOPELESS and not fitting):
            break
        layout = _deal(knowledge, rng)
        if layout is None:
            continue
        if _fits_auction(layout, knowledge):
            fitting.append(layout)
        elif len(loose) < count:
            loose.append(layout)
    for _ in range(ATTEMPTS):  # (a try gets stuck only rarely: this bound is never reached)
        if len(fitting) + len(loose) >= count:
            break
        layout = _deal(knowledge, rng)
        if layout is not None:
            loose.append(layout)
    return (fitting + loose)[:count]


def _deal(knowledge: Knowledge, rng: random.Random) -> dict[Seat, int] | None:
    """One random deal of the unseen cards to the hidden hands that respects their counts
    and voids (None when this try got stuck). The cards of a suit someone showed out of go
    one by one to the others, each by the room it has left; the rest are shuffled and cut."""
    room = dict(knowledge.counts)
    hands = dict.fromkeys(knowledge.hidden, 0)
    free: list[int] = []
    for suit, bits in enumerate(knowledge.suit_bits):
        allowed = [s for s in knowledge.hidden if not knowledge.voids[s] >> suit & 1]
        if len(allowed) == len(knowledge.hidden):
            free.extend(bits)
            continue
        for bit in bits:
            total = sum(room[s] for s in allowed)
            if not total:
                return None
            pick = rng.randrange(total)
            for seat in allowed:
                pick -= room[seat]
                if pick < 0:
                    break
            hands[seat] |= bit
            room[seat] -= 1
    rng.shuffle(free)
    start = 0
    for seat in knowledge.hidden:
        end = start + room[seat]
        hands[seat] |= sum(free[start:end])
        start = end
    return hands


def _fits_auction(layout: dict[Seat, int], knowledge: Knowledge) -> bool:
    for seat, mask in layout.items():
        hand = Hand.from_mask(mask | knowledge.played[seat])  # the hand as it was dealt
        info = knowledge.shown[seat]
        if any(hand.length(suit) < info.lengths[suit] for suit in Suit):
            return False
        if not info.lo - POINT_SLACK <= hand.hcp <= info.hi + POINT_SLACK:
            return False
    return True


def known_to(view: SeatView) -> Knowledge:
    """What the seat deciding in ``view`` knows of the hands it cannot see: from the play
    (cards played by each seat, the suits each showed out of) and from the auction."""
    played = dict.fromkeys(Seat, 0)
    voids = dict.fromkeys(Seat, 0)
    tricks = [*view.tricks, *([view.current] if view.current is not None else [])]
    for trick in tricks:
        led = trick.cards[0].suit if trick.cards else None
        for seat, card in trick.plays():
            played[seat] |= card.bit
            if led is not None and card.suit != led:
                voids[seat] |= 1 << led
    known = {view.me: view.hand.mask}
    if view.dummy_hand is not None and view.dummy is not None:
        known[view.dummy] = view.dummy_hand.mask
    gone = 0
    for mask in played.values():
        gone |= mask
    in_view = 0
    for mask in known.values():
        in_view |= mask
    hidden = tuple(seat for seat in Seat if seat not in known)
    unknown = _FULL & ~in_view & ~gone
    return Knowledge(
        hidden=hidden,
        counts={seat: 13 - played[seat].bit_count() for seat in hidden},
        voids=voids,
        played=played,
        gone=gone,
        unknown=unknown,
        suit_bits=tuple(
            [c.bit for c in ALL_CARDS[13 * s : 13 * s + 13] if unknown & c.bit] for s in range(4)
        ),
        known=known,
        shown=shown(view.dealer, view.calls, "strong"),
    )


def _groups(legal: Sequence[Card], acting: int, gone: int) -> list[list[Card]]:
    """The legal cards in groups of equals, lowest first in each: cards of one suit that
    no card some other hand may hold separates (the cards between are played, or ours)."""
    groups: list[list[Card]] = []
    for card in sorted(legal, key=lambda c: c.index):
        if groups:
            last = groups[-1][-1]
            between = ((1 << card.index) - 1) & ~((1 << (last.index + 1)) - 1)
            if last.suit == card.suit and not between & ~(acting | gone):
                groups[-1].append(card)
                continue
        groups.append([card])
    return groups


def _seed(view: SeatView) -> int:
    text = "|".join(
        [
            str(view.me),
            str(view.turn),
            str(view.dealer),
            str(view.vulnerability),
            " ".join(str(call) for call in view.calls),
            hex(view.hand.mask),
            hex(view.dummy_hand.mask) if view.dummy_hand is not None else "-",
            " ".join(str(card) for card in view.played),
        ]
    )
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
