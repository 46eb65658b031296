"""Card play for robots: which card to play, and whether to accept a claim.

Decisions read only what a seat may know (:class:`~robots.knowledge.SeatView`): its own
hand, dummy once the opening lead is faced, the cards played and the auction. They are
deterministic (the same view gives the same card) and fast.

The play is a set of rules a club player would recognise:

* opening leads: partner's suit, top of a sequence, fourth best from the longest suit at
  notrump; against a suit a singleton or touching honours, never away from an ace;
* following: second hand low, third hand high (only as high as needed, not over partner's
  winner), cover an honour with an honour, win cheaply, ruff a trick that would be lost,
  never ruff partner's winner;
* declarer: count sure winners and cash them when they are enough, ruff losers in the short
  trump hand, draw trumps, set up the suit with the most extra tricks, lead towards
  honours, finesse, hold up the only stopper at notrump;
* defenders: cash the setting tricks, return partner's suit, lead through dummy's
  strength, cut dummy's ruffs with a trump lead;
* discards: keep winners, guards on honours (Kx, Qxx) and length beside dummy's long suit.

A card is "out" when it is not yet played and not in a hand the acting side sees; a card
is a winner (master) when it beats every card out in its suit. In the last tricks the
robot solves every layout of the unseen cards exactly and plays the card that does best.
:func:`judge_claim` decides a claim exactly with a small double-dummy search, or, when the
ending is too large, by the tricks the claimer's side can cash without losing the lead.

>>> from bridge import Auction, Contract, Deal, Play, Seat, Vulnerability
>>> deal = Deal.from_pbn("N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987")
>>> auction = Auction.replay(Seat.NORTH, ["3NT", "P", "P", "P"])
>>> play = Play(deal, Contract.parse("3NT"), Seat.NORTH)
>>> str(choose_card(SeatView.from_play(play, auction, Vulnerability.NONE)))
'DK'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

from bridge import Bid, Card, Hand, Seat, Strain
from bridge.cards import ALL_CARDS
from robots.knowledge import SeatView

__all__ = ["choose_card", "judge_claim", "surely_taken"]

_FULL = (1 << 52) - 1
_SUITS = (3, 2, 1, 0)  # spades first, the order of Hand and legal_cards
_NOTRUMP = -1
# Rank offsets inside a 13-bit suit holding: the two is 0, the ace 12.
_ACE, _KING, _QUEEN, _JACK, _TEN, _NINE = 12, 11, 10, 9, 8, 7
_ENDGAME_TRICKS = 3  # with at most this many tricks left, solve every layout of the unseen cards
_ENDGAME_LAYOUTS = 40  # ... when there are at most this many layouts
_ENDGAME_WORK = 60  # ... and layouts times distinct candidate cards is at most this
_CLAIM_NODE_BUDGET = 6_000  # the exact claim search gives up after this many trick starts
_CASH_NODE_BUDGET = 4_000


# -- bits ---------------------------------------------------------------------------------
# A hand is a 52-bit mask of Card.index bits; a suit holding is 13 bits.


def _bits(mask: int, suit: int) -> int:
    return (mask >> (13 * suit)) & 0x1FFF


def _high(bits: int) -> int:
    """The highest rank offset in ``bits``, -1 when empty."""
    return bits.bit_length() - 1


def _low(bits: int) -> int:
    """The lowest rank offset in ``bits``, -1 when empty."""
    return (bits & -bits).bit_length() - 1


def _above(bits: int, offset: int) -> int:
    """The cards of ``bits`` ranking above ``offset`` (all of them when ``offset`` is -1)."""
    return bits >> (offset + 1) << (offset + 1)


def _card(suit: int, offset: int) -> Card:
    return ALL_CARDS[suit * 13 + offset]


def _ranks(bits: int) -> list[int]:
    """Rank offsets of ``bits``, high to low."""
    return [r for r in range(12, -1, -1) if bits >> r & 1]


def _sequence_bottom(mine: int, out: int, top: int) -> int:
    """The lowest of ``mine`` equivalent to ``top``: no card ``out`` lies between them."""
    bottom = top
    for lower in range(top - 1, -1, -1):
        if out >> lower & 1:
            break
        if mine >> lower & 1:
            bottom = lower
    return bottom


def _masters(mine: int, out: int) -> int:
    """How many of ``mine`` beat every card ``out``."""
    return (mine >> (_high(out) + 1)).bit_count()


def _potential(ours: int, out: int, longest: int) -> int:
    """A rough count of the tricks a holding can take, ``longest`` being its longer hand.

    A card out takes a trick when our cards above it are no more than theirs above it.
    When our long hand outlasts the cards out (split evenly), its other cards all win;
    otherwise only our honours do: those with no more cards out above them than ours.
    """
    length_out = out.bit_count()
    if longest > (length_out + 1) // 2:
        losers = 0
        for i, r in enumerate(_ranks(out)):
            if _above(ours, r).bit_count() <= i:
                losers += 1
        return max(0, longest - losers)
    ranks = _ranks(ours)
    honours = sum(1 for i, r in enumerate(ranks) if _above(out, r).bit_count() <= i)
    return min(honours, longest)


def _holding_tricks(mine: int, out: int) -> int:
    """A rough count of the tricks one hand's holding can take against all the cards out."""
    ranks = _ranks(mine)
    tricks = sum(1 for i, r in enumerate(ranks) if _above(out, r).bit_count() <= i)
    if len(ranks) > (out.bit_count() + 1) // 2 + 1:
        tricks = max(tricks, len(ranks) - _above(out, ranks[-1]).bit_count())
    return min(tricks, len(ranks))


# -- what the seat knows -------------------------------------------------------------------


