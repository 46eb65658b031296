"""The director's frames that name what the match does not have (a table, a board) are
refused with ``invalid_message`` and change nothing, whatever the number; and the director's
chat, like the players' table talk, is bounded per table and per board."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import msgpack
import pytest
import pytest_asyncio
from redis.asyncio import Redis
from websockets.asyncio.client import ClientConnection, connect

from bridge import BridgeError, Deal, Seat, Vulnerability
from clients.client import Client, ClientError, Link
from protocol.codec import decode_server, encode
from protocol.errors import ErrorCode
from protocol.messages import (
    PROTOCOL_VERSION,
    AdjustScore,
    AnswerUndo,
    AssignResult,
    ErrorMessage,
    GetBoard,
    Hello,
    Rule,
    SendChat,
    StartRound,
    Substitute,
    Undo,
    Update,
    VoidBoard,
    Welcome,
)
from server.app import Server
from server.config import BoardSpec, MatchConfig, default_movement
from server.matches import DIRECTOR_CHAT_LIMIT, EXTRA_LIMIT
from server.state import MatchState
from tests.server.harness import (
    SEATS,
    STRONG_NORTH,
    Match,
    analysed,
    bid,
    board_view,
    create,
    seat_everyone,
    settle,
    stored_events,
)
from tests.server.test_bad_input import log_lengths
from tests.server.test_director import boards

DirectorFrame = (  # what the director sends that names a table, a board or a round
    Rule | AssignResult | Undo | AnswerUndo | SendChat | Substitute | AdjustScore | VoidBoard
    | GetBoard | StartRound
)  # fmt: skip


@pytest_asyncio.fixture
async def match(server: Server) -> AsyncIterator[Match]:
    """A teams match of two boards at two tables, every seat connected, its analysis logged
    (the tests compare the logs before and after)."""
    created = await create(server, boards=2, deals_pbn=boards(2), chat="table")
    seated = await seat_everyone(server, created)
    await analysed(server, created.match_id)
    yield seated
    await seated.close()


@pytest_asyncio.fixture
async def director(match: Match) -> AsyncIterator[Client]:
    client = await Client.connect(match.created.director, name="director")
    yield client
    await client.close()


def every_view(match: Match, director: Client) -> dict[object, object]:
    views: dict[object, object] = {key: c.view for key, c in match.players.items()}
    views["director"] = director.view
    return views


async def refused(
    redis: Redis, match: Match, director: Client, action: DirectorFrame, code: ErrorCode
) -> ClientError:
    """Send ``action`` as the director: it is refused with ``code``, and neither the logs
    nor anyone's view change."""
    before_logs = await log_lengths(redis, match.created.match_id)
    for client in [director, *match.players.values()]:
        await client.ping()
    before_views = every_view(match, director)
    with pytest.raises(ClientError) as refusal:
        await director.request(lambda ref: action.model_copy(update={"ref": ref}))
    assert refusal.value.code == code, refusal.value
    for client in [director, *match.players.values()]:
        await client.ping()  # every frame sent before this answer has arrived
    assert await log_lengths(redis, match.created.match_id) == before_logs
    assert every_view(match, director) == before_views
    return refusal.value


NO_TABLE_3: list[DirectorFrame] = [
    Rule(table=3, declarer_tricks=9),
    AssignResult(table=3, board=1, contract="3NT", declarer="N", tricks=9),
    AssignResult(table=3, board=1, contract=None, declarer=None, tricks=0),
    Undo(table=3),
    AnswerUndo(table=3, accept=True),
    AnswerUndo(table=3, accept=False),
    SendChat(text="table 3, are you there?", table=3),
    Substitute(table=3, seat="N"),
]
NO_BOARD_99: list[DirectorFrame] = [
    AssignResult(table=1, board=99, contract="3NT", declarer="N", tricks=9),
    AssignResult(table=2, board=10_000, contract=None, declarer=None, tricks=0),
    AssignResult(table=3, board=99, contract="3NT", declarer="N", tricks=9),
    AdjustScore(board=99, imps_a=3),
    VoidBoard(board=99),
    GetBoard(board=10_000),
]


