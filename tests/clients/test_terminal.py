"""The terminal table (``duplicate play``) driven through a real pseudo-terminal against a
real server: a whole board typed at the keyboard, refused commands, a dropped connection,
names and presence, undo, claims, the director called and answering, a board's review and
replay, both tables side by side, and the director's tools. The other seats are the
server's robots or Python clients the tests control. Screens made from views by hand show
the rest, the movements' rounds, moves and standings among them."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import io
import os
import re
import struct
import sys
import termios
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from rich.console import Console, RenderableType

from bridge.lin import parse_lin
from clients.client import Client, ClientError, Link
from clients.terminal import (
    CommandError,
    LocalCommand,
    ReplayCommand,
    SaveRecordCommand,
    TerminalTable,
    board_record_screen,
    main,
    parse_call,
    parse_card,
    parse_command,
    points_text,
    render_player,
    render_watch,
    replay_screen,
    score_sheet,
    standing_name,
)
from clients.terminal import last_trick_text as last_trick_words
from protocol.codec import decode_server
from protocol.messages import (
    Ack,
    Action,
    AdjustScore,
    AnswerClaim,
    AnswerUndo,
    AssignResult,
    BoardRecord,
    BoardView,
    CallDirector,
    ChatLine,
    CloseCalls,
    ComparisonView,
    DecideWithdrawal,
    DirectorCallView,
    FaceDownLead,
    FaceLead,
    GetBoard,
    MakeClaim,
    MatchCreated,
    MatchSummary,
    NextBoard,
    NextSeat,
    PlayerInfo,
    PlayerView,
    ReviewView,
    RoundClock,
    Rule,
    Seat,
    SeeCalls,
    SendChat,
    SetName,
    Standing,
    StartRound,
    Substitute,
    TableResultView,
    Team,
    TrickView,
    Undo,
    VoidBoard,
    WatchView,
    Welcome,
    WithdrawClaim,
    WithdrawConcession,
)
from server.app import Server
from server.connection import Connection
from server.limits import LagWatch
from server.views import Player
from tests.server.harness import create, one_board

ROOT = Path(__file__).resolve().parents[2]
ROBOTS = ["t2", "1E", "1S", "1W"]
"""The server's robots everywhere but North at table 1."""
WAIT = 20.0
"""The longest any one expected text may take to appear."""

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[=>]")
HEADER = re.compile(r"Board (\d+) · Table (\d) · .*#(\d+)")
PROMPT = "North> "
SUIT_LETTERS = {"♠": "s", "♥": "h", "♦": "d", "♣": "c"}
SYMBOLS = {letter.upper(): symbol for symbol, letter in SUIT_LETTERS.items()}