class _Context:
    """What a decision reads, computed once from the view."""

    def __init__(self, view: SeatView) -> None:
        assert view.contract is not None
        assert view.declarer is not None
        self.view = view
        self.contract = view.contract
        strain = view.contract.strain
        self.trump = _NOTRUMP if strain == Strain.NOTRUMP else int(strain)
        self.declarer = view.declarer
        self.dummy = view.declarer.partner
        self.me = view.me
        self.turn = view.turn
        self.declaring = view.turn in (self.declarer, self.dummy)
        self.hand = view.acting_hand.mask
        self.dummy_mask = view.dummy_hand.mask if view.dummy_hand is not None else 0
        # Declarer's side sees its partner hand: dummy, or declarer's own hand for dummy.
        self.partner_hand = 0
        if self.declaring:
            self.partner_hand = view.hand.mask if view.turn == self.dummy else self.dummy_mask
        played = 0
        self.voids = [0, 0, 0, 0]  # per seat, bit s once the seat has shown out of suit s
        self.leads: list[tuple[Seat, int]] = []  # (leader, suit led), trick by trick
        declarer_won = 0
        for trick in view.tricks:
            self._note(trick.leader, trick.cards)
            for card in trick.cards:
                played |= card.bit
            if trick.winner in (self.declarer, self.dummy):
                declarer_won += 1
        self.trick: list[tuple[Seat, Card]] = []
        if view.current is not None and view.current.cards:
            self._note(view.current.leader, view.current.cards)
            for card in view.current.cards:
                played |= card.bit
            self.trick = view.current.plays()
        self.played = played
        self.declarer_won = declarer_won
        self.defender_won = len(view.tricks) - declarer_won
        self.remaining = 13 - len(view.tricks)
        unplayed = _FULL ^ played
        # Out: cards that may beat ours. For declarer's side the defenders' cards; for a
        # defender everything but its own hand (dummy's and partner's cards included).
        self.out = unplayed & ~self.hand & ~self.partner_hand
        # Unseen: cards in neither the deciding player's hand nor dummy.
        self.unseen = unplayed & ~view.hand.mask & ~self.dummy_mask
        self.led = int(self.trick[0][1].suit) if self.trick else -1
        # Tricks still needed: by declarer to make, by the defenders to defeat the contract.
        self.declarer_needs = self.contract.tricks_needed - declarer_won
        self.defence_needs = 14 - self.contract.tricks_needed - self.defender_won

    def _note(self, leader: Seat, cards: tuple[Card, ...]) -> None:
        led = cards[0].suit
        self.leads.append((leader, int(led)))
        for position, card in enumerate(cards[1:], start=1):
            if card.suit != led:
                self.voids[(leader + position) & 3] |= 1 << led

    # -- the trick in progress

    def winning(self) -> tuple[Seat, Card]:
        """The seat and card winning the current trick so far."""
        seat, best = self.trick[0]
        for other_seat, card in self.trick[1:]:
            if (card.suit == best.suit and card.rank > best.rank) or (
                card.suit == self.trump and best.suit != self.trump
            ):
                seat, best = other_seat, card
        return seat, best

    def yet_to_play(self) -> list[Seat]:
        """The seats after the acting one in this trick."""
        return [Seat((self.turn + i) & 3) for i in range(1, 4 - len(self.trick))]

    def is_partner(self, seat: Seat) -> bool:
        return seat == self.turn.partner

    # -- holdings

    def mine(self, suit: int) -> int:
        return _bits(self.hand, suit)

    def partners(self, suit: int) -> int:
        """Partner's cards in ``suit`` when known (declarer's side), else nothing."""
        return _bits(self.partner_hand, suit)

    def theirs(self, suit: int) -> int:
        """Cards out in ``suit``."""
        return _bits(self.out, suit)

    def visible(self, seat: Seat, suit: int) -> int | None:
        """The cards of ``seat`` in ``suit`` when the acting player sees them, else None."""
        if seat == self.turn:
            return self.mine(suit)
        if self.declaring and seat == self.turn.partner:
            return self.partners(suit)
        if seat == self.dummy and self.dummy_mask:
            return _bits(self.dummy_mask, suit)
        return None

    def may_ruff(self, seat: Seat, suit: int) -> bool:
        """Whether the opponent ``seat`` might ruff ``suit``, as far as we can tell."""
        if self.trump == _NOTRUMP or suit == self.trump:
            return False
        visible = self.visible(seat, suit)
        if visible is not None:
            return visible == 0 and _bits(self.dummy_mask, self.trump) != 0
        if not _bits(self.unseen if not self.declaring else self.out, self.trump):
            return False
        return bool(self.voids[seat] >> suit & 1 and not self.voids[seat] >> self.trump & 1)

    def threat(self, seats: list[Seat], suit: int) -> int:
        """The highest card of ``suit`` the opponents among ``seats`` may hold, -1 if none."""
        best = -1
        for seat in seats:
            if self.is_partner(seat) or seat == self.turn:
                continue
            visible = self.visible(seat, suit)
            if visible is not None:
                best = max(best, _high(visible))
            elif not self.voids[seat] >> suit & 1:
                hidden = self.theirs(suit) if self.declaring else _bits(self.unseen, suit)
                best = max(best, _high(hidden))
        return best

    def bid_suits(self, seat: Seat) -> list[int]:
        """The suits ``seat`` bid in the auction, first bid first."""
        suits: list[int] = []
        for position, call in enumerate(self.view.calls):
            if (self.view.dealer + position) & 3 != seat or not isinstance(call, Bid):
                continue
            if call.strain != Strain.NOTRUMP and int(call.strain) not in suits:
                suits.append(int(call.strain))
        return suits


# -- choosing a card ------------------------------------------------------------------------


def choose_card(view: SeatView) -> Card:
    """The card the robot plays for the hand on turn: always one of ``view.legal_cards``.

    ``view`` is the acting player's view in a play in progress (its ``legal_cards`` are not
    empty). The same view always gives the same card, and nothing outside it is read.
    """
    legal = view.legal_cards
    if not legal:
        raise ValueError("no card to choose: the view has no legal card")
    if len(legal) == 1:
        return legal[0]
    try:
        card = _choose(view)
    except Exception:  # pragma: no cover - a robot must never stop the table
        return _lowest(legal)
    return card if card in legal else _lowest(legal)


def _lowest(cards: tuple[Card, ...]) -> Card:
    return min(cards, key=lambda card: (card.rank, card.suit))


def _choose(view: SeatView) -> Card:
    """The card, without choose_card's safety net (tests call this to see any error)."""
    context = _Context(view)
    if context.remaining <= _ENDGAME_TRICKS:
        card = _endgame(context)
        if card is not None:
            return card
    return _rule_card(context)


def _rule_card(context: _Context) -> Card:
    if not context.trick:
        if context.declaring:
            return _declarer_lead(context)
        if not context.view.tricks:
            return _opening_lead(context)
        return _defender_lead(context)
    if context.mine(context.led):
        position = len(context.trick)
        if position == 1:
            return _second_hand(context)
        if position == 2:
            return _third_hand(context)
        return _fourth_hand(context)
    return _void(context)


# -- opening lead ---------------------------------------------------------------------------


def _opening_lead(context: _Context) -> Card:
    notrump = context.trump == _NOTRUMP
    partner_suits = context.bid_suits(context.turn.partner)
    their_suits = context.bid_suits(context.declarer) + context.bid_suits(context.dummy)
    trumps = context.mine(context.trump).bit_count() if not notrump else 0
    best_suit, best_score = -1, -(10**9)
    for suit in _SUITS:
        holding = context.mine(suit)
        if not holding:
            continue
        ranks = _ranks(holding)
        length = len(ranks)
        top = ranks[0]
        sequence = _touching_top(ranks)
        score = 0
        if suit in partner_suits and suit != context.trump:
            score += 60
        if suit in their_suits and suit != context.trump:
            score -= 25
        if notrump:
            score += 10 * length + sum(max(0, r - _NINE) for r in ranks)
            if sequence >= 3 or (sequence == 2 and length >= 3 and top >= _JACK):
                score += 25
            if length <= 2:
                score -= 10
        elif suit == context.trump:
            score -= 12
            if top >= _JACK or length == 1:
                score -= 30
            elif length in (2, 3):
                score += 4
        else:
            if top == _ACE and length >= 2 and ranks[1] == _KING:
                score += 40
            elif sequence >= 2:
                score += 25 + 5 * sequence
            elif top == _ACE:
                score -= 25 if length >= 2 else -5
            elif top in (_KING, _QUEEN) and length >= 2:
                score -= 20
            elif top == _JACK and length >= 2:
                score -= 8
            if length == 1 and top < _JACK and 1 <= trumps <= 3:
                score += 30
            elif length == 2 and top < _JACK:
                score += 6
            elif top < _JACK:
                score += 8
        if score > best_score:
            best_suit, best_score = suit, score
    return _card(best_suit, _lead_rank(context.mine(best_suit), notrump))


def _touching_top(ranks: list[int]) -> int:
    """How many cards from the top form a sequence headed by an honour (0 when none)."""
    if not ranks or ranks[0] < _TEN:
        return 0
    count = 1
    while count < len(ranks) and ranks[count] == ranks[count - 1] - 1 and ranks[count] >= _NINE:
        count += 1
    return count


