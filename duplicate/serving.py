"""``duplicate serve``, ``duplicate new-match`` and ``duplicate protocol-schema``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import dataclasses
import errno
import ipaddress
import json
import logging
import os
import re
import secrets
import shlex
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pydantic import ValidationError
    from redis.asyncio import Redis

    from protocol.messages import (
        CreateEvent,
        CreateMatch,
        DealsSealed,
        EventCreated,
        ImportMatch,
        MatchCreated,
        MatchList,
        RobotLevel,
        SealDeals,
    )
    from server.app import Server
    from server.redis_process import RedisProcess
    from server.store import StoreClient

from robots.knowledge import LEVELS
from server.limits import OVERLOAD_LAG, Limits

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
ORGANISE_ATTEMPTS = 6
"""How many times an organiser's command sends its request (the same id each time) when
the connection drops before the answer."""
DEFAULT_DATA = "duplicate-data"
KEY_FILE = "organiser.key"
LOCK_FILE = "serve.lock"
"""In the data folder: locked by the ``duplicate serve`` using it, and holding its pid."""
REDIS_TIMEOUT = 10.0
"""Seconds the startup PING may take: a Redis behind a firewall that drops packets never
refuses, it only stays silent. Also how long a command waits for a free connection."""
REDIS_CONNECTIONS = 256
"""The most connections the server opens to Redis: a larger burst of requests waits for one
(up to REDIS_TIMEOUT) instead of opening thousands. Not fewer: under more load than the
process can serve (bench/load.py, 1,000 matches flat out on one core) up to a thousand
actions, one per match, wait for a connection at once, and each that waits past
REDIS_TIMEOUT is answered ``unavailable`` and has its match read back whole: 1,829 such
refusals in 40 s with 64 connections, 707 with 256."""


class CommandFailed(Exception):
    """A command cannot do its work for a reason outside it (a port in use, a server or Redis
    that cannot be reached, a refusal). The message says what is wrong and what to do;
    ``duplicate.cli.main`` prints it as one line and exits with status 2."""


def _reason(error: BaseException) -> str:
    """Why a connection failed, in a few words ("connection refused"), from the error or
    the error it wraps (redis and websockets wrap the socket's)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, socket.gaierror) and seen.strerror:
            return seen.strerror.lower()
        if isinstance(seen, TimeoutError):
            return "no answer in time"
        if isinstance(seen, OSError) and seen.errno:
            return os.strerror(seen.errno).lower()
        seen = seen.__cause__ or seen.__context__
    return str(error).rstrip(".") or type(error).__name__


def _without_password(url: str) -> str:
    """The URL as it may be printed: a password in it (or in a ``password=`` query) becomes
    ***.

    >>> _without_password("rediss://:s3cret@db.example:6380/0?password=s3cret")
    'rediss://:***@db.example:6380/0?password=***'
    """
    password = urlsplit(url).password
    shown = url.replace(f":{password}@", ":***@", 1) if password else url
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", shown)


def key_source(args: argparse.Namespace) -> str:
    """Where the organiser key came from, as :func:`organiser_key` looks for it."""
    if args.organiser_key:
        return "as given by --organiser-key"
    if args.organiser_key_file is not None:
        return f"in {args.organiser_key_file}"
    if os.environ.get("DUPLICATE_ORGANISER_KEY"):
        return "from $DUPLICATE_ORGANISER_KEY"
    return f"in {Path(args.data) / KEY_FILE}"


def organiser_key(args: argparse.Namespace, create: bool) -> str:
    """The organiser key: --organiser-key, else the file --organiser-key-file names, else
    $DUPLICATE_ORGANISER_KEY, else the data folder's key file (made on first serve, readable
    by its owner only). A file or the environment keeps the key off the command line, which
    every local user can read."""
    if args.organiser_key:
        return str(args.organiser_key)
    if args.organiser_key_file is not None:
        try:
            key = Path(args.organiser_key_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise CommandFailed(
                f"cannot read --organiser-key-file {args.organiser_key_file}: {reason}"
            ) from None
        if not key:
            raise CommandFailed(f"--organiser-key-file {args.organiser_key_file} is empty")
        return key
    from_env = os.environ.get("DUPLICATE_ORGANISER_KEY")
    if from_env:
        return from_env
    path = Path(args.data) / KEY_FILE
    if path.exists():
        if create:  # serve: a key file made before keys were kept private
            path.chmod(0o600)
        return path.read_text().strip()
    if not create:
        raise CommandFailed(
            f"no organiser key: pass --organiser-key-file (or --organiser-key), set "
            f"DUPLICATE_ORGANISER_KEY, "
            f"or point --data at the server's data folder (no {path})"
        )
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = secrets.token_urlsafe(24)
    path.touch(mode=0o600)
    path.write_text(key + "\n")
    return key


def lock_data_folder(data: Path) -> int:
    """Take the data folder for this process's life: a lock (``flock``) on its lock file,
    which the kernel lets go when the process ends, however it ends. Also makes the folder
    its owner's only (0700) when it is new, empty (made for the server beforehand) or the
    server's from before; a folder that holds files of the user's own (``--data .``) keeps its
    mode, with a warning when others may read it. Returns the lock file's descriptor (closing
    it lets go).

    Two servers on one folder would run two Redis on one append-only file; the second is
    refused, and told the first one's pid."""
    import fcntl

    try:
        ours = (
            not data.exists()
            or not any(data.iterdir())
            or any((data / name).exists() for name in (LOCK_FILE, KEY_FILE, "redis"))
        )
        data.mkdir(mode=0o700, parents=True, exist_ok=True)
        if ours:
            data.chmod(0o700)
        elif data.stat().st_mode & 0o077:
            # A folder of the user's own (``--data .``): its mode is theirs to choose; what
            # the server writes in it is its owner's only.
            print(
                f"duplicate: the data folder {data} is open to other users; the files the "
                "server writes in it are not (0600)",
                file=sys.stderr,
            )
        descriptor = os.open(data / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        raise CommandFailed(
            f"cannot use the data folder {data} ({_reason(error)}): check --data"
        ) from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(descriptor, 32).decode(errors="replace").strip() or "unknown"
        os.close(descriptor)
        raise CommandFailed(
            f"another server uses the data folder {data} (pid {holder}): stop it or use --data"
        ) from None
    os.ftruncate(descriptor, 0)
    os.write(descriptor, f"{os.getpid()}\n".encode())
    return descriptor


def _request_id(args: argparse.Namespace) -> str:
    """The command's ``--request-id``, or a new one."""
    given: str | None = getattr(args, "request_id", None)
    if given is not None and not 8 <= len(given) <= 60:
        raise CommandFailed("bad --request-id: 8 to 60 characters")
    return given or secrets.token_hex(16)


def _add_server_options(parser: argparse.ArgumentParser, request_id: bool = True) -> None:
    """Where a running server is, the organiser's key for it, and (``request_id``) the
    request's id."""
    if request_id:
        parser.add_argument(
            "--request-id",
            metavar="ID",
            help="this request's id, 8 to 60 characters (default: a new one): the server "
            "carries a request out once, so the command run again with the same id after a "
            "failure gets the same answer, never a second match (or event, or seal)",
        )
    parser.add_argument(
        "--server", default=f"http://{DEFAULT_HOST}:{DEFAULT_PORT}", help="the server's URL"
    )
    parser.add_argument(
        "--data", default=DEFAULT_DATA, help="the server's data folder (for its key)"
    )
    parser.add_argument("--organiser-key", help="the organiser's secret")
    parser.add_argument(
        "--organiser-key-file",
        type=Path,
        metavar="PATH",
        help="a file holding the organiser's secret",
    )


def add_match_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=("teams", "robot-table", "team-of-four", "replay", "individual"),
        default="teams",
        help="teams: eight players at two tables; robot-table: four people at table 1 "
        "against the same cards played by robots at table 2; team-of-four: two teams of four, "
        "board exchange, team 2's pairs change tables at half-time; replay: four players, "
        "every board replayed turned one seat; individual: 8 or 12 players (--players), "
        "a new partner each round",
    )
    parser.add_argument(
        "--boards",
        type=int,
        help="boards in the match (default 4; robot-table: 4, 8 or 16, default 8; "
        "team-of-four: a multiple of 4, default 8; individual of 8: 14, 21 or 28, of 12: "
        "11, 22 or 33)",
    )
    parser.add_argument(
        "--players",
        type=int,
        choices=(8, 12),
        default=8,
        help="players in an individual (8: two tables, 12: three)",
    )
    parser.add_argument(
        "--scoring",
        choices=("imps", "matchpoints", "board_a_match", "total_points"),
        help="how boards are scored: the teams formats imps; replay board_a_match (default) "
        "or total_points; individual imps (default) or matchpoints",
    )
    parser.add_argument(
        "--stage-two",
        choices=("now", "director"),
        default="now",
        help="replay: stage 2 follows at once, or waits for the director to start it",
    )
    parser.add_argument(
        "--imposed-auction",
        action="store_true",
        help="replay: stage 2 keeps each board's stage-1 auction; only the play is compared",
    )
    parser.add_argument(
        "--sessions",
        type=int,
        metavar="N",
        help="replay: a series of N meetings (2-12) of the same four; each replays, turned, "
        "the last one's new boards, then plays --boards new ones (the first only plays, "
        "the last only replays); with --stage-two director each later meeting waits for "
        "the director",
    )
    parser.add_argument(
        "--wait-for-players",
        action="store_true",
        help="each board starts only once its table's four players are there (or the "
        "director seats a robot for the one who is not); by default the auction starts at once",
    )
    parser.add_argument(
        "--minutes-per-board",
        type=float,
        default=7.5,
        metavar="MINUTES",
        help="each table's round clock gives a board this many minutes (default 7.5, as "
        "clubs use); the director is told when a round's time is up. 0: no clock",
    )
    parser.add_argument(
        "--face-up-lead",
        action="store_true",
        help="the opening lead is played face up at once; by default it is made face down "
        "(law 41A) and played when the leader's partner, who may first ask about the "
        "auction, faces it",
    )
    parser.add_argument(
        "--disputed-claims",
        choices=["director", "play_on"],
        default="director",
        help="director (the default, law 68D): a claim a player rejects stops the play and "
        "calls the director, who rules (a robot's dispute the server rules at once); "
        "play_on: the play goes on from where the claim was made",
    )
    parser.add_argument(
        "--robots",
        nargs="+",
        default=[],
        metavar="SEAT",
        help="players the server's robots play, by their first-round seat: t1, t2 (t3) for a "
        "whole table, 1N, 2E ... for one seat",
    )
    parser.add_argument("--team-a", default="Team A", help="sits N-S at table 1, E-W at table 2")
    parser.add_argument("--team-b", default="Team B", help="sits E-W at table 1, N-S at table 2")
    parser.add_argument(
        "--deals", type=Path, help="a PBN file of prepared boards (else dealt securely)"
    )
    parser.add_argument(
        "--spectators", choices=("live", "delayed", "off"), default="live", help="spectator mode"
    )
    parser.add_argument(
        "--names",
        metavar="SEAT=NAME,...",
        help='players\' names, e.g. "N1=Ann,E1=Bo,S1=Cy,W1=Di,N2=Ed" (seat, then table)',
    )
    parser.add_argument(
        "--roster",
        type=Path,
        help='players\' names from a PBN-style file: [Table "1"] (or [Room "Open"]), then '
        '[North "Ann"] [East "Bo"] ...; a blank line before table 2',
    )
    parser.add_argument(
        "--chat",
        choices=("table", "opponents", "off"),
        default="opponents",
        help="what table chat reaches during a board (between boards: all four)",
    )
    parser.add_argument(
        "--review-seconds",
        type=int,
        default=20,
        help="how long a finished board stays on the table before the next starts (default 20)",
    )
    parser.add_argument(
        "--robot-delay",
        type=float,
        metavar="SECONDS",
        help="how long the server's robots wait before each call or card (default: the server's)",
    )
    parser.add_argument(
        "--robot-level",
        action="append",
        default=[],
        metavar="[SEAT=]LEVEL",
        help="how the server's robots bid and play: seed (the default: as the seeds' robot "
        "table) or strong (conventions, double-dummy card play); SEAT=LEVEL (t2=strong, "
        "1N=strong) for some of them; may be given more than once",
    )


_LEVELS: dict[str, RobotLevel] = {level: level for level in LEVELS}


def _seat_key(text: str) -> str:
    """A seat as an organiser writes it, table first: ``"n1"`` and ``"1N"`` are ``"1N"``
    (anything else comes back upper-cased, for the caller to refuse)."""
    key = text.strip().upper()
    if len(key) == 2 and key[0] in "NESW" and key[1] in "123":
        return key[1] + key[0]
    return key


def parse_robot_levels(entries: list[str]) -> tuple[RobotLevel, dict[str, RobotLevel]]:
    """``--robot-level`` entries -> (the match's level, levels by seat or table).

    >>> parse_robot_levels(["strong", "t2=seed", "n1=seed"])
    ('strong', {'t2': 'seed', '1N': 'seed'})
    """
    level: RobotLevel = "seed"
    levels: dict[str, RobotLevel] = {}
    for entry in entries:
        seat, equals, text = entry.partition("=")
        value = _LEVELS.get((text if equals else seat).strip().lower())
        if value is None:
            raise CommandFailed(f"bad --robot-level {entry!r}: the level is seed or strong")
        if not equals:
            level = value
            continue
        key = _seat_key(seat)
        if len(key) == 2 and key[0] == "T" and key[1] in "123":
            key = "t" + key[1]
        elif len(key) != 2 or key[0] not in "123" or key[1] not in "NESW":
            raise CommandFailed(
                f"bad --robot-level {entry!r}: write LEVEL, or SEAT=LEVEL like 1N=strong or "
                "t2=strong"
            )
        levels[key] = value
    return level, levels


def parse_names(text: str) -> dict[str, str]:
    """``"N1=Ann, E1=Bo"`` (or ``"1N=Ann"``) -> ``{"1N": "Ann", "1E": "Bo"}``.

    >>> parse_names("N1=Ann, 2e=Bo Smith")
    {'1N': 'Ann', '2E': 'Bo Smith'}
    """
    names: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        seat, equals, name = item.partition("=")
        key = _seat_key(seat)
        if not equals or len(key) != 2 or key[0] not in "123" or key[1] not in "NESW":
            raise CommandFailed(f"bad --names entry {item!r}: write SEAT=NAME, like N1=Ann")
        if not name.strip():
            raise CommandFailed(f"bad --names entry {item!r}: the name is empty")
        names[key] = name.strip()
    return names


def format_links(created: MatchCreated, format: str = "teams") -> str:
    """The links of a new match, for the organiser to hand out: by table of the first
    round (each player keeps their link when they move)."""
    lines = [
        f"Match {created.match_id}",
        f"Deals sealed before play: sha256 {created.deals_commitment}",
    ]
    tables = max(seat.table for seat in created.seats) + (format == "robot-table")
    for table in range(1, tables + 1):
        lines.append(f"Table {table}")
        for seat in created.seats:
            if seat.table == table:
                name = f"  {seat.name}" if seat.name and not seat.robot else ""
                side = f"team {seat.team}" if seat.team is not None else f"player {seat.player}"
                lines.append(f"  {seat.seat}  {side}{name}  {seat.link or 'robot'}")
        if not any(seat.table == table for seat in created.seats):
            lines.append("  the robots' table")
    lines.append(f"Spectators  {created.spectator or 'off'}")
    lines.append(f"Director    {created.director}")
    return "\n".join(lines)


HANDING_OUT = (
    "Give each player only their own seat's link: a link is a secret, and opens the table "
    "in a browser."
)
"""The hint under the links ``new-match`` prints for an organiser."""

_SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}


def alone_guidance(created: MatchCreated, args: argparse.Namespace, server_url: str) -> str:
    """What a person alone does next with the match ``serve --new-match`` made: open one link,
    and how to give the other seats to robots."""
    people = [seat for seat in created.seats if seat.link is not None]
    if not people:
        return ""
    # Table 1 North when a person sits there: the seat the robots' suggestion below leaves.
    mine = next((seat for seat in people if (seat.table, seat.seat) == (1, "N")), people[0])
    lines = [
        f"Playing alone? Open table {mine.table} {_SEAT_NAMES[mine.seat]}'s link in a browser:",
        f"  {mine.link}",
    ]
    if len(people) > 1:
        # Robots everywhere but table 1 North (table 2 is the robots' own in robot-table).
        tables = max(seat.table for seat in created.seats)
        others = [f"t{t}" for t in range(2, tables + 1)]
        robots = ["--robots", *others, "1E", "1S", "1W"]
        if args.format != "teams":
            robots = ["--format", args.format, *robots]
            if args.format == "individual":
                robots[2:2] = ["--players", str(args.players)]
        # The same server and data folder as this one, so that the commands work as printed.
        data = ["--data", str(args.data)] if args.data != DEFAULT_DATA else []
        # The key's file too, if it came from one; a password in --redis is never printed
        # (the line says *** in its place).
        key_file = (
            ["--organiser-key-file", str(args.organiser_key_file)]
            if args.organiser_key_file is not None
            else []
        )
        serve_options = [*data, *key_file]
        for option, value, default in (
            ("--host", args.host, DEFAULT_HOST),
            ("--port", args.port, DEFAULT_PORT),
            ("--redis", args.redis and _without_password(args.redis), None),
            ("--public-url", args.public_url, None),
        ):
            if value != default:
                serve_options += [option, str(value)]
        default_url = f"http://{DEFAULT_HOST}:{DEFAULT_PORT}"
        server = ["--server", server_url] if server_url != default_url else []
        server += key_file
        lines += [
            "The other seats wait for people. For robots there, stop this server (Ctrl-C) and run",
            "  " + shlex.join(["./dev", "run", "serve", *serve_options, "--new-match", *robots]),
            "or, while it runs, in another terminal (a new match: you at table 1 North, robots "
            "in the other seats):",
            "  " + shlex.join(["./dev", "run", "new-match", *server, *data, *robots]),
        ]
    return "\n".join(lines)


def match_request(args: argparse.Namespace) -> CreateMatch:
    """The ``create_match`` request the options ask for, checked here: a bad option is a
    one-line error before anything is sent."""
    from pydantic import ValidationError

    from protocol.messages import CreateMatch

    deals = None
    if args.deals is not None:
        try:
            deals = Path(args.deals).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise CommandFailed(f"cannot read --deals {args.deals}: {reason}") from None
    roster = None
    if args.roster is not None:  # the server reads it, as it reads the console's
        try:
            roster = Path(args.roster).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise CommandFailed(f"cannot read --roster {args.roster}: {reason}") from None
    names = parse_names(args.names) if args.names else {}
    delay = None if args.robot_delay is None else round(args.robot_delay * 1000)
    level, levels = parse_robot_levels(args.robot_level)
    try:
        return CreateMatch(
            format=args.format,
            boards=args.boards,
            team_a=args.team_a,
            team_b=args.team_b,
            deals_pbn=deals,
            spectators=args.spectators,
            robots=args.robots,
            names=names,
            roster=roster,
            chat=args.chat,
            review_seconds=args.review_seconds,
            robot_delay_ms=delay,
            robot_level=level,
            robot_levels=levels,
            players=args.players,
            scoring=args.scoring,
            stage_two=args.stage_two,
            imposed_auction=args.imposed_auction,
            sessions=args.sessions,
            wait_for_players=getattr(args, "wait_for_players", False),
            minutes_per_board=args.minutes_per_board or None,
            disputed_claims=getattr(args, "disputed_claims", "play_on"),
            face_down_lead=not getattr(args, "face_up_lead", True),
            seal=getattr(args, "seal", None),
            public_value=getattr(args, "public_value", None),
            request_id=getattr(args, "request_id", None),
        )
    except ValidationError as error:
        raise refused_option(
            error,
            {
                "deals_pbn": "--deals",
                "robot_delay_ms": "--robot-delay",
                "robot_levels": "--robot-level",
                "names": "--names",
                "request_id": "--request-id",
            },
        ) from None


def refused_option(error: ValidationError, options: Mapping[str, str]) -> CommandFailed:
    """A request's model refused what the command line gave: the failure names the option
    (``options`` maps a field to its option; else ``--`` and the field's name)."""
    first = error.errors()[0]
    field = str(first["loc"][0]) if first["loc"] else ""
    option = options.get(field, "--" + field.replace("_", "-"))
    return CommandFailed(f"bad {option}: {first['msg']}")


async def _create(
    ws_url: str,
    key: str,
    request: CreateMatch | ImportMatch,
    server_url: str,
    command_id: str | None = None,
) -> MatchCreated:
    """Create (or import) the match on the server at ``ws_url``: its links."""
    from protocol.messages import MatchCreated as MatchCreatedReply

    reply = await _organise(ws_url, key, request, server_url, command_id)
    assert isinstance(reply, MatchCreatedReply)
    return reply


async def _organise(
    ws_url: str,
    key: str,
    request: CreateMatch | ImportMatch | SealDeals | CreateEvent,
    server_url: str,
    command_id: str | None = None,
) -> MatchCreated | DealsSealed | EventCreated:
    """Send the organiser's ``request`` to the server at ``ws_url``: its answer; every
    failure is a CommandFailed. The request carries an id (its own, or one made here): it
    is waited for as long as the server works on it, and sent again with the same id when
    the connection drops first, so that it is carried out once (one match, one seal, one
    event).
    ``command_id``: the ``--request-id`` that makes the command's requests' ids, to name
    when the command should be run again."""
    from websockets.exceptions import WebSocketException

    from clients.client import Client, ClientError, Link
    from protocol.errors import ErrorCode
    from protocol.messages import CreateEvent as EventRequest
    from protocol.messages import DealsSealed as DealsSealedReply
    from protocol.messages import EventCreated as EventCreatedReply
    from protocol.messages import MatchCreated as MatchCreatedReply
    from protocol.messages import SealDeals as SealRequest

    if request.request_id is None:
        request = request.model_copy(update={"request_id": secrets.token_hex(16)})
    again = (
        f"run the command again with --request-id {command_id or request.request_id} (the "
        "server carries a request out once: you get the same answer, never a second one)"
    )
    for attempt in range(ORGANISE_ATTEMPTS):
        if attempt:
            print(
                f"duplicate: the connection to {server_url} dropped before the answer came; "
                f"asking again, with the same request id ({attempt + 1} of {ORGANISE_ATTEMPTS})",
                file=sys.stderr,
            )
            await asyncio.sleep(min(8.0, 0.5 * 2**attempt))
        try:
            client = await Client.connect(Link(ws_url, key), name="duplicate organiser")
        except ClientError as error:
            if isinstance(error.code, ErrorCode):
                raise CommandFailed(
                    f"the server at {server_url} refused: {error.code}: {error.message}"
                ) from None
            if error.code == "refused":
                raise CommandFailed(
                    f"the server at {server_url} turned the connection away: {error.message}"
                ) from None
            if error.code == "closed" and attempt + 1 < ORGANISE_ATTEMPTS:
                continue
            raise CommandFailed(
                f"the server at {server_url} closed the connection ({error.message}): {again}"
            ) from None
        except (OSError, WebSocketException) as error:  # TimeoutError is an OSError
            if attempt:
                continue  # it was there a moment ago: a restart, say
            raise CommandFailed(
                f"the server at {server_url} cannot be reached ({_reason(error)}): start it "
                "with `duplicate serve`, or give its URL with --server"
            ) from None
        try:
            # No time limit: an import of many boards on a busy machine takes a while, and
            # the connection's pings tell whether the server is still there.
            reply = await client.request(
                lambda ref: request.model_copy(update={"ref": ref}), timeout=None
            )
            assert isinstance(reply, MatchCreatedReply | DealsSealedReply | EventCreatedReply)
            return reply
        except ClientError as error:
            if error.code == ErrorCode.UNAVAILABLE and attempt + 1 < ORGANISE_ATTEMPTS:
                continue  # the store was down a moment
            if isinstance(error.code, ErrorCode):
                what = (
                    "seal"
                    if isinstance(request, SealRequest)
                    else "event"
                    if isinstance(request, EventRequest)
                    else "match"
                )
                raise CommandFailed(
                    f"the server refused the {what}: {error.code}: {error.message}"
                ) from None
            if attempt + 1 < ORGANISE_ATTEMPTS:
                continue
            raise CommandFailed(
                f"the server at {server_url} closed the connection before it answered: {again}"
            ) from None
        except (OSError, WebSocketException) as error:
            if attempt + 1 < ORGANISE_ATTEMPTS:
                continue
            raise CommandFailed(
                f"the server at {server_url} did not answer ({_reason(error)}): {again}"
            ) from None
        finally:
            await client.close()
    raise CommandFailed(f"the server at {server_url} did not answer: {again}")


def _organiser(args: argparse.Namespace) -> tuple[str, str]:
    """The organiser's key and the WebSocket URL of the server ``--server`` names."""
    from clients.client import ClientError, Link

    key = organiser_key(args, create=False)
    try:
        return key, Link.parse(args.server + "#organiser").ws_url
    except ClientError:
        raise CommandFailed(
            f"--server {args.server!r} is not a server's URL like http://{DEFAULT_HOST}:{DEFAULT_PORT}"
        ) from None


def new_match(args: argparse.Namespace) -> str:
    """Create a match on a running server and print its links."""

    key, ws_url = _organiser(args)
    request = match_request(args)
    created = asyncio.run(_create(ws_url, key, request, args.server))
    return f"{format_links(created, args.format)}\n{HANDING_OUT}"


def import_match(args: argparse.Namespace) -> str:
    """Load each team match of a PBN file (a whole round may hold many; LIN: one) on a
    running server as a finished match, and print its links."""
    from bridge import BridgeError
    from bridge.pbn import dump_games, parse_games
    from bridge.records import match_from_pbn, pbn_matches
    from protocol.messages import ImportMatch

    key, ws_url = _organiser(args)
    try:
        text = Path(args.record).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CommandFailed(f"cannot read {args.record}: {error}") from None
    lin = args.record_format == "lin" or (
        args.record_format is None and args.record.lower().endswith(".lin")
    )
    format: Literal["pbn", "lin"] = "lin" if lin else "pbn"
    records: list[tuple[str, str]] = []  # (the record to send, or "", what to say of it)
    if format == "lin":
        records.append((text, args.record))
    else:
        for group in pbn_matches(parse_games(text)):
            try:
                match = match_from_pbn(group)
            except BridgeError as error:
                records.append(("", f"not imported: {error}"))
                continue
            said = match.name
            if match.left_out:
                numbers = ", ".join(map(str, match.left_out))
                said += f" (left out, at one table only: board {numbers})"
            records.append((dump_games(group), said))
    lines: list[str] = []
    imported = 0
    # One request id for each match of the file, made from the command's: the command run
    # again with it imports none twice.
    command_id = _request_id(args)
    for number, (record, said) in enumerate(records, start=1):
        if not record:
            lines.append(said)
            continue
        request = ImportMatch(
            record=record,
            format=format,
            spectators=args.spectators,
            request_id=f"{command_id}-{number}",
        )
        created = asyncio.run(_create(ws_url, key, request, args.server, command_id))
        imported += 1
        lines.append(f"Match {created.match_id}: {said}")
        lines.append(f"  Spectators  {created.spectator or 'off'}")
        lines.append(f"  Director    {created.director}")
        lines.append(f"  Deals       sha256 {created.deals_commitment}")
    if not imported:
        raise CommandFailed("no match could be imported:\n" + "\n".join(lines))
    return "\n".join(lines)


def seal_deals(args: argparse.Namespace) -> str:
    """Ask a running server to commit to a secret seed; print the seal and the commitment."""
    from protocol.messages import DealsSealed, SealDeals

    key, ws_url = _organiser(args)
    request = SealDeals(public_form=args.public_form, request_id=_request_id(args))
    sealed = asyncio.run(_organise(ws_url, key, request, args.server))
    assert isinstance(sealed, DealsSealed)
    return (
        f"Seed commitment: sha256 {sealed.seed_commitment}\n"
        f"Public value's form: {sealed.public_form}\n"
        f"Seal: {sealed.seal}\n"
        "Publish the seed commitment and the form to the players first. Then fix a public "
        "value nobody knew before (a lottery draw, dice thrown in front of them), and "
        "create the match (the value in any spelling its form allows):\n"
        f"  ./dev run new-match --seal {sealed.seal} --public-value 'THE VALUE' ...\n"
        "Its boards are drawn from both: neither the server nor you alone chose them. "
        "`duplicate verify` checks it once the match is over."
    )


def bcb(args: argparse.Namespace) -> str:
    """A Blue Chip Bridge table manager for the seats of these links, until the match ends."""
    from clients.bcb import DEFAULT_TIMEOUT, BcbError, run_adapter
    from clients.client import ClientError

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("websockets").setLevel(logging.WARNING)
    try:
        timeout = DEFAULT_TIMEOUT if args.timeout is None else args.timeout
        asyncio.run(run_adapter(args.links, args.host, args.port, timeout))
    except (BcbError, ClientError) as error:
        raise CommandFailed(str(error)) from None
    return "The match is over."


def bot(args: argparse.Namespace) -> str:
    """Run one robot at a seat until its match is over."""
    from clients.robot import run_robot

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("websockets").setLevel(logging.WARNING)
    asyncio.run(run_robot(args.link, args.delay, args.level))
    return "The match is over."


def play(args: argparse.Namespace) -> str:
    """The table in a terminal, from a player's, the spectator's or the director's link."""
    from clients.terminal import main as run_table

    status = run_table([args.link] + (["--name", args.name] if args.name else []))
    if status:
        raise SystemExit(status)
    return ""


async def _record(link: str, format: Literal["pbn", "lin"] = "pbn") -> str:
    from websockets.exceptions import WebSocketException

    from clients.client import Client, ClientError, Link

    try:
        parsed = Link.parse(link)
    except ClientError as error:
        raise CommandFailed(error.message) from None
    try:
        client = await Client.connect(parsed, name="duplicate record")
    except ClientError as error:
        raise CommandFailed(f"the server refused the link: {error.code}: {error.message}") from None
    except (OSError, WebSocketException) as error:
        raise CommandFailed(
            f"the server of {parsed.ws_url} cannot be reached ({_reason(error)})"
        ) from None
    try:
        return await client.record(format)
    except ClientError as error:
        raise CommandFailed(f"the server refused: {error.code}: {error.message}") from None
    finally:
        await client.close()


def record(args: argparse.Namespace) -> str:
    """The match record as PBN (or LIN): every play of every compared board (``> match.pbn``)."""
    return asyncio.run(_record(args.link, "lin" if args.lin else "pbn")).rstrip("\n")


def matches(args: argparse.Namespace) -> str:
    """The matches on a running server, newest first, and where each table stands (the
    console's ``list_matches``)."""
    from protocol.messages import ListMatches, MatchList

    key, ws_url = _organiser(args)
    listed = asyncio.run(_ask(ws_url, key, ListMatches(archived=args.archived), args.server))
    assert isinstance(listed, MatchList)
    return format_matches(listed) or "No matches."


def format_matches(listed: MatchList) -> str:
    """Each match in a line, then a line for each of its tables: round, board, phase,
    trick and contract, who is away, calls for the director, the clock."""
    lines: list[str] = []
    for match in listed.matches:
        score = ", ".join(f"{s.name} {s.points:g}" for s in match.standings)
        put_away = " (archived)" if match.archived else ""
        lines.append(
            f"{match.match_id}  {match.format}  {match.status}{put_away}  "
            f"{match.compared}/{match.boards} boards compared  {score}"
        )
        for table in match.tables:
            where = f"round {table.round} board {table.board} {table.phase}"
            if table.board is None:
                where = "not started"
            if table.trick is not None:
                where += f" trick {table.trick}"
            if table.contract is not None:
                where += f" {table.contract} by {table.declarer}"
            away = [p.seat for p in table.players if not (p.connected or p.robot)]
            notes = [f"away: {' '.join(away)}"] if away else []
            if table.director_calls:
                notes.append(f"{len(table.director_calls)} call(s) for the director")
            if table.clock is not None and table.clock.time_up:
                notes.append("time is up")
            lines.append(f"  table {table.table}: {where}" + "".join(f"; {n}" for n in notes))
    return "\n".join(lines)


def links(args: argparse.Namespace) -> str:
    """A match's links again (the console's ``get_links``), for the organiser to hand out."""
    from protocol.messages import GetLinks, MatchLinks

    key, ws_url = _organiser(args)
    answer = asyncio.run(_ask(ws_url, key, GetLinks(match_id=args.match_id), args.server))
    assert isinstance(answer, MatchLinks)
    lines = [f"Match {answer.match_id}"]
    for link in answer.links:
        if link.role == "player":
            name = f"  {link.name}" if link.name else ""
            shown = link.link or ("robot" if link.robot else "not known here: make a new one")
            lines.append(f"  table {link.table} {link.seat}  player {link.player}{name}  {shown}")
        else:
            lines.append(f"  {link.role}  {link.link or 'not known here'}")
    return "\n".join(lines)


async def _ask(
    ws_url: str,
    key: str,
    request: Any,
    server_url: str,
    timeout: float | None = 10.0,
    changes: bool = False,
) -> Any:
    """One of the console's requests to the server at ``ws_url``, as the organiser: its
    answer (every failure a CommandFailed), waited for ``timeout`` seconds. Sent once,
    never again: a read is safe to run again after a failure; a request that changes
    something (``changes``: beginning a round, an adjustment) may have been carried out
    when its answer was lost, which the failure then says."""
    from websockets.exceptions import WebSocketException

    from clients.client import Client, ClientError, Link
    from protocol.errors import ErrorCode

    doubt = (
        ": it may have been carried out; look before running the command again" if changes else ""
    )

    try:
        client = await Client.connect(Link(ws_url, key), name="duplicate organiser")
    except ClientError as error:
        raise CommandFailed(f"the server at {server_url} refused: {error.message}") from None
    except (OSError, WebSocketException) as error:
        raise CommandFailed(
            f"the server at {server_url} cannot be reached ({_reason(error)}): start it "
            "with `duplicate serve`, or give its URL with --server"
        ) from None
    try:
        return await client.request(
            lambda ref: request.model_copy(update={"ref": ref}), timeout=timeout
        )
    except ClientError as error:
        if isinstance(error.code, ErrorCode) or not doubt:
            raise CommandFailed(f"the server refused: {error.code}: {error.message}") from None
        raise CommandFailed(
            f"the server at {server_url} closed the connection before it answered{doubt}"
        ) from None
    except (OSError, WebSocketException) as error:  # TimeoutError is an OSError
        raise CommandFailed(
            f"the server at {server_url} did not answer ({_reason(error)}){doubt}"
        ) from None
    finally:
        await client.close()


def protocol_schema(args: argparse.Namespace) -> str:
    """The JSON Schema of every protocol message."""
    from protocol.codec import json_schema

    return json.dumps(json_schema(), indent=2, sort_keys=True)


async def _start_embedded_redis(folder: Path) -> RedisProcess:
    from server.redis_process import RedisProcess

    embedded = None
    try:
        embedded = RedisProcess(folder)
        await embedded.astart()
    except (OSError, RuntimeError) as error:
        if embedded is not None:  # it answered too late, or not at all: not left running
            await embedded.astop()
        raise CommandFailed(f"cannot start the embedded Redis: {error}") from None
    return embedded


def _redis_client(url: str) -> Redis:
    """A client of the Redis at ``url`` (``redis://``, ``rediss://`` for TLS, ``unix://``; a
    password in it is used) over a pool of at most REDIS_CONNECTIONS connections. (A Redis
    Cluster is found by :func:`_check_redis`, which gives a cluster client instead.)"""
    from redis.asyncio import BlockingConnectionPool, Redis

    options: dict[str, object] = {}
    try:
        from redis.maint_notifications import MaintNotificationsConfig
    except ImportError:  # redis-py before 6.3: no such notifications, the check is made
        pass
    else:
        # With these notifications on ("auto"), the pool skips its check that a connection
        # it hands out is still open: after Redis restarts, every pooled connection would
        # fail one command (an action answered "unavailable") before being replaced.
        options["maint_notifications_config"] = MaintNotificationsConfig(enabled=False)
    try:
        pool = BlockingConnectionPool.from_url(
            url, max_connections=REDIS_CONNECTIONS, timeout=REDIS_TIMEOUT, **options
        )
    except ValueError as error:
        raise CommandFailed(f"--redis {_without_password(url)!r}: {error}") from None
    return Redis.from_pool(pool)


async def _check_redis(redis: Redis, url: str, embedded: bool) -> StoreClient:
    """PING Redis once: a server whose store cannot be reached must not start serving. A
    Redis Cluster node (``cluster_enabled``) gives a client of the whole cluster instead."""
    from redis.asyncio.cluster import RedisCluster
    from redis.exceptions import AuthenticationError, RedisError, ResponseError

    shown = _without_password(url)
    try:
        async with asyncio.timeout(REDIS_TIMEOUT):
            await redis.ping()
            try:
                info = await redis.info("cluster")
            except ResponseError:  # INFO turned off (some hosted Redis): not a cluster
                info = {}
            if info.get("cluster_enabled"):
                await redis.aclose()
                cluster = RedisCluster.from_url(
                    url, max_connections=REDIS_CONNECTIONS, require_full_coverage=True
                )
                await cluster.initialize()
                return cluster
    except AuthenticationError as error:
        raise CommandFailed(
            f"Redis at {shown} refused the password ({_reason(error)}): give its password "
            "in --redis, as redis://:PASSWORD@HOST:PORT/0"
        ) from None
    except (RedisError, OSError) as error:  # TimeoutError is an OSError
        what = "the embedded Redis" if embedded else "Redis"
        todo = (
            "see redis.log in its data folder"
            if embedded
            else "start it, or leave out --redis to use the embedded one"
        )
        raise CommandFailed(
            f"{what} at {shown} cannot be reached ({_reason(error)}): {todo}"
        ) from None
    return redis


async def _listen(server: Server, host: str, port: int) -> None:
    from server.web import MetricsAddressError

    try:
        await server.start()
    except MetricsAddressError as failed:
        metrics_host, metrics_port = server.metrics_address or ("", 0)
        if failed.error.errno == errno.EADDRINUSE:
            raise CommandFailed(
                f"metrics port {metrics_port} is already in use: choose another with "
                "--metrics-port N"
            ) from None
        raise CommandFailed(
            f"cannot serve metrics on {metrics_host} port {metrics_port} "
            f"({_reason(failed.error)}): check --metrics-host and --metrics-port"
        ) from None
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise CommandFailed(
                f"port {port} is already in use: stop the other server or choose another "
                "with --port N"
            ) from None
        raise CommandFailed(
            f"cannot listen on {host} port {port} ({_reason(error)}): check --host and --port"
        ) from None


async def _serve(args: argparse.Namespace) -> None:
    from server.app import Server
    from server.heap import Heap

    data = Path(args.data)
    request = match_request(args) if args.new_match else None
    lock = lock_data_folder(data)
    embedded: RedisProcess | None = None
    supervisor: asyncio.Task[None] | None = None
    redis: StoreClient | None = None
    server: Server | None = None
    heap = Heap()
    listening = False
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stop.set)
    # Whatever fails from here on, the finally stops what was started: no redis-server is
    # left running behind a failed start.
    try:
        key = organiser_key(args, create=True)
        url = args.redis or os.environ.get("DUPLICATE_REDIS_URL") or None
        if url is None:
            embedded = await _start_embedded_redis(data / "redis")
            url = embedded.url
            # Restarted whenever it exits, for as long as we serve; /health tells meanwhile.
            supervisor = asyncio.create_task(embedded.supervise())
            print(
                f"Redis: embedded, data in {data / 'redis'} ({embedded.shown_url}, "
                f"password in {embedded.password_file})",
                flush=True,
            )
        redis = _redis_client(url)
        redis = await _check_redis(redis, url, embedded is not None)
        server = Server(
            redis,
            key,
            host=args.host,
            port=args.port,
            public_url=args.public_url,
            robot_delay=args.server_robot_delay,
            store_status=embedded.status if embedded is not None else None,
            limits=_limits(args),
            keep_robot_messages=False,
            metrics_address=(
                None if args.metrics_port is None else (args.metrics_host, args.metrics_port)
            ),
        )
        await _listen(server, args.host, args.port)
        listening = True
        heap.start()
        print(f"Serving on {server.public_url} (WebSocket {server.ws_url})", flush=True)
        print(f"Organiser key: {key_source(args)}", flush=True)
        print(
            f"Organiser's console: {server.public_url}/organise (sign in with the key)",
            flush=True,
        )
        if server.metrics_url is not None:
            print(f"Metrics: {server.metrics_url}", flush=True)
        if request is not None:
            assert server.public_url is not None
            created = await _create(server.ws_url, key, request, server.public_url)
            guidance = alone_guidance(created, args, server.public_url)
            print(
                format_links(created, args.format) + (f"\n{guidance}" if guidance else ""),
                flush=True,
            )
        await stop.wait()
    finally:
        await heap.stop()
        if server is not None:
            await server.close()
        if redis is not None:
            await redis.aclose()
        if supervisor is not None:
            supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await supervisor
        if embedded is not None:
            await embedded.astop()
        os.close(lock)  # the data folder is free: after Redis stopped, not before
        if listening or embedded is not None:
            print("Stopped.", flush=True)


