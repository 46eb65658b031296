"""The codec: every message survives a round trip, and every bad frame is a named error.

Frames are fed as raw bytes (or text, as a text WebSocket frame arrives) and each refusal
is checked for its exact :class:`ErrorCode`; hypothesis checks that nothing else escapes.
"""

from __future__ import annotations

import time
import types
import typing
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from protocol import codec
from protocol.codec import (
    CLIENT_LIMITS,
    MAX_CLIENT_FRAME,
    MAX_ERROR_MESSAGE,
    MAX_SERVER_FRAME,
    SERVER_LIMITS,
    FrameLimits,
    decode_client,
    decode_server,
    encode,
)
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    PROTOCOL_VERSION,
    Ack,
    AdjustEvent,
    AdjustScore,
    AnswerClaim,
    AnswerUndo,
    ArchiveMatch,
    AskAboutCall,
    AssignResult,
    AuctionEntry,
    BoardCompared,
    BoardFinished,
    BoardRecord,
    BoardStarted,
    BoardView,
    ButlerEntry,
    CallDirector,
    CallExplained,
    CallMade,
    CardPlayed,
    Change,
    ChatLine,
    ChatSent,
    ClaimAnswered,
    ClaimMade,
    ClaimView,
    ClaimWithdrawn,
    ClientMessage,
    CloseCalls,
    CloseSession,
    ComparisonView,
    ConcessionWithdrawalAsked,
    ConcessionWithdrawalRefused,
    ConcessionWithdrawn,
    CreateEvent,
    CreateMatch,
    CrossTableEntry,
    DealsSealed,
    DecideWithdrawal,
    DirectorCalled,
    DirectorCallsClosed,
    DirectorCallsSeen,
    DirectorCallView,
    DirectorRuled,
    ErrorMessage,
    Event,
    EventAdjustment,
    EventCreated,
    EventEntry,
    EventList,
    EventMatchEntry,
    EventPairing,
    EventRoundEntry,
    EventStanding,
    EventTeamEntry,
    EventTeamSpec,
    EventView,
    ExplainCall,
    FaceLead,
    GetBoard,
    GetEvent,
    GetLinks,
    GetRecord,
    Heartbeat,
    HeartbeatAnswer,
    Hello,
    ImportMatch,
    LeadFaceDown,
    LinkEntry,
    ListEvents,
    ListMatches,
    MakeCall,
    MakeClaim,
    MatchArchived,
    MatchCreated,
    MatchEntry,
    MatchFinished,
    MatchLinks,
    MatchList,
    MatchRecord,
    MatchSummary,
    Message,
    NameSet,
    NewLink,
    NextBoard,
    NextSeat,
    OpenSession,
    Ping,
    PlayCard,
    PlayedCard,
    PlayerInfo,
    PlayerView,
    Pong,
    PresenceChanged,
    QuestionAsked,
    ReadyForNext,
    ResultAssigned,
    ReviewEnded,
    ReviewView,
    Rule,
    SealDeals,
    SeatLink,
    SeatSubstituted,
    SeeCalls,
    SendChat,
    Sent,
    ServerMessage,
    SessionClosed,
    SessionOpened,
    SetName,
    Snapshot,
    Standing,
    StartEventRound,
    StartRound,
    Substitute,
    Substituted,
    TableEntry,
    TableResultView,
    TimeUp,
    Traveller,
    TravellerLine,
    TrickView,
    Undo,
    UndoAnswered,
    Undone,
    UndoRequested,
    UndoView,
    Update,
    View,
    VoidBoard,
    WatchView,
    Welcome,
    WithdrawClaim,
    WithdrawConcession,
)


def union_members(union: Any) -> list[type[BaseModel]]:
    """The models of a discriminated union such as ``ClientMessage`` (``Annotated[A | B, ...]``)."""
    (inner, *_metadata) = typing.get_args(union)
    members = typing.get_args(inner)
    assert typing.get_origin(inner) in (typing.Union, types.UnionType), union
    assert all(isinstance(m, type) and issubclass(m, BaseModel) for m in members), members
    return list(members)


def tag(model: type[BaseModel]) -> str:
    """A message model's ``type`` tag (the default of its literal ``type`` field)."""
    default = model.model_fields["type"].default
    assert isinstance(default, str)
    return default


# -- one valid instance of every message -------------------------------------------------

N_HAND = ["SA", "SK", "S2", "HK", "HQ", "H5", "DK", "D4", "D3", "CQ", "C6", "C5", "C2"]
E_HAND = ["ST", "S9", "S8", "HJ", "HT", "H9", "DA", "D9", "D8", "CK", "CJ", "CT", "C8"]
S_HAND = ["SQ", "SJ", "S3", "HA", "H6", "H4", "DQ", "DJ", "D5", "D2", "C9", "C4", "C3"]
W_HAND = ["S7", "S6", "S5", "S4", "H8", "H7", "H3", "H2", "DT", "D7", "D6", "CA", "C7"]