def _lead_rank(holding: int, notrump: bool) -> int:
    """The card to lead from a holding: top of a sequence, fourth best, top of nothing."""
    ranks = _ranks(holding)
    length = len(ranks)
    top = ranks[0]
    if length == 1:
        return top
    touching = top >= _TEN and ranks[1] == top - 1  # AK, KQ, QJ, JT
    if touching and (not notrump or length <= 3 or ranks[2] >= top - 3):
        return top
    if notrump and length >= 3 and top >= _JACK:
        # An interior sequence (KJT, AJT, KT9, QT9): lead its top.
        for i in range(1, length - 1):
            if ranks[i] >= _NINE and ranks[i + 1] == ranks[i] - 1 and top > ranks[i] + 1:
                return ranks[i]
    if length == 2:
        return top
    if not notrump and top == _ACE:
        return top  # never lead away from an ace against a suit contract
    if top >= _JACK or (notrump and length >= 4):
        return ranks[3] if length >= 4 else ranks[-1]
    return ranks[0] if length == 3 else ranks[1]


# -- following suit -------------------------------------------------------------------------


def _second_hand(context: _Context) -> Card:
    led = context.led
    mine = context.mine(led)
    lead_seat, lead_card = context.trick[0]
    lead = lead_card.rank - 2
    third = context.yet_to_play()[0]  # the leader's partner
    low = _card(led, _low(mine))
    beating = _above(mine, lead)
    if not beating:
        return low
    cheapest = _low(beating)
    out = context.theirs(led)
    if context.declaring:
        # Partner plays last and is known: let a sure winner there take the trick.
        partner = context.partners(led)
        if _high(partner) > max(lead, _high(out)):
            return low
        masters = _above(beating, _high(out))
        if masters:
            return _card(led, _low(masters))
        if lead >= _JACK:
            return _card(led, cheapest)  # cover an honour
        higher = _above(out, cheapest).bit_count()
        suit_king = context.trump != _NOTRUMP and cheapest == _KING and lead < _NINE
        if cheapest >= _TEN and higher <= 1 and not suit_king:
            return _card(led, cheapest)  # a finesse against the leader
        return low
    # A defender: second hand low, with exceptions.
    threat = context.threat([third], led)
    if lead >= _JACK and cheapest >= _JACK:
        # Cover an honour with an honour, unless dummy leads from a sequence or sits over us.
        leader_cards = context.visible(lead_seat, led)
        from_sequence = False
        if leader_cards is not None:
            ours_below = leader_cards | (1 << lead)
            from_sequence = (
                _sequence_bottom(ours_below, _bits(context.unseen, led) | mine, lead) < lead
            )
        third_cards = context.visible(third, led)
        over_us = third_cards is not None and _high(third_cards) > cheapest
        if not from_sequence and not over_us:
            return _card(led, cheapest)
    winners = _above(beating, threat)
    if winners and not context.may_ruff(third, led) and context.defence_needs <= 1:
        return _card(led, _low(winners))  # the setting trick
    return low


def _third_hand(context: _Context) -> Card:
    led = context.led
    mine = context.mine(led)
    low = _card(led, _low(mine))
    best_seat, best_card = context.winning()
    if best_card.suit != led:
        return low  # ruffed: nothing to gain
    best = best_card.rank - 2
    fourth = context.yet_to_play()[0]
    threat = context.threat([fourth], led)
    ruff_threat = context.may_ruff(fourth, led)
    partner_winning = context.is_partner(best_seat)
    if partner_winning and best > threat and not ruff_threat:
        if context.declaring:
            # Overtake to reach my winners when partner has no more cards in the suit.
            over = _above(mine, best)
            masters = _above(over, _high(context.theirs(led)))
            if masters and not context.partners(led) and mine.bit_count() >= 3:
                return _card(led, _low(masters))
        return low
    beating = _above(mine, best)
    if not beating:
        return low
    out = context.theirs(led)
    if context.declaring:
        lead = context.trick[0][1].rank - 2
        if partner_winning and lead >= _TEN and not ruff_threat:
            # Run an honour led from a sequence when we hold the card above it.
            leader_cards = context.partners(led)
            bottom = _sequence_bottom(leader_cards | mine | (1 << lead), out, lead)
            next_in_leader = leader_cards & ((1 << lead) - 1) & ~((1 << bottom) - 1)
            if next_in_leader:
                return low
        offset = _declarer_third(context, beating, out, partner_winning)
        return _card(led, offset) if offset >= 0 else low
    # A defender in third seat.
    if fourth == context.dummy:
        if ruff_threat:
            return low
        over = _above(beating, max(best, _high(_bits(context.dummy_mask, led))))
        return _card(led, _low(over)) if over else low
    # Declarer plays last: third hand high, but only as high as needed.
    if partner_winning and context.trick[0][1].rank - 2 >= _TEN:
        return low  # partner led an honour, the top of a sequence
    top = _high(mine)
    return _card(led, max(_sequence_bottom(mine, _bits(context.unseen, led), top), _low(beating)))


def _declarer_third(context: _Context, beating: int, out: int, partner_winning: bool) -> int:
    """Declarer's side in third seat: the rank to play (-1 for the lowest card).

    A finesse (AQ: the queen) when the missing honour may sit in second seat, a double
    finesse from AJT, else the cheapest winner, else a card that forces out an honour.
    """
    second = context.trick[-1][0]
    best = context.winning()[1].rank - 2
    masters = _above(beating, _high(out))
    higher = {offset: _above(out, offset).bit_count() for offset in _ranks(beating)}
    if partner_winning:
        # A card only helps if it beats a card out that partner's card does not.
        base = _above(out, best).bit_count()
        higher = {offset: count for offset, count in higher.items() if count < base}
    second_void = context.voids[second] >> context.led & 1
    partner = context.partners(context.led)
    one_missing = _above(out, best).bit_count() <= 1
    if partner_winning and not second_void and best >= _TEN and masters and one_missing:
        return -1  # let partner's honour run: the finesse against second hand
    ours = context.mine(context.led) | partner | (1 << best if partner_winning else 0)
    if not second_void:
        out_before = out.bit_count() + 1
        for offset in sorted(higher):
            gap = _high(_above(out, offset))
            ours_over = _above(ours, gap).bit_count()
            if ours_over > 2 or (ours_over == 2 and out_before <= 4):
                continue  # cash the top cards instead; eight ever, nine never
            if higher[offset] == 1 and offset >= _NINE:
                return offset
            if higher[offset] == 2 and offset >= _TEN and masters:
                return offset
    if masters:
        if _masters(partner, out) and context.mine(context.led).bit_count() <= partner.bit_count():
            return _high(masters)  # unblock: high from the short side
        return _low(masters)
    if second_void:
        return -1  # the missing honours all sit over us
    for offset in sorted(higher):
        if higher[offset] <= 2:
            return offset
    cheapest = _low(beating)
    if cheapest < _TEN and not partner_winning:
        return cheapest
    return -1


def _fourth_hand(context: _Context) -> Card:
    led = context.led
    mine = context.mine(led)
    low = _card(led, _low(mine))
    best_seat, best_card = context.winning()
    if context.is_partner(best_seat) or best_card.suit != led:
        return low
    beating = _above(mine, best_card.rank - 2)
    if not beating or (context.declaring and _nt_hold_up(context, led)):
        return low
    return _card(led, _low(beating))


