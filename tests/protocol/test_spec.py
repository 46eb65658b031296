"""SPEC.md against the server: where the text once said one thing and the server did
another, the text is read here and held to what a real server does.

Each test reads the few sentences, tables or examples of protocol/SPEC.md that state one
fact, and checks that fact against the server (a real one on a real Redis, the golden
transcripts it was recorded from, or the schema it publishes). So the text cannot drift
from the server again unnoticed: a test fails when either changes alone.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect

from bridge import Seat
from clients.client import Client, ClientError
from protocol.codec import decode_server
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import BoardView, MatchCreated, PlayerView, Update
from server.app import Server
from server.redis_process import RedisProcess
from tests.protocol import golden
from tests.server.harness import SEATS, bid, board_view, create, http_get, one_board, settle

ROOT = Path(__file__).resolve().parents[2]
SPEC_FILE = ROOT / "protocol" / "SPEC.md"
SCHEMA_FILE = ROOT / "protocol" / "schema.json"
WEB_ROOT = ROOT / "clients" / "web"
DEALS = one_board()
"""North holds every ace, king and queen: North-South take every trick in no trump."""


# -- reading SPEC.md ------------------------------------------------------------------------


def spec() -> str:
    return SPEC_FILE.read_text(encoding="utf-8")


def section(heading: str, text: str | None = None) -> str:
    """The text under the heading that starts with ``heading`` (``"## 2."``, ``"### `error`"``),
    up to the next heading of the same level or higher."""
    text = spec() if text is None else text
    level = len(heading) - len(heading.lstrip("#"))
    match = re.search(rf"^{re.escape(heading)}.*$", text, re.MULTILINE)
    assert match is not None, f"SPEC.md has no heading {heading!r}"
    end = re.compile(rf"^#{{1,{level}}} ", re.MULTILINE).search(text, match.end())
    return text[match.end() : end.start() if end else len(text)]


def one_line(text: str) -> str:
    """Text with its line breaks and runs of spaces as single spaces."""
    return " ".join(text.split())


def cells(line: str) -> list[str]:
    """The cells of a Markdown table row (a ``\\|`` inside a cell is not a border)."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def table(text: str, header: str) -> list[list[str]]:
    """The rows (cells) of the Markdown table in ``text`` whose first header cell is
    ``header``."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("|") and cells(line)[:1] == [header]:
            rows = []
            for row in lines[index + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append(cells(row))
            return rows
    raise AssertionError(f"no table headed {header!r}")


def row(rows: list[list[str]], first: str) -> list[str]:
    """The row whose first cell is ``first``."""
    found = [r for r in rows if r[0] == first]
    assert len(found) == 1, f"{len(found)} rows for {first!r}"
    return found[0]


def bullets(text: str) -> list[str]:
    """The items of the first bulleted list in ``text``, each on one line."""
    items: list[str] = []
    for line in text.splitlines():
        if line.startswith("- "):
            items.append(line[2:])
        elif items and line.startswith("  "):
            items[-1] += " " + line.strip()
        elif items:
            break
    return [one_line(item) for item in items]


# -- talking to a real server -------------------------------------------------------------


async def hello(server: Server, token: str) -> dict[str, Any]:
    """The server's answer to a version-7 ``hello`` with ``token``, on a raw connection."""
    async with connect(server.ws_url) as websocket:
        message = {"type": "hello", "version": 7, "versions": [7], "token": token}
        await websocket.send(msgpack.packb(message))
        answer: dict[str, Any] = msgpack.unpackb(await websocket.recv())
        return answer


async def get(server: Server, path: str) -> tuple[int, str, bytes]:
    return await asyncio.to_thread(http_get, f"{server.public_url}{path}")


async def health_until(
    server: Server, done: Callable[[int], bool], timeout: float = 15.0
) -> tuple[int, dict[str, Any]]:
    """``/health``'s status and answer, asked until ``done(status)`` (or the time is up)."""
    deadline = time.monotonic() + timeout
    while True:
        status, content_type, body = await get(server, "/health")
        assert content_type == "application/json"
        if done(status) or time.monotonic() > deadline:
            return status, json.loads(body)
        await asyncio.sleep(0.05)


