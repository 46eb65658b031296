"""Calls, the auction and its contract (RULES.md section 2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge import (
    DOUBLE,
    PASS,
    REDOUBLE,
    Auction,
    Bid,
    BridgeError,
    Call,
    Contract,
    Double,
    IllegalCall,
    OutOfTurn,
    ParseError,
    Pass,
    Redouble,
    Seat,
    Strain,
    WrongPhase,
)

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
ALL_BIDS = [Bid(level, strain) for level in range(1, 8) for strain in Strain]
ALL_CALLS: list[Call] = [PASS, DOUBLE, REDOUBLE, *ALL_BIDS]
# 35 bids, each possibly followed by X, XX and three passes between (P P X P P XX P P);
# the last three passes end it. A generous bound, but a bound.
MAX_CALLS = 3 + 35 * 9 + 3


def snapshot(auction: Auction) -> tuple[object, ...]:
    return (
        auction.calls,
        auction.turn,
        auction.legal_calls(),
        auction.is_complete,
        auction.is_passed_out,
        auction.contract,
        auction.declarer,
    )


def calls(text: str) -> list[Call]:
    return [Call.parse(word) for word in text.split()]


class TestCall:
    @pytest.mark.parametrize("bid", ALL_BIDS, ids=str)
    def test_every_bid_round_trips(self, bid: Bid) -> None:
        text = str(bid)
        assert text == f"{bid.level}{bid.strain.letter}"
        assert Call.parse(text) == bid
        assert Call.parse(text.lower()) == bid
        assert Call.parse(f" {text} ") == bid
        assert isinstance(Call.parse(text), Bid)

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("1C", Bid(1, Strain.CLUBS)),
            ("1♣", Bid(1, Strain.CLUBS)),
            ("3N", Bid(3, Strain.NOTRUMP)),
            ("3nt", Bid(3, Strain.NOTRUMP)),
            ("7NT", Bid(7, Strain.NOTRUMP)),
            ("4♠", Bid(4, Strain.SPADES)),
            ("P", PASS),
            ("p", PASS),
            ("Pass", PASS),
            ("PASS", PASS),
            ("X", DOUBLE),
            ("x", DOUBLE),
            ("Dbl", DOUBLE),
            ("Double", DOUBLE),
            ("XX", REDOUBLE),
            ("xx", REDOUBLE),
            ("Rdbl", REDOUBLE),
            ("Redouble", REDOUBLE),
        ],
    )
    def test_parse_spellings(self, text: str, expected: Call) -> None:
        assert Call.parse(text) == expected

    @pytest.mark.parametrize(
        ("call", "text", "kind"),
        [(PASS, "P", Pass), (DOUBLE, "X", Double), (REDOUBLE, "XX", Redouble)],
    )
    def test_special_calls_round_trip(self, call: Call, text: str, kind: type[Call]) -> None:
        assert str(call) == text
        assert Call.parse(text) == call
        assert isinstance(call, kind)

    @pytest.mark.parametrize(
        "text", ["", "0C", "8S", "1", "S", "1Z", "XXX", "1NTX", "11S", "PP", "1S 2S"]
    )
    def test_parse_rejects(self, text: str) -> None:
        with pytest.raises(ParseError):
            Call.parse(text)

    def test_bid_rank_orders_bids(self) -> None:
        assert [bid.rank for bid in ALL_BIDS] == list(range(35))
        assert Bid(1, Strain.NOTRUMP).rank < Bid(2, Strain.CLUBS).rank

    @pytest.mark.parametrize("level", [0, 8, -1, True])
    def test_bid_level_checked(self, level: int) -> None:
        with pytest.raises(BridgeError):
            Bid(level, Strain.SPADES)


class TestContract:
    @pytest.mark.parametrize(
        ("text", "level", "strain", "doubled", "canonical"),
        [
            ("4SX", 4, Strain.SPADES, 1, "4SX"),
            ("3NT", 3, Strain.NOTRUMP, 0, "3NT"),
            ("3N", 3, Strain.NOTRUMP, 0, "3NT"),
            ("6HXX", 6, Strain.HEARTS, 2, "6HXX"),
            ("1c", 1, Strain.CLUBS, 0, "1C"),
            ("7NTXX", 7, Strain.NOTRUMP, 2, "7NTXX"),
            ("2DX", 2, Strain.DIAMONDS, 1, "2DX"),
        ],
    )
    def test_parse_and_str(
        self, text: str, level: int, strain: Strain, doubled: int, canonical: str
    ) -> None:
        contract = Contract.parse(text)
        assert (contract.level, contract.strain, contract.doubled) == (level, strain, doubled)
        assert str(contract) == canonical
        assert Contract.parse(str(contract)) == contract
        assert contract.tricks_needed == 6 + level

    @pytest.mark.parametrize("text", ["", "4SXXX", "8S", "0NT", "P", "X", "4", "SX"])
    def test_parse_rejects(self, text: str) -> None:
        with pytest.raises(ParseError):
            Contract.parse(text)

    @pytest.mark.parametrize("doubled", [-1, 3, True])
    def test_doubled_checked(self, doubled: int) -> None:
        with pytest.raises(BridgeError):
            Contract(4, Strain.SPADES, doubled)


class TestAuctionExamples:
    def test_passed_out(self) -> None:
        auction = Auction.replay(N, ["P", "P", "P", "P"])
        assert auction.is_complete
        assert auction.is_passed_out
        assert auction.contract is None
        assert auction.declarer is None
        assert auction.turn is None
        assert auction.legal_calls() == []

    def test_three_passes_do_not_end_it(self) -> None:
        auction = Auction.replay(E, ["P", "P", "P"])
        assert not auction.is_complete
        assert auction.turn is N
        assert auction.contract is None

    def test_late_opening_after_three_passes(self) -> None:
        auction = Auction.replay(N, ["P", "P", "P", "1C", "P", "P", "P"])
        assert auction.is_complete
        assert not auction.is_passed_out
        assert str(auction.contract) == "1C"
        assert auction.declarer is W

    @pytest.mark.parametrize(
        ("dealer", "sequence", "contract", "declarer"),
        [
            # The first of the side to name the strain declares, not the last bidder.
            (N, "1H P 4H P P P", "4H", N),
            (N, "1C P 1H P 2H P 4H P P P", "4H", S),
            (E, "P 1S P 2S P 4S P P P", "4S", S),
            (E, "1S P 2S P 4S P P P", "4S", E),
            # An opponent naming the strain first does not make it theirs.
            (N, "1H 2C P 2H P 4H P P P", "4H", W),
            (N, "1NT P 3NT P P P", "3NT", N),
            (W, "1D 1H 2D 2H 3D 3H P P P", "3H", N),
            # Doubled and redoubled contracts.
            (N, "1S P 4S X P P P", "4SX", N),
            (N, "1S X XX P P P", "1SXX", N),
            (N, "1S X P P XX P P P", "1SXX", N),
            (N, "1S P P X P P P", "1SX", N),
            # A new bid cancels X and XX.
            (N, "1S X XX 2C P P P", "2C", W),
            (N, "1S X P 2H P P P", "2H", W),
            (N, "1S X 2S X P P P", "2SX", N),
            # Up to the top.
            (N, "7NT X XX P P P", "7NTXX", N),
        ],
    )
    def test_contract_and_declarer(
        self, dealer: Seat, sequence: str, contract: str, declarer: Seat
    ) -> None:
        auction = Auction.replay(dealer, calls(sequence))
        assert auction.is_complete
        assert str(auction.contract) == contract
        assert auction.contract == Contract.parse(contract)
        assert auction.declarer is declarer

    def test_replay_equals_step_by_step(self) -> None:
        auction = Auction(S)
        for call in calls("1D 1H 2D 2H P P P"):
            auction.call(call)
        assert auction.calls == Auction.replay(S, ["1D", "1H", "2D", "2H", "P", "P", "P"]).calls
        assert auction.dealer is S

    def test_no_contract_while_running(self) -> None:
        auction = Auction.replay(N, calls("1S P 4S"))
        assert not auction.is_complete
        assert auction.contract is None
        assert auction.declarer is None
        assert auction.turn is W

    def test_turn_goes_clockwise_from_dealer(self) -> None:
        auction = Auction(W)
        expected = [W, N, E, S, W, N]
        seen = []
        for call in calls("1C 1D 1H 1S 1NT 2C"):
            seen.append(auction.turn)
            auction.call(call)
        assert seen == expected


class TestDoubleAndRedouble:
    @pytest.mark.parametrize(
        ("sequence", "call"),
        [
            ("1S", "X"),  # the opponent's bid, just made
            ("1S P P", "X"),  # through intervening passes
            ("1S X", "XX"),  # opener's partner redoubles
            ("1S X P P", "XX"),  # opener redoubles through passes
            ("1S X XX", "1NT"),
            ("1S X XX", "P"),
            ("1S X P 2H", "X"),  # the new bid may be doubled again
            ("1S X XX 2C", "X"),
            ("1S X 2S", "X"),
        ],
    )
    def test_legal(self, sequence: str, call: str) -> None:
        auction = Auction.replay(N, calls(sequence))
        assert auction.is_legal(Call.parse(call))
        assert Call.parse(call) in auction.legal_calls()
        auction.call(Call.parse(call))
        assert auction.calls[-1] == Call.parse(call)

    @pytest.mark.parametrize(
        ("sequence", "call"),
        [
            ("", "X"),  # nothing to double
            ("P", "X"),
            ("", "XX"),
            ("1S P", "X"),  # partner's bid
            ("1S P", "XX"),  # no double to redouble
            ("1S X P", "X"),  # already doubled
            ("1S X", "X"),
            ("1S X P", "XX"),  # the doubler's partner cannot redouble their own side's X
            ("1S X XX", "X"),
            ("1S X XX", "XX"),  # already redoubled
            ("1S X XX P", "XX"),
            ("1S", "XX"),  # no double
            ("1S X P 2H", "XX"),  # the double was cancelled by the new bid
        ],
    )
    def test_illegal(self, sequence: str, call: str) -> None:
        auction = Auction.replay(N, calls(sequence))
        before = snapshot(auction)
        assert not auction.is_legal(Call.parse(call))
        assert Call.parse(call) not in auction.legal_calls()
        with pytest.raises(IllegalCall):
            auction.call(Call.parse(call))
        assert snapshot(auction) == before


class TestRefusedCalls:
    @pytest.mark.parametrize(
        ("sequence", "bid"),
        [("1S P", "1H"), ("1S P", "1S"), ("2C", "1NT"), ("3NT P P", "3S"), ("7NT", "7NT")],
    )
    def test_insufficient_bid_changes_nothing(self, sequence: str, bid: str) -> None:
        auction = Auction.replay(N, calls(sequence))
        before = snapshot(auction)
        with pytest.raises(IllegalCall, match="insufficient"):
            auction.call(Call.parse(bid))
        assert snapshot(auction) == before
        assert not isinstance(IllegalCall("x"), (OutOfTurn, WrongPhase))

    @pytest.mark.parametrize("sequence", ["P P P P", "1S P P P", "1S X XX P P P"])
    def test_calling_after_completion_is_wrong_phase(self, sequence: str) -> None:
        auction = Auction.replay(N, calls(sequence))
        before = snapshot(auction)
        for call in ALL_CALLS:
            with pytest.raises(WrongPhase):
                auction.call(call)
            with pytest.raises(IllegalCall):
                auction.call(call, seat=N)
            assert not auction.is_legal(call)
        assert snapshot(auction) == before
        assert issubclass(WrongPhase, IllegalCall)

    @pytest.mark.parametrize("wrong", [E, S, W])
    def test_out_of_turn(self, wrong: Seat) -> None:
        auction = Auction(N)
        before = snapshot(auction)
        with pytest.raises(OutOfTurn):
            auction.call(PASS, seat=wrong)
        with pytest.raises(OutOfTurn):
            auction.call(Call.parse("1S"), seat=wrong)
        assert snapshot(auction) == before
        assert issubclass(OutOfTurn, IllegalCall)
        auction.call(Call.parse("1S"), seat=N)
        assert auction.calls == (Call.parse("1S"),)
        assert auction.turn is E

    def test_out_of_turn_later(self) -> None:
        auction = Auction.replay(E, calls("1C 1D"))
        with pytest.raises(OutOfTurn):
            auction.call(PASS, seat=E)
        auction.call(PASS, seat=W)
        assert auction.turn is N


class TestUndo:
    @pytest.mark.parametrize(
        ("dealer", "sequence"),
        [
            (N, "1S"),
            (N, "P"),
            (E, "1S P P P"),  # the call that ended the auction: it reopens
            (S, "P P P P"),  # the fourth pass of a passed-out board
            (W, "P P P"),
            (N, "1S X"),
            (N, "1S X XX"),
            (N, "1S X XX P P 2H"),  # the new bid cancelled XX: undo brings it back
            (N, "1H P 2H P P P"),
            (N, "1S P P X P P XX P P P"),
            (E, "7NT X XX P P P"),
        ],
    )
    def test_undo_is_as_if_never_made(self, dealer: Seat, sequence: str) -> None:
        history = calls(sequence)
        auction = Auction.replay(dealer, history)
        assert auction.undo() == history[-1]
        assert snapshot(auction) == snapshot(Auction.replay(dealer, history[:-1]))
        auction.call(history[-1])  # the same call is legal again
        assert snapshot(auction) == snapshot(Auction.replay(dealer, history))

    def test_undo_reopens_a_finished_auction(self) -> None:
        auction = Auction.replay(N, calls("1S P 4S P P P"))
        assert auction.undo() == PASS
        assert not auction.is_complete
        assert auction.turn is E  # who made the pass taken back
        assert auction.contract is None
        assert auction.declarer is None
        assert DOUBLE in auction.legal_calls()
        auction.call(Call.parse("5H"))
        assert auction.legal_calls()[1] == DOUBLE

    def test_undo_a_passed_out_board(self) -> None:
        auction = Auction.replay(E, calls("P P P P"))
        assert auction.is_passed_out
        assert auction.undo() == PASS
        assert not auction.is_passed_out
        assert auction.turn is N
        auction.call(Call.parse("1C"))  # a late opening
        assert auction.calls == tuple(calls("P P P 1C"))

    def test_undo_forgets_who_first_named_the_strain(self) -> None:
        auction = Auction(N)
        auction.call(Call.parse("1H"))
        auction.undo()
        for text in ["P", "P", "2H", "P", "P", "P"]:
            auction.call(Call.parse(text))
        assert auction.declarer is S  # N's 1H was taken back: S named hearts first

    def test_undo_back_to_the_start(self) -> None:
        history = calls("1S X XX 2H P P X P P P")
        auction = Auction.replay(W, history)
        undone = [auction.undo() for _ in history]
        assert undone == history[::-1]
        assert snapshot(auction) == snapshot(Auction(W))
        assert auction.dealer is W

    def test_nothing_to_undo(self) -> None:
        auction = Auction(S)
        before = snapshot(auction)
        with pytest.raises(WrongPhase):
            auction.undo()
        assert snapshot(auction) == before
        auction.call(PASS)
        auction.undo()
        with pytest.raises(WrongPhase):
            auction.undo()
        assert snapshot(auction) == before


class TestLegalCalls:
    def test_opening(self) -> None:
        assert Auction(N).legal_calls() == [PASS, *ALL_BIDS]

    def test_after_opponents_bid(self) -> None:
        auction = Auction.replay(N, calls("1S"))
        assert auction.legal_calls() == [PASS, DOUBLE, *ALL_BIDS[4:]]
        assert auction.legal_calls()[2] == Bid(1, Strain.NOTRUMP)

    def test_after_partners_bid(self) -> None:
        auction = Auction.replay(N, calls("1S P"))
        assert auction.legal_calls() == [PASS, *ALL_BIDS[4:]]

    def test_after_double(self) -> None:
        auction = Auction.replay(N, calls("1S X"))
        assert auction.legal_calls() == [PASS, REDOUBLE, *ALL_BIDS[4:]]

    def test_after_redouble(self) -> None:
        auction = Auction.replay(N, calls("1S X XX"))
        assert auction.legal_calls() == [PASS, *ALL_BIDS[4:]]

    def test_at_the_top(self) -> None:
        assert Auction.replay(N, calls("7NT")).legal_calls() == [PASS, DOUBLE]
        assert Auction.replay(N, calls("7NT X")).legal_calls() == [PASS, REDOUBLE]
        assert Auction.replay(N, calls("7NT X XX")).legal_calls() == [PASS]

    @pytest.mark.parametrize("sequence", ["", "1S", "1S X", "1S X XX", "1H P 2H P", "7NT"])
    def test_is_legal_agrees(self, sequence: str) -> None:
        auction = Auction.replay(N, calls(sequence))
        legal = auction.legal_calls()
        assert [call for call in ALL_CALLS if auction.is_legal(call)] == legal


# -- an independent, simple model of the auction ------------------------------------------


def reference_is_complete(history: list[Call]) -> bool:
    if len(history) >= 4 and all(isinstance(c, Pass) for c in history[:4]):
        return len(history) == 4
    return (
        len(history) >= 4
        and all(isinstance(c, Pass) for c in history[-3:])
        and any(not isinstance(c, Pass) for c in history)
    )


def reference_legal(dealer: Seat, history: list[Call]) -> set[Call]:
    if reference_is_complete(history):
        return set()
    turn_side = (dealer + len(history)) % 2
    legal: set[Call] = {PASS}
    bids = [(i, c) for i, c in enumerate(history) if isinstance(c, Bid)]
    last_bid = bids[-1][1] if bids else None
    legal |= {b for b in ALL_BIDS if last_bid is None or b.rank > last_bid.rank}
    non_pass = [(i, c) for i, c in enumerate(history) if not isinstance(c, Pass)]
    if non_pass:
        index, last = non_pass[-1]
        by_opponent = (dealer + index) % 2 != turn_side
        if isinstance(last, Bid) and by_opponent:
            legal.add(DOUBLE)
        if isinstance(last, Double) and by_opponent:
            legal.add(REDOUBLE)
    return legal


def reference_result(dealer: Seat, history: list[Call]) -> tuple[str | None, Seat | None]:
    bids = [(i, c) for i, c in enumerate(history) if isinstance(c, Bid)]
    if not bids:
        return None, None
    index, last = bids[-1]
    doubled = ""
    for call in history[index + 1 :]:
        if isinstance(call, Double):
            doubled = "X"
        elif isinstance(call, Redouble):
            doubled = "XX"
    side = (dealer + index) % 2
    for i, call in enumerate(history):
        if isinstance(call, Bid) and call.strain == last.strain and (dealer + i) % 2 == side:
            return f"{last}{doubled}", Seat((dealer + i) % 4)
    raise AssertionError("the last bidder named the strain")


def draw_call(draw: Callable[[st.SearchStrategy[Any]], Any], legal: list[Call]) -> Call:
    """One of ``legal``: a pass half the time, X or XX often when allowed, else anything."""
    choice = draw(st.integers(0, 5))
    if choice <= 2:
        return PASS
    doubles = [call for call in legal if isinstance(call, (Double, Redouble))]
    if choice == 3 and doubles:
        return doubles[0]
    call: Call = draw(st.sampled_from(legal))
    return call


@st.composite
def legal_auctions(draw: st.DrawFn) -> tuple[Seat, list[Call]]:
    """A dealer and a complete legal auction; passes come often enough to end it."""
    dealer = draw(st.sampled_from(list(Seat)))
    auction = Auction(dealer)
    while not auction.is_complete:
        auction.call(draw_call(draw, auction.legal_calls()))
    return dealer, list(auction.calls)


class TestAuctionProperties:
    @settings(max_examples=150, deadline=None)
    @given(st.sampled_from(list(Seat)), st.data())
    def test_random_legal_auction(self, dealer: Seat, data: st.DataObject) -> None:
        auction = Auction(dealer)
        history: list[Call] = []
        while not auction.is_complete:
            assert len(history) < MAX_CALLS
            legal = auction.legal_calls()
            assert set(legal) == reference_legal(dealer, history)
            assert len(legal) == len(set(legal))
            assert auction.turn is Seat((dealer + len(history)) % 4)
            assert auction.contract is None
            call = draw_call(data.draw, legal)
            auction.call(call, seat=auction.turn)
            history.append(call)
            assert auction.calls == tuple(history)
        assert reference_is_complete(history)
        assert auction.turn is None
        assert auction.legal_calls() == []
        contract, declarer = reference_result(dealer, history)
        assert (None if auction.contract is None else str(auction.contract)) == contract
        assert auction.declarer is declarer
        assert auction.is_passed_out == (contract is None)
        if auction.declarer is not None:
            assert auction.contract is not None
            assert Auction.replay(dealer, history).contract == auction.contract

    @settings(max_examples=100, deadline=None)
    @given(legal_auctions(), st.data())
    def test_illegal_call_changes_nothing(
        self, dealt: tuple[Seat, list[Call]], data: st.DataObject
    ) -> None:
        dealer, history = dealt
        stop = data.draw(st.integers(0, len(history)))
        auction = Auction.replay(dealer, history[:stop])
        legal = auction.legal_calls()
        illegal = [call for call in ALL_CALLS if call not in legal]
        assert illegal  # X and XX are never both legal
        call = data.draw(st.sampled_from(illegal))
        before = snapshot(auction)
        with pytest.raises(IllegalCall):
            auction.call(call)
        assert snapshot(auction) == before
        assert not auction.is_legal(call)
        if legal:
            auction.call(legal[0])  # still usable afterwards
            assert auction.calls[-1] == legal[0]

    @settings(max_examples=150, deadline=None)
    @given(legal_auctions(), st.data())
    def test_undo_equals_replay_without_the_call(
        self, dealt: tuple[Seat, list[Call]], data: st.DataObject
    ) -> None:
        dealer, history = dealt
        stop = data.draw(st.integers(1, len(history)))
        auction = Auction.replay(dealer, history[:stop])
        assert auction.undo() == history[stop - 1]
        assert snapshot(auction) == snapshot(Auction.replay(dealer, history[: stop - 1]))
        assert all(auction.is_legal(call) for call in auction.legal_calls())
        auction.call(history[stop - 1], seat=auction.turn)
        assert snapshot(auction) == snapshot(Auction.replay(dealer, history[:stop]))

    @settings(max_examples=100, deadline=None)
    @given(legal_auctions())
    def test_undo_every_call_back_to_the_start(self, dealt: tuple[Seat, list[Call]]) -> None:
        dealer, history = dealt
        auction = Auction.replay(dealer, history)
        for stop in range(len(history), 0, -1):
            assert auction.undo() == history[stop - 1]
            assert snapshot(auction) == snapshot(Auction.replay(dealer, history[: stop - 1]))
        assert snapshot(auction) == snapshot(Auction(dealer))
        with pytest.raises(WrongPhase):
            auction.undo()
        assert snapshot(auction) == snapshot(Auction(dealer))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(Seat)), st.data())
def test_a_copy_bids_on_alone(dealer: Seat, data: st.DataObject) -> None:
    auction = Auction(dealer)
    while not auction.is_complete and data.draw(st.booleans()):
        auction.call(data.draw(st.sampled_from(auction.legal_calls())))
    before = snapshot(auction)
    copied = auction.copy()
    assert snapshot(copied) == before
    while not copied.is_complete:
        copied.call(data.draw(st.sampled_from(copied.legal_calls())))
    assert snapshot(auction) == before  # the original did not move