RESULT_1 = TableResultView(table=1, board=1, contract="3NT", declarer="N", tricks=9, ns_score=400)
RESULT_2 = TableResultView(table=2, board=1, contract=None, declarer=None, tricks=0, ns_score=0)
COMPARISON = ComparisonView(
    board=1, table1=RESULT_1, table2=RESULT_2, difference=400, swing=9, running_total=9
)
SUMMARY = MatchSummary(
    match_id="35e80982ec4f2b10",
    team_a="Sharks",
    team_b="Minnows",
    boards=[1],
    comparisons=[COMPARISON],
    imps_a=9,
    imps_b=0,
    finished=True,
    winner="A",
)
BOARD_IN_PLAY = BoardView(
    table=1,
    board=1,
    dealer="N",
    vulnerability="None",
    phase="claim",
    hands={
        "N": N_HAND[:4] + N_HAND[5:],
        "E": E_HAND[:3] + E_HAND[4:],
        "S": S_HAND[:5] + S_HAND[6:],
    },
    hand_sizes={"N": 12, "E": 12, "S": 12, "W": 12},
    deal=None,
    auction=[
        AuctionEntry(seat="N", call="1NT", alert="15-17 balanced"),
        AuctionEntry(seat="E", call="P"),
        AuctionEntry(seat="S", call="3NT"),
        AuctionEntry(seat="W", call="P"),
        AuctionEntry(seat="N", call="P"),
        AuctionEntry(seat="E", call="P"),
    ],
    contract="3NT",
    declarer="N",
    dummy="S",
    tricks=[],
    last_trick=TrickView(
        leader="E",
        cards=[
            PlayedCard(seat="E", card="HJ"),
            PlayedCard(seat="S", card="H4"),
            PlayedCard(seat="W", card="H2"),
            PlayedCard(seat="N", card="HQ"),
        ],
        winner="N",
    ),
    current_trick=TrickView(leader="N", cards=[]),
    tricks_ns=1,
    claim=ClaimView(
        claimer="N",
        tricks=8,
        remaining=12,
        statement="the spades, then the diamonds are high",
        deciders=["E", "W"],
        accepted=["E"],
        cards=N_HAND[:4] + N_HAND[5:],
    ),
    actions=["claim_answer"],
)
BOARD_FINISHED = BoardView(
    table=2,
    board=1,
    dealer="N",
    vulnerability="None",
    phase="finished",
    hands={"N": N_HAND, "E": E_HAND, "S": S_HAND, "W": W_HAND},
    hand_sizes={"N": 13, "E": 13, "S": 13, "W": 13},
    deal={"N": N_HAND, "E": E_HAND, "S": S_HAND, "W": W_HAND},
    auction=[AuctionEntry(seat=seat, call="P") for seat in ("N", "E", "S", "W")],
    tricks=[],
    result=RESULT_2,
)
BOARD_UNDO = BOARD_IN_PLAY.model_copy(
    update={
        "phase": "play",
        "claim": None,
        "undo": UndoView(seat="N", card="HQ", deciders=["E", "W"], accepted=[]),
        "actions": ["undo_answer"],
    }
)
PLAYERS = [
    PlayerInfo(table=1, seat="N", name="Ann", connected=True, since=1_790_000_000_000),
    PlayerInfo(
        table=1, seat="E", name="Robot", robot=True, connected=True, since=1_790_000_000_000
    ),
    PlayerInfo(table=1, seat="S", name=None, connected=False, since=None),
    PlayerInfo(table=1, seat="W", name="Bo", connected=False, since=1_790_000_060_000),
]
CALL = DirectorCallView(table=1, seat="W", board=1, text="revoke?", at=1_790_000_070_000)
PLAYER_VIEW = PlayerView(
    match=SUMMARY,
    player=5,
    table=1,
    seat="E",
    team="B",
    competitor="B",
    partner=7,
    opponents=[3, 1],
    board=BOARD_IN_PLAY,
    results=[],
    players=PLAYERS,
    chat=[ChatLine(table=1, seat="S", text="well played", to=["N", "E", "S", "W"])],
    review=ReviewView(board=1, until=1_790_000_090_000, ready=["N"]),
    director_calls=[CALL],
)
INDIVIDUAL_SUMMARY = MatchSummary(
    match_id="9f1c2ab07e4d3a11",
    format="individual",
    scoring="imps",
    rounds=7,
    team_a="Team A",
    team_b="Team B",
    boards=list(range(1, 15)),
    comparisons=[
        ComparisonView(
            board=1,
            results=[
                TableResultView(
                    table=1, round=1, board=1, contract="4S", declarer="N", tricks=10, ns_score=420
                ),
                TableResultView(
                    table=2, round=1, board=1, contract="2S", declarer="N", tricks=10, ns_score=170
                ),
            ],
            points={"8": 6.0, "1": 6.0, "2": -6.0, "6": -6.0, "3": -6.0, "4": -6.0, "5": 6.0},
            table1=None,
            table2=None,
            difference=None,
            swing=None,
            running_total=None,
        )
    ],
    standings=[
        Standing(competitor="8", name="Ann", players=[8], points=6.0),
        Standing(competitor="2", name="Player 2", players=[2], points=-6.0),
    ],
    imps_a=0,
    imps_b=0,
    finished=False,
)
INDIVIDUAL_VIEW = PlayerView(
    match=INDIVIDUAL_SUMMARY,
    player=1,
    round=1,
    table=1,
    seat="S",
    team=None,
    competitor="1",
    partner=8,
    opponents=[6, 2],
    played_round=True,
    waiting_for=[2],
    next_seat=NextSeat(round=2, table=1, seat="E", partner=6, opponents=[8, 5], names={"8": "Ann"}),
    board=None,
    results=[
        TableResultView(
            table=1, round=1, board=1, contract="4S", declarer="N", tricks=10, ns_score=420
        )
    ],
    players=PLAYERS,
    chat=[],
)
WATCH_VIEW = WatchView(
    match=SUMMARY,
    mode="director",
    tables=[BOARD_IN_PLAY, BOARD_FINISHED],
    results=[RESULT_1, RESULT_2],
    players=PLAYERS,
    chat=[ChatLine(table=1, seat=None, text="play on", to=["N", "E", "S", "W"])],
    director_calls=[CALL],
)

EVENTS: list[Event] = [
    Snapshot(),
    BoardStarted(table=1, board=2),
    CallMade(table=1, seat="N", call="1NT", alert="15-17 balanced"),
    CardPlayed(table=1, seat="N", card="HQ", trick_winner="N"),
    ClaimMade(table=1, claimer="N", tricks=8),
    ClaimAnswered(table=1, seat="E", accept=False),
    DirectorRuled(table=1, declarer_tricks=9),
    BoardFinished(table=1, result=RESULT_1),
    BoardCompared(comparison=COMPARISON),
    MatchFinished(
        imps_a=9,
        imps_b=0,
        winner="A",
        standings=[
            Standing(competitor="A", name="Sharks", players=[1, 2, 3, 4], points=9.0),
            Standing(competitor="B", name="Minnows", players=[5, 6, 7, 8], points=0.0),
        ],
    ),
    ChatSent(table=1, seat="S", text="well played", to=["E", "S", "W"]),
    QuestionAsked(table=1, seat="E", index=0),
    CallExplained(table=1, seat="N", index=0, text="15-17 balanced"),
    ClaimWithdrawn(table=1, seat="N"),
    ConcessionWithdrawn(table=1, seat="E"),
    ConcessionWithdrawalAsked(table=1, seat="W"),
    ConcessionWithdrawalRefused(table=2, seat="N"),
    UndoRequested(table=1, seat="N", card="HQ"),
    UndoAnswered(table=1, seat=None, accept=True),
    Undone(table=1, seat="N", card="HQ"),
    ResultAssigned(table=1, result=RESULT_1.model_copy(update={"assigned": True})),
    ReadyForNext(table=1, seat="W"),
    ReviewEnded(table=1, board=1),
    DirectorCalled(table=1, seat="W", board=1, text="revoke?"),
    DirectorCallsSeen(table=1),
    DirectorCallsClosed(table=1),
    NameSet(table=1, seat="S", name="Cy"),
    PresenceChanged(table=1, seat="S", connected=False, robot=False),
    SeatSubstituted(table=1, seat="S", robot=True),
    TimeUp(table=1, round=2),
    LeadFaceDown(table=1, seat="E"),
]

CLIENT_EXAMPLES: list[BaseModel] = [
    Hello(
        version=PROTOCOL_VERSION, token="lmGNfzC3idEWTOgDJIr6E57TmylZ9Gdm", last_seq=3, client="x"
    ),
    CreateMatch(boards=1, team_a="Sharks", team_b="Minnows", deals_pbn='[Board "1"]', ref=1),
    MakeCall(call="1NT", alert="15-17 balanced", ref=15),
    PlayCard(card="HJ", ref=25),
    MakeClaim(tricks=8, ref=32),
    AnswerClaim(accept=True, ref=33),
    SendChat(text="well played", ref=26),
    AskAboutCall(index=0, ref=27),
    GetRecord(ref=40),
    GetRecord(format="lin", ref=41),
    GetRecord(match_id="35e80982ec4f2b10", ref=42),
    OpenSession(ref=43),
    CloseSession(ref=44),
    ListMatches(live=True, archived=True, ref=45),
    GetLinks(match_id="35e80982ec4f2b10", ref=46),
    NewLink(match_id="35e80982ec4f2b10", player=7, ref=47),
    ArchiveMatch(match_id="35e80982ec4f2b10", archived=False, ref=48),
    CreateEvent(
        name="Club Swiss",
        kind="swiss",
        teams=[
            EventTeamSpec(name="Ash", players=["Ann", "Bo", "Cy", "Di", "Ed"]),
            EventTeamSpec(name="Bots", robots=True),
        ],
        rounds=1,
        boards_per_round=6,
        first_round="drawn",
        bye_vps=12.5,
        start="director",
        request_id="evening-2026-12-06",
        ref=49,
    ),
    StartEventRound(
        event_id="5e0c8a1f2b3d4e6f",
        round=2,
        matches=[EventPairing(home=1, away=4), EventPairing(home=3, away=2)],
        bye=5,
        ref=50,
    ),
    AdjustEvent(event_id="5e0c8a1f2b3d4e6f", team=3, vps=-1.5, reason="slow play", round=2),
    GetEvent(event_id="5e0c8a1f2b3d4e6f", ref=51),
    ListEvents(ref=52),
    ImportMatch(record='[Board "1"]', ref=42),
    SealDeals(public_form="digits 5", ref=43),
    CreateMatch(boards=4, seal="kP3cT0oQ", public_value="dice 6 2 5", ref=44),
    ImportMatch(format="lin", record="vg|Trials,Segment 1,I,1,2,Home,0,Away,0|", spectators="off"),
    ExplainCall(index=0, text="15-17 balanced", ref=28),
    Rule(table=1, declarer_tricks=9, ref=17),
    Ping(ref=2**31 - 1),
    HeartbeatAnswer(ref=7),
    Hello(version=PROTOCOL_VERSION, token="t", heartbeat=True),
    WithdrawClaim(ref=41),
    WithdrawConcession(ref=42),
    Undo(ref=43),
    AnswerUndo(accept=False, table=2, ref=44),
    NextBoard(ref=45),
    SetName(name="Ann", ref=46),
    CallDirector(text="lead out of turn?", ref=47),
    AssignResult(table=1, board=3, contract="4SX", declarer="W", tricks=8, ref=48),
    AdjustScore(board=3, imps_a=-3, ref=49),
    VoidBoard(board=4, ref=50),
    Substitute(table=2, seat="E", robot=True, ref=51),
    GetBoard(board=1, ref=52),
    StartRound(round=2, ref=53),
    SeeCalls(table=1, ref=54),
    CloseCalls(table=2, action_id="director-close-1", ref=55),
    DecideWithdrawal(table=1, allow=True, action_id="director-allow-1", ref=56),
    FaceLead(action_id="west-face-1", ref=57),
]