async def seat_table(created: MatchCreated, number: int) -> dict[str, Client]:
    """A client for each seat of table ``number`` (in round 1)."""
    players: dict[str, Client] = {}
    for seat in created.seats:
        if seat.table == number and seat.link is not None:
            players[seat.seat] = await Client.connect(seat.link, name=f"t{number}{seat.seat}")
    return players


async def claim_accepted(players: dict[str, Client], claimer: str, tricks: int) -> None:
    """``claimer`` claims ``tricks`` at this table; every decider accepts."""
    await settle(players, (await players[claimer].claim(tricks)).seq)
    pending = await board_view(players["N"], 1)
    assert pending.claim is not None
    assert pending.claim.status == "pending"
    for decider in pending.claim.deciders:
        await settle(players, (await players[decider].answer_claim(True)).seq)


async def close(*tables: dict[str, Client]) -> None:
    for players in tables:
        for client in players.values():
            await client.close()


# -- 3. hello is answered `unavailable` while the store is down -----------------------------


@pytest.mark.asyncio
async def test_hello_errors_list_unavailable_which_hello_gets_while_the_store_is_down(
    own_redis: RedisProcess, on_own_redis: Server
) -> None:
    listed = {r[0] for r in table(section("## 4."), "`hello` error")}
    await own_redis.astop()
    try:
        answer = await hello(on_own_redis, "a-token-nobody-was-given-0123456789")
    finally:
        await own_redis.astart()
    assert (answer["type"], answer["code"]) == ("error", ErrorCode.UNAVAILABLE.value)
    assert answer["ref"] is None
    assert f"`{answer['code']}`" in listed, f"section 4's hello errors: {sorted(listed)}"


# -- 4. /health's answer, /metrics, and the paths that answer -------------------------------


def documented_health() -> dict[str, dict[str, Any]]:
    """The answers section 2 shows for ``/health``, by their ``status``."""
    shown = {}
    for span in re.findall(r"`(\{\"status\".*?\})`", one_line(section("## 2."))):
        # (A placeholder written as N or ... stands for a value: null.)
        value = json.loads(re.sub(r":\s*(N|\.\.\.)\s*([,}])", r": null\2", span))
        shown[value["status"]] = value
    return shown


def documented_paths() -> set[str]:
    """Every path section 2 names (`/health`, `/web/`, ...)."""
    return set(re.findall(r"`(/[A-Za-z0-9_./-]*)`", section("## 2.")))


def is_documented(path: str, documented: set[str]) -> bool:
    """``path`` is named in section 2, or lies under a folder it names (`/web/`); a final
    ``/`` of a page makes no difference."""
    if (path.rstrip("/") or "/") in documented:
        return True
    return any(p.endswith("/") and p != "/" and path.startswith(p) for p in documented)


