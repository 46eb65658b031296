"""The robot second table of RULES.md 6.2 (seeds 001 and 003), card for card.

Each partnership's robot looks at its two hands together and picks one contract; the
stronger side declares it, the other side passes, nobody doubles, so the table is never
passed out. In the play each robot sees only its own hand, dummy and the cards played
(:meth:`robots.SeatView.from_play`). Everything is deterministic: the same cards always
give the same table-2 record.
"""

from __future__ import annotations

from dataclasses import dataclass

from bridge import PASS, Auction, Bid, Call, Card, Deal, Play, Seat, Vulnerability
from bridge.formats import TableResult
from robots.bidding import choose_contract, stronger_side
from robots.knowledge import SeatView
from robots.play import choose_card

__all__ = ["RobotTable", "play_robot_table"]


@dataclass(frozen=True, slots=True)
class RobotTable:
    """A board played at the robot table: the calls from the dealer, the cards in order."""

    calls: tuple[Call, ...]
    cards: tuple[Card, ...]
    result: TableResult


def robot_auction(dealer: Seat, declarer: Seat, bid: Bid) -> Auction:
    """Passes up to the declarer's turn, the contract, then three passes."""
    auction = Auction(dealer)
    while auction.turn != declarer:
        auction.call(PASS)
    auction.call(bid)
    for _ in range(3):
        auction.call(PASS)
    return auction


def play_robot_table(deal: Deal, dealer: Seat, vulnerability: Vulnerability) -> RobotTable:
    """Play one board at the robot table, from the choice of contract to the last card."""
    side = stronger_side({seat: deal[seat] for seat in Seat})
    contract, declarer = choose_contract({seat: deal[seat] for seat in Seat}, side, vulnerability)
    auction = robot_auction(dealer, declarer, Bid(contract.level, contract.strain))
    assert auction.contract is not None
    assert auction.declarer == declarer
    play = Play(deal, auction.contract, declarer)
    while not play.is_complete:
        play.play(choose_card(SeatView.from_play(play, auction, vulnerability)))
    result = TableResult(auction.contract, declarer, play.declarer_tricks, vulnerability)
    return RobotTable(auction.calls, tuple(card for _, card in play.cards_played), result)
