"""Each decision at each level (robots.levels): the one dispatch, and its safety net."""

from __future__ import annotations

import pytest

from bridge import Auction, Contract, Deal, Hand, Play, Seat, Vulnerability
from robots import SeatView, levels, play, sampling

DEAL = Deal.from_pbn("N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987")


def opening_lead() -> SeatView:
    auction = Auction.replay(Seat.NORTH, ["3NT", "P", "P", "P"])
    return SeatView.from_play(
        Play(DEAL, Contract.parse("3NT"), Seat.NORTH), auction, Vulnerability.NONE
    )


def test_each_level_bids_its_own_system() -> None:
    auction = Auction.replay(Seat.NORTH, ["1NT", "P"])
    view = SeatView.from_auction(auction, Hand.from_pbn("KJ84.Q732.84.A52"), Vulnerability.NONE)
    assert levels.decide("call", "seed", view) == ("3NT", None)
    assert levels.decide("call", "strong", view) == (
        "2C",
        "Stayman: asks for a 4-card major, 8+ HCP",
    )


def test_each_level_plays_its_own_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    view = opening_lead()
    played: list[str] = []
    monkeypatch.setattr(
        sampling, "choose_card", lambda v: played.append("strong") or v.legal_cards[0]
    )
    monkeypatch.setattr(play, "choose_card", lambda v: played.append("seed") or v.legal_cards[-1])
    assert levels.decide("card", "strong", view) == (str(view.legal_cards[0]), None)
    assert levels.decide("card", "seed", view) == (str(view.legal_cards[-1]), None)
    assert played == ["strong", "seed"]


def test_a_failed_sampling_falls_back_to_the_seed_card(monkeypatch: pytest.MonkeyPatch) -> None:
    view = opening_lead()

    def fails(_view: SeatView) -> None:
        raise RuntimeError("the solver refused the deal")

    monkeypatch.setattr(sampling, "choose_card", fails)
    assert levels.card_at("strong", view) == play.choose_card(view)