class TestWhatTheMatchDoesNotHave:
    """SPEC.md section 19: "a board not in the match, a table the match does not have" are
    ``invalid_message``, for every director action that names one."""

    @pytest.mark.asyncio
    @pytest.mark.parametrize(
        "action",
        NO_TABLE_3 + NO_BOARD_99,
        ids=[f"{a.type}-{i}" for i, a in enumerate(NO_TABLE_3 + NO_BOARD_99)],
    )
    async def test_refused_as_invalid_and_nothing_changes(
        self, redis: Redis, match: Match, director: Client, action: DirectorFrame
    ) -> None:
        await board_view(match.players[(1, "N")], 1)
        error = await refused(redis, match, director, action, ErrorCode.INVALID_MESSAGE)
        assert "table 3" in error.message or "board" in error.message, error.message

    @pytest.mark.asyncio
    @pytest.mark.parametrize(
        "action",
        NO_TABLE_3 + NO_BOARD_99[:3],
        ids=[f"{a.type}-{i}" for i, a in enumerate(NO_TABLE_3 + NO_BOARD_99[:3])],
    )
    async def test_refused_without_waiting_for_the_match(
        self, server: Server, match: Match, director: Client, action: DirectorFrame
    ) -> None:
        """What the match's configuration refuses is refused before the match's lock is
        waited for, like anything else refused at once (MatchRuntime.act): the fold is never
        asked about a table or a board the match does not have."""
        runtime = await server.runtime(match.created.match_id)
        async with runtime.lock:  # the match is busy
            with pytest.raises(ClientError) as refusal:
                await director.request(
                    lambda ref: action.model_copy(update={"ref": ref}), timeout=5
                )
        assert refusal.value.code == ErrorCode.INVALID_MESSAGE, refusal.value

    @pytest.mark.asyncio
    async def test_in_every_phase_of_a_board(
        self, redis: Redis, match: Match, director: Client
    ) -> None:
        """Table 3 in the auction, in the play, with an undo request pending and with a
        finished board: refused alike; a real table still answers as the laws say."""
        table = match.table(1)
        await bid(table, 1, ["1NT", "P"])
        await settle(table, (await table["E"].undo()).seq)  # East asks to take back the pass
        for action in NO_TABLE_3:
            await refused(redis, match, director, action, ErrorCode.INVALID_MESSAGE)
        await director.answer_undo(False, table=1)
        await bid(table, 1, ["P", "P"])
        for action in NO_TABLE_3 + NO_BOARD_99:
            await refused(redis, match, director, action, ErrorCode.INVALID_MESSAGE)
        # The board is in play at table 1: board 2 is in the match but not started there.
        board_2 = AssignResult(table=1, board=2, contract="3NT", declarer="N", tricks=9)
        await refused(redis, match, director, board_2, ErrorCode.WRONG_PHASE)
        # The director ends table 1's board: its undo and chat go on to work, table 3's not.
        await director.rule(1, 7)
        await director.chat("well played", table=1)
        for action in NO_TABLE_3 + NO_BOARD_99:
            await refused(redis, match, director, action, ErrorCode.INVALID_MESSAGE)

    @pytest.mark.asyncio
    async def test_a_match_of_one_table(self, server: Server, redis: Redis) -> None:
        """Replay duplicate plays at table 1 only: tables 2 and 3 are not in it."""
        created = await create(server, format="replay", boards=2, deals_pbn=boards(2))
        match = await seat_everyone(server, created)
        await analysed(server, created.match_id)
        director = await Client.connect(created.director, name="director")
        try:
            await match.players[(1, "N")].wait_for(lambda v: v.board)
            for number in (2, 3):
                for action in NO_TABLE_3:
                    named = action.model_copy(update={"table": number})
                    error = await refused(redis, match, director, named, ErrorCode.INVALID_MESSAGE)
                    assert f"table {number}" in error.message
            three = AssignResult(table=1, board=3, contract=None, declarer=None, tricks=0)
            await refused(redis, match, director, three, ErrorCode.INVALID_MESSAGE)
            # Round 3 is in the range of start_round, not in the match: no round waits.
            await refused(redis, match, director, StartRound(round=3), ErrorCode.WRONG_PHASE)
        finally:
            await director.close()
            await match.close()


# -- a sweep of raw frames ---------------------------------------------------------------

TABLES = (-1, 0, 1, 2, 3, 4, 2**31)
BOARDS = (-1, 0, 1, 2, 3, 64, 99, 10_000, 10_001)
ROUNDS = (-1, 0, 1, 3, 11, 12, 22, 23, 2**31)
"""start_round's round is 2-22 (a series of 12 meetings has 22 rounds; 2-11 before)."""