@pytest.mark.asyncio
async def test_health_and_metrics_answer_as_section_2_documents(
    own_redis: RedisProcess, on_own_redis: Server
) -> None:
    server = on_own_redis
    shown = documented_health()
    assert set(shown) == {"ok", "store_down"}, shown

    status, answer = await health_until(server, lambda status: status == 200)
    assert status == 200
    assert set(answer) == set(shown["ok"])
    assert (answer["status"], answer["store"]) == (shown["ok"]["status"], shown["ok"]["store"])
    # This process's counts: nothing is connected to it, it holds no match.
    assert (answer["connections"], answer["matches"]) == (0, 0)

    # The metrics are not on the public port (section 2 says so, naming the path).
    assert "Prometheus" in section("## 2."), "/metrics is Prometheus's text format"
    assert "never served on this port" in one_line(section("## 2."))
    documented = documented_paths() - {"/metrics"}
    probes = {"/", "/health", "/metrics", "/play", "/watch", "/direct", "/play/", "/ws"}
    probes |= {"/index.html", "/favicon.ico", "/robots.txt", "/status", "/web", "/health/"}
    probes |= {f"/web/{file.name}" for file in WEB_ROOT.iterdir() if file.is_file()}
    probes |= {path for path in documented if not path.endswith("/") or path == "/"}
    answered = {path: (await get(server, path))[0] for path in sorted(probes)}
    served = {path for path, status in answered.items() if status == 200}
    assert {path for path in served if not is_documented(path, documented)} == set()
    for path, status in answered.items():
        if not is_documented(path, documented):
            assert status == 404, (path, status)
    assert answered["/ws"] == 426  # the WebSocket endpoint, without a handshake
    assert answered["/metrics"] == 404
    for path in documented - {"/ws"}:
        if not path.endswith("/") or path == "/":
            assert answered[path] == 200, path

    await own_redis.astop()
    try:
        status, answer = await health_until(server, lambda status: status == 503)
    finally:
        await own_redis.astart()
    assert status == 503, answer
    assert set(answer) == set(shown["store_down"])
    down = shown["store_down"]
    assert (answer["status"], answer["store"]) == (down["status"], down["store"])
    assert isinstance(answer["reason"], str)
    assert answer["reason"]


# -- 5. review.until is never null ----------------------------------------------------------


async def pass_out(created: MatchCreated) -> list[PlayerView]:
    """Table 1 passes board 1 out: every view North had, the last once it is finished."""
    players = await seat_table(created, 1)
    await bid(players, 1, ["P", "P", "P", "P"])
    await players["N"].wait_for(
        lambda v: v if v.board is not None and v.board.phase == "finished" else None
    )
    views = [u.view for u in players["N"].received if isinstance(u, Update)]
    await close(players)
    return [v for v in views if isinstance(v, PlayerView)]


@pytest.mark.asyncio
async def test_review_until_is_never_null_and_no_review_time_means_no_review(
    server: Server,
) -> None:
    review = one_line(row(table(section("### `player_view`"), "Field"), "`review`")[2])
    until = re.search(r"`until` \(([^)]*)\)", review)
    assert until is not None, review
    assert "never null" in until.group(1), f"SPEC says of review.until: {until.group(1)!r}"
    assert "`review_seconds` 0" in review, "SPEC must say what review is without review time"
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert schema["$defs"]["ReviewView"]["properties"]["until"] == {
        "title": "Until",
        "type": "integer",
    }
    assert "until" in schema["$defs"]["ReviewView"]["required"]

    # Without review time: never a review, in any view of the board.
    views = await pass_out(await create(server, boards=1, deals_pbn=DEALS, review_seconds=0))
    assert views[-1].board is not None
    assert views[-1].board.phase == "finished"
    assert [view.review for view in views] == [None] * len(views)
    # With it: the board is on review, until a moment.
    views = await pass_out(await create(server, boards=1, deals_pbn=DEALS, review_seconds=30))
    on_review = views[-1].review
    assert on_review is not None
    assert isinstance(on_review.until, int)
    assert on_review.until > 0


# -- 6. a team's standing is the IMPs it won ------------------------------------------------


