"""`duplicate new-event` and `duplicate event` as a director runs them: the teams file and
its errors, the event's text, and events of robots' teams made, followed, begun and
adjusted on a running `duplicate serve` (with a Redis of its own)."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.pbn import parse_games
from clients.client import Client, Link
from duplicate.events import format_event, parse_teams, read_teams
from duplicate.serving import CommandFailed
from protocol.messages import (
    ButlerEntry,
    EventAdjustment,
    EventMatchEntry,
    EventRoundEntry,
    EventStanding,
    EventTeamEntry,
    EventView,
)
from server.redis_process import free_port
from tests.duplicate.test_serve import assert_fails_in_one_line, duplicate, environment, read_until

# -- the teams file --------------------------------------------------------------------------


def test_a_teams_file_of_names_and_robots(tmp_path: Path) -> None:
    path = tmp_path / "teams.txt"
    path.write_text(
        "\ufeff# Tuesday's teams\n"  # a byte-order mark, as some editors write
        "Ash: Ann, Bo, Cy, Di\n"
        "\n"
        "  Birch :  Ed,Flo , Gus, Hal, Ivy, Jo,  \n"  # six players; a comma at the end
        "# the house team\n"
        "Cedar: Robots\n",
        encoding="utf-8",
    )
    teams = read_teams(path)
    assert [(team.name, team.players, team.robots) for team in teams] == [
        ("Ash", ["Ann", "Bo", "Cy", "Di"], False),
        ("Birch", ["Ed", "Flo", "Gus", "Hal", "Ivy", "Jo"], False),
        ("Cedar", [], True),
    ]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (
            "Elm: Kim, Lu, Max",
            "team 'Elm' has 3 players: a team has four to six players, or robots",
        ),
        ("Elm: Kim", "team 'Elm' has 1 player: a team has four"),
        ("Elm: A, B, C, D, E, F, G", "team 'Elm' has 7 players"),
        ("Elm:", "team 'Elm' has no players"),
        (": Kim, Lu, Max, Ned", "the team has no name before the ':'"),
        ("Elm Kim, Lu, Max, Ned", "no ':' after the team's name; write Team name: Player 1"),
        ("Elm: Kim, , Lu, Max, Ned", "team 'Elm': an empty player's name"),
        ("Elm: Kim, Lu, Max, kim", "team 'Elm': 'kim' is named twice"),
        ("Elm: robots, Kim", "'robots' stands alone"),
        ("ash: robots", "a second team named 'ash' (the first is on line 2)"),
        ("E" * 41 + ": robots", "a name is at most 40 characters"),
    ],
)
def test_a_bad_line_of_the_teams_file_is_named(line: str, says: str) -> None:
    text = f"# teams\nAsh: Ann, Bo, Cy, Di\nBirch: robots\n\n{line}\n"
    with pytest.raises(CommandFailed) as refused:
        parse_teams(text, "teams.txt")
    assert str(refused.value).startswith("teams.txt line 5: ")
    assert says in str(refused.value)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "teams.txt has 0 teams: an event needs two or more"),
        ("# only\nAsh: robots\n", "teams.txt has 1 team: an event needs two or more"),
        ("".join(f"T{n}: robots\n" for n in range(41)), "has 41 teams: an event has at most 40"),
    ],
)
def test_an_event_needs_two_to_forty_teams(text: str, says: str) -> None:
    with pytest.raises(CommandFailed, match=re.escape(says)):
        parse_teams(text, "teams.txt")


def test_new_event_refuses_a_bad_file_or_option_in_one_line_before_connecting(
    tmp_path: Path,
) -> None:
    # No server listens at --server: each error comes before any connection.
    server = ["--server", f"http://127.0.0.1:{free_port()}", "--organiser-key", "any"]
    teams = tmp_path / "teams.txt"
    teams.write_text("Ash: robots\nBirch: Ann, Bo, Cy\nCedar: robots\n")
    bad = duplicate("new-event", "--teams", str(teams), "--rounds", "1", *server)
    assert_fails_in_one_line(
        bad, "duplicate new-event: ", f"--teams {teams} line 2: team 'Birch' has 3 players"
    )
    assert bad.stdout == ""
    missing = duplicate("new-event", "--teams", str(tmp_path / "none.txt"), *server)
    assert_fails_in_one_line(missing, f"cannot read --teams {tmp_path / 'none.txt'}")
    teams.write_text("Ash: robots\nBirch: robots\nCedar: robots\n")
    swiss = duplicate("new-event", "--teams", str(teams), *server)
    assert_fails_in_one_line(swiss, "a Swiss needs --rounds N", "3 teams can play 3 without")
    boards = duplicate(
        "new-event", "--teams", str(teams), "--rounds", "2", "--boards", "0", *server
    )
    assert_fails_in_one_line(boards, "bad --boards: Input should be greater than or equal to 1")
    unknown = duplicate("event", "not-an-id", *server)
    assert_fails_in_one_line(unknown, "'not-an-id' is not an event's id: 16 hex digits")


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--start-round", "0"], "bad --start-round: round: Input should be greater than"),
        (["--start-round", "2", "--matches", "1-4", "2/3"], "bad --matches '2/3': write HOME-AWAY"),
        (["--matches", "1-4"], "--matches re-pairs the round --start-round begins"),
        (["--start-round", "2", "--bye", "5"], "--bye names the team that sits out"),
        (["--round", "2"], "--round says which round an --adjust is for"),
        (["--adjust", "1", "-1.005", "slow"], "--adjust: -1.005 VPs: -20 to 20, to two decimals"),
        (["--adjust", "1", "a lot", "slow"], "--adjust: 'a lot' is not a number of VPs"),
        (["--adjust", "1", "1", " "], "--adjust: say why (the REASON)"),
        (["--adjust", "1", "1", "slow", "--round", "0"], "bad --adjust: round: Input should"),
    ],
)
def test_event_refuses_bad_options_in_one_line_before_connecting(
    options: list[str], says: str
) -> None:
    server = ["--server", f"http://127.0.0.1:{free_port()}", "--organiser-key", "any"]
    result = duplicate("event", "0123456789abcdef", *options, *server)
    assert_fails_in_one_line(result, "duplicate event: ", says)


# -- the event as text -------------------------------------------------------------------------


def ended(
    home: int, away: int, letter: str, imps: tuple[int, int], vps: tuple[float, float]
) -> EventMatchEntry:
    """An ended match of the event, its id 16 times ``letter``."""
    return EventMatchEntry(
        home=home, away=away, match_id=letter * 16, status="finished",
        home_imps=imps[0], away_imps=imps[1], home_vps=vps[0], away_vps=vps[1],
    )  # fmt: skip


def a_swiss_in_round_2() -> EventView:
    """Five teams, round 1 ended, round 2 half played, two adjustments, five pairs."""
    names = ["Ash", "Birch", "Cedar", "Dogwood", "Elm"]
    return EventView(
        event_id="1b35ed218fef95c9",
        name="Tuesday teams",
        kind="swiss",
        status="playing",
        rounds=3,
        boards_per_round=2,
        round=2,
        teams=[
            EventTeamEntry(team=n, name=name, players=[f"{name[0]}{i}" for i in range(1, 5)])
            for n, name in enumerate(names, 1)
        ],
        schedule=[
            EventRoundEntry(
                round=1,
                status="finished",
                boards=[1, 2],
                matches=[
                    ended(1, 3, "a", (23, 4), (16.47, 3.53)),
                    ended(2, 4, "b", (0, 12), (6.22, 13.78)),
                ],
                bye=5,
                bye_vps=12.0,
            ),
            EventRoundEntry(
                round=2,
                status="playing",
                boards=[3, 4],
                matches=[
                    EventMatchEntry(home=5, away=1, match_id="c" * 16, status="playing"),
                    ended(4, 3, "d", (7, 7), (10.0, 10.0)),
                ],
                bye=2,
                bye_vps=12.0,
            ),
        ],
        standings=[
            EventStanding(rank=1, team=1, vps=16.47, played=1, imps_for=23, imps_against=4),
            EventStanding(rank=2, team=4, vps=23.78, played=2, imps_for=19, imps_against=7),
            EventStanding(rank=3, team=5, vps=12.0, played=0, imps_for=0, imps_against=0),
            EventStanding(
                rank=4, team=2, vps=5.22, played=1, imps_for=0, imps_against=12, tied=True
            ),
            EventStanding(
                rank=4, team=3, vps=5.22, played=2, imps_for=11, imps_against=30, tied=True
            ),
        ],
        adjustments=[
            EventAdjustment(team=2, vps=-1.0, reason="late start", round=1),
            EventAdjustment(team=3, vps=-8.31, reason="a wrong board", round=None),
        ],
        butler=[
            ButlerEntry(rank=1, team=1, players=["A1", "A2"], boards=2, imps=14, per_board=7.0),
            ButlerEntry(rank=2, team=4, players=["D3", "D4"], boards=4, imps=6, per_board=1.5),
            ButlerEntry(rank=2, team=1, players=["A3", "A4"], boards=2, imps=6, per_board=3.0),
            ButlerEntry(rank=4, team=5, players=["E1", "E2"], boards=0, imps=0, per_board=0.0),
            ButlerEntry(rank=5, team=3, players=["C1", "C2"], boards=4, imps=-11, per_board=-2.75),
        ],
    )


def test_the_event_reads_as_aligned_tables() -> None:
    # Each round's matches (IMPs and VPs of those ended only), its bye, the standings
    # (shared ranks marked =), the adjustments, and the Butler ranking's top lines.
    assert format_event(a_swiss_in_round_2(), butler_lines=4).splitlines() == [
        "Tuesday teams (1b35ed218fef95c9): a Swiss of 5 teams, 3 rounds of 2 boards; round 2 of 3",
        "",
        "Round 1 (boards 1-2): ended",
        "  Home   Away     IMPs         VPs          Match",
        "  Ash    Cedar      23 - 4   16.47 - 3.53   aaaaaaaaaaaaaaaa",
        "  Birch  Dogwood     0 - 12   6.22 - 13.78  bbbbbbbbbbbbbbbb",
        "  Sits out: Elm, 12.00 VPs",
        "",
        "Round 2 (boards 3-4): playing",
        "  Home     Away   IMPs        VPs          Match",
        "  Elm      Ash                             cccccccccccccccc (playing)",
        "  Dogwood  Cedar     7 - 7  10.00 - 10.00  dddddddddddddddd",
        "  Sits out: Birch, 12.00 VPs",
        "",
        "Standings",
        "  Rank  No  Team       VPs  Played  IMPs for  IMPs against",
        "  1      1  Ash      16.47       1        23             4",
        "  2      4  Dogwood  23.78       2        19             7",
        "  3      5  Elm      12.00       0         0             0",
        "  4=     2  Birch     5.22       1         0            12",
        "  4=     3  Cedar     5.22       2        11            30",
        "",
        "Adjustments",
        "  Team     VPs  Round  Reason",
        "  Birch  -1.00      1  late start",
        "  Cedar  -8.31    all  a wrong board",
        "",
        "Butler (each pair's IMPs against the boards' datums): the top 4 of 5 pairs",
        "  Rank  Pair     Team     Boards  IMPs  IMPs a board",
        "  1     A1 - A2  Ash           2   +14         +7.00",
        "  2=    D3 - D4  Dogwood       4    +6         +1.50",
        "  2=    A3 - A4  Ash           2    +6         +3.00",
        "  4     E1 - E2  Elm           0     0          0.00",
    ]


def test_a_drawn_round_says_how_to_begin_it_and_an_event_without_boards_says_so() -> None:
    view = a_swiss_in_round_2()
    view.schedule[1] = view.schedule[1].model_copy(
        update={
            "status": "drawn",
            "matches": [m.model_copy(update={"match_id": None}) for m in view.schedule[1].matches],
        }
    )
    view = view.model_copy(update={"butler": []})
    text = format_event(view)
    assert "Round 2 (boards 3-4): drawn, not begun" in text
    assert "  Elm      Ash                             not made yet" in text
    assert "  Begin it: duplicate event 1b35ed218fef95c9 --start-round 2" in text
    assert text.endswith("\n\nButler: no board has been played at every table yet")
    assert "Butler" not in format_event(a_swiss_in_round_2(), butler_lines=0)


# -- on a running server -------------------------------------------------------------------


@pytest.fixture(scope="module")
def serving(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """``duplicate serve`` on a free port, with a Redis of its own (an event reads every
    match of the store): the options that reach it. Its robots play a match of robots
    only without waiting."""
    port = free_port()
    data = tmp_path_factory.mktemp("events") / "data"
    process = subprocess.Popen(
        [sys.executable, "-m", "duplicate", "serve", "--port", str(port), "--data", str(data)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment(),
    )  # fmt: skip
    try:
        read_until(process, "Serving on")
        yield ["--server", f"http://127.0.0.1:{port}", "--data", str(data)]
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=30)
    assert process.returncode == 0, output


def teams_file(tmp_path: Path, *names: str) -> str:
    path = tmp_path / "teams.txt"
    path.write_text("# robots' teams\n" + "".join(f"{name}: robots\n" for name in names))
    return str(path)


def event_id_of(printed: str) -> str:
    found = re.match(r"Event ([0-9a-f]{16}): ", printed)
    assert found, printed
    return found.group(1)


def standings_of(printed: str) -> list[list[str]]:
    """The rows of the standings table ``duplicate event`` printed."""
    lines = printed.splitlines()
    start = lines.index("Standings") + 2
    end = lines.index("", start)
    return [line.split() for line in lines[start:end]]


async def organiser_view(options: list[str], event_id: str) -> EventView:
    """The event as the client library sees it, to hold the command's text against."""
    server, data = options[1], Path(options[3])
    key = (data / "organiser.key").read_text().strip()
    client = await Client.connect(Link(Link.parse(server + "#x").ws_url, key), name="test")
    try:
        return await client.get_event(event_id)
    finally:
        await client.close()