def sweep() -> list[tuple[dict[str, Any], str]]:
    """The director's frames naming a table, a board or a round around the match's (two
    tables, boards 1 and 2, one round) that the match does not have, and the code SPEC.md
    gives each: ``invalid_message`` out of the schema's range or the match's; for a round
    in range, ``wrong_phase`` (no round waits for the director)."""
    frames: list[dict[str, Any]] = []
    for table in TABLES:
        frames += [
            {"type": "rule", "table": table, "declarer_tricks": 7},
            {"type": "undo", "table": table},
            {"type": "undo_answer", "table": table, "accept": True},
            {"type": "chat", "table": table, "text": "sweep"},
            {"type": "substitute", "table": table, "seat": "E", "robot": True},
        ]
    for table, board in itertools.product(TABLES, BOARDS):
        assign = {"type": "assign_result", "table": table, "board": board, "tricks": 13}
        frames.append({**assign, "contract": "7NT", "declarer": "S"})
        frames.append({**assign, "contract": None, "declarer": None})
    for board in BOARDS:
        frames += [
            {"type": "adjust_score", "board": board, "imps_a": 3},
            {"type": "void_board", "board": board},
            {"type": "get_board", "board": board},
        ]
    swept = [
        (frame, "invalid_message")
        for frame in frames
        if frame.get("table", 1) not in (1, 2) or frame.get("board", 1) not in (1, 2)
    ]
    for number in ROUNDS:
        code = "wrong_phase" if 2 <= number <= 22 else "invalid_message"
        swept.append(({"type": "start_round", "round": number}, code))
    return swept


async def answer(websocket: ClientConnection, ref: int) -> str:
    """The code of the error answering ``ref``, or the answer's type."""
    while True:
        message = decode_server(await websocket.recv())
        if isinstance(message, Update):
            continue
        if getattr(message, "ref", None) == ref:
            return message.code.value if isinstance(message, ErrorMessage) else message.type


class TestSweep:
    @pytest.mark.asyncio
    async def test_no_frame_of_the_director_is_an_internal_error(
        self, server: Server, redis: Redis, match: Match
    ) -> None:
        """Every frame of :func:`sweep`, in one connection, gets the code SPEC.md gives it
        (never ``internal``), and the logs stay as they were."""
        await board_view(match.players[(2, "N")], 1)
        before = await log_lengths(redis, match.created.match_id)
        token = Link.parse(match.created.director).token
        got = []
        async with connect(server.ws_url, compression=None) as websocket:
            await websocket.send(encode(Hello(version=PROTOCOL_VERSION, token=token)))
            assert isinstance(decode_server(await websocket.recv()), Welcome)
            for ref, (frame, code) in enumerate(sweep(), start=1):
                await websocket.send(msgpack.packb({**frame, "ref": ref}))
                got.append((frame, code, await answer(websocket, ref)))
        assert len(got) > 150
        wrong = [(frame, code, answered) for frame, code, answered in got if answered != code]
        assert not wrong, wrong
        assert await log_lengths(redis, match.created.match_id) == before


class TestRandomSequences:
    """Long seeded sequences of the director's frames with numbers in and out of the match,
    in every format (some act: boards are voided, results assigned, seats given to robots),
    each answered as SPEC.md says or refused with a code it names: never ``internal``."""

    FORMATS: ClassVar[list[dict[str, Any]]] = [
        {"format": "teams", "boards": 3},
        {"format": "replay", "boards": 2, "stage_two": "director"},
        {"format": "individual", "players": 8, "boards": 14},
    ]

    @staticmethod
    def frame(rng: random.Random, boards: int) -> dict[str, Any]:
        table, board = rng.randint(1, 3), rng.randint(1, boards + 1)
        kind = rng.choice(
            (
                "rule", "undo", "undo_answer", "chat", "assign", "adjust_score",
                "void_board", "get_board", "start_round", "substitute",
            )
        )  # fmt: skip
        if kind == "assign":
            made = rng.random() < 0.7
            return {
                "type": "assign_result",
                "table": table,
                "board": board,
                "contract": rng.choice(["1C", "3NT", "4SX", "7NTXX"]) if made else None,
                "declarer": rng.choice(SEATS) if made else None,
                "tricks": rng.randint(0, 13),
            }
        return {
            "rule": {"type": "rule", "table": table, "declarer_tricks": rng.randint(0, 13)},
            "undo": {"type": "undo", "table": table},
            "undo_answer": {"type": "undo_answer", "table": table, "accept": rng.random() < 0.5},
            "chat": {"type": "chat", "table": table, "text": "random"},
            "adjust_score": {"type": "adjust_score", "board": board, "imps_a": 3},
            "void_board": {"type": "void_board", "board": board},
            "get_board": {"type": "get_board", "board": board},
            "start_round": {"type": "start_round", "round": rng.randint(2, 22)},
            "substitute": {"type": "substitute", "table": table, "seat": rng.choice(SEATS)},
        }[kind]

    @pytest.mark.asyncio
    @pytest.mark.parametrize("options", FORMATS, ids=[f["format"] for f in FORMATS])
    async def test_never_internal(self, server: Server, options: dict[str, Any]) -> None:
        created = await create(server, **options)
        match = await seat_everyone(server, created)
        rng = random.Random(f"director {options['format']}")
        token = Link.parse(created.director).token
        codes: Counter[str] = Counter()
        try:
            async with connect(server.ws_url, compression=None, max_size=None) as websocket:
                await websocket.send(encode(Hello(version=PROTOCOL_VERSION, token=token)))
                assert isinstance(decode_server(await websocket.recv()), Welcome)
                for ref in range(1, 301):
                    frame = self.frame(rng, options["boards"])
                    await websocket.send(msgpack.packb({**frame, "ref": ref}))
                    answered = await answer(websocket, ref)
                    assert answered != "internal", frame
                    codes[answered] += 1
        finally:
            await match.close()
        # The sequence did things, and was refused things, as the laws and SPEC.md say.
        assert min(codes[code] for code in ("ack", "invalid_message", "wrong_phase")), codes
        assert set(codes) <= {
            "ack", "board_record", "substituted", "invalid_message", "wrong_phase",
            "forbidden", "illegal_call", "illegal_claim", "rate_limited",
        }, codes  # fmt: skip


