"""``duplicate new-event`` and ``duplicate event``: events of many matches from the command
line (SPEC.md, "Events of many matches").

An event is a round robin or a Swiss of two-table team matches, each converted to victory
points. ``new-event`` creates one on a running server from a teams file (:func:`parse_teams`)
and prints its first round; ``event`` prints where it stands (:func:`format_event`), and
begins a round or adjusts a team's VPs for the director. Both talk to the server as
``new-match`` does, with the organiser key.
"""

from __future__ import annotations

import argparse
import asyncio
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from duplicate.serving import (
    CommandFailed,
    _add_server_options,
    _ask,
    _organise,
    _organiser,
    parse_robot_levels,
    refused_option,
)

if TYPE_CHECKING:
    from pydantic import ValidationError

    from protocol.messages import CreateEvent, EventRoundEntry, EventTeamSpec, EventView

TEAMS_FILE_FORM = (
    "Team name: Player 1, Player 2, Player 3, Player 4 (up to 6), or Team name: robots"
)
"""A line of a teams file, as the errors show it."""
BUTLER_LINES = 10
"""How many of the Butler ranking's pairs ``duplicate event`` prints unless told."""
_EVENT_ID = re.compile(r"^[0-9a-f]{16}$")
_KINDS: dict[str, Literal["round_robin", "swiss"]] = {
    "round-robin": "round_robin",
    "swiss": "swiss",
}


# -- the teams file ------------------------------------------------------------------------


def parse_teams(text: str, source: str = "the teams file") -> list[EventTeamSpec]:
    """The teams of a teams file: one team a line, ``Team name: Player 1, Player 2,
    Player 3, Player 4`` (up to six players; the first four play every match) or ``Team
    name: robots``; blank lines and lines starting with ``#`` are skipped. A bad line is a
    :class:`~duplicate.serving.CommandFailed` naming ``source`` and the line's number.

    >>> [(t.name, t.players, t.robots) for t in parse_teams(
    ...     "# Tuesday\\nAsh: Ann, Bo, Cy, Di\\n\\nBirch: robots\\n")]
    [('Ash', ['Ann', 'Bo', 'Cy', 'Di'], False), ('Birch', [], True)]
    """
    from pydantic import ValidationError

    from protocol.messages import EventTeamSpec

    teams: list[EventTeamSpec] = []
    lines_of: dict[str, int] = {}  # a team's name, folded, -> its line
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            name, players, robots = _team_line(line)
            first = lines_of.get(name.casefold())
            if first is not None:
                raise ValueError(f"a second team named {name!r} (the first is on line {first})")
            try:
                teams.append(EventTeamSpec(name=name, players=players, robots=robots))
            except ValidationError as error:
                raise ValueError(f"team {name!r}: {_name_problem(error)}") from None
        except ValueError as error:
            raise CommandFailed(f"{source} line {number}: {error}") from None
        lines_of[name.casefold()] = number
    if len(teams) < 2:
        raise CommandFailed(
            f"{source} has {len(teams)} team{'s' * (len(teams) != 1)}: an event needs two or "
            f"more, one a line: {TEAMS_FILE_FORM}"
        )
    if len(teams) > 40:
        raise CommandFailed(f"{source} has {len(teams)} teams: an event has at most 40")
    return teams