def _limits(args: argparse.Namespace) -> Limits:
    """The server's limits, with the ones the options set."""
    if args.max_connections < 1 or args.max_connections_per_address < 1:
        raise CommandFailed("--max-connections and --max-connections-per-address are at least 1")
    if args.overload_lag < 0:
        raise CommandFailed("--overload-lag is 0 (never) or more")
    proxies = frozenset(args.trusted_proxy or ())
    for proxy in proxies:
        try:
            ipaddress.ip_address(proxy)
        except ValueError:
            raise CommandFailed(f"--trusted-proxy {proxy!r} is not an IP address") from None
    return dataclasses.replace(
        Limits(),
        max_connections=args.max_connections,
        max_connections_per_address=args.max_connections_per_address,
        # As many as an address may hold may come back at once (a room after a Wi-Fi outage).
        connections_burst=float(args.max_connections_per_address),
        trusted_proxies=proxies,
        overload_lag=args.overload_lag / 1000 if args.overload_lag > 0 else None,
    )


def serve(args: argparse.Namespace) -> str:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("websockets").setLevel(logging.WARNING)  # not a line per connection
    profile = os.environ.get("DUPLICATE_PROFILE")
    if not profile:
        asyncio.run(_serve(args))
        return ""
    # A developer's look at where the time goes (bench/load.py passes the environment on):
    # cProfile's statistics, written to that path when the server stops.
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        asyncio.run(_serve(args))
    finally:
        profiler.disable()
        profiler.dump_stats(profile)
    return ""


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("serve", help="run the match server")
    p.add_argument("--host", default=DEFAULT_HOST, help="address to listen on")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument(
        "--redis",
        help="redis://[:PASSWORD@]HOST:PORT/DB (rediss:// for TLS) of a Redis to use "
        "(default: $DUPLICATE_REDIS_URL, which keeps its password off the command line; "
        "without it, start our own)",
    )
    p.add_argument("--data", default=DEFAULT_DATA, help="data folder (embedded Redis, key)")
    p.add_argument(
        "--organiser-key",
        help="the organiser's secret (default: made and kept in --data; a file or "
        "$DUPLICATE_ORGANISER_KEY keeps it off the command line)",
    )
    p.add_argument(
        "--organiser-key-file",
        type=Path,
        metavar="PATH",
        help="a file holding the organiser's secret",
    )
    p.add_argument("--public-url", help="base URL in links, if not http://HOST:PORT")
    p.add_argument(
        "--metrics-port",
        type=int,
        metavar="PORT",
        help="serve Prometheus metrics at /metrics on this port of --metrics-host (default: "
        "not served; never on the public port, where the counts would tell players what "
        "the other table did)",
    )
    p.add_argument(
        "--metrics-host",
        default="127.0.0.1",
        metavar="ADDRESS",
        help="the address of --metrics-port (default 127.0.0.1: this machine only)",
    )
    p.add_argument(
        "--new-match", action="store_true", help="create a match at start and print its links"
    )
    p.add_argument(
        "--server-robot-delay",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how long the server's robots wait before each call or card, unless a match says "
        "otherwise (default 1; robots in a match of robots only never wait)",
    )
    defaults = Limits()
    p.add_argument(
        "--max-connections",
        type=int,
        default=defaults.max_connections,
        metavar="N",
        help=f"WebSocket connections at once, in all (default {defaults.max_connections}: "
        "what the process's descriptor limit allows)",
    )
    p.add_argument(
        "--max-connections-per-address",
        type=int,
        default=defaults.max_connections_per_address,
        metavar="N",
        help="connections at once from one IP address, and how many may connect at once "
        f"(default {defaults.max_connections_per_address})",
    )
    p.add_argument(
        "--trusted-proxy",
        action="append",
        metavar="ADDRESS",
        help="the IP address of a reverse proxy in front of the server (repeatable): a "
        "connection from it counts as coming from the client its X-Forwarded-For names",
    )
    p.add_argument(
        "--overload-lag",
        type=float,
        default=OVERLOAD_LAG * 1000,
        metavar="MS",
        help="past what the process can serve, actions are refused at once (unavailable, "
        "with retry_after_ms) while its event loop runs more than this late, sustained "
        f"(default {OVERLOAD_LAG * 1000:g} ms; 0: never)",
    )
    add_match_options(p)
    p.set_defaults(run=serve)

    p = commands.add_parser("new-match", help="create a match on a running server")
    _add_server_options(p)
    add_match_options(p)
    p.add_argument(
        "--seal",
        help="draw the boards from the seed of this seal (from `seal-deals`) and --public-value",
    )
    p.add_argument(
        "--public-value",
        metavar="TEXT",
        help="the public value fixed after the seed's commitment was published (a lottery "
        "draw, a newspaper headline, dice thrown in front of the players), in any spelling "
        "the seal's form allows",
    )
    p.set_defaults(run=new_match)

    p = commands.add_parser(
        "seal-deals",
        help="commit to a secret seed for a match's boards: the first of two steps that let "
        "no one alone choose them",
    )
    _add_server_options(p)
    p.add_argument(
        "--public-form",
        required=True,
        metavar="FORM",
        help="how the public value will be written, committed to with the seed: "
        "'digits N' (N digits in order, whatever is written around them: dice, a lottery) "
        "or 'words' (a headline), then ': ' and how it will be drawn, e.g. "
        "'digits 5: five dice thrown by the director, read left to right'",
    )
    p.set_defaults(run=seal_deals)

    p = commands.add_parser(
        "import-match", help="load matches played elsewhere (PBN, LIN) as finished matches"
    )
    p.add_argument("record", help="a PBN file (one match or a whole round) or a LIN match file")
    p.add_argument(
        "--format",
        dest="record_format",
        choices=("pbn", "lin"),
        help="the record's format (default: from the file's name; PBN unless it ends .lin)",
    )
    p.add_argument(
        "--spectators",
        choices=("live", "delayed", "off"),
        default="live",
        help="the spectator link's mode (default live: the match is over)",
    )
    _add_server_options(p)
    p.set_defaults(run=import_match)

    p = commands.add_parser("bot", help="run a robot at a seat, through the protocol")
    p.add_argument("link", help="the seat's link, http://HOST:PORT/play#TOKEN")
    p.add_argument(
        "--delay",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how long the robot waits before each call, card or answer (default 1: a "
        "human pace; 0 among robots)",
    )
    p.add_argument(
        "--level",
        choices=LEVELS,
        default="seed",
        help="how it bids and plays: seed (a bare natural system, card play by rules) or "
        "strong (conventions, double-dummy card play)",
    )
    p.set_defaults(run=bot)

    p = commands.add_parser(
        "bcb",
        help="a Blue Chip Bridge table manager: BCB robots play the seats of these links "
        "(docs/bcb.md)",
    )
    p.add_argument(
        "links", nargs="+", metavar="LINK", help="a seat's link, http://HOST:PORT/play#TOKEN"
    )
    p.add_argument(
        "--port",
        type=int,
        default=2000,
        help="table 1's TCP port; table T listens on PORT + T - 1 (default 2000; 0: free ports)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="how long a robot may take over one line, a call or card included (default 300)",
    )
    p.set_defaults(run=bcb)

    p = commands.add_parser(
        "play", help="the table in a terminal, for keyboard players and directors"
    )
    p.add_argument(
        "link", help="your link: http://HOST:PORT/play#TOKEN (or /watch#..., /direct#...)"
    )
    p.add_argument("--name", help="your name at the table, if the organiser gave you none")
    p.set_defaults(run=play)

    p = commands.add_parser("record", help="print the match record (PBN, or LIN) from any link")
    p.add_argument("link", help="a player's, the spectators' or the director's link")
    p.add_argument(
        "--lin", action="store_true", help="as BBO's LIN (one hand-viewer line per table)"
    )
    p.set_defaults(run=record)

    p = commands.add_parser(
        "matches", help="list the matches on a running server and where each table stands"
    )
    _add_server_options(p)
    p.add_argument("--archived", action="store_true", help="the archived matches too")
    p.set_defaults(run=matches)

    p = commands.add_parser("links", help="print a match's links again, for handing out")
    p.add_argument("match_id", help="the match's id (`duplicate matches` lists them)")
    _add_server_options(p)
    p.set_defaults(run=links)

    p = commands.add_parser("protocol-schema", help="print the JSON Schema of the protocol")
    p.set_defaults(run=protocol_schema)