# -- the folded state ----------------------------------------------------------------------


def two_tables() -> MatchConfig:
    spec = BoardSpec(1, Seat.NORTH, Vulnerability.NONE, Deal.from_pbn(STRONG_NORTH))
    return MatchConfig("m", "A", "B", (spec,), movement=default_movement("teams", (spec,)))


class TestFold:
    """The fold refuses an event at a table or of a board the match does not have with a
    :class:`BridgeError` (``invalid_message`` on the wire), as the laws refuse any event:
    never another exception."""

    @pytest.mark.parametrize(
        "event",
        [
            {"type": "rule", "tricks": 7},
            {"type": "undo"},
            {"type": "undo_answer", "accept": True},
            {"type": "chat", "seat": None, "text": "hello", "to": "NESW"},
            {"type": "assign", "board": 1, "contract": None, "declarer": None, "tricks": 0},
        ],
    )
    def test_no_table_3(self, event: dict[str, Any]) -> None:
        state = MatchState(two_tables())
        with pytest.raises(BridgeError, match="no table 3"):
            state.apply(3, {**event, "at": 0})

    def test_no_board_99(self) -> None:
        state = MatchState(two_tables())
        state.apply(1, {"type": "start", "board": 1, "round": 1, "at": 0})
        assign = {"type": "assign", "board": 99, "contract": None, "declarer": None, "tricks": 0}
        with pytest.raises(BridgeError, match="board 99 is not in this match"):
            state.apply(1, {**assign, "at": 0})

    def test_the_directors_lines_are_counted_on_the_board(self) -> None:
        state = MatchState(two_tables())
        state.apply(1, {"type": "start", "board": 1, "round": 1, "at": 0})
        for _ in range(3):
            state.apply(1, {"type": "chat", "seat": None, "text": "hi", "to": "NESW", "at": 0})
        state.apply(1, {"type": "chat", "seat": "N", "text": "hi", "to": "NESW", "at": 0})
        assert state.director_lines(1) == 3
        assert state.director_lines(2) == 0


# -- the director's chat is bounded --------------------------------------------------------


@pytest.mark.asyncio
async def test_the_director_may_not_grow_a_boards_log_without_end(
    redis: Redis, match: Match, director: Client
) -> None:
    match_id = match.created.match_id
    for line in range(DIRECTOR_CHAT_LIMIT):
        await director.chat(f"line {line}", table=1)
    error = await refused(
        redis, match, director, SendChat(text="one too many", table=1), ErrorCode.RATE_LIMITED
    )
    assert "per board" in error.message
    assert error.retry_after_ms is None  # wait for the next board, as a player does
    lines = await stored_events(redis, match_id, 1, "chat")
    assert len(lines) == DIRECTOR_CHAT_LIMIT
    # The director's lines are the director's: the players' own bound is untouched.
    assert DIRECTOR_CHAT_LIMIT > EXTRA_LIMIT
    await match.players[(1, "N")].chat("thanks, director")
    # Per table: table 2 still hears the director.
    await director.chat("table 2, two minutes left", table=2)
    # Per board: once table 1 is on its next board, the director may talk there again.
    await bid(match.table(1), 1, ["P", "P", "P", "P"])
    await board_view(match.players[(1, "N")], 2)
    await director.chat("board 2 now", table=1)
    lines = await stored_events(redis, match_id, 1, "chat")
    assert [line["seat"] for line in lines[DIRECTOR_CHAT_LIMIT:]] == ["N", None]