@pytest.mark.asyncio
async def test_team_standings_are_the_imps_each_team_won_as_section_18_says(
    server: Server,
) -> None:
    rules = one_line(section("## 18."))
    team_rule = (
        "In the team formats (`teams`, `robot-table`, `team-of-four`), a team's total is the "
        "IMPs it won: `imps_a` for team A, `imps_b` for team B, the sum of its positive swings"
    )
    assert team_rule in rules, "section 18 must state the team formats' standings as a rule"
    shown = re.search(
        r"the comparison's `points` are `(\{[^`]*\})`, and the standings show "
        r"A (-?[0-9]+\.[0-9]+) and B (-?[0-9]+\.[0-9]+)",
        rules,
    )
    assert shown is not None, "section 18's example of a swing and the standings"
    example_points = json.loads(shown.group(1))
    assert {"A": float(shown.group(2)), "B": float(shown.group(3))} == {
        team: max(points, 0.0) for team, points in example_points.items()
    }

    created = await create(server, boards=1, deals_pbn=DEALS, review_seconds=0)
    first, second = await seat_table(created, 1), await seat_table(created, 2)
    # Table 1: North (team A) makes 1NT with every trick, +220; table 2 passes it out.
    await bid(first, 1, ["1NT", "P", "P", "P"])
    await claim_accepted(first, "E", 0)
    await bid(second, 1, ["P", "P", "P", "P"])
    view = await first["N"].wait_for(lambda v: v if v.match.finished else None)
    await close(first, second)

    (comparison,) = view.match.comparisons
    assert comparison.swing is not None
    assert comparison.swing > 0
    assert comparison.points == {"A": float(comparison.swing), "B": float(-comparison.swing)}
    standings = {s.competitor: s.points for s in view.match.standings}
    won = {"A": float(view.match.imps_a), "B": float(view.match.imps_b)}
    assert standings == won == {"A": float(comparison.swing), "B": 0.0}
    assert standings != comparison.points  # not the sum of the board points


# -- 7. who may withdraw a concession -------------------------------------------------------


Rule = Callable[[Seat, Seat, int, int], set[Seat]]
"""(claimer, dummy, tricks claimed, remaining) -> the seats that may withdraw."""
WHO: dict[str, Callable[[Seat], set[Seat]]] = {
    "The claimer, and the claimer's partner": lambda claimer: {claimer, claimer.partner},
    "The claimer's two opponents": lambda claimer: {claimer.lho, claimer.rho},
}
"""How the rows of the table may name seats, and the seats they name."""
WHEN: dict[str, Callable[[int, int], bool]] = {
    "fewer than `remaining`": lambda tricks, remaining: tricks < remaining,
    "more than 0": lambda tricks, _remaining: tricks > 0,
}
"""How the rows may say when, and what: (tricks claimed, remaining) -> whether."""


def withdrawal_rule() -> Rule:
    """The rule of `withdraw_concession`'s table, read from SPEC.md: each row names some
    seats (the claimer and partner, or the claimer's opponents; "unless dummy") and when
    they may withdraw (fewer tricks claimed than remain, or more than none)."""
    rows = table(section("### `withdraw_concession`"), "Who")
    assert rows, "no table of who may withdraw a concession"
    parts: list[tuple[Callable[[Seat], set[Seat]], bool, Callable[[int, int], bool]]] = []
    for who, when in rows:
        seats = [how for words, how in WHO.items() if who.startswith(words)]
        conditions = [how for words, how in WHEN.items() if words in when]
        assert len(seats) == 1, f"who is that: {who!r}"
        assert len(conditions) == 1, f"when is that: {when!r}"
        parts.append((seats[0], "unless dummy" in who, conditions[0]))

    def rule(claimer: Seat, dummy: Seat, tricks: int, remaining: int) -> set[Seat]:
        allowed: set[Seat] = set()
        for seats, not_dummy, condition in parts:
            if condition(tricks, remaining):
                allowed |= seats(claimer) - ({dummy} if not_dummy else set())
        return allowed

    return rule