class Terminal:
    """``python -m clients.terminal LINK`` on a pseudo-terminal: what it printed (colours
    stripped), and a keyboard."""

    def __init__(self, process: asyncio.subprocess.Process, master: int) -> None:
        self.process = process
        self.master = master
        self.output = ""
        self._raw = b""
        self._changed = asyncio.Event()
        self._ended = False
        asyncio.get_running_loop().add_reader(master, self._readable)

    @classmethod
    async def start(cls, link: str, *options: str) -> Terminal:
        master, slave = os.openpty()
        # 50 rows of 110 columns, as an ssh session might have.
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 110, 0, 0))
        environment = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(ROOT))
        environment.pop("NO_COLOR", None)
        environment.pop("COLUMNS", None)
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "clients.terminal", link, *options,
            stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=environment,
            start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        os.set_blocking(master, False)
        return cls(process, master)

    def _readable(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError:  # EIO: the child closed the terminal
            data = b""
        if not data:
            self._ended = True
            asyncio.get_running_loop().remove_reader(self.master)
        self._raw += data
        text = self._raw.decode("utf-8", errors="ignore")
        self.output = ANSI.sub("", text).replace("\r", "")
        self._changed.set()

    async def expect(self, pattern: str, start: int = 0, timeout: float = WAIT) -> re.Match[str]:
        """Wait until ``pattern`` (a regular expression) appears in the output after
        ``start``, and return the match."""
        compiled = re.compile(pattern)

        async def waiting() -> re.Match[str]:
            while True:
                found = compiled.search(self.output, start)
                if found is not None:
                    return found
                if self._ended:
                    raise AssertionError(f"the terminal ended before {pattern!r}")
                self._changed.clear()
                await self._changed.wait()

        try:
            return await asyncio.wait_for(waiting(), timeout)
        except TimeoutError:
            tail = self.output[-3000:]
            raise AssertionError(
                f"no {pattern!r} within {timeout} s; the screen:\n{tail}"
            ) from None

    async def latest_screen(
        self,
        after_seq: int,
        timeout: float = WAIT,
        *,
        matching: str | None = None,
        prompt: str = PROMPT,
    ) -> tuple[int, str]:
        """The newest table printed whole (down to its prompt) for an update after
        ``after_seq``, waiting for one (and, with ``matching``, for one in which that
        regular expression is found): its update number and its text (both tables', for
        spectators and the director)."""

        async def waiting() -> tuple[int, str]:
            while True:
                headers = list(HEADER.finditer(self.output))
                if headers:
                    last = headers[-1]
                    seq = int(last.group(3))
                    first = next(h for h in headers if int(h.group(3)) == seq)
                    screen = self.output[first.start() :]
                    if (
                        seq > after_seq
                        and prompt in screen[last.end() - first.start() :]
                        and (matching is None or re.search(matching, screen))
                    ):
                        return seq, screen
                if self._ended:
                    raise AssertionError("the terminal ended")
                self._changed.clear()
                await self._changed.wait()

        try:
            return await asyncio.wait_for(waiting(), timeout)
        except TimeoutError:
            tail = self.output[-3000:]
            wanted = f" showing {matching!r}" if matching else ""
            raise AssertionError(f"no table{wanted} after update {after_seq}:\n{tail}") from None

    def type(self, line: str) -> int:
        """Type a line and press Enter; returns where the output stood before."""
        mark = len(self.output)
        os.write(self.master, line.encode() + b"\n")
        return mark

    async def exit_status(self, timeout: float = WAIT) -> int:
        return await asyncio.wait_for(self.process.wait(), timeout)

    async def close(self) -> None:
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(self.master)
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        os.close(self.master)


@pytest_asyncio.fixture
async def created(server: Server) -> MatchCreated:
    """A one-board match (North holds every ace, king and queen) with robots in the seven
    other seats."""
    return await create(server, boards=1, robots=ROBOTS, deals_pbn=one_board())


@contextlib.asynccontextmanager
async def running(link: str, *options: str) -> AsyncIterator[Terminal]:
    terminal = await Terminal.start(link, *options)
    try:
        yield terminal
    finally:
        await terminal.close()


@pytest_asyncio.fixture
async def north(created: MatchCreated) -> AsyncIterator[tuple[MatchCreated, Terminal]]:
    """North's terminal table on a pseudo-terminal."""
    link = next(s.link for s in created.seats if s.link is not None)
    async with running(link) as terminal:
        yield created, terminal


async def connection_of(server: Server, viewer: Player) -> Connection:
    """The server's one connection of ``viewer``. A client is welcomed a moment before the
    server files its connection under the viewer, so wait for that moment."""
    for _ in range(500):
        ours = [
            c
            for c in server.connections
            if c.subscriber is not None and c.subscriber.viewer == viewer
        ]
        if ours:
            [connection] = ours
            return connection
        await asyncio.sleep(0.01)
    raise AssertionError(f"the server has no connection of {viewer}")


def typed_card(shown: str) -> str:
    """``♥10`` as shown -> ``h10`` as typed."""
    return SUIT_LETTERS[shown[0]] + shown[1:].lower()


def typed_call(shown: str) -> str:
    """``1♣`` as shown -> ``1c`` as typed; ``Pass`` -> ``p``."""
    if shown == "Pass":
        return "p"
    return shown[0] + SUIT_LETTERS.get(shown[1:], shown[1:]).lower()


@pytest.mark.asyncio
async def test_the_terminal_table_plays_a_board(
    north: tuple[MatchCreated, Terminal],
) -> None:
    created, terminal = north
    await terminal.expect(r"Joined match \w+ as North at table 1")
    acted = 0
    calls = 0
    cards = 0
    from_dummy = 0
    while True:
        seq, screen = await terminal.latest_screen(after_seq=acted)
        if "Board 1 result:" in screen:
            break
        acted = seq
        turn = re.search(r"YOUR TURN: (.*)|Dummy's turn: you play from dummy", screen)
        if turn is None:
            continue  # someone else is to act: wait for the next table
        legal = re.search(r"Legal (calls|cards): (.*)", screen)
        assert legal is not None, screen
        if legal.group(1) == "calls":
            assert turn.group(1) == "your call", screen
            # Open with the cheapest bid, then pass: the calls offered are all legal.
            offered = legal.group(2)
            bids = re.search(r"bids (\S+) to", offered)
            typed = typed_call(bids.group(1)) if calls == 0 and bids else "p"
            assert typed == "p" or calls == 0
            calls += 1
        else:
            typed = typed_card(legal.group(2).split()[0])
            cards += 1
            from_dummy += turn.group(0).startswith("Dummy")
        terminal.type(typed)
    assert calls >= 1
    assert cards >= 13  # North's own cards, and dummy's when North declares
    assert from_dummy in (0, 13)
    # The board's result, then (once the robots at table 2 have finished) the comparison.
    result = await terminal.expect(r"Board 1 result: .*(N-S|E-W) \+\d+|Board 1 result: passed")
    await terminal.expect(r"Board 1: here .* · other table .*\n +swing \d+ IMPs", result.start())
    await terminal.expect(r"MATCH OVER: ", result.start())
    # The whole deal is shown once the board is over.
    final = terminal.output[terminal.output.rfind("Board 1 · Table 1") :]
    assert final.count("♠ ") >= 4, final
    mark = terminal.type("quit")
    await terminal.expect("Goodbye", mark)
    assert await terminal.exit_status() == 0
    director = await Client.connect(created.director)
    view = await director.wait_for(lambda v: v if v.match.finished else None)
    assert len(view.match.comparisons) == 1
    await director.close()


@pytest.mark.asyncio
async def test_a_bad_command_is_explained_and_nothing_is_sent(
    server: Server, north: tuple[MatchCreated, Terminal]
) -> None:
    created, terminal = north
    # North deals (the board starts once North is there too).
    _, screen = await terminal.latest_screen(after_seq=0, matching="YOUR TURN")
    assert "YOUR TURN: your call" in screen
    link = next(s.link for s in created.seats if s.link is not None)
    observer = await Client.connect(link, name="test observer")  # North's view, beside
    await observer.wait_for(lambda view: view)
    before = observer.seq

    refusals = [
        ("hello", r"Not sent: 'hello' is not a call.*type help"),
        ("sa", r"Not sent: the auction is still on: type a call"),
        ("2s!", r"Not sent: an alert needs its explanation"),
        ("8nt", r"Not sent: '8nt' is not a call"),
        ("claim many", r"Not sent: the tricks claimed must be a number"),
        ("claim 3", r"Not sent: the auction is still on: a claim comes in the play"),
        ("ask 3", r"Not sent: no call has been made yet"),
        ("accept", r"Not sent: there is no claim for you to accept or reject"),
        ("withdraw", r"Not sent: you have no pending claim to withdraw"),
        ("undo", r"Not sent: you may take back only your own last call or card"),
        ("agree", r"Not sent: no request to take back a call or card waits for your answer"),
        ("next-board", r"Not sent: no finished board is on review now"),
        ("withdraw-concession", r"Not sent: there is no concession of your side to withdraw"),
        ("board 9", r"Not sent: there is no board 9 in this match \(boards 1 to 1\)"),
        ("rule 1 9", r"Not sent: only the director may rule"),
        ("replay", r"Not shown: replay goes through a finished board's tricks"),
    ]
    for line, message in refusals:
        mark = terminal.type(line)
        await terminal.expect(message, mark)
        await terminal.expect(PROMPT, mark + len(line))
    # A command the server refuses: its reason is printed plainly, and nothing changes.
    mark = terminal.type("board 1")
    await terminal.expect(
        r"Refused by the server: board 1 is not compared yet.*\(forbidden\)", mark
    )
    await observer.ping()  # anything the terminal caused has reached North's log by now
    assert observer.seq == before
    assert isinstance(observer.view, PlayerView)
    assert observer.view.board is not None
    assert observer.view.board.auction == []
    # `help` and `last` answer locally; the prompt comes back after each.
    mark = terminal.type("help")
    await terminal.expect(r"claim N .*\n(.*\n)*.*quit", mark)
    help_text = terminal.output[mark:]
    for command in ("withdraw ", "undo ", "agree, refuse", "director [TEXT]", "name NAME"):
        assert command in help_text, command
    for command in ("replay [N]", "next-board, n", "board N", "scores", "record FILE"):
        assert command in help_text, command
    mark = terminal.type("last")
    await terminal.expect("No trick has been completed yet", mark)
    # A good command after all that is sent and shown.
    mark = terminal.type("1nt ! 15-17")
    await terminal.expect(r"#1 1NT!", mark)
    await terminal.expect(r"#1 North 1NT! 15-17", mark)
    await observer.wait_for(lambda _v: observer.seq > before or None)
    assert isinstance(observer.view, PlayerView)
    assert observer.view.board is not None
    assert observer.view.board.auction[0].alert == "15-17"
    # Questions: the robot East explains its call when asked.
    await terminal.expect(r"#2 (Pass|Dbl|[1-7])", mark)  # East's call, in the auction
    mark = terminal.type("ask 2")
    await terminal.expect("You asked about call #2", mark)
    await terminal.expect(r"East explains call #2: \S+", mark)
    mark = terminal.type("quit")
    assert await terminal.exit_status() == 0
    assert "Goodbye" in terminal.output[mark:]
    await observer.close()


@pytest.mark.asyncio
async def test_the_director_sees_both_tables_and_may_only_rule(created: MatchCreated) -> None:
    async with running(created.director) as terminal:
        await terminal.expect(r"Watching match \w+ as director")
        # Both tables, every hand: North's and West's at table 1 (the same cards at table 2).
        screen = await terminal.expect(r"Board 1 · Table 1 ·(.*\n)*.*Board 1 · Table 2 ·")
        await terminal.expect(r"Director> ", screen.start())
        table1 = terminal.output[screen.start() : terminal.output.find("Table 2 ·", screen.start())]
        assert "♠ A K Q J" in table1, table1
        assert "♣ 5 4 3 2" in table1, table1
        assert "13 cards" not in table1
        mark = terminal.type("1nt")
        await terminal.expect(
            r"Not sent: '1nt' is not a command here: you are watching \(type help for the "
            r"director's commands\)",
            mark,
        )
        # The board is in its auction: there is nothing to rule yet (nothing is sent).
        mark = terminal.type("rule 1 9")
        await terminal.expect(
            r"Not sent: table 1 is not in the play: there is nothing to rule", mark
        )
        mark = terminal.type("help")
        await terminal.expect("rule TABLE TRICKS", mark)
        help_text = terminal.output[mark:]
        for command in ("say TABLE TEXT", "undo TABLE", "agree TABLE, refuse TABLE", "assign "):
            assert command in help_text, command
        for command in ("adjust BOARD IMPS", "void BOARD", "substitute TABLE SEAT [robot]"):
            assert command in help_text, command
        assert "start N                 start round N" in help_text
        terminal.type("quit")
        assert await terminal.exit_status() == 0


@pytest.mark.asyncio
async def test_a_link_that_does_not_join_exits_with_status_1(server: Server) -> None:
    async with running(f"http://127.0.0.1:{server.port}/play#no-such-token") as terminal:
        await terminal.expect("cannot join: this link's token is not known here")
        assert await terminal.exit_status() == 1


@pytest.mark.asyncio
async def test_a_dropped_connection_is_noticed_and_resumed(
    server: Server, north: tuple[MatchCreated, Terminal]
) -> None:
    _, terminal = north
    seq, _screen = await terminal.latest_screen(after_seq=0)
    ours = await connection_of(server, Player(1))
    mark = len(terminal.output)
    transport = ours.link.transport
    transport.abort()  # the network drops: no closing handshake
    await terminal.expect("Connection lost: reconnecting", mark)
    back = await terminal.expect("Reconnected: the table is back", mark)
    await terminal.expect(PROMPT, back.end())
    # The table goes on: North's call after the drop is made and shown.
    # (North's presence may be shown in an update of its own first: wait for the call's.)
    mark = terminal.type("p")
    _, screen = await terminal.latest_screen(after_seq=seq, matching="#1 Pass")
    assert "#1 Pass" in screen
    mark = terminal.type("quit")
    assert await terminal.exit_status() == 0


@pytest.mark.asyncio
async def test_a_call_whose_answer_the_drop_took_is_sent_again_and_made_once(
    server: Server, north: tuple[MatchCreated, Terminal], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, terminal = north
    seq, _screen = await terminal.latest_screen(after_seq=0)
    ours = await connection_of(server, Player(1))
    send = Connection.send

    def lose_the_ack(connection: Connection, frame: bytes) -> None:
        # The server applied the call; the network drops before its ack reaches North.
        if connection is ours and isinstance(decode_server(frame), Ack):
            ours.link.transport.abort()
            return
        send(connection, frame)

    # On the class: a connection has slots, no attribute of its own to replace.
    monkeypatch.setattr(Connection, "send", lose_the_ack)
    mark = terminal.type("1nt")
    await terminal.expect("dropped before the server answered", mark)
    await terminal.expect("Reconnected: the table is back", mark)
    # North's table, up to date again, shows the call made: it is not sent again.
    await terminal.expect("Your call 1NT was not sent again: the table has moved on", mark)
    _, screen = await terminal.latest_screen(after_seq=seq, matching="#1 1NT")
    assert "#1 1NT" in screen
    runtime = ours.runtime
    assert runtime is not None
    board = runtime.state.tables[1].current  # the server's own record: the call, once
    assert board is not None
    made = [str(call) for call in board.auction.calls]
    assert made[0] == "1NT"
    assert made.count("1NT") == 1
    terminal.type("quit")
    assert await terminal.exit_status() == 0


@pytest.mark.asyncio
async def test_a_call_the_busy_server_refused_goes_again_when_it_says(server: Server) -> None:
    # The server, past what it can serve, refuses North's call at once (`unavailable`, with
    # retry_after_ms): the terminal says so, waits as told, and sends it again; it is made.
    # (Table 2 has nobody: North's call is the first action the server sees.)
    created = await create(server, boards=1, robots=["1E", "1S", "1W"], deals_pbn=one_board())
    link = next(s.link for s in created.seats if (s.table, s.seat) == (1, "N"))
    assert link is not None

    class Busy(LagWatch):
        refused = 0

        def admit(self, now: float | None = None) -> bool:
            if not self.refused:
                self.refused += 1
                return False
            return super().admit(now)

        def retry_after_ms(self) -> int:
            return 1500

    async with running(link) as terminal:
        seq, _screen = await terminal.latest_screen(after_seq=0)
        ours = await connection_of(server, Player(1))
        busy = Busy(limit=0.05)
        server._lag = busy
        mark = terminal.type("1nt")
        await terminal.expect("The server is busy: your call 1NT goes again in 1.5 s", mark)
        await terminal.expect("Your call 1NT was sent again and is done", mark)
        _, screen = await terminal.latest_screen(after_seq=seq, matching="#1 1NT")
        assert "#1 1NT" in screen
        assert busy.refused == 1
        runtime = ours.runtime
        assert runtime is not None
        board = runtime.state.tables[1].current
        assert board is not None
        made = [str(call) for call in board.auction.calls]  # the robots may have passed since
        assert made[0] == "1NT"
        assert made.count("1NT") == 1
        terminal.type("quit")
        assert await terminal.exit_status() == 0


class TestParsing:
    """The commands as typed, without a server."""

    @pytest.mark.parametrize(
        ("typed", "call", "alert"),
        [
            ("1nt", "1NT", None),
            ("1N", "1NT", None),
            ("p", "P", None),
            ("Pass", "P", None),
            ("x", "X", None),
            ("xx", "XX", None),
            ("2s!weak", "2S", "weak"),
            ("2s ! weak, 6-10", "2S", "weak, 6-10"),
            ("7♥", "7H", None),
        ],
    )
    def test_calls(self, typed: str, call: str, alert: str | None) -> None:
        parsed = parse_call(typed)
        assert (parsed.call, parsed.alert) == (call, alert)

    @pytest.mark.parametrize("typed", ["8nt", "1z", "", "2s!", "hello"])
    def test_not_calls(self, typed: str) -> None:
        with pytest.raises(CommandError):
            parse_call(typed)

    @pytest.mark.parametrize(
        ("typed", "legal", "card"),
        [
            ("sa", [], "SA"),
            ("as", [], "SA"),
            ("h10", [], "HT"),
            ("ht", [], "HT"),
            ("10h", [], "HT"),
            ("♦2", [], "D2"),
            ("q", ["SQ", "S2"], "SQ"),
            ("10", ["HT", "HA"], "HT"),
        ],
    )
    def test_cards(self, typed: str, legal: list[str], card: str) -> None:
        assert parse_card(typed, legal) == card

    @pytest.mark.parametrize(
        ("typed", "legal", "message"),
        [
            ("q", ["SQ", "HQ"], "which Q"),
            ("k", ["SQ"], "no legal card is a K"),
            ("s1", [], "not a card"),
            ("zz", [], "not a card"),
        ],
    )
    def test_not_cards(self, typed: str, legal: list[str], message: str) -> None:
        with pytest.raises(CommandError, match=message):
            parse_card(typed, legal)

    def test_words(self) -> None:
        assert parse_command("  ", None) is None
        with pytest.raises(CommandError, match="no board in play"):
            parse_command("1nt", None, director=False)
        with pytest.raises(CommandError, match="only the director may rule"):
            parse_command("rule 1 9", None, director=False)
        with pytest.raises(CommandError, match="only the director may start"):
            parse_command("start 2", None, director=False)

    @pytest.mark.parametrize(
        ("typed", "message"),
        [
            ("claim 3 the spades are good", MakeClaim(tricks=3, statement="the spades are good")),
            ("claim 0", MakeClaim(tricks=0)),
            ("withdraw", WithdrawClaim()),
            ("withdraw-concession yes", WithdrawConcession()),
            ("undo", Undo()),
            ("agree", AnswerUndo(accept=True)),
            ("refuse", AnswerUndo(accept=False)),
            ("accept", AnswerClaim(accept=True)),
            ("director", CallDirector()),
            ("director a revoke, I think", CallDirector(text="a revoke, I think")),
            ("name Ann Smith", SetName(name="Ann Smith")),
            ("say well played", SendChat(text="well played")),
            ("n", NextBoard()),
            ("next-board", NextBoard()),
            ("board 1", GetBoard(board=1)),
        ],
    )
    def test_a_player_s_commands_are_the_protocol_s_messages(
        self, typed: str, message: object
    ) -> None:
        actions: list[Action] = ["claim", "withdraw_claim", "withdraw_concession", "undo"]
        actions += ["undo_answer", "claim_answer", "next_board"]
        view = player_view("N", phase="play", contract="1C", declarer="N", actions=actions)
        assert parse_command(typed, view) == message

    def test_withdrawing_a_concession_asks_for_a_yes_first(self) -> None:
        actions: list[Action] = ["withdraw_concession", "next_board"]
        view = player_view("N", phase="play", contract="1C", declarer="N", actions=actions)
        with pytest.raises(CommandError, match="needs the director"):
            parse_command("withdraw-concession", view)
        assert parse_command("withdraw concession yes", view) == WithdrawConcession()

    def test_the_name_option_is_checked_before_joining(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        with pytest.raises(SystemExit) as exited:
            main(["http://127.0.0.1:1/play#token", "--name", " "])
        assert exited.value.code == 2
        assert "a name has 1 to 40 characters" in capsys.readouterr().err

    def test_local_commands(self) -> None:
        assert parse_command("replay", None) == ReplayCommand("first")
        assert parse_command("replay 3", None) == ReplayCommand(3)
        assert parse_command("next", None) == ReplayCommand("next")
        assert parse_command("prev", None) == ReplayCommand("prev")
        assert parse_command("scores", None) == LocalCommand("scores")
        assert parse_command("table", None) == LocalCommand("table")
        assert parse_command("last", None) == LocalCommand("last")
        assert parse_command("chat", None) == LocalCommand("chat")
        assert parse_command("record my match.pbn", None) == SaveRecordCommand("my match.pbn")

    @pytest.mark.parametrize(
        ("typed", "actions", "message"),
        [
            ("withdraw", [], "you have no pending claim to withdraw"),
            ("undo", ["claim"], "you may take back only your own last call or card"),
            ("agree", [], "no request to take back a call or card waits for your answer"),
            ("accept", [], "there is no claim for you to accept or reject"),
            ("n", [], "no finished board is on review now"),
            ("claim 13", ["claim"], "a claim is of 0 to 9 tricks: 9 remain"),
            ("claim 3", [], "a claim is already pending"),
            ("name " + "x" * 41, [], "a name has 1 to 40 characters"),
            ("say " + "x" * 301, [], "a chat line has at most 300 characters"),
            ("board 2", [], r"there is no board 2 in this match \(boards 1 to 1\)"),
            ("record", [], "type record FILE"),
            ("void 1", [], "only the director may void"),
        ],
    )
    def test_a_player_s_commands_refused_here(
        self, typed: str, actions: list[Action], message: str
    ) -> None:
        view = player_view(
            "N",
            phase="play",
            contract="1C",
            declarer="N",
            tricks_ns=3,
            tricks_ew=1,
            actions=actions,
        )
        with pytest.raises(CommandError, match=message):
            parse_command(typed, view)

    def test_chat_is_refused_when_the_match_turns_it_off_during_a_board(self) -> None:
        view = player_view("N")
        off = view.model_copy(update={"match": view.match.model_copy(update={"chat": "off"})})
        with pytest.raises(CommandError, match="table chat is off during a board"):
            parse_command("say hello", off)
        assert isinstance(off.board, BoardView)
        between = off.model_copy(
            update={"board": off.board.model_copy(update={"phase": "finished"})}
        )
        assert parse_command("say hello", between) == SendChat(text="hello")

    @pytest.mark.parametrize(
        ("typed", "message"),
        [
            ("say 2 I am coming", SendChat(text="I am coming", table=2)),
            ("chat 1 play on", SendChat(text="play on", table=1)),
            ("rule 1 9", Rule(table=1, declarer_tricks=9)),
            ("undo 1", Undo(table=1)),
            ("agree 2", AnswerUndo(accept=True, table=2)),
            ("refuse 1", AnswerUndo(accept=False, table=1)),
            (
                "assign 1 1 4♠x n 8",
                AssignResult(table=1, board=1, contract="4SX", declarer="N", tricks=8),
            ),
            (
                "assign 2 1 3nt South 9",
                AssignResult(table=2, board=1, contract="3NT", declarer="S", tricks=9),
            ),
            (
                "assign 1 1 pass",
                AssignResult(table=1, board=1, contract=None, declarer=None, tricks=0),
            ),
            ("adjust 1 +3", AdjustScore(board=1, imps_a=3)),
            ("adjust 1 -2", AdjustScore(board=1, imps_a=-2)),
            ("void 1", VoidBoard(board=1)),
            ("substitute 1 e", Substitute(table=1, seat="E")),
            ("substitute 2 west robot", Substitute(table=2, seat="W", robot=True)),
            ("start 2", StartRound(round=2)),
            ("start round 3", StartRound(round=3)),
            ("START 11", StartRound(round=11)),
            ("board 1", GetBoard(board=1)),
            ("seen 2", SeeCalls(table=2)),
            ("close 1", CloseCalls(table=1)),
            ("withdrawal 1 allow", DecideWithdrawal(table=1, allow=True)),
            ("withdrawal 2 REFUSE", DecideWithdrawal(table=2, allow=False)),
        ],
    )
    def test_the_director_s_commands(self, typed: str, message: object) -> None:
        assert parse_command(typed, None, director=True) == message

    @pytest.mark.parametrize(
        ("typed", "message"),
        [
            ("say 1", "type say TABLE TEXT"),
            ("say 3 hello", "there is no table 3"),
            ("rule 1", "type rule TABLE TRICKS"),
            ("rule 1 14", "declarer's side takes 0 to 13 tricks"),
            ("assign 1 1 4s", "type assign TABLE BOARD CONTRACT DECLARER TRICKS"),
            ("assign 1 1 8s n 9", "'8s' is not a contract"),
            ("assign 1 1 4s q 9", "'q' is not a seat"),
            ("adjust 1 25", "of -24 to \\+24 IMPs"),
            ("adjust 1 three", "must be a whole number like \\+3"),
            ("substitute 1 n human", "type substitute TABLE SEAT, or substitute TABLE SEAT robot"),
            ("start", "type start N, like start 2"),
            ("start 2 3", "type start N, like start 2"),
            ("start 1", "a round the director starts is round 2 to 11"),
            ("start 12", "a round the director starts is round 2 to 11"),
            ("start two", "the round must be a number, not 'two'"),
            ("seen", "type seen TABLE, like seen 1"),
            ("close 1 2", "type close TABLE, like close 1"),
            ("1nt", "'1nt' is not a command here: you are watching"),
        ],
    )
    def test_the_director_s_commands_refused_here(self, typed: str, message: str) -> None:
        with pytest.raises(CommandError, match=message):
            parse_command(typed, None, director=True)

    def test_the_calls_for_the_director_are_seen_and_closed_as_they_stand(self) -> None:
        seen = DirectorCallView(table=1, seat="W", board=1, at=1, state="seen")
        answered = DirectorCallView(table=2, seat="N", board=1, at=1, state="answered")
        view = WatchView(
            match=player_view("N").match,
            mode="director",
            tables=[],
            director_calls=[seen],
            answered_calls=[answered],
        )
        with pytest.raises(CommandError, match="no new call for the director waits at table 1"):
            parse_command("seen 1", view, director=True)
        assert parse_command("close 2", view, director=True) == CloseCalls(table=2)
        with pytest.raises(CommandError, match="no call for the director is open at table 1"):
            parse_command("close 1", view.model_copy(update={"director_calls": []}), director=True)
        shown = screen_of(view, director=True)
        assert "Table 1 · West (board 1)" in shown
        assert "the director is on the way" in shown
        assert "Table 2 · North (board 1)" in shown
        assert "answered" in shown

    def test_the_director_s_commands_are_checked_against_the_tables(self) -> None:
        auction = board(auction=[{"seat": "N", "call": "1C"}], turn="E", acting="E")
        undo = {"seat": "N", "call": "1C", "deciders": ["E", "W"], "accepted": []}
        playing = board(
            table=2,
            phase="play",
            contract="1C",
            declarer="N",
            dummy="S",
            tricks_ns=4,
            tricks_ew=2,
            auction=[{"seat": "N", "call": "1C"}],
            undo=undo,
        )
        view = WatchView(
            match=player_view("N").match,
            mode="director",
            tables=[BoardView.model_validate(auction), BoardView.model_validate(playing)],
        )
        with pytest.raises(CommandError, match="table 1 is not in the play"):
            parse_command("rule 1 9", view, director=True)
        with pytest.raises(CommandError, match="declarer's side can end with 4 to 11 tricks"):
            parse_command("rule 2 12", view, director=True)
        assert parse_command("rule 2 11", view, director=True) == Rule(table=2, declarer_tricks=11)
        with pytest.raises(
            CommandError, match="no request to take back a call or card waits at table 1"
        ):
            parse_command("agree 1", view, director=True)
        assert parse_command("refuse 2", view, director=True) == AnswerUndo(accept=False, table=2)
        with pytest.raises(CommandError, match="table 2 is the robots' table"):
            parse_command("substitute 2 n", view, director=True)  # no players at table 2
        with pytest.raises(CommandError, match="only the director may void"):
            parse_command("void 1", view.model_copy(update={"mode": "live"}))

    def test_the_director_starts_the_round_that_waits_for_them(self) -> None:
        match = player_view("N").match.model_copy(update={"format": "replay", "rounds": 2})
        playing = WatchView(match=match, mode="director", tables=[])
        with pytest.raises(CommandError, match="round 2 does not wait for the director now"):
            parse_command("start 2", playing, director=True)
        with pytest.raises(CommandError, match="no round waits for the director now"):
            parse_command("start", playing, director=True)
        held = playing.model_copy(update={"match": match.model_copy(update={"held_round": 2})})
        assert parse_command("start 2", held, director=True) == StartRound(round=2)
        assert parse_command("start round 2", held, director=True) == StartRound(round=2)
        assert parse_command("start", held, director=True) == StartRound(round=2)
        assert parse_command("start round", held, director=True) == StartRound(round=2)
        with pytest.raises(CommandError, match="round 2 is the round that waits for the director"):
            parse_command("start 3", held, director=True)
        # Spectators watch: the round is the director's to start.
        spectator = held.model_copy(update={"mode": "live"})
        with pytest.raises(CommandError, match="only the director may start"):
            parse_command("start 2", spectator)


@pytest.mark.asyncio
async def test_a_concession_is_shown_answered_and_scored(
    north: tuple[MatchCreated, Terminal],
) -> None:
    _, terminal = north
    _, screen = await terminal.latest_screen(after_seq=0, matching="Legal calls")
    bids = re.search(r"Legal calls: .*bids (\S+) to", screen)
    assert bids is not None, screen
    mark = terminal.type(typed_call(bids.group(1)))
    # The robots pass (they do, on this deal): North declares; the opening lead is made.
    await terminal.expect(r"Dummy's turn: you play from dummy \(South\)", mark)
    mark = terminal.type("claim 0")
    await terminal.expect(r"North claims 0 tricks", mark)
    await terminal.expect(r"East \(robot\) accepts the claim", mark)
    await terminal.expect(r"West \(robot\) accepts the claim", mark)
    await terminal.expect(r"Board 1 result: 1♣ by North, 0 tricks \(down 7\): E-W \+350", mark)
    terminal.type("quit")
    assert await terminal.exit_status() == 0


# -- a table of Python clients around North's terminal -------------------------------------


def link_of(created: MatchCreated, table: int, seat: str) -> str:
    link = next(s.link for s in created.seats if (s.table, s.seat) == (table, seat))
    assert link is not None, f"{table}{seat} is a robot's seat"
    return link


def deals(count: int) -> str:
    """``count`` boards of the same cards (North holds every ace, king and queen), North
    dealing, nobody vulnerable."""
    return "\n".join(
        one_board().replace('[Board "1"]', f'[Board "{number}"]') for number in range(1, count + 1)
    )


@dataclass
class Seated:
    """North's terminal at table 1, an observer on North's link (North's view, beside the
    terminal) and Python clients in the other seats that are not the server's robots."""

    created: MatchCreated
    terminal: Terminal
    north: Client
    others: dict[str, Client]


@contextlib.asynccontextmanager
async def seated(server: Server, *options: str, **match: object) -> AsyncIterator[Seated]:
    """A match (robots at table 2 unless told otherwise, one board unless told) with North's
    terminal started with ``options``."""
    match.setdefault("robots", ["t2"])
    match.setdefault("boards", 1)
    count = match["boards"]
    assert isinstance(count, int)
    match.setdefault("deals_pbn", deals(count))
    created = await create(server, **match)
    clients: list[Client] = []
    try:
        others: dict[str, Client] = {}
        for link in created.seats:
            if link.table == 1 and link.seat != "N" and link.link is not None:
                others[link.seat] = await Client.connect(link.link, name=f"test {link.seat}")
                clients.append(others[link.seat])
        north = await Client.connect(link_of(created, 1, "N"), name="test observer")
        clients.append(north)
        async with running(link_of(created, 1, "N"), *options) as terminal:
            await terminal.expect(r"Joined match \w+ as North at table 1")
            # The board starts once its four are there: the terminal shows it started (the
            # observer's numbers are North's, as the terminal's are) before anyone acts.
            await north.wait_for(
                lambda v: v if v.board is not None and not v.waiting_for_seats else None
            )
            await terminal.latest_screen(north.seq - 1)
            yield Seated(created, terminal, north, others)
    finally:
        for client in clients:
            await client.close()


async def current_board(
    client: Client, condition: Callable[[BoardView], bool] = lambda _board: True
) -> BoardView:
    """The client's board, once ``condition`` holds for it."""

    def check(view: PlayerView) -> BoardView | None:
        board = view.board
        return board if board is not None and condition(board) else None

    return await client.wait_for(check, WAIT)


async def pass_in_turn(table: Seated, seats: str) -> None:
    """Each of ``seats`` (Python clients) passes in turn."""
    for seat in seats:
        client = table.others[seat]
        await current_board(client, lambda b: b.phase == "auction" and bool(b.legal))
        await client.call("P")


async def north_declares_one_club(table: Seated) -> None:
    """North (at the terminal) opens 1♣ and the others pass: North declares, South is
    dummy, East is to lead."""
    await current_board(table.north, lambda b: "1C" in b.legal)
    table.terminal.type("1c")
    await current_board(table.north, lambda b: len(b.auction) == 1)
    await pass_in_turn(table, "ESW")
    await current_board(table.north, lambda b: b.phase == "play")


def shown_cards(cards: list[str]) -> str:
    """Cards as the table shows them: by suit, spades first, each from the ace down."""
    order = sorted(cards, key=lambda card: ("SHDC".index(card[0]), "AKQJT98765432".index(card[1])))
    return " ".join(SYMBOLS[card[0]] + card[1].replace("T", "10") for card in order)


def cards_left(board: BoardView) -> int:
    return sum(board.hand_sizes.values())


def fewer_cards(than: int, board: BoardView) -> bool:
    return cards_left(board) < than


async def play_cards(table: Seated, count: int) -> None:
    """Play ``count`` cards, each the acting seat's first legal card: North's (and dummy's)
    typed at the terminal, the others' by their Python clients."""
    for _ in range(count):
        board = await current_board(
            table.north, lambda b: b.phase == "play" and b.acting is not None and b.undo is None
        )
        left = cards_left(board)
        if board.acting == "N":
            table.terminal.type(board.legal[0].lower())
        else:
            assert board.acting is not None
            client = table.others[board.acting]
            own = await current_board(client, lambda b: bool(b.legal))
            await client.play(own.legal[0])
        await current_board(table.north, functools.partial(fewer_cards, left))


@pytest.mark.asyncio
async def test_names_are_shown_and_name_sets_yours(server: Server) -> None:
    async with seated(server, "--name", "Ann", names={"1E": "Bob"}, robots=["t2", "1W"]) as table:
        terminal = table.terminal
        # --name: sent after joining, the seat having no name.
        await terminal.expect(r"Your name is now Ann")
        _, screen = await terminal.latest_screen(0, matching=r"North \(you\)[^\n]*\n *Ann\b")
        assert "you: North (Ann), Team A" in screen
        # East's name, West's robot and South with no name, beside their seats.
        assert re.search(r"West .*East *\n *robot .*Bob", screen), screen
        assert re.search(r"South *\n *13 cards", screen), screen
        assert isinstance(table.north.view, PlayerView)
        assert {p.seat: p.name for p in table.north.view.players}["N"] == "Ann"
        # `name` changes it; a bad one is refused here.
        mark = terminal.type("name")
        await terminal.expect(r"Not sent: type name and your name", mark)
        mark = terminal.type("name Annie")
        await terminal.expect(r"Your name is now Annie", mark)
        await terminal.latest_screen(0, matching=r"you: North \(Annie\), Team A")
        # Another seat names itself: its name shows there.
        mark = len(terminal.output)
        await table.others["S"].set_name("Sue")
        await terminal.expect(r"South's name is now Sue", mark)
        await terminal.latest_screen(0, matching=r"South *\n *Sue\b")
        # Chat says who spoke and whom it reached (the match's chat mode: the opponents).
        mark = terminal.type("say hello all")
        await terminal.expect(r"You say \(to the opponents\): hello all", mark)
        await table.others["E"].chat("hi Ann")
        await terminal.expect(r"East \(Bob\) says \(to the opponents\): hi Ann", mark)
        terminal.type("quit")
        assert await terminal.exit_status() == 0


@pytest.mark.asyncio
async def test_a_player_who_goes_away_is_shown_away(server: Server) -> None:
    async with seated(server, "--name", "Zed", names={"1N": "Ann", "1E": "Bob"}) as table:
        terminal = table.terminal
        await terminal.expect(r"--name not sent: this seat's name is already Ann")
        mark = terminal.type("name Zed")
        await terminal.expect(
            r"Refused by the server: the organiser gave you your name \(forbidden\)",
            mark,
        )
        mark = terminal.type("1c")
        await terminal.expect(r"Waiting: East \(Bob\) is to call\.", mark)
        # East's connection goes: the table says so, and that it waits for East.
        mark = len(terminal.output)
        await table.others["E"].close()
        await terminal.expect(r"East \(Bob\) has gone away", mark)
        seq, screen = await terminal.latest_screen(
            0, matching=r"The table waits for East \(Bob\), who is away <1 min\."
        )
        assert re.search(r"East *\n.*Bob · away <1 min", screen), screen
        # East comes back.
        mark = len(terminal.output)
        table.others["E"] = await Client.connect(link_of(table.created, 1, "E"))
        await terminal.expect(r"East \(Bob\) is back at the table", mark)
        _, screen = await terminal.latest_screen(seq, matching=r"Waiting: East \(Bob\) is to call")
        assert "away" not in screen
        terminal.type("quit")
        assert await terminal.exit_status() == 0


@pytest.mark.asyncio
async def test_undo_agreed_refused_and_decided_by_the_director(server: Server) -> None:
    async with (
        seated(server) as table,
        running(table.created.director) as director,
    ):
        terminal, east, west = table.terminal, table.others["E"], table.others["W"]
        await director.expect(r"Director> ")
        # North asks to take back 1♣; both opponents agree: it is taken back.
        await current_board(table.north, lambda b: "1C" in b.legal)
        mark = terminal.type("1c")
        await current_board(table.north, lambda b: "undo" in b.actions)
        terminal.type("undo")
        await terminal.expect(r"You asked to take back your 1♣: waiting for East and West", mark)
        await current_board(east, lambda b: "undo_answer" in b.actions)
        await east.answer_undo(True)
        await terminal.expect(r"East agrees to the undo", mark)
        await west.answer_undo(True)
        await terminal.expect(r"Your 1♣ is taken back", mark)
        board = await current_board(table.north, lambda b: b.undo is None and not b.auction)
        assert "1C" in board.legal
        # North asks again after 1♦; East refuses: the call stands.
        mark = terminal.type("1d")
        await current_board(table.north, lambda b: "undo" in b.actions)
        terminal.type("undo")
        await current_board(east, lambda b: "undo_answer" in b.actions)
        await east.answer_undo(False)
        await terminal.expect(r"East refuses the undo", mark)
        board = await current_board(table.north, lambda b: b.undo is None)
        assert [entry.call for entry in board.auction] == ["1D"]
        # East passes and asks to take it back: North decides at the terminal.
        await east.call("P")
        await east.undo()
        mark_request = await terminal.expect(
            r"YOU DECIDE: East asks to take back their Pass: type agree or refuse", mark
        )
        mark = terminal.type("1h")  # not North's turn, and nothing is called meanwhile
        await terminal.expect(r"Not sent: a request to take back a call or card waits", mark)
        terminal.type("agree")
        await terminal.expect(r"North agrees to the undo", mark_request.end())
        await table.others["S"].answer_undo(True)  # East's other opponent
        await terminal.expect(r"East's Pass is taken back", mark)
        board = await current_board(table.north, lambda b: b.undo is None and len(b.auction) == 1)
        mark = terminal.type("agree")
        await terminal.expect(r"Not sent: no request to take back a call or card waits", mark)
        # The director decides East's next request: refused, then allowed.
        await east.call("P")
        mark, at_north = len(director.output), len(terminal.output)
        await east.undo()
        await director.expect(r"DIRECTOR: type agree 1 or refuse 1 to decide it", mark)
        mark = director.type("refuse 1")
        await director.expect(r"Table 1: The director refuses the undo", mark)
        await terminal.expect(r"The director refuses the undo", at_north)
        board = await current_board(table.north, lambda b: b.undo is None)
        assert [entry.call for entry in board.auction] == ["1D", "P"]
        await current_board(east, lambda b: "undo" in b.actions)
        await east.undo()
        await current_board(table.north, lambda b: b.undo is not None)
        mark = director.type("agree 1")
        await director.expect(r"Table 1: East's Pass is taken back", mark)
        board = await current_board(table.north, lambda b: len(b.auction) == 1)
        mark = director.type("agree 1")
        await director.expect(
            r"Not sent: no request to take back a call or card waits at table 1", mark
        )
        # The director takes back the table's last call at once.
        mark = director.type("undo 1")
        await director.expect(r"Table 1: North's 1♦ is taken back", mark)
        board = await current_board(table.north, lambda b: not b.auction)
        assert "1D" in board.legal


@pytest.mark.asyncio
async def test_a_claim_is_rejected_and_play_goes_on(server: Server) -> None:
    async with seated(server) as table:
        terminal, east, west = table.terminal, table.others["E"], table.others["W"]
        await north_declares_one_club(table)
        await play_cards(table, 2)  # East leads, North plays from dummy
        # East claims, with a statement: North, who decides, sees it and East's cards.
        mark = len(terminal.output)
        await east.claim(3, "my hearts are good")
        _, screen = await terminal.latest_screen(0, matching=r"YOU DECIDE: type accept or reject")
        assert "East claims 3 of the 13 remaining tricks" in screen
        assert "Statement: my hearts are good" in screen
        east_hand = (await current_board(east)).hands["E"]
        assert len(east_hand) == 12
        assert f"East's cards: {shown_cards(east_hand)}\n" in screen
        mark = terminal.type("sa")
        await terminal.expect(r"Not sent: no card can be played while a claim is pending", mark)
        mark = terminal.type("reject")
        await terminal.expect(r"North rejects the claim: play goes on", mark)
        await terminal.latest_screen(
            0, matching=r"East claimed 3 of the 13 remaining tricks: rejected: play goes on"
        )
        # The play goes on: the trick is finished, North to lead.
        await play_cards(table, 2)
        board = await current_board(table.north, lambda b: b.acting == "N")
        assert board.tricks_ns == 1
        assert board.claim is None  # a settled claim shows until the next card
        # Law 66: the last trick may be looked at until North's side plays to the next.
        mark = terminal.type("last")
        await terminal.expect(r"Trick 1, led by East, won by North: East \S+ South", mark)
        await play_cards(table, 1)  # North leads to trick 2
        mark = terminal.type("last")
        await terminal.expect(r"The last trick is turned over: your side has played", mark)
        # North claims with a line of play, withdraws it, then claims again.
        mark = terminal.type("claim 13 all high")
        await terminal.expect(r"Not sent: a claim is of 0 to 12 tricks: 12 remain", mark)
        mark = terminal.type("claim 12 all my cards are high")
        await terminal.expect(r"North claims 12 tricks", mark)
        _, screen = await terminal.latest_screen(
            0, matching=r"Waiting for East and West to accept or reject"
        )
        assert "Statement: all my cards are high" in screen
        assert "(type withdraw to withdraw your claim)" in screen
        mark = terminal.type("withdraw")
        await terminal.expect(r"North withdrew the claim: play goes on", mark)
        await current_board(table.north, lambda b: b.phase == "play" and "claim" in b.actions)
        mark = terminal.type("claim 12")
        await current_board(east, lambda b: "claim_answer" in b.actions)
        await east.answer_claim(True)
        await west.answer_claim(True)
        await terminal.expect(
            r"Board 1 result: 1♣ by North, 13 tricks \(made \+6\): N-S \+190", mark
        )
        terminal.type("quit")
        assert await terminal.exit_status() == 0


@pytest.mark.asyncio
async def test_the_director_is_called_and_answers_at_the_table(server: Server) -> None:
    created = await create(
        server, boards=1, robots=ROBOTS, deals_pbn=one_board(), chat="off", names={"1N": "Ann"}
    )
    async with (
        running(link_of(created, 1, "N")) as north,
        running(created.director) as director,
    ):
        await north.latest_screen(0, matching="YOUR TURN")
        await director.expect(r"Director> ")
        # The match's chat is off during a board: refused here.
        mark = north.type("say hello")
        await north.expect(r"Not sent: table chat is off during a board in this match", mark)
        mark = north.type("director East's card was exposed")
        await north.expect(
            r"North \(Ann\) called the director \(board 1\): East's card was exposed", mark
        )
        # The director's terminal: the call at once, and in the queue.
        await director.expect(
            r"Table 1: North \(Ann\) called the director \(board 1\): East's card was exposed"
            r" — answer with say 1 TEXT"
        )
        mark = director.type("table")
        await director.expect(
            r"CALLS FOR THE DIRECTOR \(seen TABLE, say TABLE TEXT, close TABLE\):", mark
        )
        await director.expect(
            r"Table 1 · North \(board 1\): East's card was exposed · <1 min ago · new", mark
        )
        # The table shows its open call too; then that the director is on the way.
        mark = north.type("table")
        await north.expect(r"The director is called:\n +North \(board 1\): East's card", mark)
        at_north = len(north.output)
        mark = director.type("seen 1")
        await director.expect(r"The director has seen the call at table 1", mark)
        await north.expect(
            r"East's card was exposed · <1 min ago · the director is on the way", at_north
        )
        # The director answers in the table's chat: it reaches the table, the call answered.
        at_north = len(north.output)
        mark = director.type("say 1 I am on my way")
        await director.expect(r"Table 1 · Director says \(to the table\): I am on my way", mark)
        await north.expect(r"Director says \(to the table\): I am on my way", at_north)
        mark = director.type("table")
        await director.expect(r"East's card was exposed · <1 min ago · answered", mark)
        # Closed: it leaves the queue.
        mark = director.type("close 1")
        await director.expect(r"The director closed the call at table 1", mark)
        mark = director.type("table")
        shown = await director.expect(
            r"Chat:\n +Table 1 · Director says \(to the table\): I am on my way", mark
        )
        assert "CALLS FOR THE DIRECTOR" not in director.output[mark : shown.end()]
        mark = north.type("chat")
        await north.expect(r"Chat:\n +Director says \(to the table\): I am on my way", mark)
        mark = director.type("say 3 hello")
        await director.expect(r"Not sent: there is no table 3: the tables are 1 and 2", mark)
        mark = north.type("quit")
        assert await north.exit_status() == 0


@pytest.mark.asyncio
async def test_the_end_of_the_rounds_time_is_told_to_the_table_and_the_director(
    server: Server,
) -> None:
    created = await create(
        server, boards=1, robots=ROBOTS, deals_pbn=one_board(), minutes_per_board=0.02
    )
    async with (
        running(link_of(created, 1, "N")) as north,
        running(created.director) as director,
    ):
        await north.latest_screen(0, matching="YOUR TURN")
        await director.expect(r"Director> ")
        mark = north.type("table")
        shown = await north.expect(r"YOUR TURN", mark)
        assert "Round clock" not in north.output[mark : shown.end()]  # nobody has called
        mark = north.type("1c")  # the round's first call: its 1.2 s begin
        # The time is up with the board in play: both are told; the director decides.
        await north.expect(r"The round's time is up: the director decides what happens", mark)
        await director.expect(
            r"The round's time is up at table 1: the director decides what happens"
        )
        mark = director.type("table")
        await director.expect(
            r"Round clock: time is up with 1 of 1 boards to play: the director decides", mark
        )
        mark = north.type("quit")
        assert await north.exit_status() == 0


@pytest.mark.asyncio
async def test_a_finished_board_is_reviewed_replayed_and_left(server: Server) -> None:
    async with seated(server, boards=2, review_seconds=120) as table:
        terminal, east, west = table.terminal, table.others["E"], table.others["W"]
        await north_declares_one_club(table)
        await play_cards(table, 8)  # two tricks, both North's
        # North concedes one of the eleven left: accepted, the board goes on review.
        mark = terminal.type("claim 10 the rest but one")
        await current_board(east, lambda b: "claim_answer" in b.actions)
        await east.answer_claim(True)
        await west.answer_claim(True)
        _, screen = await terminal.latest_screen(
            0, matching=r"REVIEW of board 1: the next board starts in \d+ s"
        )
        assert "Board 1 result: 1♣ by North, 12 tricks (made +5): N-S +170" in screen
        assert "Ready: nobody yet" in screen
        assert "♣ 5 4 3 2" in screen  # West's hand as dealt: all four are shown
        assert "type withdraw-concession yes" in screen
        # North asks to withdraw the concession: the director allows it, and the play
        # resumes; then all eleven are claimed.
        mark = terminal.type("withdraw-concession yes")
        await terminal.expect(r"North asks the director to let the concession be withdrawn", mark)
        await terminal.expect(r"You asked the director to let the concession be withdrawn", mark)
        director = await Client.connect(table.created.director, name="test director")
        await director.decide_withdrawal(1, True)
        await director.close()
        await terminal.expect(r"North withdrew the concession, as the director allowed", mark)
        await current_board(table.north, lambda b: b.phase == "play" and "claim" in b.actions)
        mark = terminal.type("claim 11")
        await current_board(east, lambda b: "claim_answer" in b.actions)
        await east.answer_claim(True)
        await west.answer_claim(True)
        await terminal.expect(r"Board 1 result: 1♣ by North, 13 tricks \(made \+6\)", mark)
        await terminal.latest_screen(0, matching=r"REVIEW of board 1")
        # replay: trick by trick.
        mark = terminal.type("replay")
        found = await terminal.expect(
            r"Board 1, trick 1 of 2: E \S+ S \S+ W \S+ N \S+ · won by North · N-S 1, E-W 0",
            mark,
        )
        replayed = terminal.output[mark : found.start()]
        assert "♣ 5 4 3 2" in replayed  # the hands before it
        assert "♠ A K Q J" in replayed
        mark = terminal.type("next")
        await terminal.expect(
            r"Board 1, trick 2 of 2: N \S+ E \S+ S \S+ W \S+ · won by North · N-S 2, E-W 0", mark
        )
        mark = terminal.type("next")
        await terminal.expect(r"Not shown: that was the last trick \(tricks 1 to 2\)", mark)
        mark = terminal.type("replay 1")
        await terminal.expect(r"Board 1, trick 1 of 2", mark)
        mark = terminal.type("prev")
        await terminal.expect(r"Not shown: that was the first trick", mark)
        mark = terminal.type("replay 3")
        await terminal.expect(r"Not shown: there is no trick 3", mark)
        # next-board: North is ready; the others follow; board 2 starts.
        mark = terminal.type("n")
        await terminal.expect(r"North is ready for the next board", mark)
        await terminal.latest_screen(0, matching=r"Ready: North · waiting for East, South, West")
        mark = terminal.type("next-board")
        await terminal.expect(r"Not sent: you have already asked for the next board", mark)
        for seat in "ESW":
            await table.others[seat].next_board()
        await terminal.expect(r"The review of board 1 is over", mark)
        await terminal.expect(r"Board 2 starts", mark)
        await terminal.expect(r"Board 1: here 1♣ N \+6 \(N-S \+190\) · other table", mark)
        terminal.type("quit")
        assert await terminal.exit_status() == 0


@pytest.mark.asyncio
async def test_a_compared_board_the_score_sheet_and_the_record(
    north: tuple[MatchCreated, Terminal], tmp_path: Path
) -> None:
    created, terminal = north
    await terminal.latest_screen(0, matching="YOUR TURN")
    await terminal.latest_screen(
        0, matching=f"Deals sealed before play: sha256 {created.deals_commitment}"
    )
    mark = terminal.type("verify")
    await terminal.expect(r"Not sent: the deals are published when the match is over", mark)
    mark = terminal.type("record early.pbn")
    await terminal.expect(r"Nothing saved: no board has been finished at both tables yet", mark)
    terminal.type("1c")
    await terminal.expect(r"Dummy's turn: you play from dummy \(South\)", mark)
    terminal.type("claim 0")
    await terminal.expect(r"MATCH OVER: ", mark)
    # The score sheet, once the match is over.
    sheet = await terminal.expect(
        r"Score sheet: Team A v Team B *\n.*Board +Table 1 +Table 2", mark
    )
    await terminal.expect(
        r" 1 +1♣ N -7 \(E-W \+350\) +7NT N = \(N-S \+1520\) +· +18 +Team B by 18", sheet.start()
    )
    await terminal.expect(r"Total: Team A 0 IMPs · Team B 18 IMPs", sheet.start())
    # Both tables side by side, the swing, double dummy and par.
    mark = terminal.type("board 1")
    found = await terminal.expect(r"Par: N-S \+\d+ \(7NT N =", mark)
    record = terminal.output[mark : found.end()]
    assert "Board 1 as the tables played it" in record
    assert re.search(r"Table 1 \(yours\) +│ Table 2", record), record
    assert re.search(r"#1 1♣ +#2 Pass .*│ .*#1 \S+", record), record
    assert "1♣ by North, 0 tricks (down 7): E-W +350" in record
    assert "7NT by North, 13 tricks (made): N-S +1520" in record
    assert re.search(r" 1\. E ♠10 +\(claim\)", record), record  # table 1 stopped at trick 1
    assert re.search(r"13\. \w ..?.? \w ..?.? \w ..?.? \w ..?.? → N", record), record
    assert "swing 18 IMPs to Team B" in record
    await terminal.expect(
        r"Board 1, table 2, in BBO's hand viewer: https://www\.bridgebase\.com/tools/handviewer"
        r"\.html\?lin=\S+",
        mark,
    )
    assert re.search(r"Double dummy: tricks for each declarer\n.*NT", record), record
    assert re.search(r"North +13 +", record), record
    # The record, as PBN.
    path = tmp_path / "match.pbn"
    mark = terminal.type(f"record {path}")
    await terminal.expect(r"Saved the match record to .*match\.pbn \(2 tables' boards, PBN\)", mark)
    text = path.read_text(encoding="utf-8")
    assert text.count('[Board "1"]') == 2
    assert '[Contract "7NT"]' in text
    mark = terminal.type(f"record {tmp_path / 'no-such-folder' / 'match.pbn'}")
    await terminal.expect(r"Not saved: cannot write .*No such file or directory", mark)
    # As LIN, for BBO: one line per table.
    lin = tmp_path / "match.lin"
    mark = terminal.type(f"record {lin}")
    await terminal.expect(r"Saved the match record to .*match\.lin \(2 tables' boards, LIN\)", mark)
    assert [str(board.contract) for board in parse_lin(lin.read_text(encoding="utf-8"))] == [
        "1C",
        "7NT",
    ]
    # The deals, published with the end of the match, checked against the commitment.
    commitment = created.deals_commitment
    mark = terminal.type("verify")
    await terminal.expect(
        rf"Deals verified: the 2 tables' deals are the 1 boards committed to when the match "
        rf"was created \(sha256 {commitment}\)",
        mark,
    )
    mark = terminal.type("scores")
    await terminal.expect(r"Score sheet: Team A v Team B", mark)
    terminal.type("quit")
    assert await terminal.exit_status() == 0


@pytest.mark.asyncio
async def test_the_director_rules_assigns_adjusts_voids_and_substitutes(server: Server) -> None:
    created = await create(server, boards=3, robots=ROBOTS, deals_pbn=deals(3))
    north = await Client.connect(link_of(created, 1, "N"), name="test North")
    async with running(created.director) as director:
        await director.latest_screen(0, prompt="Director> ")
        # A new player for North: a new link, and the old one stops working.
        mark = director.type("substitute 1 N")
        found = await director.expect(
            # The link whole: up to the line's end (a match on output still arriving
            # could take part of it).
            r"New link for table 1 North \(the old one no longer works\): (\S+)\s",
            mark,
        )
        await director.expect(r"Table 1: The director gave North's seat to a new player", mark)
        with pytest.raises(ClientError):
            await north.wait_for(lambda _view: None, timeout=WAIT)
        north = await Client.connect(found.group(1), name="test new North")
        mark = director.type("substitute 1 W robot")
        await director.expect(r"The server's robot now plays table 1 West\.", mark)
        mark = director.type("substitute 1 X")
        await director.expect(r"Not sent: 'X' is not a seat: type n, e, s or w", mark)
        # The new North opens; the robots pass and East leads: the director takes it back.
        await current_board(north, lambda b: "1C" in b.legal)
        await north.call("1C")
        await current_board(north, lambda b: b.phase == "play" and bool(b.legal))
        mark = director.type("undo 1")
        await director.expect(r"Table 1: East's \S+ is taken back", mark)
        await current_board(north, lambda b: b.phase == "play" and bool(b.legal))  # led again
        # A ruling during the play ends it.
        mark = director.type("rule 1 14")
        await director.expect(r"Not sent: declarer's side takes 0 to 13 tricks", mark)
        mark = director.type("rule 1 9")
        await director.expect(r"Table 1: The director ruled: declarer's side takes 9 tricks", mark)
        await director.expect(r"Table 1: Board 1 result: 1♣ by North, 9 tricks \(made \+2\)", mark)
        await director.expect(
            r"Board 1: table 1 1♣ N \+2 \(N-S \+110, ruled\) · table 2 7NT N =", mark
        )
        # An assigned adjusted score replaces table 1's result; the board is compared again.
        mark = director.type("assign 1 1 3nt s 9")
        await director.expect(
            r"Table 1: The director assigned table 1's result on board 1: 3NT by South, 9 "
            r"tricks \(made\): N-S \+400 \(assigned by the director\)",
            mark,
        )
        await director.expect(r"Board 1: table 1 3NT S = \(N-S \+400, assigned\) · table 2", mark)
        # Board 2 is being played at table 1: an artificial score ends it there.
        await current_board(north, lambda b: b.board == 2)
        mark = director.type("adjust 2 +3")
        await director.expect(
            r"Board 2: artificial adjusted score: 3 IMPs to Team A · running total", mark
        )
        await current_board(north, lambda b: b.board == 3)
        mark = director.type("void 4")
        await director.expect(
            r"Not sent: there is no board 4 in this match \(boards 1 to 3\)", mark
        )
        mark = director.type("void 3")
        await director.expect(r"Board 3: void \(the director's decision\)", mark)
        await director.expect(r"MATCH OVER: ", mark)
        sheet = await director.expect(r"Score sheet: Team A v Team B", mark)
        await director.expect(r" 1 +3NT S = \(N-S \+400, assigned\) +7NT N = ", sheet.start())
        await director.expect(r" 2 +— +\S.* +3 +· +Team B by 12 \(artificial\)", sheet.start())
        await director.expect(r" 3 +— +\S.* +void +void +Team B by 12", sheet.start())
        await director.expect(
            r"MATCH OVER: Team B beat Team A by 12 IMPs \(15 to 3\)", sheet.start()
        )
        assert isinstance(north.view, PlayerView)
        assert north.view.match.finished
        director.type("quit")
        assert await director.exit_status() == 0
    await north.close()


@pytest.mark.asyncio
async def test_the_director_starts_a_round_held_for_them(server: Server) -> None:
    # Replay duplicate whose stage 2 waits for the director; the server's robots play it.
    created = await create(
        server, format="replay", boards=2, robots=["t1"], stage_two="director", review_seconds=0
    )
    async with running(created.director) as director:
        await director.expect(r"Round 2 waits for you: type start 2 to start it")
        mark = director.type("start 3")
        await director.expect(r"Not sent: round 2 is the round that waits for the director", mark)
        mark = director.type("help")
        await director.expect(r"start N +start round N", mark)
        # start_round goes: the robots replay the boards, and the match ends.
        mark = director.type("start 2")
        over = await director.expect(r"MATCH OVER", mark)
        sheet = await director.expect(r"Score sheet: replay duplicate", over.start())
        for number in (1, 2):  # each board played in both rounds
            await director.expect(rf"\n +{number} +round 1: .*\n +round 2: ", sheet.start())
        assert "Round 2 waits for" not in director.output[mark:]
        director.type("quit")
        assert await director.exit_status() == 0


@pytest.mark.asyncio
async def test_a_series_shows_each_meetings_score_and_the_total(server: Server) -> None:
    # Three meetings of one new board each, played by the server's robots; each meeting
    # after the first begins when the director says.
    created = await create(
        server,
        format="replay",
        sessions=3,
        boards=1,
        scoring="total_points",
        robots=["t1"],
        stage_two="director",
        review_seconds=0,
    )
    watcher = await Client.connect(created.director)
    async with running(created.director) as director:
        await director.expect(r"Round 2 waits for you: type start 2 to start it")
        mark = director.type("start 2")
        waits = await director.expect(r"Round 4 waits for you", mark)
        found = await watcher.wait_for(lambda v: v if v.match.held_round == 4 else None)
        assert isinstance(found, WatchView)
        match = found.match
        names = [standing_name(p) for p in sorted(match.standings, key=lambda p: p.competitor)]
        second = [
            points_text(match.sessions[1].points[c], "total_points", signed=True)
            for c in ("1-3", "2-4")
        ]
        a, b = (re.escape(text) for text in second)
        row = await director.expect(rf"\n +2 +board 1 +{a} +{b}", waits.start())
        head = director.output.rindex(
            "Meetings (3: each scores the boards it replays)", 0, row.start()
        )
        series = await director.expect(rf"\n +Series +{a} +{b}", row.end())
        table = director.output[head : series.end()]
        assert re.search(rf"Meeting +Replays +{re.escape(names[0])} +{re.escape(names[1])}", table)
        assert re.search(r"\n +1 +\(new boards only\) +- +-", table)
        assert re.search(r"\n +3 +board 2 +- +-", table)
        mark = director.type("start 4")
        await director.expect(r"MATCH OVER", mark)
        final = await watcher.wait_for(lambda v: v if v.match.finished else None)
        assert isinstance(final, WatchView)
        total = [s.points for s in sorted(final.match.standings, key=lambda p: p.competitor)]
        shown = [points_text(t, "total_points", signed=True) for t in total]
        await director.expect(rf"\n +Series +{re.escape(shown[0])} +{re.escape(shown[1])}", mark)
        director.type("quit")
        assert await director.exit_status() == 0
    await watcher.close()


def board(**fields: object) -> dict[str, object]:
    """A board view's fields: board 1 at table 1, North dealing, nobody vulnerable."""
    return {
        "table": 1,
        "board": 1,
        "dealer": "N",
        "vulnerability": "None",
        "phase": "auction",
        "hands": {},
        "hand_sizes": dict.fromkeys("NESW", 13),
        "auction": [],
        "tricks": [],
        **fields,
    }


TEAMS_TABLE_1: dict[Seat, int] = {"N": 1, "E": 5, "S": 3, "W": 7}
"""Who sits where at table 1 of the teams match: team A's players 1 and 3 North-South."""
PARTNERS: dict[Seat, Seat] = {"N": "S", "E": "W", "S": "N", "W": "E"}


def player_view(seat: Seat, **fields: object) -> PlayerView:
    match = {
        "match_id": "m",
        "team_a": "Sharks",
        "team_b": "Minnows",
        "boards": [1],
        "comparisons": [],
        "imps_a": 0,
        "imps_b": 0,
        "finished": False,
    }
    team: Team = "A" if seat in "NS" else "B"
    number = TEAMS_TABLE_1[seat]  # the teams movement's players at table 1
    return PlayerView(
        match=MatchSummary.model_validate(match),
        player=number,
        table=1,
        seat=seat,
        team=team,
        competitor=team,
        partner=TEAMS_TABLE_1[PARTNERS[seat]],
        opponents=[n for s, n in TEAMS_TABLE_1.items() if s not in (seat, PARTNERS[seat])],
        board=BoardView.model_validate(board(**fields)),
        results=[],
        players=[],
        chat=[],
    )


NOW = 1_700_000_000_000
"""The clock of the screens made by hand (ms since the epoch)."""


def screen_of(
    view: RenderableType | PlayerView | WatchView,
    *,
    director: bool = False,
    colours: bool = False,
    now: int = NOW,
) -> str:
    console = Console(file=io.StringIO(), width=100, color_system="standard" if colours else None)
    if isinstance(view, PlayerView):
        console.print(render_player(view, 7, now=now))
    elif isinstance(view, WatchView):
        console.print(render_watch(view, 7, director=director, now=now))
    else:
        console.print(view)
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


class TestScreens:
    """What the table shows, from views made by hand."""

    def test_the_round_clock_counts_down_and_says_when_a_table_is_behind(self) -> None:
        minute = 60_000
        clock = RoundClock(
            table=1,
            round=1,
            boards=4,
            played=1,
            started_at=NOW - 10 * minute,
            ends_at=NOW + 20 * minute,
            due_at=NOW + 5 * minute,
        )
        view = player_view("N").model_copy(update={"clock": clock})
        assert "Round clock: board 2 of 4 · 20:00 left\n" in screen_of(view)
        # Board 2 is past its share of the round's time: behind time.
        behind = screen_of(view, now=NOW + 6 * minute + 30_000)
        assert "Round clock: board 2 of 4 · 13:30 left · behind time" in behind
        done = clock.model_copy(update={"played": 4})
        assert "Round clock" not in screen_of(view.model_copy(update={"clock": done}))

    def test_a_claim_to_decide(self) -> None:
        claim = {
            "claimer": "N",
            "tricks": 8,
            "remaining": 12,
            "deciders": ["E", "W"],
            "accepted": ["W"],
            "cards": ["SA", "HK"],
        }
        view = player_view("E", phase="claim", contract="3NT", declarer="N", dummy="S", claim=claim)
        screen = screen_of(view)
        assert "North claims 8 of the 12 remaining tricks" in screen
        assert "North's cards: ♠A ♥K" in screen
        assert "YOU DECIDE: type accept or reject" in screen
        west = screen_of(
            player_view("W", phase="claim", contract="3NT", declarer="N", dummy="S", claim=claim)
        )
        assert "Waiting for East to accept or reject" in west

    def test_vulnerability_questions_and_alerts(self) -> None:
        auction = [
            {"seat": "N", "call": "1NT", "alert": None},
            {"seat": "E", "call": "2C", "alert": "both majors"},
        ]
        view = player_view(
            "N", vulnerability="NS", auction=auction, turn="S", acting="S", questions=[0]
        )
        screen = screen_of(view)
        assert "Vul N-S" in screen
        assert "#1 1NT" in screen
        assert "#2 2♣!" in screen
        assert "#2 East 2♣! both majors" in screen
        assert "QUESTION: an opponent asks about your call #1 (1NT): type explain 1 TEXT" in screen
        assert "Waiting: South is to call." in screen
        # In colour, the vulnerable seats' names are red, the others not.
        coloured = screen_of(view, colours=True)
        red = "\x1b[1;31m"
        assert f"{red}North" in coloured
        assert f"{red}South" in coloured
        assert f"{red}East" not in coloured
        assert f"{red}West" not in coloured

    def test_the_director_is_told_the_range_of_a_ruling(self) -> None:
        claim = {
            "claimer": "E",
            "tricks": 5,
            "remaining": 13,
            "deciders": ["N", "S"],
            "accepted": [],
            "status": "rejected",
        }
        table = board(phase="play", contract="3NT", declarer="W", dummy="E", claim=claim)
        match = player_view("N").match
        view = WatchView(match=match, mode="director", tables=[BoardView.model_validate(table)])
        screen = screen_of(view, director=True)
        assert "East claimed 5 of the 13 remaining tricks: rejected: play goes on" in screen
        assert "DIRECTOR: type rule 1 TRICKS, declarer's side's tricks in all (0 to 13)" in screen

    def test_a_disputed_claim_stops_the_play_and_asks_the_director_to_rule(self) -> None:
        claim = {
            "claimer": "E",
            "tricks": 5,
            "remaining": 13,
            "deciders": ["N", "S"],
            "accepted": ["S"],
            "status": "disputed",
            "disputed_by": "N",
            "cards": ["SA", "SK"],
        }
        table = board(phase="claim", contract="3NT", declarer="W", dummy="E", claim=claim)
        match = player_view("N").match
        view = WatchView(match=match, mode="director", tables=[BoardView.model_validate(table)])
        screen = " ".join(screen_of(view, director=True).split())  # lines as the width wraps
        assert (
            "East claimed 5 of the 13 remaining tricks: disputed by North: play has stopped "
            "until the director rules (law 68D)"
        ) in screen
        assert "DIRECTOR: type rule 1 TRICKS, declarer's side's tricks in all (0 to 13)" in screen
        assert "or let the play go on" not in screen  # the law: play has ceased
        fields = {"phase": "claim", "contract": "3NT", "declarer": "W", "dummy": "E"}
        north = " ".join(screen_of(player_view("N", claim=claim, **fields)).split())
        assert "disputed by you: play has stopped" in north
        assert "East's cards: ♠A ♠K" in north  # still in view of those who decided it
        assert "YOUR TURN" not in north

    def test_the_opening_lead_face_down(self) -> None:
        # Law 41A: East led face down; West faces it; the others wait; East sees the card.
        fields = {"phase": "play", "contract": "3NT", "declarer": "N", "dummy": "S"}
        west = player_view("W", acting="W", actions=["face_lead"], **fields)
        west = west.model_copy(update={"face_down_lead": FaceDownLead(table=1, seat="E")})
        screen = " ".join(screen_of(west).split())
        assert "YOUR TURN: East led face down" in screen
        assert "then type face to face the lead" in screen
        assert parse_command("face", west) == FaceLead()
        north = player_view("N", acting="W", **fields)
        north = north.model_copy(update={"face_down_lead": FaceDownLead(table=1, seat="E")})
        assert "East led face down: waiting for West to face the lead" in screen_of(north)
        with pytest.raises(CommandError, match="no opening lead of your partner's face down"):
            parse_command("face", north)
        east = player_view("E", acting="W", **fields)
        lead = FaceDownLead(table=1, seat="E", card="HQ")
        east = east.model_copy(update={"face_down_lead": lead})
        assert "You led face down (HQ): waiting for West to face the lead" in screen_of(east)

    def test_names_presence_and_whom_the_table_waits_for(self) -> None:
        players = [
            PlayerInfo(table=1, seat="N", name="Ann", connected=False, since=NOW - 5_000),
            PlayerInfo(table=1, seat="E", name="Bob", connected=False, since=NOW - 150_000),
            PlayerInfo(table=1, seat="S", connected=False),
            PlayerInfo(table=1, seat="W", name="Robot", robot=True, connected=True),
        ]
        view = player_view("N", turn="E", acting="E", auction=[{"seat": "N", "call": "1C"}])
        view = view.model_copy(update={"players": players})
        screen = screen_of(view)
        assert "you: North (Ann), Sharks" in screen
        assert re.search(r"North \(you\) *\n *Ann *\n", screen), screen  # never away to yourself
        assert re.search(r"West .*East *\n *robot .*Bob · away 2 min", screen), screen
        assert re.search(r"South *\n *not here yet", screen), screen
        assert "Waiting: East (Bob) is to call." in screen
        assert "The table waits for East (Bob), who is away 2 min." in screen
        # A watcher sees every seat's presence, and whom each table waits for.
        assert view.board is not None
        watch = WatchView(match=view.match, mode="live", tables=[view.board], players=players)
        watched = screen_of(watch)
        assert re.search(r"North *\n *Ann · away <1 min", watched), watched
        assert "East (Bob) is to call." in watched
        assert "The table waits for East (Bob), who is away 2 min." in watched

    def test_undo_requests(self) -> None:
        undo = {"seat": "E", "card": "HT", "deciders": ["N", "S"], "accepted": ["S"]}
        fields = {"phase": "play", "contract": "1C", "declarer": "N", "dummy": "S"}
        north = screen_of(player_view("N", undo=undo, actions=["undo_answer"], **fields))
        assert "YOU DECIDE: East asks to take back their ♥10: type agree or refuse" in north
        east = screen_of(player_view("E", undo=undo, **fields))
        assert "You asked to take back your ♥10: waiting for North to agree" in east
        west = screen_of(player_view("W", undo=undo, **fields))
        assert "East asks to take back their ♥10: waiting for North to agree" in west
        assert "YOUR TURN" not in west

    def test_a_claim_with_its_statement_rejected_then_withdrawn(self) -> None:
        claim = {
            "claimer": "N",
            "tricks": 8,
            "remaining": 12,
            "statement": "trumps first",
            "deciders": ["E", "W"],
            "accepted": [],
            "status": "rejected",
        }
        fields = {"phase": "play", "contract": "3NT", "declarer": "N", "dummy": "S"}
        screen = screen_of(player_view("E", claim=claim, **fields))
        assert "North claimed 8 of the 12 remaining tricks: rejected: play goes on" in screen
        assert "Statement: trumps first" in screen
        claim["status"] = "withdrawn"
        screen = screen_of(player_view("E", claim=claim, **fields))
        assert "North's claim of 8 of the 12 remaining tricks was withdrawn: play goes on" in screen

    def test_the_last_trick_only_while_the_view_carries_it(self) -> None:
        trick = TrickView(
            leader="E",
            cards=[
                {"seat": "E", "card": "HT"},  # type: ignore[list-item]
                {"seat": "S", "card": "H2"},  # type: ignore[list-item]
                {"seat": "W", "card": "H3"},  # type: ignore[list-item]
                {"seat": "N", "card": "HA"},  # type: ignore[list-item]
            ],
            winner="N",
        )
        fields = {"phase": "play", "contract": "3NT", "declarer": "N", "dummy": "S"}
        shown = player_view("N", last_trick=trick, tricks_ns=1, **fields).board
        assert last_trick_words(shown).plain == (
            "Trick 1, led by East, won by North: East ♥10 South ♥2 West ♥3 North ♥A"
        )
        gone = player_view("N", tricks_ns=1, **fields).board
        assert "turned over" in last_trick_words(gone).plain
        assert "law 66" in last_trick_words(gone).plain
        assert "No trick" in last_trick_words(player_view("N", **fields).board).plain

    def test_the_review_of_a_finished_board(self) -> None:
        deal = {
            "N": ["SA", "SK"],
            "E": ["S2", "HA"],
            "S": ["S3", "H2"],
            "W": ["S4", "H3"],
        }
        tricks = [
            {"leader": "E", "winner": "N", "cards": [
                {"seat": "E", "card": "S2"}, {"seat": "S", "card": "S3"},
                {"seat": "W", "card": "S4"}, {"seat": "N", "card": "SA"},
            ]},
        ]  # fmt: skip
        current = {"leader": "N", "cards": [{"seat": "N", "card": "SK"}]}
        result = {"table": 1, "board": 1, "contract": "1S", "declarer": "N", "tricks": 7}
        view = player_view(
            "N",
            phase="finished",
            contract="1S",
            declarer="N",
            dummy="S",
            deal=deal,
            tricks=tricks,
            current_trick=current,
            result=result | {"ns_score": 80},
            actions=["next_board"],
        )
        # The match's only board: the table has played its one round (played_round).
        view = view.model_copy(
            update={
                "review": ReviewView(board=1, until=NOW + 20_000, ready=["E", "W"]),
                "played_round": True,
            }
        )
        screen = screen_of(view)
        assert "Board 1 result: 1♠ by North, 7 tricks (made): N-S +80" in screen
        assert "REVIEW of board 1: the review ends in 20 s, or as soon as all four" in screen
        assert "Ready: East, West · waiting for North, South" in screen
        assert "Type replay to go through the tricks, next-board (or n)" in screen
        assert view.board is not None
        first = screen_of(replay_screen(view.board, 1))
        assert "Board 1, trick 1 of 2: E ♠2 S ♠3 W ♠4 N ♠A · won by North · N-S 1, E-W 0" in first
        assert "East (leads)" in first
        last = screen_of(replay_screen(view.board, 2))
        assert "trick 2 of 2: N ♠K · the play stopped here (a claim or a ruling)" in last
        assert "♠ A K" not in last  # North's ace was played to trick 1
        assert re.search(r"North \(leads\) *\n *♠ K *\n", last), last

    def test_chat_says_whom_it_reached(self) -> None:
        chat = [
            ChatLine(table=1, seat="E", text="hello", to=["N", "E", "S"]),
            ChatLine(table=1, seat="N", text="hi", to=["N", "E", "S", "W"]),
            ChatLine(table=1, seat=None, text="play on", to=["N", "E", "S", "W"]),
        ]
        players = [PlayerInfo(table=1, seat="E", name="Bob", connected=True)]
        view = player_view("N").model_copy(update={"chat": chat, "players": players})
        console = Console(file=io.StringIO(), width=100, color_system=None)
        console.print(render_player(view, 7, with_chat=True, now=NOW))
        assert isinstance(console.file, io.StringIO)
        screen = console.file.getvalue()
        assert "East (Bob) says (to the opponents): hello" in screen
        assert "You say (to the table): hi" in screen
        assert "Director says (to the table): play on" in screen

    def test_the_director_s_queue_chat_and_finished_boards(self) -> None:
        match = player_view("N").match.model_copy(update={"boards": [1, 2]})
        calls = [DirectorCallView(table=2, seat="W", board=1, text="revoke", at=NOW - 180_000)]
        chat = [ChatLine(table=2, seat="W", text="director please", to=["N", "E", "S", "W"])]
        results = [
            TableResultView(table=1, board=1, contract="4S", declarer="N", tricks=10, ns_score=420),
        ]
        view = WatchView(
            match=match,
            mode="director",
            tables=[],
            results=results,
            chat=chat,
            director_calls=calls,
        )
        console = Console(file=io.StringIO(), width=100, color_system=None)
        console.print(render_watch(view, 7, director=True, with_chat=True, now=NOW))
        assert isinstance(console.file, io.StringIO)
        screen = console.file.getvalue()
        assert "CALLS FOR THE DIRECTOR (seen TABLE, say TABLE TEXT, close TABLE):" in screen
        assert "Table 2 · West (board 1): revoke · 3 min ago" in screen
        assert "Table 2 · West says (to the table): director please" in screen
        assert re.search(r"1 +4♠ N = \(N-S \+420\) +— +· +· +not compared yet", screen), screen
        # A spectator sees neither the calls nor the chat.
        spectator = screen_of(view.model_copy(update={"mode": "live"}))
        assert "CALLS" not in spectator
        assert "director please" not in spectator

    def test_the_score_sheet_and_a_board_as_both_tables_played_it(self) -> None:
        first = TableResultView(
            table=1, board=1, contract="4S", declarer="N", tricks=10, ns_score=420
        )
        second = TableResultView(
            table=2, board=1, contract="4S", declarer="N", tricks=9, ns_score=-50
        )
        comparisons = [
            ComparisonView(
                board=1,
                table1=first,
                table2=second,
                difference=470,
                swing=10,
                running_total=10,
                double_dummy={s: {"NT": 9, "S": 10, "H": 8, "D": 7, "C": 6} for s in "NESW"},  # type: ignore[misc]
                par={"score": 420, "contracts": ["4S N ="]},  # type: ignore[arg-type]
            ),
            ComparisonView(
                board=2, table1=None, table2=None, difference=None, swing=3, running_total=13,
                artificial=3,
            ),
            ComparisonView(
                board=3, table1=None, table2=None, difference=None, swing=0, running_total=13,
                void=True,
            ),
        ]  # fmt: skip
        match = player_view("N").match.model_copy(
            update={
                "boards": [1, 2, 3],
                "comparisons": comparisons,
                "imps_a": 13,
                "finished": True,
                "winner": "A",
            }
        )
        sheet = screen_of(score_sheet(match))
        assert re.search(
            r"1 +4♠ N = \(N-S \+420\) +4♠ N -1 \(E-W \+50\) +10 +· +Sharks by 10", sheet
        )
        assert re.search(r"2 +— +— +3 +· +Sharks by 13 \(artificial\)", sheet), sheet
        assert re.search(r"3 +— +— +void +void +Sharks by 13", sheet), sheet
        assert "MATCH OVER: Sharks beat Minnows by 13 IMPs (13 to 0)" in sheet
        played = board(
            phase="finished",
            contract="4S",
            declarer="N",
            dummy="S",
            auction=[{"seat": "N", "call": "4S"}, {"seat": "E", "call": "P"}],
            result=first.model_dump(),
            deal={"N": ["SA"], "E": ["S2"], "S": ["S3"], "W": ["S4"]},
        )
        record = BoardRecord(
            board=1,
            tables=[
                BoardView.model_validate(played),
                BoardView.model_validate(played | {"table": 2, "result": second.model_dump()}),
            ],
            comparison=comparisons[0],
        )
        screen = screen_of(board_record_screen(record, match, 1))
        assert "Board 1 as the tables played it" in screen
        assert re.search(r"Table 1 \(yours\) +│ Table 2", screen), screen
        assert re.search(
            r"4♠ by North, 10 tricks \(made\): N-S \+420 +│ 4♠ by North, 9 tricks", screen
        )
        assert "swing 10 IMPs to Sharks" in screen
        assert re.search(r"North +9 +10 +8 +7 +6", screen), screen
        assert "Par: N-S +420 (4S N =)" in screen


# -- the movements: rounds, moves and standings ----------------------------------------------

INDIVIDUAL_NAMES = {4: "Cy", 5: "Ann", 9: "Di", 12: "Bo", 2: "Eve"}
"""Names of some of the 12-player individual's players (the others have none)."""


def individual_standings(**points: float) -> list[Standing]:
    """The 12 players' standings, best first: ``points`` by player (``p5=3.3``), 0 else."""
    totals = {number: points.get(f"p{number}", 0.0) for number in range(1, 13)}
    ranked = sorted(totals.items(), key=lambda item: -item[1])
    return [
        Standing(
            competitor=str(number),
            name=INDIVIDUAL_NAMES.get(number, f"Player {number}"),
            players=[number],
            points=total,
        )
        for number, total in ranked
    ]


def individual_view(**fields: object) -> PlayerView:
    """Ann, player 5 of a 12-player individual (three tables, 11 rounds, cross-IMPs), in
    round 3 East at table 2: partner Di (9, West), opponents Cy (4, North) and player 11
    (South). Board 2 of round 2 is compared (Ann played it at table 3); board 3 is on
    table 2, in the auction; ``fields`` replace the view's."""
    plays = [
        TableResultView(
            table=1, round=2, board=2, contract="4S", declarer="N", tricks=10, ns_score=420
        ),
        TableResultView(
            table=2, round=2, board=2, contract="4S", declarer="N", tricks=9, ns_score=-50
        ),
        TableResultView(
            table=3, round=2, board=2, contract="3NT", declarer="S", tricks=10, ns_score=430
        ),
    ]
    comparison = ComparisonView(
        board=2,
        results=plays,
        points={"5": 10 / 3, "4": -10 / 3, "12": 23 / 3},
        table1=None,
        table2=None,
        difference=None,
        swing=None,
        running_total=None,
    )
    match = MatchSummary(
        match_id="m",
        format="individual",
        scoring="imps",
        rounds=11,
        team_a="Team A",
        team_b="Team B",
        boards=list(range(1, 12)),
        comparisons=[comparison],
        standings=individual_standings(p12=23 / 3, p5=10 / 3, p9=-2.5),
        imps_a=0,
        imps_b=0,
        finished=False,
    )
    players = [
        PlayerInfo(table=2, seat="N", player=4, name="Cy", connected=True),
        PlayerInfo(table=2, seat="E", player=5, name="Ann", connected=True),
        PlayerInfo(table=2, seat="S", player=11, connected=True),
        PlayerInfo(table=2, seat="W", player=9, name="Di", connected=True),
    ]
    view = PlayerView(
        match=match,
        player=5,
        round=3,
        table=2,
        seat="E",
        team=None,
        competitor="5",
        partner=9,
        opponents=[4, 11],
        board=BoardView.model_validate(board(table=2, board=3, turn="N", acting="N")),
        results=[plays[2]],
        players=players,
        chat=[],
    )
    return view.model_copy(update=fields)


FINISHED_BOARD_3 = BoardView.model_validate(
    board(
        table=2,
        board=3,
        phase="finished",
        contract="2H",
        declarer="E",
        dummy="W",
        auction=[{"seat": "N", "call": "P"}, {"seat": "E", "call": "2H"}],
        result={
            "table": 2, "round": 3, "board": 3, "contract": "2H", "declarer": "E", "tricks": 8,
            "ns_score": -110,
        },
    )
)  # fmt: skip
"""Table 2's last board of round 3, finished."""

ROUND_4 = NextSeat(
    round=4, table=1, seat="S", partner=12, opponents=[2, 7], names={"12": "Bo", "2": "Eve"}
)
"""Where Ann sits in round 4: South at table 1, partnering Bo."""


class TestMovements:
    """What a player of a movement (an individual, replay duplicate) is shown: the round,
    where they sit and with whom, where they go next, the points and the standings."""

    def test_the_round_the_seat_the_partner_and_the_opponents(self) -> None:
        screen = screen_of(individual_view())
        assert "Board 3 · Table 2 · Dealer North · Vul none · you: East (Ann), player 5" in screen
        assert "Round 3 of 11 · you are player 5 at table 2, East\n" in screen
        assert "Partner Di (West) · opponents Cy (North) and player 11 (South)" in screen
        # A robot without a name of its own is its number, and said to be a robot.
        robot = PlayerInfo(table=2, seat="S", player=11, name="Robot", robot=True, connected=True)
        view = individual_view()
        players = [robot if p.player == 11 else p for p in view.players]
        screen = screen_of(view.model_copy(update={"players": players}))
        assert "opponents Cy (North) and player 11 (South, robot)" in screen

    def test_waiting_for_the_other_tables_and_where_to_go_next(self) -> None:
        view = individual_view(
            board=FINISHED_BOARD_3, played_round=True, waiting_for=[1, 3], next_seat=ROUND_4
        )
        screen = screen_of(view)
        assert "Waiting for tables 1 and 3 to finish round 3" in screen
        assert "Round 4: go to table 1, South; your partner is Bo" in screen
        assert "Your opponents there: Eve and player 7" in screen
        # The server's robots, all called Robot, are told apart by their numbers.
        robots = ROUND_4.model_copy(update={"names": {"12": "Robot", "2": "Robot"}})
        screen = screen_of(view.model_copy(update={"next_seat": robots}))
        assert "Round 4: go to table 1, South; your partner is player 12 (robot)" in screen
        assert "Your opponents there: player 2 (robot) and player 7" in screen
        one = screen_of(view.model_copy(update={"waiting_for": [3]}))
        assert "Waiting for table 3 to finish round 3" in one
        # The last table to finish waits for nobody, and is told where to go all the same.
        last = screen_of(view.model_copy(update={"waiting_for": []}))
        assert "Waiting for" not in last
        assert "Round 4: go to table 1, South; your partner is Bo" in last

    def test_staying_at_the_table_in_another_seat_or_the_same(self) -> None:
        move = ROUND_4.model_copy(update={"table": 2, "seat": "N", "names": {}})
        view = individual_view(
            board=FINISHED_BOARD_3, played_round=True, waiting_for=[1], next_seat=move
        )
        assert "Round 4: stay at table 2, move to North; your partner is player 12" in screen_of(
            view
        )
        stay = ROUND_4.model_copy(update={"table": 2, "seat": "E"})
        view = view.model_copy(update={"next_seat": stay})
        assert "Round 4: stay at table 2, East; your partner is Bo" in screen_of(view)
        # Between boards (no board at the table) the move is shown too.
        assert "Round 4: stay at table 2, East; your partner is Bo" in screen_of(
            view.model_copy(update={"board": None, "waiting_for": []})
        )

    def test_no_move_while_the_table_still_plays_the_round(self) -> None:
        playing = individual_view(next_seat=ROUND_4)
        assert "Round 4:" not in screen_of(playing)
        # The finished board's review is on, and a board of the round is still to come.
        review = ReviewView(board=3, until=NOW + 20_000, ready=[])
        reviewing = playing.model_copy(update={"board": FINISHED_BOARD_3, "review": review})
        screen = screen_of(reviewing)
        assert "REVIEW of board 3: the next board starts in 20 s, or as soon as all four" in screen
        assert "Round 4:" not in screen
        assert "Waiting for" not in screen

    def test_the_move_on_the_round_s_last_review(self) -> None:
        # The table has played the round's boards (played_round): on the last board's
        # review the player is told where to go, while the other tables still play.
        review = ReviewView(board=3, until=NOW + 20_000, ready=["N"])
        view = individual_view(
            board=FINISHED_BOARD_3,
            review=review,
            played_round=True,
            waiting_for=[3],
            next_seat=ROUND_4,
        )
        screen = screen_of(view)
        assert "REVIEW of board 3: the round ends in 20 s, or as soon as all four" in screen
        assert "Waiting for table 3 to finish round 3" in screen
        assert "Round 4: go to table 1, South; your partner is Bo" in screen
        # The last round's last board: nowhere to go, the review is the match's last.
        last = view.model_copy(update={"next_seat": None, "waiting_for": []})
        screen = screen_of(last)
        assert "REVIEW of board 3: the review ends in 20 s" in screen
        assert "Round 4:" not in screen
        assert "Waiting for" not in screen

    def test_a_round_that_waits_for_the_director(self) -> None:
        view = individual_view(board=FINISHED_BOARD_3, played_round=True, next_seat=ROUND_4)
        assert "waits for the director" not in screen_of(view)
        held = view.model_copy(update={"match": view.match.model_copy(update={"held_round": 4})})
        screen = screen_of(held)
        assert "Round 4 waits for the director" in screen
        assert "Round 4: go to table 1, South; your partner is Bo" in screen
        # Spectators see it too; the director is told how to start the round.
        watch = WatchView(match=held.match, mode="live", tables=[])
        assert "Round 4 waits for the director" in screen_of(watch)
        directing = watch.model_copy(update={"mode": "director"})
        screen = screen_of(directing, director=True)
        assert "Round 4 waits for you: type start 4 to start it" in screen
        assert "waits for the director" not in screen
        assert "waits for" not in screen_of(WatchView(match=view.match, mode="live", tables=[]))

    def test_the_standings_best_first_with_yours_marked(self) -> None:
        screen = screen_of(individual_view())
        assert "Standings (IMPs) · compared 1 of 11 boards" in screen
        places = [
            r"1\. Bo +7\.7\s",
            r"2\. Ann \(you\) +3\.3\s",
            r"3\. Player 1 +0\s",
            r"12\. Di +-2\.5",
        ]
        found = [re.search(place, screen) for place in places]
        assert None not in found, screen
        starts = [found.start() for found in found if found is not None]
        assert starts == sorted(starts), screen
        assert re.search(r"3\. Cy +0\s", screen), screen  # equal points, equal places
        assert "Match:" not in screen
        assert "Team A" not in screen

    def test_a_compared_board_shows_every_play_and_your_points(self) -> None:
        screen = screen_of(individual_view())
        assert (
            "Board 2: you score +3.3 IMPs · table 3 (yours) 3NT S +1 (N-S +430)\n"
            "    table 1 4♠ N = (N-S +420) · table 2 4♠ N -1 (E-W +50)\n"
        ) in screen
        assert "swing" not in screen
        assert "running total" not in screen

    def test_the_score_sheet_and_the_end_of_an_individual(self) -> None:
        played = TableResultView(
            table=2, round=3, board=3, contract="2H", declarer="E", tricks=8, ns_score=-110
        )
        view = individual_view()
        view = view.model_copy(update={"results": [*view.results, played]})
        match = view.match.model_copy(update={"finished": True, "winner": "12"})
        sheet = screen_of(score_sheet(match, view.results, you=view))
        assert "Score sheet: individual, IMPs" in sheet
        assert re.search(r"2 +table 1: 4♠ N = \(N-S \+420\) +\+3\.3 +3\.3", sheet), sheet
        assert re.search(r"table 3 \(yours\): 3NT S \+1 \(N-S \+430\)", sheet), sheet
        assert re.search(r"3 +table 2: 2♥ E = \(E-W \+110\) +· +not compared yet", sheet), sheet
        assert re.search(r"1\. Bo +7\.7", sheet), sheet
        assert "MATCH OVER: Bo wins with 7.7 IMPs; next Ann with 3.3 IMPs" in sheet

    def test_replay_duplicate_points_and_pairs(self) -> None:
        standings = [
            Standing(competitor="1-3", name="Ann & Cy", players=[1, 3], points=2.5),
            Standing(competitor="2-4", name="Bo & Di", players=[2, 4], points=1.5),
        ]
        plays = [
            TableResultView(
                table=1, round=1, board=1, contract="4S", declarer="N", tricks=10, ns_score=420
            ),
            TableResultView(
                table=1, round=2, board=1, contract="4S", declarer="E", tricks=10, ns_score=-420
            ),
        ]
        comparison = ComparisonView(
            board=1,
            results=plays,
            points={"1-3": 0.5, "2-4": 0.5},
            table1=None,
            table2=None,
            difference=None,
            swing=None,
            running_total=None,
        )
        match = MatchSummary(
            match_id="m",
            format="replay",
            scoring="board_a_match",
            rounds=2,
            team_a="Team A",
            team_b="Team B",
            boards=[1, 2, 3, 4],
            comparisons=[comparison],
            standings=standings,
            imps_a=0,
            imps_b=0,
            finished=True,
            winner="1-3",
        )
        view = PlayerView(
            match=match,
            player=1,
            round=2,
            table=1,
            seat="W",
            team=None,
            competitor="1-3",
            partner=3,
            opponents=[2, 4],
            board=None,
            results=plays,
            players=[],
            chat=[],
        )
        screen = screen_of(view)
        assert "No board in play · you: West, pair 1-3" in screen
        assert "Round 2 of 2 · you are player 1 at table 1, West\nPartner player 3 (East)" in screen
        assert "Standings (board-a-match) · compared 1 of 4 boards" in screen
        assert re.search(r"1\. Ann & Cy \(you\) +2\.5\n", screen), screen
        assert re.search(r"2\. Bo & Di +1\.5\n", screen), screen
        assert (
            "Board 1: your pair scores 0.5 points\n"
            "    round 1 4♠ N = (N-S +420) · round 2 4♠ E = (E-W +420)\n"
        ) in screen
        assert "MATCH OVER: Ann & Cy win with 2.5 points; next Bo & Di with 1.5 points" in screen
        # Total points are whole, signed on a board.
        total = match.model_copy(
            update={
                "scoring": "total_points",
                "standings": [s.model_copy(update={"points": p}) for s, p in zip(standings, (840.0, -840.0), strict=True)],
                "comparisons": [comparison.model_copy(update={"points": {"1-3": 840.0, "2-4": -840.0}})],
            }
        )  # fmt: skip
        screen = screen_of(view.model_copy(update={"match": total}))
        assert "Standings (total points)" in screen
        assert re.search(r"1\. Ann & Cy \(you\) +840\n", screen), screen
        assert re.search(r"2\. Bo & Di +-840\n", screen), screen
        assert "your pair scores +840 points" in screen
        # A spectator sees both pairs' points on each board.
        watched = screen_of(WatchView(match=total, mode="live", tables=[], results=plays))
        assert re.search(r"Board +Results +Ann & Cy +Bo & Di", watched), watched
        assert re.search(r"1 +round 1: 4♠ N = \(N-S \+420\) +\+840 +-840", watched), watched
        assert re.search(r"1\. Ann & Cy +840\n", watched), watched
        assert "Match:" not in watched

    def test_the_team_formats_still_swing(self) -> None:
        first = TableResultView(
            table=1, board=1, contract="4S", declarer="N", tricks=10, ns_score=420
        )
        second = TableResultView(
            table=2, board=1, contract="4S", declarer="N", tricks=9, ns_score=-50
        )
        comparison = ComparisonView(
            board=1,
            results=[first, second],
            points={"A": 10.0, "B": -10.0},
            table1=first,
            table2=second,
            difference=470,
            swing=10,
            running_total=10,
        )
        view = player_view("N")
        match = view.match.model_copy(
            update={
                "comparisons": [comparison],
                "imps_a": 10,
                "standings": [
                    Standing(competitor="A", name="Sharks", players=[1, 2, 3, 4], points=10.0),
                    Standing(competitor="B", name="Minnows", players=[5, 6, 7, 8], points=-10.0),
                ],
            }
        )
        screen = screen_of(view.model_copy(update={"match": match}))
        assert "you: North, Sharks" in screen
        assert "Match: Sharks (you) 10 IMPs · Minnows 0 IMPs · compared 1 of 1 boards" in screen
        assert re.search(
            r"Board 1: here 4♠ N = \(N-S \+420\) · other table 4♠ N -1 \(E-W \+50\)\s+"
            r"swing 10 IMPs to Sharks · running total: Sharks by 10",
            screen,
        ), screen
        assert "Round" not in screen  # one round: nobody moves
        assert "Standings" not in screen
        # In team-of-four a pair changes tables at half-time: "here" is where it played.
        moved = view.model_copy(
            update={
                "match": match.model_copy(update={"format": "team-of-four", "rounds": 4}),
                "table": 2,
                "round": 3,
                "results": [first],
            }
        )
        screen = screen_of(moved)
        assert "Round 3 of 4 · you are player 1 at table 2, North" in screen
        assert "Board 1: here 4♠ N = (N-S +420) · other table 4♠ N -1 (E-W +50)" in screen

    def test_the_prompt_follows_the_seat_between_rounds(self) -> None:
        client = Client(Link.parse("http://127.0.0.1:1/play#token"))
        client.welcome = Welcome(version=5, role="player", player=5, table=1, seat="N")
        table = TerminalTable(client, Console(file=io.StringIO()))
        assert table.prompt_text == "North> "
        client.view = individual_view()
        assert table.prompt_text == "East> "

    def test_tables_and_adjustments_follow_the_format(self) -> None:
        three = WatchView(match=individual_view().match, mode="director", tables=[])
        assert parse_command("say 3 hello", three, director=True) == SendChat(text="hello", table=3)
        with pytest.raises(CommandError, match="there is no table 4: the tables are 1, 2 and 3"):
            parse_command("say 4 hello", three, director=True)
        replay = three.model_copy(
            update={"match": three.match.model_copy(update={"format": "replay", "standings": []})}
        )
        with pytest.raises(CommandError, match="there is no table 2: there is only table 1"):
            parse_command("say 2 hello", replay, director=True)
        with pytest.raises(CommandError, match="this match has no teams"):
            parse_command("adjust 3 +3", three, director=True)
        assert parse_command("void 3", three, director=True) == VoidBoard(board=3)