def test_a_round_robin_of_robots_is_made_followed_and_ends(
    serving: list[str], tmp_path: Path
) -> None:
    teams = teams_file(tmp_path, "Ash", "Birch", "Cedar")
    made = duplicate(
        "new-event", "--teams", teams, "--kind", "round-robin", "--boards", "1",
        "--name", "Club teams", *serving,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    event_id = event_id_of(made.stdout)
    lines = made.stdout.splitlines()
    assert lines[1] == "A round robin of 3 teams: 3 rounds of 1 board"
    assert lines[2] == "Round 1 has begun (board 1):"
    # Round 1 of the Berger tables for three: team 1 sits out, 2 meets 3.
    assert re.fullmatch(r"  Birch  v  Cedar  match [0-9a-f]{16}", lines[3]), lines[3]
    assert lines[4] == "  Ash sits out (12.00 VPs)"
    assert lines[-2] == f"Follow it: duplicate event {event_id}"
    assert re.fullmatch(
        r"Its results, for anyone: http://127\.0\.0\.1:\d+/event#ev_\S{32}", lines[-1]
    )

    deadline = time.monotonic() + 120
    while True:
        shown = duplicate("event", event_id, *serving)
        assert shown.returncode == 0, shown.stderr
        if shown.stdout.splitlines()[0].endswith("; finished"):
            break
        assert time.monotonic() < deadline, shown.stdout
        time.sleep(1)
    view = asyncio.run(organiser_view(serving, event_id))
    assert view.status == "finished"
    assert shown.stdout == format_event(view) + "\n"
    assert shown.stdout.splitlines()[0] == (
        f"Club teams ({event_id}): a round robin of 3 teams, 3 rounds of 1 board; finished"
    )
    for entry in view.schedule:
        assert f"Round {entry.round} (board {entry.round}): ended" in shown.stdout
        for m in entry.matches:
            assert m.home_vps is not None
            assert m.away_vps is not None
            assert re.search(
                rf"  {m.home_imps} - {m.away_imps} +{m.home_vps:.2f} - {m.away_vps:.2f}  "
                rf"{m.match_id}\n",
                shown.stdout,
            )
    # Each team played two matches (20 VPs a match between two teams) and sat out once.
    rows = standings_of(shown.stdout)
    assert sorted(row[2] for row in rows) == ["Ash", "Birch", "Cedar"]
    assert [row[4] for row in rows] == ["2", "2", "2"]
    assert sum(float(row[3]) for row in rows) == pytest.approx(3 * 20 + 3 * 12)
    assert "Robot 1 - Robot 2" in shown.stdout  # the Butler ranking of the pairs
    # The whole event as PBN: three matches of one board, two tables each.
    pbn = duplicate("event", event_id, "--pbn", *serving)
    assert pbn.returncode == 0, pbn.stderr
    games = parse_games(pbn.stdout)
    assert sorted(g.board for g in games) == [1, 1, 2, 2, 3, 3]
    assert [line for line in pbn.stdout.splitlines() if line.startswith("% Round")] == [
        f"% Round {e.round}: {names[m.home]} v {names[m.away]}"
        for e in view.schedule
        for m in e.matches
        for names in [{t.team: t.name for t in view.teams}]
    ]


def test_the_director_begins_rounds_and_adjusts(serving: list[str], tmp_path: Path) -> None:
    teams = teams_file(tmp_path, "Ash", "Birch", "Cedar", "Dogwood", "Elm")
    options = ["--teams", teams, "--rounds", "2", "--boards", "1", "--director-starts"]
    made = duplicate("new-event", *options, "--request-id", f"event-{free_port()}", *serving)
    assert made.returncode == 0, made.stderr
    event_id = event_id_of(made.stdout)
    *shown, results = made.stdout.splitlines()[1:]
    assert results.startswith("Its results, for anyone: http://")
    assert shown == [
        "A Swiss of 5 teams: 2 rounds of 1 board",
        "Round 1 is drawn (board 1), not begun:",  # seeded: 1 v 3, 2 v 4; 5 sits out
        "  Ash    v  Cedar",
        "  Birch  v  Dogwood",
        "  Elm sits out (12.00 VPs)",
        f"Begin it: duplicate event {event_id} --start-round 1",
        f"Follow it: duplicate event {event_id}",
    ]
    # The same request id makes one event.
    request_id = made.args[made.args.index("--request-id") + 1]
    again = duplicate("new-event", *options, "--request-id", request_id, *serving)
    assert (again.returncode, again.stdout) == (0, made.stdout)

    waiting = duplicate("event", event_id, *serving)
    assert waiting.returncode == 0, waiting.stderr
    assert waiting.stdout.splitlines()[0].endswith("; no round begun yet")
    assert f"  Begin it: duplicate event {event_id} --start-round 1" in waiting.stdout

    early = duplicate("event", event_id, "--start-round", "2", *serving)
    assert_fails_in_one_line(early, "wrong_phase: round 1 is the next to begin, not round 2")
    begun = duplicate("event", event_id, "--start-round", "1", *serving)
    assert begun.returncode == 0, begun.stderr
    assert begun.stdout.startswith("Round 1 has begun.\n\n")
    assert (
        "Round 1 (board 1): playing" in begun.stdout or "Round 1 (board 1): ended" in begun.stdout
    )

    # Round 1 ends; the server draws round 2 (within a second), which waits for the director.
    drawn = "Round 2 (board 2): drawn, not begun"
    deadline = time.monotonic() + 60
    while drawn not in (shown := duplicate("event", event_id, *serving)).stdout:
        assert time.monotonic() < deadline, shown.stdout
        time.sleep(0.5)
    assert "Round 1 (board 1): ended" in shown.stdout
    assert "--start-round 2" in shown.stdout

    penalty = duplicate("event", event_id, "--adjust", "birch", "-1.5", "late start", "--round", "1", *serving)  # fmt: skip
    assert penalty.returncode == 0, penalty.stderr
    assert penalty.stdout.startswith("Adjusted: Birch -1.50 VPs in round 1 (late start).\n\n")
    award = duplicate("event", event_id, "--adjust", "5", "0.25", "the director's error", *serving)
    assert award.returncode == 0, award.stderr
    assert award.stdout.startswith("Adjusted: Elm +0.25 VPs (the director's error).\n\n")
    lines = award.stdout.splitlines()
    at = lines.index("Adjustments")
    assert [line.split(None, 3) for line in lines[at + 2 : at + 4]] == [
        ["Birch", "-1.50", "1", "late start"],
        ["Elm", "+0.25", "all", "the director's error"],
    ]
    # Elm sat out round 1: its bye and the award.
    elm = next(row for row in standings_of(award.stdout) if row[2] == "Elm")
    assert (elm[3], elm[4]) == ("12.25", "0")

    # Round 2 re-paired by hand: Elm (which sat out) meets Ash, Dogwood sits out.
    repaired = duplicate(
        "event", event_id, "--start-round", "2", "--matches", "5-1", "2-3", "--bye", "4", *serving
    )
    assert repaired.returncode == 0, repaired.stderr
    assert repaired.stdout.startswith("Round 2 has begun.\n\n")
    lines = repaired.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Round 2 (board 2): "))
    assert [line.split()[:2] for line in lines[at + 2 : at + 4]] == [
        ["Elm", "Ash"],
        ["Birch", "Cedar"],
    ]
    assert lines[at + 4] == "  Sits out: Dogwood, 12.00 VPs"

    no_team = duplicate("event", event_id, "--adjust", "Oak", "1", "why", *serving)
    assert_fails_in_one_line(no_team, "no team named 'Oak'; the teams are 1 Ash, 2 Birch")
    too_much = duplicate("event", event_id, "--adjust", "1", "21", "why", *serving)
    assert_fails_in_one_line(too_much, "--adjust: 21 VPs: -20 to 20, to two decimals")
    unknown = duplicate("event", "0123456789abcdef", *serving)
    assert_fails_in_one_line(unknown, "invalid_message: no event 0123456789abcdef here")
    wrong_key = duplicate("event", event_id, *serving, "--organiser-key", "not-the-key")
    assert_fails_in_one_line(wrong_key, "refused")