def _nt_hold_up(context: _Context, suit: int) -> bool:
    """Declarer at notrump, one stopper in the defenders' long suit: duck the early rounds."""
    if context.trump != _NOTRUMP or context.is_partner(context.trick[0][0]):
        return False
    out = context.theirs(suit)
    ours = context.mine(suit) | context.partners(suit)
    rounds = sum(1 for _, led in context.leads if led == suit)
    if rounds > 2 or out.bit_count() < 6 or _masters(ours, out) != 1:
        return False
    return _sure_tricks(context) < context.declarer_needs


def _void(context: _Context) -> Card:
    """Not able to follow suit: ruff when a trick would otherwise be lost, else discard."""
    led = context.led
    trump = context.trump
    trumps = context.mine(trump) if trump not in (_NOTRUMP, led) else 0
    if not trumps:
        return _discard(context)
    best_seat, best_card = context.winning()
    trumped = best_card.suit == trump
    over = _above(trumps, best_card.rank - 2 if trumped else -1)
    if not over:
        return _discard(context)
    later = context.yet_to_play()
    opponents_later = [seat for seat in later if not context.is_partner(seat)]
    if context.is_partner(best_seat):
        # Never ruff partner's winner; only a card that will surely lose.
        if trumped or not later:
            return _discard(context)
        if best_card.rank - 2 > context.threat(later, led) and not any(
            context.may_ruff(seat, led) for seat in opponents_later
        ):
            return _discard(context)
    elif len(context.trick) == 1:
        # Second hand: ruff a card that would win; leave a beatable one to partner.
        lead = best_card.rank - 2
        if context.declaring:
            partner = context.partners(led)
            if _high(partner) > max(lead, _high(context.theirs(led))):
                return _discard(context)
            if not partner and context.partners(trump) and not context.theirs(trump):
                return _discard(context)
        else:
            partner_may_win = _high(_bits(context.unseen, led)) > max(
                lead, context.threat(later, led)
            )
            if partner_may_win and context.defence_needs > 1:
                return _discard(context)
    # Ruff high enough to beat an opponent seen to overruff.
    for seat in opponents_later:
        if context.visible(seat, led) == 0:
            their_top = _high(_bits(context.dummy_mask, trump))
            higher = _above(over, their_top)
            if higher:
                return _card(trump, _low(higher))
            return _discard(context)
    return _card(trump, _low(over))


def _discard(context: _Context) -> Card:
    """The least useful card: from a suit that cannot take tricks, keeping guards and length."""
    best: tuple[int, int, int] | None = None
    chosen = _lowest(context.view.legal_cards)
    for suit in _SUITS:
        mine = context.mine(suit)
        if not mine:
            continue
        out = context.theirs(suit)
        length = mine.bit_count()
        masters = _masters(mine, out)
        cost = 5 * masters + (100 if masters == length else 0)
        if suit == context.trump:
            cost += 60
        if context.declaring:
            # What the side loses by parting with this card, then what the hand keeps.
            partner = context.partners(suit)
            longest = max(length, partner.bit_count())
            rest = mine & (mine - 1)
            after = max(length - 1, partner.bit_count())
            loss = _potential(mine | partner, out, longest) - _potential(rest | partner, out, after)
            cost += 100 * loss + 5 * _holding_tricks(mine, out)
            if length == 1 and _masters(partner, out) and partner.bit_count() > 1:
                cost += 20  # the last link to partner's winners
        else:
            cost += 25 * _holding_tricks(mine, out)
            # Guards: K with one card, Q with two, J with three.
            for honour, guards in ((_KING, 1), (_QUEEN, 2), (_JACK, 3)):
                if mine >> honour & 1 and _above(out, honour) and length - 1 <= guards:
                    cost += 40
            if context.dummy_mask:
                dummy = _bits(context.dummy_mask, suit)
                if dummy.bit_count() >= length >= 2 and _high(mine) > _low(dummy):
                    cost += 30  # keep length beside dummy's long suit
            if context.trump != _NOTRUMP and length == 1 and context.mine(context.trump):
                cost -= 8  # a void to ruff with
            if context.trump == _NOTRUMP and length >= 4:
                cost += 6 * (length - 3)
        key = (cost, length if context.trump != _NOTRUMP else -length, suit)
        if best is None or key < best:
            best = key
            chosen = _card(suit, _low(mine))
    return chosen


# -- declarer leading -------------------------------------------------------------------------


def _suit_tops(context: _Context, suit: int) -> int:
    """Sure tricks in ``suit`` for declarer's side: our cards above every card out."""
    mine = context.mine(suit)
    partner = context.partners(suit)
    out = context.theirs(suit)
    longest = max(mine.bit_count(), partner.bit_count())
    masters = _masters(mine | partner, out)
    if masters >= out.bit_count():
        return longest  # the masters draw every card out: the long hand's cards all win
    return min(masters, longest)


def _trump_tricks(context: _Context) -> int:
    mine = context.mine(context.trump)
    partner = context.partners(context.trump)
    longest = max(mine.bit_count(), partner.bit_count())
    return _potential(mine | partner, context.theirs(context.trump), longest)


def _sure_tricks(context: _Context) -> int:
    """Declarer's side's top tricks (trumps counted as if drawn)."""
    total = sum(_suit_tops(context, suit) for suit in _SUITS if suit != context.trump)
    if context.trump != _NOTRUMP:
        total += _trump_tricks(context)
    return total


def _declarer_lead(context: _Context) -> Card:
    if context.trump != _NOTRUMP:
        card = _suit_contract_plan(context)
        if card is not None:
            return card
    if _sure_tricks(context) >= min(context.declarer_needs, context.remaining):
        card = _cash(context)
        if card is not None:
            return card
    # Setting up tricks gives up the lead; at a suit contract, one trick short of the goal,
    # cash first when the defenders' top cards would beat the contract once they are in.
    card = None
    short_by = min(context.declarer_needs, context.remaining) - _sure_tricks(context)
    if short_by > 1 or context.trump == _NOTRUMP or _their_tops(context) < context.defence_needs:
        card = _develop(context)
    if card is None:
        card = _cash(context) or _develop(context)
    return card if card is not None else _give_up(context)


def _their_tops(context: _Context) -> int:
    """The defenders' top tricks in the side suits (at most two a suit), a rough count."""
    total = 0
    for suit in _SUITS:
        if suit != context.trump:
            ours = context.mine(suit) | context.partners(suit)
            total += min(_masters(context.theirs(suit), ours), 2)
    return total


def _cash(context: _Context) -> Card | None:
    """Lead a sure winner: high from the short side first, crossing to partner's winners."""
    choices: list[tuple[int, int, Card]] = []
    for suit in _SUITS:
        mine = context.mine(suit)
        if not mine or (suit != context.trump and _side_suit_unsafe(context, suit)):
            continue
        partner = context.partners(suit)
        out = context.theirs(suit)
        if suit == context.trump and not out and partner:
            continue  # keep trumps to ruff with: they win whenever they are played
        my_masters = _above(mine, _high(out))
        partner_masters = _above(partner, max(_high(out), _high(mine)))
        short = mine.bit_count() <= partner.bit_count()
        if my_masters:
            if partner_masters and not short and mine & ~my_masters:
                choices.append((3, suit, _card(suit, _low(mine))))
            elif suit == context.trump and context.theirs(suit):
                choices.append((0, suit, _card(suit, _high(my_masters))))
            else:
                rank = 1 if short and partner_masters else 2
                choices.append((rank, suit, _card(suit, _high(my_masters))))
        elif partner_masters:
            choices.append((4, suit, _card(suit, _low(mine))))
    if not choices:
        return None
    choices.sort(key=lambda item: (item[0], item[1] == context.trump, -item[2].rank))
    return choices[0][2]