def _team_line(line: str) -> tuple[str, list[str], bool]:
    """A teams file's line -> the team's name, its players, whether it is robots; a
    ValueError says what is wrong with the line."""
    name, colon, rest = line.partition(":")
    name = name.strip()
    if not colon:
        raise ValueError(f"no ':' after the team's name; write {TEAMS_FILE_FORM}")
    if not name:
        raise ValueError("the team has no name before the ':'")
    items = [item.strip() for item in rest.split(",")]
    if len(items) > 1 and not items[-1]:
        items.pop()  # a comma at the end of the line
    if len(items) == 1 and items[0].lower() == "robots":
        return name, [], True
    if any(item.lower() == "robots" for item in items):
        raise ValueError(f"team {name!r}: 'robots' stands alone, for a whole team of robots")
    players = [item for item in items if item]
    if players and len(players) != len(items):
        raise ValueError(f"team {name!r}: an empty player's name (two commas together?)")
    if not 4 <= len(players) <= 6:
        count = _plural(len(players), "player") if players else "no players"
        raise ValueError(f"team {name!r} has {count}: a team has four to six players, or robots")
    seen: set[str] = set()
    for player in players:
        if player.casefold() in seen:
            raise ValueError(f"team {name!r}: {player!r} is named twice")
        seen.add(player.casefold())
    return name, players, False


def _name_problem(error: ValidationError) -> str:
    """What is wrong with a name pydantic refused, in words."""
    first = error.errors()[0]
    if first["type"] == "string_too_long":
        return "a name is at most 40 characters"
    return "a name is one line of printable characters"


def read_teams(path: Path) -> list[EventTeamSpec]:
    """The teams of the file ``--teams`` names."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (Windows) is no name
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise CommandFailed(f"cannot read --teams {path}: {reason}") from None
    return parse_teams(text, f"--teams {path}")


# -- new-event -----------------------------------------------------------------------------


def event_request(args: argparse.Namespace) -> CreateEvent:
    """The ``create_event`` request the options ask for, checked here: a bad option or a
    bad teams file is a one-line error before anything is sent."""
    from pydantic import ValidationError

    from protocol.messages import CreateEvent

    teams = read_teams(args.teams)
    kind = _KINDS[args.kind]
    if kind == "swiss" and args.rounds is None:
        most = len(teams) - 1 + len(teams) % 2
        raise CommandFailed(
            f"a Swiss needs --rounds N: how many rounds to play ({len(teams)} teams can "
            f"play {most} without meeting twice)"
        )
    deals = None
    if args.deals is not None:
        try:
            deals = Path(args.deals).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise CommandFailed(f"cannot read --deals {args.deals}: {reason}") from None
    level, _ = parse_robot_levels([args.robot_level])
    delay = None if args.robot_delay is None else round(args.robot_delay * 1000)
    try:
        return CreateEvent(
            name=args.name,
            kind=kind,
            teams=teams,
            rounds=args.rounds,
            boards_per_round=args.boards,
            first_round="drawn" if args.drawn else "seeded",
            bye_vps=args.bye_vps,
            start="director" if args.director_starts else "auto",
            deals_pbn=deals,
            robot_level=level,
            robot_delay_ms=delay,
            request_id=args.request_id,
        )
    except ValidationError as error:
        raise refused_option(
            error,
            {
                "boards_per_round": "--boards",
                "deals_pbn": "--deals",
                "robot_delay_ms": "--robot-delay",
                "request_id": "--request-id",
            },
        ) from None


def new_event(args: argparse.Namespace) -> str:
    """Create an event on a running server; print its id, its rounds and round 1."""
    from protocol.messages import EventCreated, GetEvent

    request = event_request(args)
    key, ws_url = _organiser(args)
    created = asyncio.run(_organise(ws_url, key, request, args.server))
    assert isinstance(created, EventCreated)
    kind = "round robin" if request.kind == "round_robin" else "Swiss"
    boards = _plural(request.boards_per_round, "board")
    lines = [
        f"Event {created.event_id}: {request.name}",
        f"A {kind} of {len(request.teams)} teams: {_plural(created.rounds, 'round')} of {boards}",
    ]
    try:
        view = asyncio.run(_ask(ws_url, key, GetEvent(event_id=created.event_id), args.server))
    except CommandFailed as error:  # the event is made: its id is printed all the same
        lines.append(f"Its round 1 could not be read ({error})")
        lines.append(f"Follow it: duplicate event {created.event_id}")
        return "\n".join(lines)
    first = next((entry for entry in view.schedule if entry.round == 1), None)
    if first is not None and first.status != "drawn":
        lines.append(f"Round 1 has begun ({_boards(first.boards)}):")
        lines += _pairings(view, first)
        lines.append("Each match's links, for its players: duplicate links MATCH_ID")
    elif first is not None:
        lines.append(f"Round 1 is drawn ({_boards(first.boards)}), not begun:")
        lines += _pairings(view, first)
        lines.append(f"Begin it: duplicate event {created.event_id} --start-round 1")
    lines.append(f"Follow it: duplicate event {created.event_id}")
    if created.results is not None:
        lines.append(f"Its results, for anyone: {created.results}")
    return "\n".join(lines)


def _event_pbn(args: argparse.Namespace, event_id: str) -> str:
    """The PBN of the whole event, as the server gives it once the event has ended."""
    from protocol.messages import GetRecord, MatchRecord

    key, ws_url = _organiser(args)
    record = asyncio.run(_ask(ws_url, key, GetRecord(format="pbn", event_id=event_id), args.server))
    assert isinstance(record, MatchRecord)
    return record.record.rstrip("\n")


def _pairings(view: EventView, entry: EventRoundEntry) -> list[str]:
    """A round's matches as ``new-event`` lists them: the teams and the match's id."""
    names = {team.team: team.name for team in view.teams}
    rows = [
        [names[m.home], "v", names[m.away], f"match {m.match_id}" if m.match_id else ""]
        for m in entry.matches
    ]
    lines = ["  " + line for line in _columns(rows, "llll")]
    if entry.bye is not None:
        lines.append(f"  {names[entry.bye]} sits out ({_vps(entry.bye_vps or 0)} VPs)")
    return lines


# -- event ---------------------------------------------------------------------------------


def _event_id(text: str) -> str:
    if not _EVENT_ID.match(text):
        raise CommandFailed(
            f"{text!r} is not an event's id: 16 hex digits, as `duplicate new-event` printed"
        )
    return text


def _first_problem(error: ValidationError) -> str:
    """The first thing pydantic refused in a request, as ``field: why``."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def _team_number(view: EventView, text: str) -> int:
    """The team ``--adjust`` names: its number, or its name (any case)."""
    if text.isdigit():
        number = int(text)
        if not 1 <= number <= len(view.teams):
            raise CommandFailed(f"--adjust: no team {number}: the event has {len(view.teams)}")
        return number
    for team in view.teams:
        if team.name.casefold() == text.strip().casefold():
            return team.team
    known = ", ".join(f"{team.team} {team.name}" for team in view.teams)
    raise CommandFailed(f"--adjust: no team named {text!r}; the teams are {known}")


