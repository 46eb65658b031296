"""What the organiser set up for a match, as stored: its boards (and their double-dummy
analysis), format and movement, robots, names, pace, rules and the commitment to its deals.
Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from bridge import BridgeError, Deal, Seat, Vulnerability
from bridge.commitment import DealSet, PublicForm, seed_commitment
from bridge.formats import Movement, robot_table, teams_match
from robots.knowledge import Level

__all__ = [
    "Analysis",
    "BoardSpec",
    "ChatMode",
    "MatchConfig",
    "MatchFormat",
    "SpectatorMode",
    "default_movement",
    "mixed_partnership",
    "robot_level_at",
]

SpectatorMode = Literal["live", "delayed", "off"]
MatchFormat = Literal["teams", "robot-table", "team-of-four", "replay", "individual"]
ChatMode = Literal["table", "opponents", "off"]


@dataclass(frozen=True, slots=True)
class Analysis:
    """A board solved double dummy (``server.analysis``): ``tricks[seat][strain]`` for each
    declarer, the par score (from North-South) and the par contracts (``"4S N ="``)."""

    tricks: dict[str, dict[str, int]]
    par_score: int
    par_contracts: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"tricks": self.tricks, "par_score": self.par_score, "par": list(self.par_contracts)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Analysis:
        return cls(data["tricks"], data["par_score"], tuple(data["par"]))


@dataclass(frozen=True, slots=True)
class BoardSpec:
    """One board of a match: its number, dealer, vulnerability, the four hands, and their
    double-dummy analysis (shown only with the board's comparison)."""

    number: int
    dealer: Seat
    vulnerability: Vulnerability
    deal: Deal
    analysis: Analysis | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "dealer": self.dealer.letter,
            "vulnerability": self.vulnerability.value,
            "deal": self.deal.to_pbn(),
            "analysis": None if self.analysis is None else self.analysis.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BoardSpec:
        analysis = data.get("analysis")
        return cls(
            data["number"],
            Seat.parse(data["dealer"]),
            Vulnerability.parse(data["vulnerability"]),
            Deal.from_pbn(data["deal"]),
            None if analysis is None else Analysis.from_json(analysis),
        )


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """What the organiser set up: the teams, the boards in order, the spectator mode, the
    players' names, what chat reaches, the review time and the robots' pace."""

    match_id: str
    team_a: str
    team_b: str
    boards: tuple[BoardSpec, ...]
    spectators: SpectatorMode = "live"
    format: MatchFormat = "teams"
    """``teams`` (RULES.md 6.1), ``robot-table`` (6.2: table 2 is the robots' table),
    ``team-of-four`` (6.5), ``replay`` (6.3) or ``individual`` (6.4)."""
    robots: tuple[tuple[int, str], ...] = ()
    """(table, seat letter) of the seats the server's robots play at the start."""
    names: tuple[tuple[str, str], ...] = ()
    """(seat key ``"1N"``, name) of the seats the organiser named."""
    chat: ChatMode = "opponents"
    review_seconds: int = 0
    robot_delay_ms: int | None = None
    movement: Movement = field(kw_only=True)
    """Who sits where in each round, which boards each table plays, how they are scored."""
    held: tuple[int, ...] = field(default=(), kw_only=True)
    """Rounds that start only when the director says so (``start_round``)."""
    imposed: bool = field(default=False, kw_only=True)
    """A board replayed later (replay duplicate's stage 2) starts with the auction of its
    first play, made by the server: only the play is compared."""
    deals_salt: str | None = field(default=None, kw_only=True)
    """The secret of the commitment to the deals (:mod:`bridge.commitment`): published in
    the match record once the match ends, never before. None: a match stored before
    commitments."""
    deals_commitment: str | None = field(default=None, kw_only=True)
    """The SHA-256 of :meth:`deal_set`, which every viewer holds from the start."""
    deals_seed: str | None = field(default=None, kw_only=True)
    """For boards drawn from a sealed seed and a public value: the seed (secret until the
    match ends, like the salt)."""
    deals_public: str | None = field(default=None, kw_only=True)
    """The organiser's public value those boards were drawn with: canonical in its form."""
    deals_form: str | None = field(default=None, kw_only=True)
    """The public value's form, committed to with the seed (:class:`PublicForm`'s text).
    None: no seed, or a match sealed before forms (its deal set of version 1)."""
    robot_level: Level = field(default="seed", kw_only=True)
    """How the server's robots bid and play, unless :attr:`robot_levels` says otherwise."""
    robot_levels: tuple[tuple[str, Level], ...] = field(default=(), kw_only=True)
    """(first-round seat ``"1N"`` or table ``"t2"``, level) of robots at another level."""
    gather: bool = field(default=False, kw_only=True)
    """A board's first call (or card) waits until its table's four players are there at
    once: each connected, or the server's robot. False: a match stored before this rule."""
    board_ms: int | None = field(default=None, kw_only=True)
    """The time a board is given, in milliseconds (the organiser's minutes per board): a
    round's clock at a table gives its boards this much each. None: no clock."""
    face_down: bool = field(default=False, kw_only=True)
    """The opening lead is made face down (law 41A): played when the leader's partner faces
    it, after any question about the auction. False: led face up (and a match stored before
    this rule)."""
    created_at: int | None = field(default=None, kw_only=True)
    """When the match was created (milliseconds since 1970, by the server's clock); None: a
    match stored before this was kept."""
    disputes: bool = field(default=False, kw_only=True)
    """A rejected claim is disputed (law 68D): the play stops and the director is called,
    who rules (law 70). False: the play goes on from where the claim was made (and a match
    stored before this rule)."""

    def gathers(self, table: int) -> bool:
        """Whether ``table``'s boards wait for its four players (the robots' table 2 of a
        robot-table match is played by the server before anyone comes)."""
        return self.gather and not (self.format == "robot-table" and table == 2)

    def leads_face_down(self, table: int) -> bool:
        """Whether ``table``'s opening leads are made face down (the robots' table 2 of a
        robot-table match is played by the server at once, face up)."""
        return self.face_down and not (self.format == "robot-table" and table == 2)

    def robot_level_of(self, key: str) -> Level:
        """The level of the server's robot for the player whose first-round seat is ``key``
        (``"1N"``): the seat's own entry, else its table's, else the match's level."""
        return robot_level_at(key, self.robot_level, dict(self.robot_levels))

    def robot_name(self, key: str) -> str:
        """The name of the server's robot for the player whose first-round seat is ``key``,
        unless the organiser named them: it says the robot's level when strong."""
        return "Robot (strong)" if self.robot_level_of(key) == "strong" else "Robot"

    def deal_set(self) -> DealSet | None:
        """The boards, the salt (and the seed and the public value) that
        :attr:`deals_commitment` commits to."""
        if self.deals_salt is None:
            return None
        return DealSet(
            self.deals_salt,
            tuple((b.number, b.dealer, b.vulnerability, b.deal) for b in self.boards),
            self.deals_seed,
            self.deals_public,
            self.public_form,
        )

    @property
    def public_form(self) -> PublicForm | None:
        return None if self.deals_form is None else PublicForm.parse(self.deals_form)

    @property
    def deals_seed_commitment(self) -> str | None:
        if self.deals_seed is None:
            return None
        return seed_commitment(self.deals_seed, self.public_form)

    def to_json(self) -> str:
        return json.dumps(
            {
                "match_id": self.match_id,
                "team_a": self.team_a,
                "team_b": self.team_b,
                "boards": [board.to_json() for board in self.boards],
                "spectators": self.spectators,
                "format": self.format,
                "robots": [list(seat) for seat in self.robots],
                "names": dict(self.names),
                "chat": self.chat,
                "review_seconds": self.review_seconds,
                "robot_delay_ms": self.robot_delay_ms,
                "movement": self.movement.to_dict(),
                "held": list(self.held),
                "imposed": self.imposed,
                "deals_salt": self.deals_salt,
                "deals_commitment": self.deals_commitment,
                "deals_seed": self.deals_seed,
                "deals_public": self.deals_public,
                "deals_form": self.deals_form,
                "robot_level": self.robot_level,
                "robot_levels": dict(self.robot_levels),
                "gather": self.gather,
                "board_ms": self.board_ms,
                "disputes": self.disputes,
                "face_down": self.face_down,
                "created_at": self.created_at,
            }
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> MatchConfig:
        data = json.loads(text)
        boards = tuple(BoardSpec.from_json(board) for board in data["boards"])
        movement = data.get("movement")  # a match stored before movements: teams or robots
        return cls(
            data["match_id"],
            data["team_a"],
            data["team_b"],
            boards,
            data["spectators"],
            data.get("format", "teams"),
            tuple((table, seat) for table, seat in data.get("robots", [])),
            tuple(sorted(data.get("names", {}).items())),
            data.get("chat", "opponents"),
            data.get("review_seconds", 0),
            data.get("robot_delay_ms"),
            movement=(
                default_movement(data.get("format", "teams"), boards)
                if movement is None
                else Movement.from_dict(movement)
            ),
            held=tuple(data.get("held", ())),
            imposed=data.get("imposed", False),
            deals_salt=data.get("deals_salt"),
            deals_commitment=data.get("deals_commitment"),
            deals_seed=data.get("deals_seed"),
            robot_level=data.get("robot_level", "seed"),
            robot_levels=tuple(sorted(data.get("robot_levels", {}).items())),
            deals_public=data.get("deals_public"),
            deals_form=data.get("deals_form"),  # absent: stored before forms (version 1)
            gather=data.get("gather", False),  # absent: stored before the table waited
            disputes=data.get("disputes", False),  # absent: stored before disputes
            face_down=data.get("face_down", False),  # absent: stored before face-down leads
            board_ms=data.get("board_ms"),  # absent: stored before clocks
            created_at=data.get("created_at"),  # absent: stored before it was kept
        )

    def team_of(self, table: int, seat: Seat) -> Literal["A", "B"]:
        """Team A sits N-S at table 1 and E-W at table 2."""
        return "A" if (table == 1) == seat.is_north_south else "B"

    @property
    def teams(self) -> bool:
        """The match is between teams A and B (players 1-4 and 5-8)."""
        return self.format in ("teams", "robot-table", "team-of-four")

    def first_seat(self, player: int) -> str:
        """The player's seat in the first round (``"1N"``): the key of their name, robot,
        link and presence, wherever they move later."""
        first = self.movement.rounds[0]
        where = self.movement.seat_of(player, first)
        if where is None:
            raise BridgeError(f"player {player} does not play in round {first}")
        table, seat = where
        return f"{table}{seat.letter}"

    def player_of(self, key: str) -> int:
        """The player whose first-round seat is ``key`` (``"1N"``)."""
        sitting = self.movement.sitting(self.movement.rounds[0], int(key[0]))
        return sitting.player(Seat.parse(key[1]))

    @property
    def tables(self) -> tuple[int, ...]:
        return self.movement.tables

    def review_seconds_at(self, table: int) -> int:
        """The robots' table of the robot-table format was played at once: no review there."""
        return 0 if self.format == "robot-table" and table == 2 else self.review_seconds

    def robot_players(self) -> frozenset[int]:
        """The players the server's robots play from the start."""
        seated = {self.player_of(f"{table}{letter}") for table, letter in self.robots}
        return frozenset(seated) | self.movement.robots

    def robots_only(self, round_number: int, table: int) -> bool:
        """Whether only the server's robots sit at ``table`` in ``round_number``."""
        players = self.movement.sitting(round_number, table).players
        return set(players) <= self.robot_players()

    def has_people(self) -> bool:
        """Whether anyone but the server's robots plays in the match."""
        return not set(self.movement.players) <= self.robot_players()


def robot_level_at(key: str, level: Level, levels: Mapping[str, Level]) -> Level:
    """The robot level of first-round seat ``key`` (``"1N"``): its own entry of ``levels``,
    else its table's (``"t1"``), else ``level``."""
    return levels.get(key, levels.get(f"t{key[0]}", level))


def mixed_partnership(movement: Movement, level: Level, levels: Mapping[str, Level]) -> str | None:
    """Why two players who partner each other in some round of ``movement`` would have
    robots of different levels, or None: partners' robots must bid one system (a seat with
    a person may get a robot later, from the director, at its level). The robots' table 2
    of robot-table always plays at the seed level, and is not asked about.

    >>> from bridge import Deal, Seat, Vulnerability
    >>> movement = default_movement("teams", (BoardSpec(1, Seat.NORTH, Vulnerability.NONE, Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432")),))
    >>> mixed_partnership(movement, "seed", {"t1": "strong"}) is None
    True
    >>> mixed_partnership(movement, "seed", {"1N": "strong"})
    "seats 1N and 1S partner each other (round 1) at robot levels strong and seed: partners' robots play one system, so give them one level"
    """
    first = movement.rounds[0]
    for sitting in movement.sittings:
        for seat in (Seat.NORTH, Seat.EAST):
            pair = (sitting.player(seat), sitting.player(seat.partner))
            if any(player in movement.robots for player in pair):
                continue
            keys = []
            for player in pair:
                where = movement.seat_of(player, first)
                assert where is not None
                keys.append(f"{where[0]}{where[1].letter}")
            found = [robot_level_at(key, level, levels) for key in keys]
            if found[0] != found[1]:
                return (
                    f"seats {keys[0]} and {keys[1]} partner each other (round {sitting.round}) "
                    f"at robot levels {found[0]} and {found[1]}: partners' robots play one "
                    "system, so give them one level"
                )
    return None


def default_movement(format: str, boards: tuple[BoardSpec, ...]) -> Movement:
    """The movement of a teams or robot-table match of these boards, in their order."""
    shape = robot_table if format == "robot-table" else teams_match
    return shape(len(boards)).renumbered([b.number for b in boards])