def _side_suit_unsafe(context: _Context, suit: int) -> bool:
    """At a suit contract with trumps out, a side winner may be ruffed."""
    if context.trump == _NOTRUMP or not context.theirs(context.trump):
        return False
    for seat in (context.turn.lho, context.turn.rho):
        if context.voids[seat] >> suit & 1 and not context.voids[seat] >> context.trump & 1:
            return True
    return context.theirs(suit).bit_count() <= 1


def _develop(context: _Context) -> Card | None:
    """Lead the suit that can give the most extra tricks, from the right hand if we can."""
    ranked: list[tuple[tuple[int, int, int], int, Card | None]] = []
    for suit in _SUITS:
        mine = context.mine(suit)
        out = context.theirs(suit)
        if suit == context.trump or not mine or not out:
            continue
        partner = context.partners(suit)
        longest = max(mine.bit_count(), partner.bit_count())
        gain = _potential(mine | partner, out, longest) - _suit_tops(context, suit)
        card = _suit_lead(context, suit)
        if gain <= 0:
            continue
        ranked.append(((gain, longest, suit), suit, card))
    ranked.sort(reverse=True)
    for _, suit, card in ranked:
        if card is None:
            card = _entry_to_partner(context, avoid=suit)
        if card is not None:
            return card
    return None


def _suit_lead(context: _Context, suit: int) -> Card | None:
    """The card to lead in ``suit`` from the hand on lead to make the most of it.

    Low towards a tenace in partner's hand (the finesse), the masters high from the short
    side, the top of a sequence to knock out a higher card. None when the lead should come
    from partner's hand instead (towards a tenace or honours in this one).
    """
    mine = context.mine(suit)
    partner = context.partners(suit)
    out = context.theirs(suit)
    if not mine:
        return None
    if not out:
        return _card(suit, _high(mine))
    top_out = _high(out)
    my_masters = _above(mine, top_out)
    partner_masters = _above(partner, top_out)
    partner_tenace = _tenace(partner, out)
    if partner_tenace >= 0 and _low(mine) < partner_tenace:
        return _card(suit, _low(mine))  # towards partner's tenace: the finesse
    my_tenace = _tenace(mine, out)
    if my_tenace >= 0 and partner and _low(partner) < my_tenace:
        return None
    partner_short = _high(partner_masters) > _high(mine) and mine.bit_count() > partner.bit_count()
    if partner_short:
        return _card(suit, _low(mine))  # partner is the short side: its winners first
    if my_masters:
        return _card(suit, _high(my_masters))
    if partner_masters:
        return _card(suit, _low(mine))
    top = _high(mine)
    if _high(partner) > top:
        return _card(suit, _low(mine))  # towards partner's honours
    if top >= _TEN and (_sequence_bottom(mine | partner, out, top) < top or not partner):
        return _card(suit, top)  # knock out their honour
    if partner and top >= _TEN:
        return None  # towards my honours
    return _card(suit, _low(mine))


def _tenace(hand: int, out: int) -> int:
    """The card of ``hand`` to finesse with (Q from AQ, J from KJ or AJT), -1 if none.

    With two or more masters above the gap and at most four cards out, the honour is
    played for the drop instead ("eight ever, nine never").
    """
    for offset in _ranks(hand):
        higher_out = _above(out, offset)
        count = higher_out.bit_count()
        if count == 0 or offset < _NINE:
            continue
        if count > 2 or (count == 2 and offset < _TEN):
            return -1
        over = _above(hand, _high(higher_out)).bit_count()
        if not over:
            return -1
        if count == 1 and over >= 2 and out.bit_count() <= 4:
            return -1
        if count == 1 and out.bit_count() <= 2:
            return -1
        return offset
    return -1


def _give_up(context: _Context) -> Card:
    """Nothing to gain: lead a low card where it costs least."""
    best: tuple[int, int] | None = None
    chosen = _lowest(context.view.legal_cards)
    for suit in _SUITS:
        mine = context.mine(suit)
        if not mine:
            continue
        cost = 10 * _masters(mine | context.partners(suit), context.theirs(suit))
        if suit == context.trump:
            cost += 30
        key = (cost, -mine.bit_count())
        if best is None or key < best:
            best = key
            chosen = _card(suit, _low(mine))
    return chosen


def _suit_contract_plan(context: _Context) -> Card | None:
    """Declarer at a suit contract: ruff losers in the short hand first, else draw trumps."""
    trump = context.trump
    mine = context.mine(trump)
    partner = context.partners(trump)
    out = context.theirs(trump)
    if _sure_tricks(context) < context.declarer_needs:
        card = _ruff_plan(context)
        if card is None and not out:
            card = _crossruff(context)
        if card is not None:
            return card
    if out and (mine or partner):
        longest = max(mine.bit_count(), partner.bit_count())
        total = (mine | partner).bit_count()
        lone_master = out.bit_count() == 1 and _high(out) > _high(mine | partner)
        count = out.bit_count()
        if not lone_master and (longest >= count or (total >= 8 and longest >= count - 1)):
            return _draw_trump(context)
    return None


def _draw_trump(context: _Context) -> Card | None:
    """A trump lead that draws the opponents' trumps, finessing when we can."""
    trump = context.trump
    mine = context.mine(trump)
    card = _suit_lead(context, trump)
    if card is None:
        card = _entry_to_partner(context, avoid=trump)
    if card is None and mine:
        masters = _above(mine, _high(context.theirs(trump)))
        card = _card(trump, _high(masters) if masters else _low(mine))
    return card


def _ruff_plan(context: _Context) -> Card | None:
    """Lead a loser the short trump hand can ruff, or get there; None when there is none."""
    trump = context.trump
    mine_t = context.mine(trump).bit_count()
    partner_t = context.partners(trump).bit_count()
    i_am_short = mine_t < partner_t or (mine_t == partner_t and context.turn == context.dummy)
    if not (mine_t if i_am_short else partner_t):
        return None
    long_hand = context.partner_hand if i_am_short else context.hand
    short_hand = context.hand if i_am_short else context.partner_hand
    targets: list[tuple[int, int]] = []
    for suit in _SUITS:
        if suit == trump:
            continue
        long_cards = _bits(long_hand, suit)
        short_cards = _bits(short_hand, suit)
        out = context.theirs(suit)
        if not out or short_cards.bit_count() >= long_cards.bit_count():
            continue
        losers = long_cards.bit_count() - _masters(long_cards | short_cards, out)
        if losers > short_cards.bit_count() and short_cards.bit_count() <= 1:
            targets.append((short_cards.bit_count(), suit))
    if not targets:
        return None
    count, suit = min(targets)
    out = context.theirs(suit)
    if count == 0:
        if i_am_short:
            return _entry_to_partner(context, avoid=suit)
        return _card(suit, _low(context.mine(suit)))
    # Make the short hand void first: its singleton wins, or falls under a winner opposite.
    single = _high(_bits(short_hand, suit))
    long_masters = _above(_bits(long_hand, suit), _high(out))
    if single < _high(out) and not long_masters:
        return None  # the singleton would lose a trick: not worth it
    if i_am_short:
        return _card(suit, single)
    if single > _high(out):
        return _card(suit, _low(context.mine(suit)))
    return _card(suit, _high(long_masters))