def _pairs(texts: Sequence[str]) -> list[tuple[int, int]]:
    """``--matches 1-4 2-3`` -> ``[(1, 4), (2, 3)]``."""
    pairs = []
    for text in texts:
        home, dash, away = text.partition("-")
        if not (dash and home.strip().isdigit() and away.strip().isdigit()):
            raise CommandFailed(
                f"bad --matches {text!r}: write HOME-AWAY by team numbers, like 1-4"
            )
        if not (1 <= int(home) <= 40 and 1 <= int(away) <= 40):
            raise CommandFailed(f"bad --matches {text!r}: teams are numbered 1 to 40 at most")
        pairs.append((int(home), int(away)))
    return pairs


def event(args: argparse.Namespace) -> str:
    """Where an event stands; with ``--start-round`` or ``--adjust``, the organiser's
    request first, and the event as it stands after it."""
    from pydantic import ValidationError

    from protocol.messages import AdjustEvent, EventPairing, EventView, GetEvent, StartEventRound

    event_id = _event_id(args.event_id)
    if args.pbn:
        return _event_pbn(args, event_id)
    if args.matches is not None and args.start_round is None:
        raise CommandFailed("--matches re-pairs the round --start-round begins")
    if args.bye is not None and args.matches is None:
        raise CommandFailed("--bye names the team that sits out of the round --matches pairs")
    if args.round is not None and args.adjust is None:
        raise CommandFailed("--round says which round an --adjust is for")
    key, ws_url = _organiser(args)
    said = ""
    if args.start_round is not None:
        pairs = None if args.matches is None else _pairs(args.matches)
        try:
            request: GetEvent | StartEventRound | AdjustEvent = StartEventRound(
                event_id=event_id,
                round=args.start_round,
                matches=None if pairs is None else [EventPairing(home=h, away=a) for h, a in pairs],
                bye=args.bye,
            )
        except ValidationError as error:
            raise CommandFailed(f"bad --start-round: {_first_problem(error)}") from None
        said = f"Round {args.start_round} has begun."
    elif args.adjust is not None:
        team_text, vps_text, reason = args.adjust
        try:
            vps = float(vps_text)
        except ValueError:
            raise CommandFailed(f"--adjust: {vps_text!r} is not a number of VPs") from None
        if not -20 <= vps <= 20 or round(vps, 2) != vps:
            raise CommandFailed(f"--adjust: {vps_text} VPs: -20 to 20, to two decimals")
        if not reason.strip():
            raise CommandFailed("--adjust: say why (the REASON)")
        try:  # checked before the team is looked up: team 1 stands in for it
            request = AdjustEvent(
                event_id=event_id, team=1, vps=vps, reason=reason.strip(), round=args.round
            )
        except ValidationError as error:
            raise CommandFailed(f"bad --adjust: {_first_problem(error)}") from None
        current = asyncio.run(_ask(ws_url, key, GetEvent(event_id=event_id), args.server))
        assert isinstance(current, EventView)
        team = _team_number(current, team_text)
        request = request.model_copy(update={"team": team})
        when = f" in round {args.round}" if args.round is not None else ""
        name = next(t.name for t in current.teams if t.team == team)
        said = f"Adjusted: {name} {vps:+.2f} VPs{when} ({reason.strip()})."
    else:
        request = GetEvent(event_id=event_id)
    view = asyncio.run(
        _ask(
            ws_url,
            key,
            request,
            args.server,
            timeout=60.0,
            changes=not isinstance(request, GetEvent),
        )
    )
    assert isinstance(view, EventView)
    text = format_event(view, args.butler)
    return f"{said}\n\n{text}" if said else text