@pytest.mark.asyncio
async def test_withdraw_concession_is_offered_and_taken_as_its_section_says(
    server: Server,
) -> None:
    rule = withdrawal_rule()
    created = await create(server, boards=1, deals_pbn=DEALS, review_seconds=600)
    players = await seat_table(created, 1)
    director = await Client.connect(created.director)
    await bid(players, 1, ["3NT", "P", "P", "P"])  # North declares, South is dummy
    # Defenders' claims (conceding all, claiming all, some), then declarer's; each is
    # accepted, checked, and withdrawn, which resumes the play for the next.
    for claimer, tricks in (("E", 0), ("E", 13), ("W", 5), ("N", 5)):
        await claim_accepted(players, claimer, tricks)
        views: dict[str, BoardView] = {s: await board_view(players[s], 1) for s in SEATS}
        claim = views["N"].claim
        assert claim is not None
        assert claim.status == "accepted"
        assert views["N"].phase == "finished"
        assert views["N"].dummy == "S"
        offered = {s for s, v in views.items() if "withdraw_concession" in v.actions}
        expected = rule(Seat.parse(claimer), Seat.SOUTH, claim.tricks, claim.remaining)
        assert offered == {s.letter for s in expected}, (claimer, tricks, offered)
        for seat in sorted(set(SEATS) - offered):  # the server holds to it
            with pytest.raises(ClientError) as refused:
                await players[seat].withdraw_concession()
            assert refused.value.code == ErrorCode.ILLEGAL_CLAIM, (claimer, tricks, seat)
        # Asked, the withdrawal waits for the director, who allows it.
        await settle(players, (await players[sorted(offered)[0]].withdraw_concession()).seq)
        assert (await board_view(players["N"], 1)).phase == "finished"
        await director.decide_withdrawal(1, True)
        await settle(players)
        assert (await board_view(players["N"], 1)).phase == "play"
    await close(players)
    await director.close()


# -- 8. when an update carries the whole view -----------------------------------------------


def test_whole_views_come_only_as_the_rule_says_in_every_golden_transcript() -> None:
    rule = bullets(section("#### When the whole view comes"))
    assert len(rule) == 2, rule
    snapshot, first = (item.replace("**", "") for item in rule)
    assert snapshot.startswith("in a snapshot"), snapshot
    assert first.startswith(
        "as the first update a connection receives after its `welcome`, when no snapshot came "
        "with the `welcome`"
    ), first
    assert "delayed spectator" in first  # the case the text once left out

    transcripts = sorted(golden.HERE.glob("v*/*.jsonl"))
    assert transcripts
    whole_without_snapshot = 0
    for path in transcripts:
        _header, steps = golden.read(path)
        since_welcome: dict[str, int | None] = {}  # updates since the welcome, by connection
        welcomed_at: dict[str, int] = {}
        for step in steps:
            for name, frames in step.get("frames", {}).items():
                for frame in frames:
                    if frame["type"] == "welcome":
                        since_welcome[name], welcomed_at[name] = 0, frame["seq"]
                        continue
                    if frame["type"] != "update":
                        continue
                    count = since_welcome.get(name)
                    assert count is not None, f"{path.name}: {name} got an update before welcome"
                    since_welcome[name] = count + 1
                    assert "changes" in frame, (path.name, name, frame["seq"])
                    if frame["view"] is None:
                        continue
                    assert frame["changes"] == []
                    if frame["events"] == [{"type": "snapshot"}]:
                        continue
                    where = f"{path.name}: {name}'s update {frame['seq']}"
                    assert count == 0, f"{where}: a whole view, not the first after welcome"
                    assert frame["seq"] > welcomed_at[name], f"{where}: the welcome brought it"
                    whole_without_snapshot += 1
    # The delayed spectators of the recorded individual and robot table: nothing to see at
    # first (welcome.seq 0), then the whole view with the first comparison.
    assert whole_without_snapshot >= 1


# -- 9. an update's changes are always there -----------------------------------------------


def test_changes_is_required_as_the_update_table_says() -> None:
    changes = one_line(row(table(section("### `update`"), "Field"), "`changes`")[2])
    assert changes.startswith("Always present"), changes
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert "changes" in schema["$defs"]["Update"]["required"]
    assert Update.model_fields["changes"].is_required()
    update: dict[str, Any] = {"type": "update", "seq": 2, "events": [], "view": None}
    assert isinstance(decode_server(msgpack.packb({**update, "changes": []})), Update)
    with pytest.raises(ProtocolError) as missing:
        decode_server(msgpack.packb(update))
    assert missing.value.code == ErrorCode.INVALID_MESSAGE