def _crossruff(context: _Context) -> Card | None:
    """With the opponents out of trumps: a loser partner ruffs (every trump wins alone)."""
    if not context.partners(context.trump):
        return None
    for suit in _SUITS:
        mine = context.mine(suit)
        if suit == context.trump or not mine or context.partners(suit):
            continue
        losers = mine & ~_above(mine, _high(context.theirs(suit)))
        if losers:
            return _card(suit, _low(losers))
    return None


def _entry_to_partner(context: _Context, avoid: int) -> Card | None:
    """A low card to a winner in partner's hand in another suit, or None."""
    choices: list[tuple[int, Card]] = []
    for suit in _SUITS:
        mine = context.mine(suit)
        if suit == avoid or not mine:
            continue
        if suit != context.trump and _side_suit_unsafe(context, suit):
            continue
        winners = _above(context.partners(suit), _high(context.theirs(suit)))
        if winners and _high(winners) > _low(mine):
            choices.append((suit == context.trump, _card(suit, _low(mine))))
    return min(choices, key=lambda item: item[0])[1] if choices else None


# -- defenders leading -------------------------------------------------------------------


def _defender_lead(context: _Context) -> Card:
    notrump = context.trump == _NOTRUMP
    partner = context.turn.partner
    dummy_left = context.turn.lho == context.dummy
    # Cash the tricks that defeat the contract.
    sure: list[Card] = []
    for suit in _SUITS:
        mine = context.mine(suit)
        count = _masters(mine, context.theirs(suit))
        if count and not _ruff_risk(context, suit):
            sure.extend(_card(suit, r) for r in _ranks(mine)[:count])
    if sure and len(sure) >= context.defence_needs:
        return sure[0]
    partner_suits = [suit for seat, suit in context.leads if seat == partner]
    my_suits = [suit for seat, suit in context.leads if seat == context.turn]
    scores: dict[int, int] = {}
    for suit in _SUITS:
        mine = context.mine(suit)
        if not mine:
            continue
        out = context.theirs(suit)
        dummy = _bits(context.dummy_mask, suit)
        ranks = _ranks(mine)
        masters = _masters(mine, out)
        score = 0
        if partner_suits and suit == partner_suits[0]:
            score += 30
        elif suit in partner_suits:
            score += 15
        if notrump and my_suits and suit == my_suits[0] and len(ranks) >= 3:
            score += 20
        if _ruff_risk(context, suit):
            score -= 45
        if masters:
            score += 12 if not notrump or suit in my_suits + partner_suits else 6
        if suit == context.trump:
            score -= 12
            if (_dummy_can_ruff(context) and ranks[0] < _JACK) or masters:
                score += 22
        if _touching_top(ranks) >= 2:
            score += 10
        elif ranks[0] in (_KING, _QUEEN, _JACK) and not masters:
            score -= 12
        if not notrump and ranks[0] == _ACE and len(ranks) > 1 and not masters:
            score -= 15
        if dummy:
            dummy_top = _high(dummy)
            dummy_masters = _masters(dummy, _bits(context.unseen, suit) | mine)
            if dummy_left:
                if dummy_top >= _TEN and not dummy_masters:
                    score += 10  # through dummy's honours
            elif dummy_top < _TEN:
                score += 8  # up to dummy's weakness
            elif not dummy_masters or dummy.bit_count() >= 2:
                score -= 12  # not into dummy's tenace
        if notrump:
            score += 2 * len(ranks)
        elif suit != context.trump and len(ranks) == 1 and context.mine(context.trump):
            score += 8
        scores[suit] = score
    suit = max(scores, key=lambda s: (scores[s], s))
    return _defender_lead_card(context, suit, suit in partner_suits)


def _ruff_risk(context: _Context, suit: int) -> bool:
    """Declarer's side may ruff a lead of ``suit`` (dummy seen void, or declarer shown out)."""
    if context.trump == _NOTRUMP or suit == context.trump:
        return False
    dummy = context.dummy_mask
    if dummy and not _bits(dummy, suit) and _bits(dummy, context.trump):
        return True
    voids = context.voids[context.declarer]
    trumps_out = _bits(context.unseen, context.trump)
    return bool(voids >> suit & 1 and trumps_out and not voids >> context.trump & 1)


def _dummy_can_ruff(context: _Context) -> bool:
    if context.trump == _NOTRUMP or not _bits(context.dummy_mask, context.trump):
        return False
    return any(
        _bits(context.dummy_mask, suit).bit_count() <= 1 for suit in _SUITS if suit != context.trump
    )


def _defender_lead_card(context: _Context, suit: int, partners_suit: bool) -> Card:
    mine = context.mine(suit)
    out = context.theirs(suit)
    masters = _above(mine, _high(out))
    if masters:
        return _card(suit, _high(masters))
    ranks = _ranks(mine)
    top = ranks[0]
    if top >= _TEN and _sequence_bottom(mine, out, top) < top:
        return _card(suit, top)
    if partners_suit:
        return _card(suit, top if len(ranks) <= 2 else ranks[-1])
    return _card(suit, _lead_rank(mine, context.trump == _NOTRUMP))


# -- endings: every layout of the unseen cards, solved exactly ------------------------------


def _endgame(context: _Context) -> Card | None:
    """With few tricks left, the card that does best over every layout of the unseen cards.

    Best means: makes (or, for a defender, defeats) the contract in the most layouts, then
    takes a trick more in the most layouts (once the contract is decided: at least one
    trick, then two); ties go to the rule-based card. None when there are too many layouts
    to solve in time.
    """
    view = context.view
    known = {context.me: view.hand.mask}
    if view.dummy_hand is not None:
        known[context.dummy] = context.dummy_mask
    hidden = [seat for seat in Seat if seat not in known]
    if len(hidden) != 2:
        return None
    played_now = {seat for seat, _ in context.trick}
    size = context.remaining - (1 if hidden[0] in played_now else 0)
    pool = [ALL_CARDS[i] for i in range(52) if context.unseen >> i & 1]
    first_hands = list(_layouts(pool, size, context.voids[hidden[0]], context.voids[hidden[1]]))
    if not first_hands or len(first_hands) > _ENDGAME_LAYOUTS:
        return None
    side = context.turn & 1
    target = context.declarer_needs if side == context.declarer & 1 else context.defence_needs
    target = max(1, target)
    leader = int(context.trick[0][0]) if context.trick else int(context.turn)
    trick = [card.index for _, card in context.trick]
    legal = view.legal_cards
    candidates = _distinct_cards(context, legal)
    if len(first_hands) * len(candidates) > _ENDGAME_WORK:
        return None
    scores = dict.fromkeys(candidates, (0, 0))
    for first in first_hands:
        hands = [0, 0, 0, 0]
        for seat, mask in known.items():
            hands[seat] = mask
        hands[hidden[0]] = first
        hands[hidden[1]] = context.unseen & ~first
        solver = _Solver(context.trump, budget=10**6)
        for card in candidates:
            hands[context.turn] ^= card.bit
            after = [*trick, card.index]
            made = solver.at_least(hands, leader, after, side, target)
            more = made and solver.at_least(hands, leader, after, side, target + 1)
            hands[context.turn] ^= card.bit
            count, extra = scores[card]
            scores[card] = (count + made, extra + more)
    best = max(scores.values())
    preferred = _rule_card(context)
    for card in candidates:
        if scores[card] == best and _equivalent(context, card, preferred):
            return preferred
    return next(card for card in candidates if scores[card] == best)


