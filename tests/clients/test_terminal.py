"""The terminal table (``duplicate play``) driven through a real pseudo-terminal against a
real server: a whole board typed at the keyboard, refused commands, a dropped connection."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import io
import os
import re
import struct
import sys
import termios
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from rich.console import Console

from bridge import Seat as BridgeSeat
from clients.client import Client
from clients.terminal import (
    CommandError,
    parse_call,
    parse_card,
    parse_command,
    render_player,
    render_watch,
)
from protocol.messages import (
    BoardView,
    MatchCreated,
    MatchSummary,
    PlayerView,
    Seat,
    Team,
    WatchView,
)
from server.app import Server
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
    async def start(cls, link: str) -> Terminal:
        master, slave = os.openpty()
        # 50 rows of 110 columns, as an ssh session might have.
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 110, 0, 0))
        environment = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(ROOT))
        environment.pop("NO_COLOR", None)
        environment.pop("COLUMNS", None)
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "clients.terminal", link,
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

    async def latest_screen(self, after_seq: int, timeout: float = WAIT) -> tuple[int, str]:
        """The newest table printed whole (down to its prompt) for an update after
        ``after_seq``, waiting for one: its update number and its text."""

        async def waiting() -> tuple[int, str]:
            while True:
                headers = list(HEADER.finditer(self.output))
                if headers:
                    last = headers[-1]
                    seq = int(last.group(3))
                    screen = self.output[last.start() :]
                    if seq > after_seq and PROMPT in screen:
                        return seq, screen
                if self._ended:
                    raise AssertionError("the terminal ended")
                self._changed.clear()
                await self._changed.wait()

        try:
            return await asyncio.wait_for(waiting(), timeout)
        except TimeoutError:
            tail = self.output[-3000:]
            raise AssertionError(f"no table after update {after_seq}:\n{tail}") from None

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
async def running(link: str) -> AsyncIterator[Terminal]:
    terminal = await Terminal.start(link)
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
    _, screen = await terminal.latest_screen(after_seq=0)
    assert "YOUR TURN: your call" in screen  # North deals
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
        ("ask 3", r"Not sent: no call has been made yet"),
    ]
    for line, message in refusals:
        mark = terminal.type(line)
        await terminal.expect(message, mark)
        await terminal.expect(PROMPT, mark + len(line))
    # A command the server refuses: its reason is printed plainly, and nothing changes.
    mark = terminal.type("accept")
    await terminal.expect(r"Refused by the server: .*\(wrong_phase\)", mark)
    await observer.ping()  # anything the terminal caused has reached North's log by now
    assert observer.seq == before
    assert isinstance(observer.view, PlayerView)
    assert observer.view.board is not None
    assert observer.view.board.auction == []
    # `help` and `last` answer locally; the prompt comes back after each.
    mark = terminal.type("help")
    await terminal.expect(r"claim N .*\n(.*\n)*.*quit", mark)
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
        await terminal.expect("Not sent: you are watching: type rule, help or quit", mark)
        mark = terminal.type("rule 1 9")
        await terminal.expect(r"Refused by the server: .*\(wrong_phase\)", mark)
        mark = terminal.type("help")
        await terminal.expect("rule TABLE TRICKS", mark)
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
    ours = [
        c
        for c in server.connections
        if c.subscriber is not None and c.subscriber.viewer == Player(1, BridgeSeat.NORTH)
    ]
    assert len(ours) == 1
    mark = len(terminal.output)
    transport = ours[0].websocket.transport
    transport.abort()  # the network drops: no closing handshake
    await terminal.expect("Connection lost: reconnecting", mark)
    back = await terminal.expect("Reconnected: the table is back", mark)
    await terminal.expect(PROMPT, back.end())
    # The table goes on: North's call after the drop is made and shown.
    mark = terminal.type("p")
    _, screen = await terminal.latest_screen(after_seq=seq)
    assert "#1 Pass" in screen
    mark = terminal.type("quit")
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
            parse_command("rule 1 9", None, director=False)


@pytest.mark.asyncio
async def test_a_concession_is_shown_answered_and_scored(
    north: tuple[MatchCreated, Terminal],
) -> None:
    _, terminal = north
    _, screen = await terminal.latest_screen(after_seq=0)
    bids = re.search(r"Legal calls: .*bids (\S+) to", screen)
    assert bids is not None, screen
    mark = terminal.type(typed_call(bids.group(1)))
    # The robots pass (they do, on this deal): North declares; the opening lead is made.
    await terminal.expect(r"Dummy's turn: you play from dummy \(South\)", mark)
    mark = terminal.type("claim 0")
    await terminal.expect(r"North claims 0 tricks", mark)
    await terminal.expect(r"East accepts the claim", mark)
    await terminal.expect(r"West accepts the claim", mark)
    await terminal.expect(r"Board 1 result: 1♣ by North, 0 tricks \(down 7\): E-W \+350", mark)
    terminal.type("quit")
    assert await terminal.exit_status() == 0


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
    return PlayerView(
        match=MatchSummary.model_validate(match),
        table=1,
        seat=seat,
        team=team,
        board=BoardView.model_validate(board(**fields)),
        results=[],
        chat=[],
    )


def screen_of(
    view: PlayerView | WatchView, *, director: bool = False, colours: bool = False
) -> str:
    console = Console(file=io.StringIO(), width=100, color_system="standard" if colours else None)
    if isinstance(view, PlayerView):
        console.print(render_player(view, 7))
    else:
        console.print(render_watch(view, 7, director=director))
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


class TestScreens:
    """What the table shows, from views made by hand."""

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
            "rejected": True,
        }
        table = board(phase="director", contract="3NT", declarer="W", dummy="E", claim=claim)
        match = player_view("N").match
        view = WatchView(match=match, mode="director", tables=[BoardView.model_validate(table)])
        screen = screen_of(view, director=True)
        assert "The claim was rejected: the director is called" in screen
        assert "DIRECTOR: type rule 1 TRICKS, declarer's side's tricks in all (0 to 13)" in screen