SERVER_EXAMPLES: list[BaseModel] = [
    Welcome(
        version=PROTOCOL_VERSION,
        role="player",
        match_id="35e80982ec4f2b10",
        player=1,
        table=1,
        seat="N",
        seq=17,
    ),
    Update(
        seq=40,
        events=[BoardFinished(table=1, result=INDIVIDUAL_VIEW.results[0])],
        view=INDIVIDUAL_VIEW,
        changes=[],
    ),
    Update(
        seq=13, events=[ClaimMade(table=1, claimer="N", tricks=8)], view=PLAYER_VIEW, changes=[]
    ),
    Update(
        seq=14,
        events=[UndoRequested(table=1, seat="N", card="HQ")],
        view=PLAYER_VIEW.model_copy(update={"board": BOARD_UNDO, "review": None}),
        changes=[],
    ),
    BoardRecord(board=1, tables=[BOARD_FINISHED], comparison=COMPARISON, ref=52),
    Substituted(player=2, table=2, seat="E", link=None, ref=51),
    Update(seq=29, events=EVENTS, view=WATCH_VIEW, changes=[]),
    Update(
        seq=30,
        events=[CardPlayed(table=1, seat="E", card="HQ", trick_winner=None)],
        changes=[
            Change(op="replace", path="/board/hands/E", value=["SA", "HK"]),
            Change(
                op="add", path="/board/current_trick/cards/1", value={"seat": "E", "card": "HQ"}
            ),
            Change(op="replace", path="/match/comparisons/0/par", value=None),
        ],
    ),
    MatchRecord(record='[Event "duplicate match 35e80982ec4f2b10"]\n[Board "1"]\n', ref=40),
    MatchRecord(format="lin", record="pn|Ann,Bo,Cy,Di|st||md|1SAK2HKQ5DK43CQ652,,,|\n", ref=41),
    Ack(ref=15, seq=2),
    ErrorMessage(code=ErrorCode.ILLEGAL_CALL, message="1S is insufficient", ref=15),
    MatchCreated(
        match_id="35e80982ec4f2b10",
        seats=[
            SeatLink(
                player=1,
                table=1,
                seat="N",
                team="A",
                competitor="A",
                link="http://127.0.0.1:8765/play#TOKEN",
            )
        ],
        spectator=None,
        director="http://127.0.0.1:8765/direct#TOKEN",
        deals_commitment="0f" * 32,
        ref=1,
    ),
    DealsSealed(seal="kP3cT0oQ", seed_commitment="a1" * 32, ref=43),
    Pong(ref=None),
    SessionOpened(token="os_" + "a" * 43, expires_at=1_796_305_879_996, ref=43),
    SessionClosed(ref=44),
    MatchList(
        matches=[
            MatchEntry(
                match_id="35e80982ec4f2b10",
                format="teams",
                scoring="imps",
                status="playing",
                created_at=1_796_305_879_996,
                boards=4,
                rounds=1,
                compared=1,
                team_a="Reds",
                team_b="Blues",
                standings=[Standing(competitor="A", name="Reds", players=[1, 2, 3, 4], points=6)],
                tables=[
                    TableEntry(
                        table=1,
                        round=1,
                        board=2,
                        phase="play",
                        trick=4,
                        contract="4SX",
                        declarer="E",
                        boards_played=1,
                        players=[PlayerInfo(table=1, seat="N", player=1, name="Ann")],
                        director_calls=[
                            DirectorCallView(table=1, seat="E", board=2, at=1_796_305_879_000)
                        ],
                        waiting_for=["W"],
                    )
                ],
            )
        ],
        live=True,
        ref=None,
    ),
    MatchLinks(
        match_id="35e80982ec4f2b10",
        links=[
            LinkEntry(
                role="player",
                player=1,
                table=1,
                seat="N",
                team="A",
                name="Ann",
                link="http://127.0.0.1:8765/play#e5UUBaMmyF6HbwqW9sKNbzu3C3v99n7J",
                qr="data:image/svg+xml,%3Csvg%3E%3C/svg%3E",
            ),
            LinkEntry(role="director", link="http://127.0.0.1:8765/direct#x"),
        ],
        ref=46,
    ),
    MatchArchived(match_id="35e80982ec4f2b10", archived=True, ref=48),
    EventCreated(event_id="5e0c8a1f2b3d4e6f", rounds=4, ref=49),
    EventList(
        events=[
            EventEntry(
                event_id="5e0c8a1f2b3d4e6f",
                name="Club Swiss",
                kind="swiss",
                status="playing",
                teams=5,
                rounds=4,
                round=2,
                created_at=1796561965550,
                leader="Ash",
            )
        ],
        ref=52,
    ),
    EventView(
        event_id="5e0c8a1f2b3d4e6f",
        name="Club Swiss",
        kind="swiss",
        status="playing",
        rounds=4,
        boards_per_round=1,
        round=2,
        teams=[
            EventTeamEntry(team=1, name="Ash", players=["Ann", "Bo", "Cy", "Di"]),
            EventTeamEntry(
                team=2,
                name="Bots",
                players=["Robot 1", "Robot 2", "Robot 3", "Robot 4"],
                robots=True,
            ),
            EventTeamEntry(team=3, name="Cedar", players=["Fay", "Gil", "Hal", "Ida"]),
        ],
        schedule=[
            EventRoundEntry(
                round=1,
                status="finished",
                boards=[1],
                matches=[
                    EventMatchEntry(
                        home=1,
                        away=3,
                        match_id="35e80982ec4f2b10",
                        status="finished",
                        home_imps=10,
                        away_imps=0,
                        home_vps=15.6,
                        away_vps=4.4,
                    )
                ],
                bye=2,
                bye_vps=12.0,
            ),
            EventRoundEntry(
                round=2,
                status="playing",
                boards=[2],
                matches=[
                    EventMatchEntry(home=2, away=1, match_id="9f3e1c2b4a5d6e7f", status="playing")
                ],
                bye=3,
                bye_vps=12.0,
            ),
        ],
        standings=[
            EventStanding(rank=1, team=1, vps=15.6, played=1, imps_for=10, imps_against=0),
            EventStanding(rank=2, team=2, vps=12.0, played=0, imps_for=0, imps_against=0),
            EventStanding(rank=3, team=3, vps=4.4, played=1, imps_for=0, imps_against=10),
        ],
        cross_table=[
            CrossTableEntry(team=1, opponent=3, round=1, imps_for=10, imps_against=0, vps=15.6),
            CrossTableEntry(team=3, opponent=1, round=1, imps_for=0, imps_against=10, vps=4.4),
        ],
        adjustments=[EventAdjustment(team=3, vps=-1.0, reason="late", round=1)],
        butler=[
            ButlerEntry(rank=1, team=1, players=["Ann", "Bo"], boards=1, imps=6, per_board=6.0)
        ],
        travellers=[
            Traveller(
                board=1,
                dealer="N",
                vulnerability="None",
                deal="N:AKQ.AKQ.AKQ.AKQJ 432.432.432.5432 JT98.JT98.JT9.T9 765.765.8765.876",
                datum=170,
                lines=[
                    TravellerLine(
                        match_id="35e80982ec4f2b10",
                        table=1,
                        north_south=["Ann", "Bo"],
                        east_west=["Fay", "Gil"],
                        contract="3NT",
                        declarer="N",
                        tricks=10,
                        score=430,
                        ns_imps=6,
                    )
                ],
            )
        ],
        ref=51,
    ),
    Heartbeat(ref=7),
]