def _distinct_cards(context: _Context, legal: tuple[Card, ...]) -> list[Card]:
    """One card of each run of cards that are equivalent whatever the layout."""
    cards: list[Card] = []
    for card in sorted(legal, key=lambda c: c.index):
        if not cards or not _equivalent(context, cards[-1], card):
            cards.append(card)
    return cards


def _equivalent(context: _Context, card: Card, other: Card) -> bool:
    """Same suit, and every card between them is played or in the same hand."""
    if card.suit != other.suit:
        return False
    low, high = sorted((card.index, other.index))
    between = ((1 << high) - 1) & ~((1 << (low + 1)) - 1)
    trick = 0
    for _, played in context.trick:
        trick |= played.bit
    return not between & (((_FULL ^ context.played) & ~context.hand) | trick)


def _layouts(pool: list[Card], size: int, voids_a: int, voids_b: int) -> Iterator[int]:
    """Masks of ``size`` cards of ``pool`` for the first hidden hand, with the shown voids."""
    forced = 0
    free: list[Card] = []
    for card in pool:
        a_void = voids_a >> card.suit & 1
        b_void = voids_b >> card.suit & 1
        if a_void and b_void:
            return
        if b_void:
            forced |= card.bit
            size -= 1
        elif not a_void:
            free.append(card)
    if 0 <= size <= len(free):
        yield from _combinations(free, size, 0, forced)


def _combinations(cards: list[Card], size: int, start: int, mask: int) -> Iterator[int]:
    if size == 0:
        yield mask
        return
    for i in range(start, len(cards) - size + 1):
        yield from _combinations(cards, size - 1, i + 1, mask | cards[i].bit)


# -- double-dummy search ------------------------------------------------------------------


@lru_cache(maxsize=1 << 16)
def _run_tops(bits: int, others: int) -> tuple[int, ...]:
    """The top card of each run of ``bits`` not split by a card of ``others``, high first."""
    tops: list[int] = []
    previous = 13
    while bits:
        offset = bits.bit_length() - 1
        if previous == 13 or others >> offset & ((1 << (previous - offset)) - 1):
            tops.append(offset)
        previous = offset
        bits ^= 1 << offset
    return tuple(tops)


class _OutOfBudget(Exception):
    """The search met its budget of positions."""


