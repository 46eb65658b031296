"""``duplicate serve``, ``duplicate new-match`` and ``duplicate protocol-schema``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import secrets
import signal
from pathlib import Path

DEFAULT_PORT = 8765
KEY_FILE = "organiser.key"


def organiser_key(args: argparse.Namespace, create: bool) -> str:
    """The organiser key: --organiser-key, else $DUPLICATE_ORGANISER_KEY, else the data
    folder's key file (made on first serve, readable by its owner only)."""
    if args.organiser_key:
        return str(args.organiser_key)
    from_env = os.environ.get("DUPLICATE_ORGANISER_KEY")
    if from_env:
        return from_env
    path = Path(args.data) / KEY_FILE
    if path.exists():
        return path.read_text().strip()
    if not create:
        raise SystemExit(
            f"duplicate: no organiser key: pass --organiser-key, set DUPLICATE_ORGANISER_KEY, "
            f"or point --data at the server's data folder (no {path})"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(24)
    path.touch(mode=0o600)
    path.write_text(key + "\n")
    return key


def add_match_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=("teams", "robot-table"),
        default="teams",
        help="teams: eight players at two tables; robot-table: four people at table 1 "
        "against the same cards played by robots at table 2",
    )
    parser.add_argument(
        "--boards",
        type=int,
        help="boards in the match (default 4; robot-table: 4, 8 or 16, default 8)",
    )
    parser.add_argument(
        "--robots",
        nargs="+",
        default=[],
        metavar="SEAT",
        help="seats the server's robots play: t1 or t2 for a whole table, 1N, 2E ... for one seat",
    )
    parser.add_argument("--team-a", default="Team A", help="sits N-S at table 1, E-W at table 2")
    parser.add_argument("--team-b", default="Team B", help="sits E-W at table 1, N-S at table 2")
    parser.add_argument(
        "--deals", type=Path, help="a PBN file of prepared boards (else dealt securely)"
    )
    parser.add_argument(
        "--spectators", choices=("live", "delayed", "off"), default="live", help="spectator mode"
    )


def format_links(created: object) -> str:
    """The links of a new match, for the organiser to hand out."""
    from protocol.messages import MatchCreated

    assert isinstance(created, MatchCreated)
    lines = [f"Match {created.match_id}"]
    for table in (1, 2):
        lines.append(f"Table {table}")
        for seat in created.seats:
            if seat.table == table:
                lines.append(f"  {seat.seat}  team {seat.team}  {seat.link or 'robot'}")
        if not any(seat.table == table for seat in created.seats):
            lines.append("  the robots' table")
    lines.append(f"Spectators  {created.spectator or 'off'}")
    lines.append(f"Director    {created.director}")
    return "\n".join(lines)


async def _create(ws_url: str, key: str, args: argparse.Namespace) -> str:
    from clients.client import Client, Link

    deals = args.deals.read_text() if args.deals is not None else None
    client = await Client.connect(Link(ws_url, key), name="duplicate new-match")
    try:
        created = await client.create_match(
            boards=args.boards,
            team_a=args.team_a,
            team_b=args.team_b,
            deals_pbn=deals,
            spectators=args.spectators,
            format=args.format,
            robots=args.robots,
        )
    finally:
        await client.close()
    return format_links(created)


def new_match(args: argparse.Namespace) -> str:
    """Create a match on a running server and print its links."""
    from clients.client import Link

    key = organiser_key(args, create=False)
    return asyncio.run(_create(Link.parse(args.server + "#organiser").ws_url, key, args))


def bot(args: argparse.Namespace) -> str:
    """Run one robot at a seat until its match is over."""
    from clients.robot import run_robot

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("websockets").setLevel(logging.WARNING)
    asyncio.run(run_robot(args.link))
    return "The match is over."


def play(args: argparse.Namespace) -> str:
    """The table in a terminal, from a player's, the spectator's or the director's link."""
    from clients.terminal import main as run_table

    status = run_table([args.link])
    if status:
        raise SystemExit(status)
    return ""


def protocol_schema(args: argparse.Namespace) -> str:
    """The JSON Schema of every protocol message."""
    from protocol.codec import json_schema

    return json.dumps(json_schema(), indent=2, sort_keys=True)


async def _serve(args: argparse.Namespace) -> None:
    from redis.asyncio import Redis

    from server.app import Server
    from server.redis_process import RedisProcess

    data = Path(args.data)
    key = organiser_key(args, create=True)
    embedded = None
    url = args.redis
    if url is None:
        embedded = RedisProcess(data / "redis")
        await embedded.astart()
        url = embedded.url
        print(f"Redis: embedded, data in {data / 'redis'} ({url})", flush=True)
    redis = Redis.from_url(url)
    server = Server(redis, key, host=args.host, port=args.port, public_url=args.public_url)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stop.set)
    try:
        await server.start()
        print(f"Serving on {server.public_url} (WebSocket {server.ws_url})", flush=True)
        print(f"Organiser key in {data / KEY_FILE} (or as given)", flush=True)
        if args.new_match:
            print(await _create(server.ws_url, key, args), flush=True)
        await stop.wait()
    finally:
        await server.close()
        await redis.aclose()
        if embedded is not None:
            await embedded.astop()
        print("Stopped.", flush=True)


def serve(args: argparse.Namespace) -> str:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("websockets").setLevel(logging.WARNING)  # not a line per connection
    asyncio.run(_serve(args))
    return ""


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("serve", help="run the match server")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--redis", help="redis://... of a Redis to use (default: start our own)")
    p.add_argument("--data", default="duplicate-data", help="data folder (embedded Redis, key)")
    p.add_argument(
        "--organiser-key", help="the organiser's secret (default: made and kept in --data)"
    )
    p.add_argument("--public-url", help="base URL in links, if not http://HOST:PORT")
    p.add_argument(
        "--new-match", action="store_true", help="create a match at start and print its links"
    )
    add_match_options(p)
    p.set_defaults(run=serve)

    p = commands.add_parser("new-match", help="create a match on a running server")
    p.add_argument("--server", default=f"http://127.0.0.1:{DEFAULT_PORT}", help="the server's URL")
    p.add_argument(
        "--data", default="duplicate-data", help="the server's data folder (for its key)"
    )
    p.add_argument("--organiser-key", help="the organiser's secret")
    add_match_options(p)
    p.set_defaults(run=new_match)

    p = commands.add_parser("bot", help="run a robot at a seat, through the protocol")
    p.add_argument("link", help="the seat's link, http://HOST:PORT/play#TOKEN")
    p.set_defaults(run=bot)

    p = commands.add_parser(
        "play", help="the table in a terminal, for keyboard players and directors"
    )
    p.add_argument(
        "link", help="your link: http://HOST:PORT/play#TOKEN (or /watch#..., /direct#...)"
    )
    p.set_defaults(run=play)

    p = commands.add_parser("protocol-schema", help="print the JSON Schema of the protocol")
    p.set_defaults(run=protocol_schema)