def frame(value: Any) -> bytes:
    """Any msgpack-able value as a frame, exactly as a foreign client would pack it."""
    packed: bytes = msgpack.packb(value, use_bin_type=True)
    return packed


def refusal(decode: Any, data: bytes | str) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        decode(data)
    return caught.value


# -- round trips -------------------------------------------------------------------------


class TestRoundTrip:
    @pytest.mark.parametrize(
        ("union", "examples"),
        [(ClientMessage, CLIENT_EXAMPLES), (ServerMessage, SERVER_EXAMPLES)],
        ids=["client", "server"],
    )
    def test_every_member_of_the_union_has_an_example(
        self, union: Any, examples: list[BaseModel]
    ) -> None:
        assert {type(e) for e in examples} == set(union_members(union))

    def test_every_event_and_view_has_an_example(self) -> None:
        updates = [e for e in SERVER_EXAMPLES if isinstance(e, Update)]
        assert {type(e) for u in updates for e in u.events} == set(union_members(Event))
        assert {type(u.view) for u in updates} == {*union_members(View), type(None)}
        assert any(u.changes for u in updates)

    @pytest.mark.parametrize(
        "fields",
        [
            {"view": None, "changes": [], "events": [{"type": "snapshot"}]},
            {"view": "PLAYER", "changes": [{"op": "add", "path": "/chat/0", "value": 1}]},
            {"view": None, "changes": [{"op": "remove", "path": "/chat/0"}]},
            {"view": None, "changes": [{"op": "add", "path": "chat", "value": 1}]},
            {"view": None, "changes": [{"op": "add", "path": "/chat"}]},
        ],
        ids=["snapshot without view", "view and changes", "remove", "not a pointer", "no value"],
    )
    def test_an_update_is_its_whole_view_or_its_changes(self, fields: dict[str, Any]) -> None:
        value: dict[str, Any] = {"type": "update", "seq": 3, "events": [], **fields}
        if value["view"] == "PLAYER":
            value["view"] = PLAYER_VIEW.model_dump(mode="json")
        with pytest.raises(ProtocolError) as refused:
            decode_server(msgpack.packb(value))
        assert refused.value.code == ErrorCode.INVALID_MESSAGE

    @pytest.mark.parametrize("message", CLIENT_EXAMPLES, ids=lambda m: m.type)
    def test_client_message(self, message: BaseModel) -> None:
        data = encode(message)
        decoded = decode_client(data)
        assert decoded == message
        assert type(decoded) is type(message)
        assert encode(decoded) == data

    @pytest.mark.parametrize("message", SERVER_EXAMPLES, ids=lambda m: m.type)
    def test_server_message(self, message: BaseModel) -> None:
        data = encode(message)
        decoded = decode_server(data)
        assert decoded == message
        assert type(decoded) is type(message)
        assert encode(decoded) == data

    def test_a_frame_is_one_plain_msgpack_map(self) -> None:
        value = msgpack.unpackb(encode(MakeCall(call="1NT", alert="15-17", ref=3)))
        assert value == {
            "type": "call",
            "call": "1NT",
            "alert": "15-17",
            "action_id": None,
            "ref": 3,
        }

    def test_defaults_may_be_left_out(self) -> None:
        assert decode_client(frame({"type": "ping"})) == Ping(ref=None)
        assert decode_client(frame({"type": "hello", "version": 1, "token": "t"})) == Hello(
            version=1, token="t", last_seq=None, client=""
        )

    def test_error_code_arrives_as_the_enum(self) -> None:
        decoded = decode_server(frame({"type": "error", "code": "bad_token", "message": "no"}))
        assert isinstance(decoded, ErrorMessage)
        assert decoded.code is ErrorCode.BAD_TOKEN

    def test_client_and_server_tags_are_distinct(self) -> None:
        client = {tag(m) for m in union_members(ClientMessage)}
        server = {tag(m) for m in union_members(ServerMessage)}
        assert not client & server
        assert len(client) == len(union_members(ClientMessage))
        assert len(server) == len(union_members(ServerMessage))


# -- strict decoding -----------------------------------------------------------------------