class _Solver:
    """An exact double-dummy search over masks, with bounds kept per trick start.

    ``at_least`` asks whether ``side`` (0: N-S, 1: E-W) takes ``target`` or more of the
    remaining tricks with best play by everyone. A position is four hand masks, the leader
    of the current trick and its cards (indices). More than ``budget`` trick starts raise
    :class:`_OutOfBudget`.
    """

    def __init__(self, trump: int, budget: int) -> None:
        self.trump = trump
        self.budget = budget
        self.nodes = 0
        self.bounds: dict[tuple[int, int, int, int, int, int], tuple[int, int]] = {}

    def at_least(
        self, hands: list[int], leader: int, trick: list[int], side: int, target: int
    ) -> bool:
        hands = list(hands)
        if len(trick) == 4:
            winner = self._winner(leader, trick)
            return self._start(hands, winner, side, target - (winner & 1 == side))
        if not trick:
            return self._start(hands, leader, side, target)
        return self._play(hands, leader, list(trick), side, target)

    def _start(self, hands: list[int], leader: int, side: int, target: int) -> bool:
        if target <= 0:
            return True
        remaining = hands[leader].bit_count()
        if target > remaining:
            return False
        key = (hands[0], hands[1], hands[2], hands[3], leader, side)
        low, high = self.bounds.get(key, (0, remaining))
        if low >= target:
            return True
        if high < target:
            return False
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        quick = self._quick_tricks(hands, leader)
        if leader & 1 == side:
            if quick >= target:
                self.bounds[key] = (max(low, quick), high)
                return True
        elif remaining - quick < target:
            self.bounds[key] = (low, min(high, remaining - quick))
            return False
        result = self._play(hands, leader, [], side, target)
        if result:
            low = max(low, target)
        else:
            high = min(high, target - 1)
        self.bounds[key] = (low, high)
        return result

    def _play(
        self, hands: list[int], leader: int, trick: list[int], side: int, target: int
    ) -> bool:
        seat = (leader + len(trick)) & 3
        ours = seat & 1 == side
        for card in self._moves(hands, seat, trick):
            bit = 1 << card
            hands[seat] ^= bit
            trick.append(card)
            if len(trick) == 4:
                winner = self._winner(leader, trick)
                result = self._start(hands, winner, side, target - (winner & 1 == side))
            else:
                result = self._play(hands, leader, trick, side, target)
            trick.pop()
            hands[seat] ^= bit
            if result == ours:
                return ours
        return not ours

    def _winner(self, leader: int, trick: list[int]) -> int:
        best = 0
        top = trick[0]
        for position in (1, 2, 3):
            card = trick[position]
            if card // 13 == top // 13:
                if card > top:
                    best, top = position, card
            elif card // 13 == self.trump:
                best, top = position, card
        return (leader + best) & 3

    def _moves(self, hands: list[int], seat: int, trick: list[int]) -> list[int]:
        """One card of each run of equivalent cards; when following, winners first."""
        hand = hands[seat]
        live = hands[0] | hands[1] | hands[2] | hands[3]
        for card in trick:
            live |= 1 << card
        suits: tuple[int, ...] = (0, 1, 2, 3)
        if trick and _bits(hand, trick[0] // 13):
            suits = (trick[0] // 13,)
        moves: list[int] = []
        others = live & ~hand
        for suit in suits:
            shift = 13 * suit
            bits = (hand >> shift) & 0x1FFF
            if bits:
                moves.extend(
                    shift + offset for offset in _run_tops(bits, (others >> shift) & 0x1FFF)
                )
        if not trick:
            return moves
        best = trick[0]
        for card in trick[1:]:
            if card // 13 == best // 13:
                best = max(best, card)
            elif card // 13 == self.trump:
                best = card
        # Following: the cheapest winning card first, then the lowest cards.
        best_suit = best // 13
        winners: list[int] = []
        losers: list[int] = []
        for card in reversed(moves):
            suit = card // 13
            if (suit == best_suit and card > best) or (suit == self.trump != best_suit):
                winners.append(card)
            else:
                losers.append(card)
        if len(suits) > 1:
            losers.sort(key=lambda card: card % 13)
        return winners + losers

    def _quick_tricks(self, hands: list[int], leader: int) -> int:
        """Tricks the leader cashes at once with cards nobody can beat or ruff."""
        mine = hands[leader]
        others = hands[(leader + 1) & 3] | hands[(leader + 2) & 3] | hands[(leader + 3) & 3]
        trump = self.trump
        ruffers = []
        if trump != _NOTRUMP:
            ruffers = [
                hands[seat]
                for seat in ((leader + 1) & 3, (leader + 3) & 3)
                if _bits(hands[seat], trump)
            ]
        total = 0
        for suit in (0, 1, 2, 3):
            bits = _bits(mine, suit)
            if not bits:
                continue
            rest = _bits(others, suit)
            run = (bits >> (_high(rest) + 1)).bit_count()
            if suit != trump:
                for hand in ruffers:
                    run = min(run, _bits(hand, suit).bit_count())
            total += run
        return total


# -- claims --------------------------------------------------------------------------------


def judge_claim(view: SeatView, claimer: Seat, tricks: int, claimer_cards: Hand) -> bool:
    """Whether a robot deciding a claim accepts it: only when it is certainly right.

    ``claimer`` claims ``tricks`` of the remaining tricks (the one in progress counts) for
    their side and shows ``claimer_cards``. The robot sees its own hand, dummy and those
    cards, so it knows the fourth hand by elimination. An opponent of the claimer accepts
    when the claimer's side takes at least ``tricks`` against any defence; the claimer's
    partner (deciding a defender's concession) accepts when the other side surely takes the
    tricks conceded. Small endings are searched exactly; in larger ones the claim must be
    covered by the tricks the side can cash without losing the lead. Anything inconsistent
    or unknown is rejected.
    """
    if view.contract is None or view.declarer is None or view.current is None:
        return False
    remaining = 13 - len(view.tricks)
    if isinstance(tricks, bool) or not 0 <= tricks <= remaining:
        return False
    played = 0
    for card in view.played:
        played |= card.bit
    known = {view.me: view.hand.mask, claimer: claimer_cards.mask}
    if view.dummy_hand is not None:
        known[view.declarer.partner] = view.dummy_hand.mask
    hands = [0, 0, 0, 0]
    seen = 0
    for seat, mask in known.items():
        if mask & (seen | played):
            return False  # the same card twice: nothing here is certain
        seen |= mask
        hands[seat] = mask
    missing = [seat for seat in Seat if seat not in known]
    if len(missing) != 1:
        return False
    hands[missing[0]] = _FULL & ~played & ~seen
    trick = [card.index for card in view.current.cards]
    leader = int(view.current.leader)
    for seat in Seat:
        to_play = 1 if (seat - leader) & 3 >= len(trick) else 0
        if hands[seat].bit_count() != remaining - 1 + to_play:
            return False
    trump = _NOTRUMP if view.contract.strain == Strain.NOTRUMP else int(view.contract.strain)
    side = claimer & 1
    if side == view.me & 1:
        return _surely_takes(hands, trump, leader, trick, 1 - side, remaining - tricks)
    return _surely_takes(hands, trump, leader, trick, side, tricks)


def surely_taken(
    hands: Sequence[int], trump: Strain, leader: Seat, trick: Sequence[Card], side: Seat, most: int
) -> int:
    """The most tricks, up to ``most``, that ``side``'s partnership surely takes from a
    position with every hand known (``hands``: each seat's cards still held, as masks;
    ``trick``: the cards of the trick in progress, led by ``leader``), against any play:
    searched exactly while affordable, else the tricks it can cash without losing the lead.

    How the server rules a claim that its robot disputed (law 70: a doubtful point goes
    against the claimer): the claimer's side gets what it surely takes, never more than it
    claimed.

    >>> from bridge import Deal
    >>> deal = Deal.from_pbn("N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987")
    >>> hands = [deal[seat].mask for seat in Seat]
    >>> surely_taken(hands, Strain.NOTRUMP, Seat.NORTH, (), Seat.NORTH, 13)  # N leads: 8 tops
    8
    >>> surely_taken(hands, Strain.NOTRUMP, Seat.NORTH, (), Seat.NORTH, 6)  # never more than claimed
    6
    """
    cards = [card.index for card in trick]
    trumps = _NOTRUMP if trump == Strain.NOTRUMP else int(trump)
    for target in range(most, 0, -1):
        if _surely_takes(list(hands), trumps, int(leader), cards, side & 1, target):
            return target
    return 0


def _surely_takes(
    hands: list[int], trump: int, leader: int, trick: list[int], side: int, target: int
) -> bool:
    """Whether ``side`` takes ``target`` tricks against any play, exactly when affordable."""
    if target <= 0:
        return True
    if _CashSearch(trump, side).tricks(hands, leader, trick) >= target:
        return True
    try:
        return _Solver(trump, _CLAIM_NODE_BUDGET).at_least(hands, leader, trick, side, target)
    except _OutOfBudget:
        return False


class _CashSearch:
    """The most tricks ``side`` surely takes in a row from a position, never losing the lead.

    Our side chooses its line (among the top and bottom card of each suit); the opponents
    are modelled pessimistically: they keep their highest cards, may discard from any suit
    (so may become void and ruff), and keep their trumps. A lower bound of the side's
    double-dummy tricks, cheap even for thirteen tricks.
    """

    def __init__(self, trump: int, side: int) -> None:
        self.trump = trump
        self.side = side
        self.budget = _CASH_NODE_BUDGET
        self.memo: dict[tuple[int, ...], int] = {}

    def tricks(self, hands: list[int], leader: int, trick: list[int]) -> int:
        return self._run(list(hands), [0, 0, 0, 0], leader, list(trick))

    def _run(self, hands: list[int], discards: list[int], leader: int, trick: list[int]) -> int:
        if trick:
            return self._extend(hands, discards, leader, trick)
        if leader & 1 != self.side:
            return 0
        key = (*hands, *discards, leader)
        cached = self.memo.get(key)
        if cached is not None:
            return cached
        self.budget -= 1
        if self.budget < 0:
            return 0
        value = self._extend(hands, discards, leader, [])
        self.memo[key] = value
        return value

    def _extend(self, hands: list[int], discards: list[int], leader: int, trick: list[int]) -> int:
        """Our cards to the trick, one seat at a time; -1 stands for an opponent's card."""
        if len(trick) == 4:
            return self._resolve(hands, discards, leader, trick)
        seat = (leader + len(trick)) & 3
        if seat & 1 != self.side:
            return self._extend(hands, discards, leader, [*trick, -1])
        hand = hands[seat]
        led = trick[0] // 13 if trick else -1
        suits: tuple[int, ...] = (led,) if led >= 0 and _bits(hand, led) else (0, 1, 2, 3)
        limit = hand.bit_count()
        best = 0
        for suit in suits:
            bits = _bits(hand, suit)
            for offset in {_high(bits), _low(bits)} - {-1}:
                bit = 1 << (suit * 13 + offset)
                hands[seat] ^= bit
                best = max(
                    best, self._extend(hands, discards, leader, [*trick, suit * 13 + offset])
                )
                hands[seat] ^= bit
                if best >= limit:
                    return best
        return best

    def _resolve(self, hands: list[int], discards: list[int], leader: int, trick: list[int]) -> int:
        """Does our best card surely win? If so, one trick and the run that follows."""
        led = trick[0] // 13
        trump = self.trump
        best_position, best = 0, trick[0]
        for position in (1, 2, 3):
            card = trick[position]
            if card < 0:
                continue
            if card // 13 == best // 13:
                if card > best:
                    best_position, best = position, card
            elif card // 13 == trump:
                best_position, best = position, card
        if ((leader + best_position) & 3) & 1 != self.side:
            return 0
        new_hands = list(hands)
        new_discards = list(discards)
        for position in (1, 2, 3):
            if trick[position] >= 0:
                continue
            seat = (leader + position) & 3
            holding = _bits(hands[seat], led)
            trumps = _bits(hands[seat], trump) if trump != _NOTRUMP else 0
            if best // 13 == led and _high(holding) > best % 13:
                return 0  # may follow with a higher card
            if holding.bit_count() > discards[seat]:
                new_hands[seat] ^= 1 << (led * 13 + _low(holding))  # surely follows
                continue
            if best // 13 == led and trumps and led != trump:
                return 0  # may be void and ruff
            if best // 13 == trump and led != trump and _high(trumps) > best % 13:
                return 0  # may overruff
            new_discards[seat] += 1
        winner = (leader + best_position) & 3
        return 1 + self._run(new_hands, new_discards, winner, [])