def format_event(view: EventView, butler_lines: int = BUTLER_LINES) -> str:
    """An event as a club director reads it: a heading, each round's matches (IMPs and VPs
    of those ended) and its bye, the standings, the director's adjustments, and the top
    ``butler_lines`` pairs of the Butler ranking."""
    names = {team.team: team.name for team in view.teams}
    kind = "round robin" if view.kind == "round_robin" else "Swiss"
    where = {
        "waiting": "no round begun yet",
        "playing": f"round {view.round} of {view.rounds}",
        "finished": "finished",
    }[view.status]
    lines = [
        f"{view.name} ({view.event_id}): a {kind} of {len(view.teams)} teams, "
        f"{_plural(view.rounds, 'round')} of {_plural(view.boards_per_round, 'board')}; {where}"
    ]
    for entry in view.schedule:
        status = {"drawn": "drawn, not begun", "playing": "playing", "finished": "ended"}
        lines += ["", f"Round {entry.round} ({_boards(entry.boards)}): {status[entry.status]}"]
        rows = [["Home", "Away", "IMPs", "", "", "VPs", "", "", "Match"]]
        for m in entry.matches:
            match = m.match_id or "not made yet"
            if m.home_imps is None or m.away_imps is None:
                imps = ["", "", ""]
                vps = ["", "", ""]
                match += f" ({m.status})" if m.match_id else ""
            else:
                imps = [str(m.home_imps), "-", str(m.away_imps)]
                vps = [_vps(m.home_vps or 0), "-", _vps(m.away_vps or 0)]
            rows.append([names[m.home], names[m.away], *imps, *vps, match])
        lines += ["  " + line for line in _columns(rows, "llrclrcll")]
        if entry.bye is not None:
            lines.append(f"  Sits out: {names[entry.bye]}, {_vps(entry.bye_vps or 0)} VPs")
        if entry.status == "drawn" and (
            entry.round == 1
            or any(e.round == entry.round - 1 and e.status == "finished" for e in view.schedule)
        ):
            lines.append(f"  Begin it: duplicate event {view.event_id} --start-round {entry.round}")
    lines += ["", "Standings"]
    rows = [["Rank", "No", "Team", "VPs", "Played", "IMPs for", "IMPs against"]]
    for s in view.standings:
        rank = f"{s.rank}=" if s.tied else str(s.rank)
        rows.append(
            [
                rank,
                str(s.team),
                names[s.team],
                _vps(s.vps),
                str(s.played),
                str(s.imps_for),
                str(s.imps_against),
            ]
        )
    lines += ["  " + line for line in _columns(rows, "lrlrrrr")]
    if view.adjustments:
        lines += ["", "Adjustments"]
        rows = [["Team", "VPs", "Round", "Reason"]]
        for a in view.adjustments:
            rows.append(
                [
                    names[a.team],
                    f"{a.vps:+.2f}",
                    "all" if a.round is None else str(a.round),
                    a.reason,
                ]
            )
        lines += ["  " + line for line in _columns(rows, "lrrl")]
    if not view.butler:
        lines += ["", "Butler: no board has been played at every table yet"]
    elif butler_lines > 0:
        shown = view.butler[:butler_lines]
        more = len(view.butler) - len(shown)
        top = f": the top {len(shown)} of {len(view.butler)} pairs" if more else ""
        lines += ["", f"Butler (each pair's IMPs against the boards' datums){top}"]
        ranks = [p.rank for p in view.butler]
        rows = [["Rank", "Pair", "Team", "Boards", "IMPs", "IMPs a board"]]
        for p in shown:
            rank = f"{p.rank}=" if ranks.count(p.rank) > 1 else str(p.rank)
            pair = " - ".join(p.players)
            rows.append(
                [
                    rank,
                    pair,
                    names[p.team],
                    str(p.boards),
                    _signed(p.imps),
                    _signed(p.per_board, ".2f"),
                ]
            )
        lines += ["  " + line for line in _columns(rows, "lllrrr")]
    return "\n".join(lines)