def sized_create_match(size: int) -> bytes:
    """A valid ``create_match`` frame of exactly ``size`` bytes (its deal text padded)."""
    pad = "é" * ((size - 400) // 2)  # two bytes each, within the 900,000-character limit
    data = encode(CreateMatch(deals_pbn=pad, ref=None))
    missing = size - len(data)
    assert missing >= 0
    data = encode(CreateMatch(deals_pbn=pad + "a" * missing, ref=None))
    assert len(data) == size
    return data


def sized_error(size: int) -> bytes:
    """A valid ``error`` frame of exactly ``size`` bytes (its message padded)."""
    data = encode(ErrorMessage(code=ErrorCode.INTERNAL, message="x" * (size - 100)))
    data = encode(
        ErrorMessage(code=ErrorCode.INTERNAL, message="x" * (size - 100 + size - len(data)))
    )
    assert len(data) == size
    return data


PING = frame({"type": "ping"})

BAD_CLIENT_FRAMES: list[tuple[str, bytes | str, ErrorCode]] = [
    # Not msgpack, or not one map.
    ("empty frame", b"", ErrorCode.MALFORMED),
    ("reserved byte", b"\xc1", ErrorCode.MALFORMED),
    ("truncated map", PING[:-1], ErrorCode.MALFORMED),
    ("map promising more entries", b"\x82\xa4type\xa4ping", ErrorCode.MALFORMED),
    ("invalid utf-8 string", b"\x81\xa4type\xa2\xff\xfe", ErrorCode.MALFORMED),
    ("integer keys", frame({1: 2}), ErrorCode.MALFORMED),
    ("nested too deep", b"\x91" * 100_000, ErrorCode.MALFORMED),
    ("a list", frame([{"type": "ping"}]), ErrorCode.MALFORMED),
    ("a string", frame("ping"), ErrorCode.MALFORMED),
    ("an integer", frame(7), ErrorCode.MALFORMED),
    ("nil", frame(None), ErrorCode.MALFORMED),
    ("an extension type", frame(msgpack.ExtType(1, b"x")), ErrorCode.MALFORMED),
    ("trailing byte", PING + b"\x00", ErrorCode.MALFORMED),
    ("two messages in one frame", PING + PING, ErrorCode.MALFORMED),
    # Text frames.
    ("text frame", '{"type": "ping"}', ErrorCode.BINARY_ONLY),
    ("empty text frame", "", ErrorCode.BINARY_ONLY),
    ("over-size text frame", "x" * (MAX_CLIENT_FRAME + 1), ErrorCode.BINARY_ONLY),
    # The type tag.
    ("unknown type", frame({"type": "bid", "call": "1S"}), ErrorCode.UNKNOWN_TYPE),
    ("a server message", frame({"type": "pong"}), ErrorCode.UNKNOWN_TYPE),
    ("type of another case", frame({"type": "PING"}), ErrorCode.UNKNOWN_TYPE),
    ("integer type", frame({"type": 5}), ErrorCode.UNKNOWN_TYPE),
    ("nil type", frame({"type": None}), ErrorCode.UNKNOWN_TYPE),
    ("binary type", frame({"type": b"ping"}), ErrorCode.UNKNOWN_TYPE),
    ("missing type", frame({"call": "1S"}), ErrorCode.INVALID_MESSAGE),
    ("empty map", frame({}), ErrorCode.INVALID_MESSAGE),
    ("binary key 'type'", frame({b"type": "ping"}), ErrorCode.INVALID_MESSAGE),
    # Fields.
    ("extra field", frame({"type": "ping", "extra": 1}), ErrorCode.INVALID_MESSAGE),
    ("missing field", frame({"type": "card"}), ErrorCode.INVALID_MESSAGE),
    ("nil for a required field", frame({"type": "card", "card": None}), ErrorCode.INVALID_MESSAGE),
    ("string for int", frame({"type": "claim", "tricks": "3"}), ErrorCode.INVALID_MESSAGE),
    ("int for string", frame({"type": "card", "card": 5}), ErrorCode.INVALID_MESSAGE),
    ("bool for int", frame({"type": "claim", "tricks": True}), ErrorCode.INVALID_MESSAGE),
    ("float for int", frame({"type": "claim", "tricks": 3.0}), ErrorCode.INVALID_MESSAGE),
    ("int for bool", frame({"type": "claim_answer", "accept": 1}), ErrorCode.INVALID_MESSAGE),
    ("binary for string", frame({"type": "card", "card": b"SA"}), ErrorCode.INVALID_MESSAGE),
    ("list for string", frame({"type": "chat", "text": ["hi"]}), ErrorCode.INVALID_MESSAGE),
    (
        "string version",
        frame({"type": "hello", "version": "1", "token": "t"}),
        ErrorCode.INVALID_MESSAGE,
    ),
    ("empty token", frame({"type": "hello", "version": 1, "token": ""}), ErrorCode.INVALID_MESSAGE),
    (
        "negative last_seq",
        frame({"type": "hello", "version": 1, "token": "t", "last_seq": -1}),
        ErrorCode.INVALID_MESSAGE,
    ),
    ("negative ref", frame({"type": "ping", "ref": -1}), ErrorCode.INVALID_MESSAGE),
    ("ref over 2**31 - 1", frame({"type": "ping", "ref": 2**31}), ErrorCode.INVALID_MESSAGE),
    ("claim of 14 tricks", frame({"type": "claim", "tricks": 14}), ErrorCode.INVALID_MESSAGE),
    (
        "table 4",
        frame({"type": "rule", "table": 4, "declarer_tricks": 9}),
        ErrorCode.INVALID_MESSAGE,
    ),
    ("no boards", frame({"type": "create_match", "boards": 0}), ErrorCode.INVALID_MESSAGE),
    (
        "unknown spectator mode",
        frame({"type": "create_match", "spectators": "on"}),
        ErrorCode.INVALID_MESSAGE,
    ),
    ("empty chat", frame({"type": "chat", "text": ""}), ErrorCode.INVALID_MESSAGE),
    (
        "chat of 301 characters",
        frame({"type": "chat", "text": "x" * 301}),
        ErrorCode.INVALID_MESSAGE,
    ),
    ("empty alert", frame({"type": "call", "call": "1S", "alert": ""}), ErrorCode.INVALID_MESSAGE),
    # Card and call patterns.
    ("card '10'", frame({"type": "card", "card": "S10"}), ErrorCode.INVALID_MESSAGE),
    ("lowercase card", frame({"type": "card", "card": "sa"}), ErrorCode.INVALID_MESSAGE),
    ("rank first", frame({"type": "card", "card": "AS"}), ErrorCode.INVALID_MESSAGE),
    ("suit symbol", frame({"type": "card", "card": "♠A"}), ErrorCode.INVALID_MESSAGE),
    ("card with a newline", frame({"type": "card", "card": "SA\n"}), ErrorCode.INVALID_MESSAGE),
    ("no trump as N", frame({"type": "call", "call": "3N"}), ErrorCode.INVALID_MESSAGE),
    ("level 8", frame({"type": "call", "call": "8NT"}), ErrorCode.INVALID_MESSAGE),
    ("level 0", frame({"type": "call", "call": "0S"}), ErrorCode.INVALID_MESSAGE),
    ("PASS spelled out", frame({"type": "call", "call": "PASS"}), ErrorCode.INVALID_MESSAGE),
    ("a contract as a call", frame({"type": "call", "call": "4SX"}), ErrorCode.INVALID_MESSAGE),
    ("XXX", frame({"type": "call", "call": "XXX"}), ErrorCode.INVALID_MESSAGE),
]


class TestStrictDecoding:
    @pytest.mark.parametrize(
        ("data", "code"),
        [pytest.param(data, code, id=name) for name, data, code in BAD_CLIENT_FRAMES],
    )
    def test_bad_client_frame(self, data: bytes | str, code: ErrorCode) -> None:
        error = refusal(decode_client, data)
        assert error.code is code
        assert error.message
        assert str(error).startswith(f"{code}: ")

    @pytest.mark.parametrize(
        ("value", "code"),
        [
            ({"type": "hello", "version": 1, "token": "t"}, ErrorCode.UNKNOWN_TYPE),
            (
                {"type": "welcome", "version": 1, "role": "player", "seat": "X"},
                ErrorCode.INVALID_MESSAGE,
            ),
            (
                {"type": "welcome", "version": 1, "role": "player", "seat": "north"},
                ErrorCode.INVALID_MESSAGE,
            ),
            ({"type": "welcome", "version": 1, "role": "king"}, ErrorCode.INVALID_MESSAGE),
            ({"type": "ack", "seq": "1"}, ErrorCode.INVALID_MESSAGE),
            (
                {
                    "type": "update",
                    "seq": 0,
                    "events": [],
                    "view": PLAYER_VIEW.model_dump(mode="json"),
                },
                ErrorCode.INVALID_MESSAGE,
            ),
            (
                {
                    "type": "update",
                    "seq": 1,
                    "events": [{"type": "card_played", "table": 1, "seat": "Q", "card": "SA"}],
                    "view": PLAYER_VIEW.model_dump(mode="json"),
                },
                ErrorCode.INVALID_MESSAGE,
            ),
            (
                {
                    "type": "update",
                    "seq": 1,
                    "events": [],
                    "view": {**PLAYER_VIEW.model_dump(mode="json"), "seat": "NS"},
                },
                ErrorCode.INVALID_MESSAGE,
            ),
        ],
        ids=[
            "a client message",
            "seat X",
            "seat spelled out",
            "unknown role",
            "string seq",
            "seq 0",
            "bad seat in an event",
            "bad seat in a view",
        ],
    )
    def test_bad_server_frame(self, value: dict[str, Any], code: ErrorCode) -> None:
        assert refusal(decode_server, frame(value)).code is code

    @pytest.mark.parametrize(
        ("events", "view_type"),
        [([], "nothing")],
        ids=["unknown view"],
    )
    def test_unknown_nested_tag_names_the_nested_tag(
        self, events: list[dict[str, Any]], view_type: str
    ) -> None:
        view = {**PLAYER_VIEW.model_dump(mode="json"), "type": view_type}
        value = {"type": "update", "seq": 1, "events": events, "view": view}
        error = refusal(decode_server, frame(value))
        assert "'nothing'" in error.message

    def test_an_unknown_event_is_left_out(self) -> None:
        """Version 7: a newer server may send an event this code does not know."""
        view = PLAYER_VIEW.model_dump(mode="json")
        events = [{"type": "nothing"}, {"type": "snapshot"}]
        value = {"type": "update", "seq": 1, "events": events, "view": view, "changes": []}
        decoded = decode_server(frame(value))
        assert isinstance(decoded, Update)
        assert [e.type for e in decoded.events] == ["snapshot"]

    @pytest.mark.parametrize("kind", [[], {}, None, 7], ids=repr)
    def test_an_event_whose_type_is_no_name_is_refused(self, kind: object) -> None:
        """Not left out as unknown (nor a TypeError for an unhashable type, which a fuzzed
        frame found): refused as any malformed frame."""
        view = PLAYER_VIEW.model_dump(mode="json")
        events = [{"type": kind}, {"type": "snapshot"}]
        value = {"type": "update", "seq": 1, "events": events, "view": view, "changes": []}
        assert refusal(decode_server, frame(value)).code is ErrorCode.INVALID_MESSAGE

    @pytest.mark.parametrize("contract", ["4SXXX", "4N", "8S", "P", "X", "4sx", "4SX "], ids=repr)
    def test_bad_contract_pattern(self, contract: str) -> None:
        result = {**RESULT_1.model_dump(mode="json"), "contract": contract}
        value = {
            "type": "update",
            "seq": 1,
            "events": [{"type": "board_finished", "table": 1, "result": result}],
            "view": PLAYER_VIEW.model_dump(mode="json"),
        }
        assert refusal(decode_server, frame(value)).code is ErrorCode.INVALID_MESSAGE

    @pytest.mark.parametrize("card", ["SA", "HT", "D9", "C2"])
    def test_good_card_patterns(self, card: str) -> None:
        assert decode_client(frame({"type": "card", "card": card})) == PlayCard(card=card, ref=None)

    @pytest.mark.parametrize("call", ["1C", "1D", "1H", "1S", "1NT", "7NT", "P", "X", "XX"])
    def test_good_call_patterns(self, call: str) -> None:
        assert decode_client(frame({"type": "call", "call": call})) == MakeCall(call=call, ref=None)

    def test_unknown_type_names_the_type(self) -> None:
        assert "'bid'" in refusal(decode_client, frame({"type": "bid"})).message

    def test_invalid_message_names_the_field(self) -> None:
        message = refusal(decode_client, frame({"type": "claim", "tricks": "3"})).message
        assert message.startswith("claim: tricks: ")


class TestRefOfARefusal:
    """A refused map's ``ref`` is read when it is an integer, so the error can echo it."""

    @pytest.mark.parametrize(
        ("value", "ref"),
        [
            ({"type": "card", "card": "S1", "ref": 9}, 9),
            ({"type": "card", "card": "SA", "ref": 9, "extra": 1}, 9),
            ({"type": "bid", "ref": 4}, 4),
            ({"call": "1S", "ref": 5}, 5),
            ({"type": "card", "card": "S1", "ref": True}, None),
            ({"type": "card", "card": "S1", "ref": "9"}, None),
            ({"type": "card", "card": "S1", "ref": 9.0}, None),
            ({"type": "card", "card": "S1"}, None),
        ],
        ids=[
            "invalid field",
            "extra field",
            "unknown type",
            "missing type",
            "bool ref",
            "string ref",
            "float ref",
            "no ref",
        ],
    )
    def test_ref_is_read_from_a_refused_map(self, value: dict[str, Any], ref: int | None) -> None:
        assert refusal(decode_client, frame(value)).ref == ref

    @pytest.mark.parametrize(
        "data",
        [PING[:-1] + b"\xc1", frame([{"ref": 3}]), frame({"type": "ping", "ref": 3}) + b"\x00"],
        ids=["broken msgpack", "not a map", "trailing bytes"],
    )
    def test_no_ref_from_a_frame_that_is_not_one_map(self, data: bytes) -> None:
        assert refusal(decode_client, data).ref is None

    def test_no_ref_from_a_text_frame(self) -> None:
        assert refusal(decode_client, '{"type": "ping", "ref": 3}').ref is None


class TestSizeLimit:
    def test_limits(self) -> None:
        assert (MAX_CLIENT_FRAME, MAX_SERVER_FRAME) == (1024 * 1024, 4 * 1024 * 1024)

    def test_client_frame_exactly_at_the_limit_is_decoded(self) -> None:
        message = decode_client(sized_create_match(MAX_CLIENT_FRAME))
        assert isinstance(message, CreateMatch)

    def test_client_frame_one_byte_over_is_too_large(self) -> None:
        error = refusal(decode_client, sized_create_match(MAX_CLIENT_FRAME + 1))
        assert error.code is ErrorCode.TOO_LARGE
        assert str(MAX_CLIENT_FRAME) in error.message

    def test_size_is_checked_before_anything_else(self) -> None:
        garbage = b"\xc1" * (MAX_CLIENT_FRAME + 1)
        assert refusal(decode_client, garbage).code is ErrorCode.TOO_LARGE
        assert refusal(decode_client, b"\xc1" * MAX_CLIENT_FRAME).code is ErrorCode.MALFORMED

    def test_server_frame_exactly_at_the_limit_is_decoded(self) -> None:
        assert isinstance(decode_server(sized_error(MAX_SERVER_FRAME)), ErrorMessage)

    def test_server_frame_one_byte_over_is_too_large(self) -> None:
        error = refusal(decode_server, sized_error(MAX_SERVER_FRAME + 1))
        assert error.code is ErrorCode.TOO_LARGE

    def test_a_server_sized_frame_is_too_large_from_a_client(self) -> None:
        assert refusal(decode_client, sized_error(MAX_CLIENT_FRAME + 1)).code is ErrorCode.TOO_LARGE


# -- refusing costs little ---------------------------------------------------------------------


def nested(depth: int) -> bytes:
    """A map whose ``type`` is a list nested ``depth`` deep, packed by hand."""
    return b"\x81\xa4type" + b"\x91" * depth + b"\xc0"


def capacity(depth: int) -> int:
    """The most values a list nested ``depth`` deep holds within 32 entries a list, itself
    included: 33 at depth 1 (a list of 32 nils)."""
    return 33 if depth == 1 else 1 + 32 * capacity(depth - 1)


def filler(values: int, depth: int = 3) -> list[Any]:
    """Nested lists of nils, exactly ``values`` values in all, at most 32 entries a list."""
    if depth == 1:
        assert values - 1 <= 32
        return [None] * (values - 1)
    children: list[Any] = []
    left = values - 1
    while left:
        take = min(left, capacity(depth - 1))
        children.append(filler(take, depth - 1))
        left -= take
    assert len(children) <= 32
    return children


def values_frame(values: int, tag: str = "ping") -> bytes:
    """A ``tag`` map whose field ``x`` makes ``values`` values in all, 4 levels deep: the most
    a frame can make the shape check read when it keeps every other limit."""
    return frame({"type": tag, "x": filler(values - 4)})


def one_field(key: bytes, value: bytes) -> bytes:
    """A map of ``type: ping`` and one more field, packed by hand."""
    return b"\x82\xa4type\xa4ping" + key + value


def many_small_lists() -> bytes:
    """About 1 MiB of lists of empty lists, each within 32 entries and 8 levels: built, they
    would be some 900,000 lists (msgpack's own length limits alone would not stop it)."""
    level = b"\x9f" + b"\x90" * 15
    for _ in range(3):
        level = b"\xdc\x00\x1f" + level * 31
    return one_field(b"\xa1x", b"\x92" + level * 2)


MOST_NILS = MAX_CLIENT_FRAME - 11  # header bytes: map, "type", array 32
MOST_VALUES = CLIENT_LIMITS.values
WORST_FRAMES: list[tuple[str, bytes, ErrorCode]] = [
    (
        "90,000 unknown keys",
        frame({"type": "ping", **{f"k{i:05d}": None for i in range(90_000)}}),
        ErrorCode.INVALID_MESSAGE,
    ),
    ("type: 1,000,000 nils", frame({"type": [None] * 1_000_000}), ErrorCode.INVALID_MESSAGE),
    (
        "type: as many nils as fit",
        b"\x81\xa4type\xdd" + MOST_NILS.to_bytes(4, "big") + b"\xc0" * MOST_NILS,
        ErrorCode.INVALID_MESSAGE,
    ),
    (
        "type: a list claiming 2**32 - 1 nils",
        b"\x81\xa4type\xdd\xff\xff\xff\xff" + b"\xc0" * 1000,
        ErrorCode.INVALID_MESSAGE,
    ),
    ("a list of 1,000,000 nils", frame([None] * 1_000_000), ErrorCode.MALFORMED),
    ("type nested 1,000 deep", nested(1_000), ErrorCode.MALFORMED),
    ("type nested 100,000 deep", nested(100_000), ErrorCode.MALFORMED),
    (
        "a field nested 1,000,000 deep",
        one_field(b"\xa1x", b"\x91" * 1_000_000),
        ErrorCode.MALFORMED,
    ),
    (
        "10,000 keys of 100 characters",
        frame({"type": "ping", **{f"{i:05d}" + "k" * 95: 1 for i in range(10_000)}}),
        ErrorCode.INVALID_MESSAGE,
    ),
    (
        "create_match with 10,000 names",
        frame({"type": "create_match", "names": {f"{i:05d}": "Ann" for i in range(10_000)}}),
        ErrorCode.INVALID_MESSAGE,
    ),
    ("1 MiB of small lists", many_small_lists(), ErrorCode.INVALID_MESSAGE),
    ("one value too many", values_frame(MOST_VALUES + 1), ErrorCode.INVALID_MESSAGE),
    ("the most values, an unknown type", values_frame(MOST_VALUES, "bid"), ErrorCode.UNKNOWN_TYPE),
    ("the most values, a known type", values_frame(MOST_VALUES), ErrorCode.INVALID_MESSAGE),
    (
        "create_match robots of the most values",
        frame({"type": "create_match", "robots": filler(MOST_VALUES - 4)}),
        ErrorCode.INVALID_MESSAGE,
    ),
    ("type of 500,000 accented letters", frame({"type": "é" * 500_000}), ErrorCode.UNKNOWN_TYPE),
    ("type of 1,000,000 bytes", frame({"type": b"\x00" * 1_000_000}), ErrorCode.UNKNOWN_TYPE),
    (
        "a key of 1,000,000 characters",
        frame({"type": "ping", "k" * 1_000_000: 1}),
        ErrorCode.INVALID_MESSAGE,
    ),
    (
        "a card of 300,000 right-to-left marks",
        frame({"type": "card", "card": "\u202e" * 300_000, "ref": 3}),
        ErrorCode.INVALID_MESSAGE,
    ),
]
"""The costliest frames to refuse that we know of, each within the client frame limit."""

MOST_CPU_SECONDS = 0.020
"""Refusing any frame: a few milliseconds; the margin is for a loaded 2-core machine."""
MOST_ERROR_FRAME = 512


def cpu_seconds_to_refuse(decode: Any, data: bytes) -> tuple[float, ProtocolError]:
    """The CPU time ``decode`` takes to refuse ``data``: the least of three tries, as the
    cost is the same each time and anything more is the machine's noise."""
    times = []
    for _ in range(3):
        start = time.process_time()
        try:
            decode(data)
        except ProtocolError as error:
            refused = error
        else:
            raise AssertionError("decoded")
        times.append(time.process_time() - start)
    return min(times), refused


def assert_small_error(error: ProtocolError) -> None:
    """What a refusal says stays short and plain, whatever the frame held."""
    assert isinstance(error.code, ErrorCode)
    assert 0 < len(error.message) <= MAX_ERROR_MESSAGE, error.message
    assert error.message.isascii(), error.message
    assert error.message.isprintable(), error.message
    reply = encode(ErrorMessage(code=error.code, message=error.message, ref=error.ref))
    assert len(reply) < MOST_ERROR_FRAME


class TestCheapRefusals:
    """Refusing any frame costs a few milliseconds and a small error, whatever it holds."""

    @pytest.mark.parametrize(
        ("data", "code"), [pytest.param(data, code, id=name) for name, data, code in WORST_FRAMES]
    )
    def test_worst_frame_is_refused_at_once(self, data: bytes, code: ErrorCode) -> None:
        assert len(data) <= MAX_CLIENT_FRAME
        seconds, error = cpu_seconds_to_refuse(decode_client, data)
        reply = encode(ErrorMessage(code=error.code, message=error.message, ref=error.ref))
        print(
            f"\n{len(data):>9,} bytes refused in {seconds * 1000:.2f} ms CPU: {error.code}, "
            f"{len(reply)}-byte error frame: {error.message[:80]!r}"
        )
        assert error.code is code
        assert_small_error(error)
        assert seconds < MOST_CPU_SECONDS

    def test_limits(self) -> None:
        # What SPEC.md (sections 2 and 18) tells client authors: change both together.
        assert (
            FrameLimits(size=MAX_CLIENT_FRAME, entries=32, depth=8, values=2_000) == CLIENT_LIMITS
        )
        assert (SERVER_LIMITS.size, SERVER_LIMITS.depth) == (MAX_SERVER_FRAME, 32)
        assert MAX_ERROR_MESSAGE == 200

    def test_every_client_example_is_well_within_the_limits(self) -> None:
        names = {f"{table}{seat}": "Ann" for table in "12" for seat in "NESW"}
        largest = CreateMatch(
            boards=64, deals_pbn="x" * 900_000, names=names, robots=["t2"] * 8, ref=1
        )
        for message in [*CLIENT_EXAMPLES, largest]:
            assert decode_client(encode(message)) == message

    def test_values_at_the_limit_are_read(self) -> None:
        error = refusal(decode_client, values_frame(2_000))
        assert error.message == "ping: x: Extra inputs are not permitted"
        error = refusal(decode_client, values_frame(2_001))
        assert error.message == "more than 2000 values in one message"

    def test_fields_at_the_limit_are_read(self) -> None:
        fields = {f"f{i:02d}": 1 for i in range(30)}  # with type and ref: 32
        error = refusal(decode_client, frame({"type": "ping", **fields, "ref": 5}))
        assert (error.message, error.ref) == ("ping: f00: Extra inputs are not permitted", 5)
        error = refusal(decode_client, frame({"type": "ping", **fields, "f30": 1, "ref": 5}))
        assert (error.code, error.message) == (
            ErrorCode.INVALID_MESSAGE,
            "33 fields; a message has at most 32",
        )

    def test_entries_at_the_limit_are_read(self) -> None:
        error = refusal(decode_client, frame({"type": "create_match", "robots": ["t2"] * 32}))
        assert (
            error.message
            == "create_match: robots: List should have at most 12 items after validation, not 32"
        )
        error = refusal(decode_client, frame({"type": "create_match", "robots": ["t2"] * 33}))
        assert (error.code, error.message) == (
            ErrorCode.INVALID_MESSAGE,
            "a list of 33; at most 32 in a message",
        )
        names = {f"{i:02d}": "Ann" for i in range(33)}
        error = refusal(decode_client, frame({"type": "create_match", "names": names}))
        assert error.message == "a map of 33; at most 32 in a message"

    def test_depth_at_the_limit_is_read(self) -> None:
        # The message map is level 1; seven lists in its field ``x`` make 8 levels.
        error = refusal(decode_client, one_field(b"\xa1x", b"\x91" * 7 + b"\xc0"))
        assert error.message == "ping: x: Extra inputs are not permitted"
        error = refusal(decode_client, one_field(b"\xa1x", b"\x91" * 8 + b"\xc0"))
        assert (error.code, error.message) == (ErrorCode.MALFORMED, "nested deeper than 8 levels")
        empty_maps = one_field(b"\xa1x", b"\x91" * 7 + b"\x80")
        assert refusal(decode_client, empty_maps).code is ErrorCode.MALFORMED

    def test_a_server_frame_nested_deep_is_malformed(self) -> None:
        view = PLAYER_VIEW.model_dump(mode="json")
        deep: Any = None
        for _ in range(1_000):
            deep = [deep]
        for events in ([{"type": deep}], [{"type": "card_played", "table": deep}], deep):
            value = {"type": "update", "seq": 1, "events": events, "view": view}
            seconds, error = cpu_seconds_to_refuse(decode_server, frame(value))
            assert error.code is ErrorCode.MALFORMED
            assert error.message == "nested deeper than 32 levels"
            assert seconds < MOST_CPU_SECONDS

    def test_msgpack_itself_refuses_long_lists(self, monkeypatch: pytest.MonkeyPatch) -> None:
        # Were the shape check to miss one, msgpack's own limits would still refuse a long
        # list at its header, before building it.
        monkeypatch.setattr(codec, "_check_shape", lambda frame, limits: None)
        seconds, error = cpu_seconds_to_refuse(decode_client, frame({"type": [None] * 1_000_000}))
        assert (error.code, error.message) == (
            ErrorCode.MALFORMED,
            "not valid msgpack (ValueError)",
        )
        assert seconds < MOST_CPU_SECONDS
        many_keys = frame({"type": "ping", **{f"k{i}": 1 for i in range(33)}})
        assert refusal(decode_client, many_keys).code is ErrorCode.MALFORMED

    def test_a_refusal_for_the_shape_has_no_ref(self) -> None:
        # The map is refused before it is read, so its ``ref`` is not known.
        error = refusal(decode_client, frame({"ref": 7, "type": "ping", "x": list(range(33))}))
        assert error.ref is None


class TestErrorMessages:
    """An error echoes at most a short, escaped prefix of the input."""

    def test_a_long_type_is_cut_short(self) -> None:
        error = refusal(decode_client, frame({"type": "bid" + "x" * 1_000}))
        assert error.message.startswith("unknown message type 'bidxxx")
        assert error.message.endswith("...")
        assert len(error.message) <= MAX_ERROR_MESSAGE

    @pytest.mark.parametrize(
        ("tag", "echo"),
        [
            ("bid", "'bid'"),
            (5, "5"),
            (None, "None"),
            (b"ping", "b'ping'"),
            ([1, [2, [3, [4]]]], "[1, [2, [...]]]"),
            ({"a": 1}, "{'a': 1}"),
            (list(range(10)), "[0, 1, 2, 3, ...]"),
            ("b\u00efd\u202e", "'b\\xefd\\u202e'"),
            ("a\nb", "'a\\nb'"),
        ],
        ids=repr,
    )
    def test_an_unknown_type_is_echoed_briefly(self, tag: Any, echo: str) -> None:
        error = refusal(decode_client, frame({"type": tag}))
        assert (error.code, error.message) == (
            ErrorCode.UNKNOWN_TYPE,
            f"unknown message type {echo}",
        )

    def test_a_long_nested_tag_from_the_server_is_cut_short(self) -> None:
        view = {**PLAYER_VIEW.model_dump(mode="json"), "type": "\u00e9" * 1_000_000}
        value = {"type": "update", "seq": 1, "events": [], "view": view, "changes": []}
        error = refusal(decode_server, frame(value))
        assert error.message.startswith("update: view: Input tag '\\xe9\\xe9")
        assert_small_error(error)

    def test_control_characters_in_a_field_name_are_escaped(self) -> None:
        error = refusal(decode_client, frame({"type": "create_match", "names": {"\x1b[2J": "Ann"}}))
        assert error.message.startswith("create_match: names.\\x1b[2J")

    def test_a_binary_field_name_is_refused(self) -> None:
        error = refusal(decode_client, frame({"type": "ping", b"ref": 3}))
        assert (error.code, error.message) == (
            ErrorCode.INVALID_MESSAGE,
            "ping: field names are strings, not b'ref'",
        )


# -- the models ------------------------------------------------------------------------------

ALL_EXAMPLES: list[BaseModel] = [*CLIENT_EXAMPLES, *SERVER_EXAMPLES, *EVENTS]


class TestModels:
    @pytest.mark.parametrize("message", ALL_EXAMPLES, ids=lambda m: m.type)
    def test_frozen(self, message: BaseModel) -> None:
        with pytest.raises(ValidationError, match="frozen"):
            message.type = "other"  # type: ignore[attr-defined]
        fields = [name for name in type(message).model_fields if name != "type"] or ["type"]
        field = fields[0]
        with pytest.raises(ValidationError, match="frozen"):
            setattr(message, field, getattr(message, field))

    @pytest.mark.parametrize("message", CLIENT_EXAMPLES, ids=lambda m: m.type)
    def test_extra_fields_forbidden_in_client_messages(self, message: BaseModel) -> None:
        with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
            type(message).model_validate({**message.model_dump(), "extra": 1})
        with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
            type(message)(**message.model_dump(), extra=1)

    @pytest.mark.parametrize("message", [*SERVER_EXAMPLES, *EVENTS], ids=lambda m: m.type)
    def test_extra_fields_ignored_in_server_messages(self, message: BaseModel) -> None:
        """Version 7: a client ignores what a newer server adds within the version."""
        assert type(message).model_validate({**message.model_dump(), "extra": 1}) == message

    def test_every_model_is_frozen_strict_and_forbids_extras(self) -> None:
        seen: set[type[BaseModel]] = set()

        def visit(model: type[BaseModel]) -> None:
            if model in seen:
                return
            seen.add(model)
            assert issubclass(model, Message | Sent), model
            for field in model.model_fields.values():
                for inner in _models_in(field.annotation):
                    visit(inner)

        for member in union_members(ClientMessage):
            visit(member)
        client = set(seen)
        for member in union_members(ServerMessage):
            visit(member)
        assert {AuctionEntry, ClaimView, SeatLink, TrickView, PlayedCard} <= seen - client
        for model in seen:
            config = model.model_config
            extra = "forbid" if model in client else "ignore"
            assert (config.get("frozen"), config.get("extra"), config.get("strict")) == (
                True,
                extra,
                True,
            ), model

    def test_no_coercion(self) -> None:
        with pytest.raises(ValidationError):
            MakeClaim(tricks="3", ref=None)  # type: ignore[arg-type]
        with pytest.raises(ValidationError):
            AnswerClaim(accept=1, ref=None)  # type: ignore[arg-type]

    def test_type_tag_is_a_literal(self) -> None:
        with pytest.raises(ValidationError):
            Ping(type="pong", ref=None)  # type: ignore[arg-type]

    def test_schema_function_is_in_the_codec(self) -> None:
        assert codec.json_schema()["client_message"]["discriminator"]["propertyName"] == "type"


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """Every model named anywhere inside a field's annotation."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


# -- fuzzing ---------------------------------------------------------------------------------

KNOWN_TAGS = [tag(m) for m in union_members(ClientMessage) + union_members(ServerMessage)]
FIELD_NAMES = sorted(
    {name for m in union_members(ClientMessage) for name in m.model_fields} - {"type"} | {"extra"}
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.text()
    | st.binary()
)
msgpack_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(
            st.text() | st.binary() | st.integers(-(2**63), 2**64 - 1), children, max_size=5
        )
    ),
    max_leaves=20,
)
field_values = st.recursive(
    scalars | st.sampled_from(["SA", "1NT", "P", "XX", "N", "live", "A"]) | st.integers(0, 14),
    lambda children: st.lists(children, max_size=3),
    max_leaves=6,
)
near_messages = st.fixed_dictionaries(
    {"type": st.sampled_from(KNOWN_TAGS)},
    optional=dict.fromkeys(FIELD_NAMES, field_values),
)
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def decodes_or_refuses(decode: Any, data: bytes | str) -> None:
    try:
        message = decode(data)
    except ProtocolError as error:
        code = error.code
    else:
        assert isinstance(message, BaseModel)
        assert decode(encode(message)) == message
        return
    assert isinstance(code, ErrorCode)


class TestFuzz:
    @FUZZ
    @given(st.binary(max_size=256))
    def test_arbitrary_bytes(self, data: bytes) -> None:
        decodes_or_refuses(decode_client, data)
        decodes_or_refuses(decode_server, data)

    @FUZZ
    @given(st.text(max_size=64))
    def test_arbitrary_text_frames(self, data: str) -> None:
        assert refusal(decode_client, data).code is ErrorCode.BINARY_ONLY

    @FUZZ
    @given(msgpack_values)
    def test_arbitrary_msgpack_values(self, value: Any) -> None:
        data = frame(value)
        decodes_or_refuses(decode_client, data)
        decodes_or_refuses(decode_server, data)

    @FUZZ
    @given(near_messages)
    def test_maps_with_a_known_type(self, value: dict[str, Any]) -> None:
        decodes_or_refuses(decode_client, frame(value))

    @FUZZ
    @given(msgpack_values, st.binary(min_size=1, max_size=8))
    def test_trailing_bytes_are_malformed(self, value: Any, tail: bytes) -> None:
        data = frame({"type": "ping", "x": value}) + tail
        assert refusal(decode_client, data).code is ErrorCode.MALFORMED