def _columns(rows: list[list[str]], align: str) -> list[str]:
    """Rows as aligned text: each column as wide as its widest cell, ``l`` left, ``r``
    right, ``c`` centred; two spaces between columns (one around a centred one); no
    trailing blanks."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(align))]
    lines = []
    for row in rows:
        cells = []
        for i, (cell, how) in enumerate(zip(row, align, strict=True)):
            if how == "r":
                cells.append(cell.rjust(widths[i]))
            elif how == "c":
                cells.append(cell.center(widths[i]))
            else:
                cells.append(cell.ljust(widths[i]))
        text = ""
        for i, cell in enumerate(cells):
            if i:
                text += " " if "c" in (align[i], align[i - 1]) else "  "
            text += cell
        lines.append(text.rstrip())
    return lines


def _signed(value: float, form: str = "d") -> str:
    """A plus or minus figure: ``+3``, ``-1.25``, and ``0`` (``0.00``) without a sign."""
    shown = format(value, form)
    return shown.lstrip("-") if float(shown) == 0 else format(value, "+" + form)


def _vps(vps: float) -> str:
    return f"{vps:.2f}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def _boards(numbers: Sequence[int]) -> str:
    """``[1]`` -> "board 1"; ``[3, 4]`` -> "boards 3-4"."""
    if len(numbers) == 1:
        return f"board {numbers[0]}"
    if list(numbers) == list(range(numbers[0], numbers[-1] + 1)):
        return f"boards {numbers[0]}-{numbers[-1]}"
    return "boards " + ", ".join(map(str, numbers))


# -- the commands --------------------------------------------------------------------------


def add_event_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``new-event`` and ``event``."""
    p = commands.add_parser(
        "new-event",
        help="create an event of many matches (a round robin or a Swiss of teams) on a "
        "running server",
    )
    p.add_argument(
        "--teams",
        type=Path,
        required=True,
        metavar="FILE",
        help="the teams, one a line: 'Team name: Player 1, Player 2, Player 3, Player 4' "
        "(up to six players; the first four play every match) or 'Team name: robots'; "
        "blank lines and lines starting with # are skipped",
    )
    p.add_argument(
        "--kind",
        choices=tuple(_KINDS),
        default="swiss",
        help="swiss (the default): each round pairs teams close in the standings that have "
        "not met; round-robin: every team meets every other once",
    )
    p.add_argument(
        "--rounds",
        type=int,
        metavar="N",
        help="a Swiss's number of rounds (a round robin's follows from the teams)",
    )
    p.add_argument(
        "--boards", type=int, default=8, metavar="N", help="boards in each round (default 8)"
    )
    p.add_argument(
        "--drawn",
        action="store_true",
        help="a Swiss's first round drawn at random (by default seeded: the teams in the "
        "file's order, the top half against the bottom half)",
    )
    p.add_argument(
        "--bye-vps",
        type=float,
        default=12.0,
        metavar="VPS",
        help="what a team sitting out a round scores (default 12, the WBF's award)",
    )
    p.add_argument(
        "--director-starts",
        action="store_true",
        help="each round waits for the director (duplicate event ID --start-round N); by "
        "default it begins as soon as the one before has ended",
    )
    p.add_argument(
        "--deals",
        type=Path,
        metavar="FILE",
        help="a PBN file of prepared boards (else dealt securely)",
    )
    p.add_argument("--name", default="Teams", help="the event's name (default Teams)")
    p.add_argument(
        "--robot-level",
        choices=("seed", "strong"),
        default="seed",
        help="how the server's robots bid and play (default seed)",
    )
    p.add_argument(
        "--robot-delay",
        type=float,
        metavar="SECONDS",
        help="how long the server's robots wait before each call or card (default: the server's)",
    )
    _add_server_options(p)
    p.set_defaults(run=new_event)

    p = commands.add_parser(
        "event",
        help="where an event stands: its rounds, the standings, the Butler ranking; the "
        "director begins rounds and adjusts VPs",
    )
    p.add_argument(
        "event_id", metavar="EVENT_ID", help="the event's id (from `duplicate new-event`)"
    )
    acts = p.add_mutually_exclusive_group()
    acts.add_argument(
        "--start-round",
        type=int,
        metavar="N",
        help="begin round N (the next one, once the one before has ended)",
    )
    acts.add_argument(
        "--pbn",
        action="store_true",
        help="print the PBN of the whole event (once it has ended): every match, round by round",
    )
    acts.add_argument(
        "--adjust",
        nargs=3,
        metavar=("TEAM", "VPS", "REASON"),
        help="adjust a team's VPs (by its number or name): below 0 a penalty, above an award",
    )
    p.add_argument(
        "--round",
        type=int,
        metavar="N",
        help="with --adjust: the round it is for (default: the event)",
    )
    p.add_argument(
        "--matches",
        nargs="+",
        metavar="HOME-AWAY",
        help="with --start-round: a Swiss's round re-paired by hand, by team numbers (1-4 2-3)",
    )
    p.add_argument("--bye", type=int, metavar="TEAM", help="with --matches: the team that sits out")
    p.add_argument(
        "--butler",
        type=int,
        default=BUTLER_LINES,
        metavar="N",
        help=f"how many pairs of the Butler ranking to print (default {BUTLER_LINES}; 0: none)",
    )
    _add_server_options(p, request_id=False)
    p.set_defaults(run=event)
