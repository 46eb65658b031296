"""Every message of the wire protocol, as frozen pydantic models.

Client and server messages are discriminated unions on their ``type`` field. Values on the
wire are plain: seats are ``"N" "E" "S" "W"``, cards ``"SA"`` (suit letter, then rank
``A K Q J T 9 ... 2``), calls ``"1S" "3NT" "P" "X" "XX"``, contracts ``"4SX"``.
``protocol/SPEC.md`` describes them in prose with examples.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StringConstraints, model_validator

from protocol.errors import ErrorCode

PROTOCOL_VERSION = 7
"""The protocol version this code speaks (every model here is of this version)."""

SUPPORTED_VERSIONS = frozenset({6, PROTOCOL_VERSION})
"""The versions the server serves: the current one, and version 6 through the translation at
the connection's edge (``protocol.versions``)."""

SEAL_DAYS = 30
"""How long a seal from ``seal_deals`` may wait for its match."""

HEARTBEAT_EVERY_S = 4.0
"""On a connection that asked for heartbeats (``hello.heartbeat``), the server sends a
``heartbeat`` once it has sent nothing for this long: such a client hears something at least
every ``HEARTBEAT_EVERY_S + 1`` seconds while the connection lives."""

HEARTBEAT_SILENCE_S = 10.0
"""On such a connection, silence this long means it is dead: the server drops a connection
that has sent nothing for this long after a ``heartbeat``, and a client should close (and open
afresh) one that has brought nothing for this long."""

Seat = Literal["N", "E", "S", "W"]
CardText = Annotated[str, StringConstraints(pattern=r"^[SHDC][AKQJT98765432]$")]
CallText = Annotated[str, StringConstraints(pattern=r"^([1-7](C|D|H|S|NT)|P|X|XX)$")]
ContractText = Annotated[str, StringConstraints(pattern=r"^[1-7](C|D|H|S|NT)(X|XX)?$")]
VulnerabilityText = Literal["None", "NS", "EW", "All"]
SpectatorMode = Literal["live", "delayed", "off"]
ChatMode = Literal["table", "opponents", "off"]
"""What table chat reaches during a board: ``table`` all four players, ``opponents`` the
other side only (and the sender), ``off`` nobody. Between boards it always reaches all four."""
Team = Literal["A", "B"]
TableNumber = Annotated[int, Field(ge=1, le=3)]
PlayerNumber = Annotated[int, Field(ge=1, le=12)]
"""A player of the match's movement (1-8; 1-12 in the 12-player individual; 1-4 in
replay duplicate): a person or a robot, who may change tables and seats between rounds."""
Format = Literal["teams", "robot-table", "team-of-four", "replay", "individual"]
Scoring = Literal["imps", "matchpoints", "board_a_match", "total_points"]
"""How a board's result at one table is set against its other plays (RULES.md 6):
``imps`` the IMPs of the difference (cross-IMPs averaged at three tables), ``matchpoints``
2 for each result beaten and 1 for each equalled, ``board_a_match`` 1 to the better result
(a half each on a tie), ``total_points`` the difference itself."""
BoardNumber = Annotated[int, Field(ge=1, le=10_000)]
Ref = Annotated[int | None, Field(ge=0, le=2**31 - 1)]
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
"""A SHA-256 in 64 lowercase hex digits (a commitment to a match's deals or to a seed)."""

PublicValue = Annotated[
    str,
    StringConstraints(
        min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029]*$"
    ),
]
"""An organiser's public value for boards drawn from a sealed seed: 1 to 200 characters,
no control character and nothing that ends a line."""

PublicFormText = Annotated[
    str,
    StringConstraints(
        max_length=220,
        pattern=r"^(digits [1-9][0-9]{0,2}|words)(: [^\x00-\x1f\x7f-\x9f\u2028\u2029]{1,200})?$",
    ),
]
"""How a sealed seed's public value will be written (``bridge.commitment.PublicForm``):
``digits N`` or ``words``, then, if said, ``: `` and how the value will be drawn."""

ShortText = Annotated[str, StringConstraints(min_length=1, max_length=300)]
Name = Annotated[
    str,
    StringConstraints(
        min_length=1, max_length=40, pattern=r"^[^\x00-\x1f\x7f]*\S[^\x00-\x1f\x7f]*$"
    ),
]
"""A team's or a player's name: up to 40 characters, not blank, no control characters."""
ActionId = Annotated[str, StringConstraints(min_length=1, max_length=64)]
"""A client's id for one intended action: the same id from the same seat (or the director)
is applied at most once, and a resend is answered with the first one's ``ack``."""
RequestId = Annotated[str, StringConstraints(min_length=8, max_length=64)]
MatchId = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]
"""A match's id: 16 lowercase hex digits."""
EventId = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]
"""An event's id: 16 lowercase hex digits."""
"""The organiser's id for one intended creation (a match, an import, a seal): the same id
makes one, and a request sent again with it is answered as the first was."""
SeatKey = Annotated[str, StringConstraints(pattern=r"^[1-3][NESW]$")]
"""A seat of the match in its first round: table, then seat: ``"1N"`` is North at table 1
(and names the player who sits there in round 1, wherever they move later)."""
Millis = int
"""A moment, in milliseconds since the Unix epoch, by the server's clock."""
Action = Literal[
    "claim",
    "claim_answer",
    "withdraw_claim",
    "withdraw_concession",
    "undo",
    "undo_answer",
    "next_board",
    "face_lead",
]
"""The actions besides calls and cards that a board view may offer a player now."""


class Message(BaseModel):
    """Base of every client message: frozen, no unknown fields, no type coercion."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class Sent(BaseModel):
    """Base of every server message and of the values inside them: frozen, no type
    coercion, and fields this code does not know are ignored (a newer server may add
    optional fields within a version: protocol/SPEC.md, "Versions")."""

    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)


# --------------------------------------------------------------------------------------
# Client to server
# --------------------------------------------------------------------------------------


class Hello(Message):
    """The first message on every connection: the protocol version and a link's token.

    ``versions`` (since version 7), when given, is every version the client speaks: the
    server speaks the newest of them that it serves (``welcome.version``), and ``version``
    is then only a fallback for a server older than version 7. ``last_seq`` is the last
    sequence number this viewer saw (resume), or None for a fresh start. ``client`` names
    the client software, for the server's log. ``robot`` says the client is a program
    playing by itself: its seat is shown as a robot.
    """

    type: Literal["hello"] = "hello"
    version: int
    token: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    last_seq: Annotated[int | None, Field(ge=0)] = None
    client: Annotated[str, StringConstraints(max_length=100)] = ""
    robot: bool = False
    versions: Annotated[list[Annotated[int, Field(ge=1, le=999)]], Field(max_length=16)] | None = (
        None
    )
    heartbeat: bool = False
    """(Since version 7.) The server sends this connection a ``heartbeat`` whenever it has
    sent it nothing for a few seconds, which the client answers (``heartbeat_answer``):
    each side then knows within seconds that the other is gone, where a connection whose traffic is silently
    dropped can look open for minutes."""

    def spoken(self, served: frozenset[int]) -> int | None:
        """The version to speak with this client: the newest it names that ``served``
        holds (None: none)."""
        named = set(self.versions or ()) | {self.version}
        common = named & served
        return max(common) if common else None


RobotSeats = Annotated[str, StringConstraints(pattern=r"^(t[1-3]|[1-3][NESW])$")]
"""``"t2"``: every player of table 2 in round 1; ``"1N"``: the player at North at table 1
in round 1 (a robot follows its player's moves)."""
RobotLevel = Literal["seed", "strong"]
"""How the server's robots bid and play: ``seed`` as the seeds' robot table does (a bare
natural system, card play by rules), ``strong`` a natural system with Stayman, transfers,
key-card Blackwood, negative doubles and a cue-bid raise of an overcall (its artificial
calls alerted), and card play by double-dummy sampling."""


class CreateMatch(Message):
    """Organiser only: create a match. ``deals_pbn`` is a PBN file's text, or None for boards
    dealt by the server from a cryptographically secure source.

    ``format`` ``teams`` is the 8-player teams match (RULES.md 6.1; ``boards`` defaults to 4);
    ``robot-table`` is four people at table 1 against a table 2 played by robots (6.2;
    ``boards`` 4, 8 or 16, default 8); ``team-of-four`` two teams of four with board
    exchange and a seat swap at half-time (6.5; ``boards`` a multiple of 4, default 8);
    ``replay`` replay duplicate for four players (6.3; default 4 boards; ``scoring``
    ``board_a_match``, the default, or ``total_points``; ``stage_two`` ``now``: the replay
    follows at once, ``director``: it waits for the director's ``start_round``;
    ``imposed_auction``: stage 2 keeps stage 1's auction, only the play is compared;
    ``sessions`` (added within version 7), 2 to 12: a series of that many meetings of the
    same four players, each replaying, turned, the new boards of the one before and then
    playing ``boards`` new ones (the first only plays, the last only replays; so
    ``boards`` times ``sessions - 1`` boards in all, at most 64; ``stage_two``
    ``director``: each meeting after the first begins with the director's
    ``start_round``); scored per meeting and over the series (``MatchSummary.sessions``));
    ``individual`` for ``players`` 8 (two tables, 7 rounds; ``boards`` 14, 21 or 28,
    default 14) or 12 (three tables, 11 rounds; ``boards`` 11, 22 or 33, default 11),
    ``scoring`` ``imps`` (the default) or ``matchpoints``. ``robots`` names players the
    server's robots play (by their first-round seat: ``"t2"`` a whole table, ``"1N"`` one
    seat); their links are not handed out. ``names`` gives players their names by their
    first-round seat (``{"1N": "Ann"}``). ``chat`` is what table
    chat reaches during a board. ``review_seconds`` is how long a finished board stays on
    the table before the next one starts, unless all four players ask for the next board
    sooner. ``robot_delay_ms`` is how long the server's robots wait before each action
    (None: the server's default; in a match of robots only they never wait, and a table of
    robots starts a board only once a table of people has). ``robot_level``
    is how the server's robots bid and play, ``robot_levels`` the level of some of them by
    first-round seat or table (``{"1N": "strong"}``, ``{"t2": "strong"}``; a seat's entry
    wins over its table's; seats that partner each other in any round share a level); a
    robot the director seats later plays at its seat's level. The
    robots' table 2 of the ``robot-table`` format plays as the seeds say (RULES.md 6.2),
    always. ``request_id`` makes the creation safe to send again: the same id gives the
    same match (the same answer), never a second one. ``wait_for_players`` (added within
    version 7): each board starts only once its table's four players are there at once
    (each connected, or the server's robot), or the director seats a robot for the one who
    is not; false, the auction starts as soon as the board does. ``minutes_per_board``
    (added within version 7) puts a clock on each table: a round's time is its boards
    times this many minutes (clubs use 7.5), counted from the round's first call at the
    table (``PlayerView.clock``); at the end of it the director is told (``time_up``) and
    nothing is played for anyone. None: no clock (a table of the server's robots never
    has one). ``disputed_claims`` (added within version 7): ``director``, a claim that a
    player rejects is disputed (law 68D): the play stops, the director is called and rules
    (``rule``, law 70); a robot's dispute the server rules at once. ``play_on``: the play
    goes on from where the claim was made. ``face_down_lead`` (added within version 7):
    the opening lead is made face down (law 41A): the leader's ``card`` goes face down,
    and is played when the leader's partner, who may first ask about the auction, sends
    ``face_lead``; false, it is played face up at once."""

    type: Literal["create_match"] = "create_match"
    format: Format = "teams"
    boards: Annotated[int | None, Field(ge=1, le=64)] = None
    players: Literal[8, 12] = 8
    scoring: Scoring | None = None
    stage_two: Literal["now", "director"] = "now"
    imposed_auction: bool = False
    sessions: Annotated[int | None, Field(ge=2, le=12)] = None
    wait_for_players: bool = False
    face_down_lead: bool = False
    minutes_per_board: Annotated[float | None, Field(gt=0, le=60)] = None
    disputed_claims: Literal["play_on", "director"] = "play_on"
    team_a: Name = "Team A"
    team_b: Name = "Team B"
    deals_pbn: Annotated[str | None, StringConstraints(max_length=900_000)] = None
    spectators: SpectatorMode = "live"
    robots: Annotated[list[RobotSeats], Field(max_length=12)] = []
    names: Annotated[dict[SeatKey, Name], Field(max_length=12)] = {}
    roster: Annotated[str | None, StringConstraints(max_length=100_000)] = None
    """(Added within version 7.) The players' names from a PBN-style roster: a game per
    table, ``[Table "1"]`` (or ``[Room "Open"]``, table 1; ``"Closed"``, table 2) with
    ``[North "Ann"]`` and so on, as ``duplicate new-match --roster`` reads it; ``names``
    wins over it for a seat both name."""
    chat: ChatMode = "opponents"
    review_seconds: Annotated[int, Field(ge=0, le=600)] = 20
    robot_delay_ms: Annotated[int | None, Field(ge=0, le=10_000)] = None
    robot_level: RobotLevel = "seed"
    robot_levels: Annotated[dict[RobotSeats, RobotLevel], Field(max_length=15)] = {}
    seal: Annotated[str | None, StringConstraints(min_length=1, max_length=64)] = None
    public_value: PublicValue | None = None
    request_id: RequestId | None = None
    ref: Ref = None


class SealDeals(Message):
    """Organiser only: the first step of boards that neither the server nor the organiser
    alone chooses (answer: ``deals_sealed``). The server draws a secret seed and commits to
    it; the organiser publishes the commitment, then fixes a public value (announced, or
    drawn in public), and creates the match with ``seal`` and ``public_value``: its boards
    are drawn from both (SPEC.md, "Deals nobody can doubt"). ``public_form`` says how the
    public value will be written, and is committed to with the seed, so that no one can
    choose among spellings of the value (None: no form; the match says so, and so does
    ``duplicate verify``). ``request_id``: sent again with the same id, the same seal is
    answered (one seed)."""

    type: Literal["seal_deals"] = "seal_deals"
    public_form: PublicFormText | None = None
    request_id: RequestId | None = None
    ref: Ref = None


class ImportMatch(Message):
    """Organiser only: load a team match played elsewhere, from its record, as a finished
    match that players, spectators and the director watch and review like one played
    here (answer: ``match_created``). ``record`` is PBN (``format`` ``pbn``: both tables
    of each board, told apart by ``Room`` or by ``HomeTeam``) or BBO's LIN (``lin``: a
    vugraph match file, ``qx`` ``o``/``c`` for the two rooms). It must hold one match; a
    board found at one table only is left out. Every call and card is checked by the
    rules, and the play a record stops early is ended by declarer's claim of the tricks
    the record gives; the swings are then worked out here. ``request_id``: sent again with
    the same id, the same match is answered (one import)."""

    type: Literal["import_match"] = "import_match"
    format: Literal["pbn", "lin"] = "pbn"
    record: Annotated[str, StringConstraints(min_length=1, max_length=900_000)]
    spectators: SpectatorMode = "live"
    request_id: RequestId | None = None
    ref: Ref = None


class MakeCall(Message):
    """A call by the seat on turn, with an optional alert: an explanation that goes to
    the opponents only, never to partner."""

    type: Literal["call"] = "call"
    call: CallText
    alert: ShortText | None = None
    action_id: ActionId | None = None
    ref: Ref = None


class PlayCard(Message):
    """A card by the seat on turn; declarer sends dummy's cards too."""

    type: Literal["card"] = "card"
    card: CardText
    action_id: ActionId | None = None
    ref: Ref = None


class FaceLead(Message):
    """(Added within version 7.) The leader's partner has no more questions about the
    auction: the opening lead made face down (a match created with ``face_down_lead``, law
    41A) is faced, and played."""

    type: Literal["face_lead"] = "face_lead"
    action_id: ActionId | None = None
    ref: Ref = None


class MakeClaim(Message):
    """Claim ``tricks`` of the remaining tricks for your side (fewer than all: a concession
    of the rest), with an optional statement of the line of play."""

    type: Literal["claim"] = "claim"
    tricks: Annotated[int, Field(ge=0, le=13)]
    statement: ShortText | None = None
    action_id: ActionId | None = None
    ref: Ref = None


class AnswerClaim(Message):
    """Accept or reject the pending claim (only the seats that decide it may answer)."""

    type: Literal["claim_answer"] = "claim_answer"
    accept: bool
    action_id: ActionId | None = None
    ref: Ref = None


class WithdrawClaim(Message):
    """The claimer withdraws the pending claim: the play goes on."""

    type: Literal["withdraw_claim"] = "withdraw_claim"
    action_id: ActionId | None = None
    ref: Ref = None


class WithdrawConcession(Message):
    """After a claim was accepted and before the next board starts, a player of a side
    that conceded tricks in it asks to withdraw the concession: the director is called and
    decides (``decide_withdrawal``; laws 69 and 71). Allowed, the play resumes where it
    stopped."""

    type: Literal["withdraw_concession"] = "withdraw_concession"
    action_id: ActionId | None = None
    ref: Ref = None


class Undo(Message):
    """A player asks to take back their own last call or card (the opponents decide).
    The director (who names the ``table``) takes back the table's last call or card at once."""

    type: Literal["undo"] = "undo"
    table: TableNumber | None = None
    action_id: ActionId | None = None
    ref: Ref = None


class AnswerUndo(Message):
    """An opponent of the player who asked agrees to the undo, or refuses it. The director
    (naming the ``table``) may decide it too."""

    type: Literal["undo_answer"] = "undo_answer"
    accept: bool
    table: TableNumber | None = None
    action_id: ActionId | None = None
    ref: Ref = None


class NextBoard(Message):
    """A player has seen enough of the finished board: when all four have said so (or the
    review time is up), the table's next board starts."""

    type: Literal["next_board"] = "next_board"
    action_id: ActionId | None = None
    ref: Ref = None


class SetName(Message):
    """A player's display name, for a seat the organiser did not name."""

    type: Literal["set_name"] = "set_name"
    name: Name
    action_id: ActionId | None = None
    ref: Ref = None


class CallDirector(Message):
    """A player calls the director to their table, with an optional word on why."""

    type: Literal["call_director"] = "call_director"
    text: ShortText | None = None
    action_id: ActionId | None = None
    ref: Ref = None


class SendChat(Message):
    """Table chat. A player's line goes to their table (see the match's ``chat`` mode); the
    director names the ``table`` and reaches all four players there."""

    type: Literal["chat"] = "chat"
    text: ShortText
    table: TableNumber | None = None
    action_id: ActionId | None = None
    ref: Ref = None


class AskAboutCall(Message):
    """Ask what an opponent's call means (``index`` counts the auction's calls from 0).
    Only the caller is told of the question; the answer goes to both opponents."""

    type: Literal["ask"] = "ask"
    index: Annotated[int, Field(ge=0, le=400)]
    action_id: ActionId | None = None
    ref: Ref = None


class ExplainCall(Message):
    """Explain your own call (``index`` as in ``ask``), asked or not: the explanation goes
    to the opponents only, never to partner, like an alert."""

    type: Literal["explain"] = "explain"
    index: Annotated[int, Field(ge=0, le=400)]
    text: ShortText
    action_id: ActionId | None = None
    ref: Ref = None


class Rule(Message):
    """Director only: end the play of a table's board, declarer's side taking
    ``declarer_tricks`` in all (after a disputed claim, say)."""

    type: Literal["rule"] = "rule"
    table: TableNumber
    declarer_tricks: Annotated[int, Field(ge=0, le=13)]
    action_id: ActionId | None = None
    ref: Ref = None


class AssignResult(Message):
    """Director only: an assigned adjusted score: ``table``'s result on ``board`` becomes this
    contract (None: passed out) by ``declarer`` with ``tricks``. A board still in play there
    ends with it."""

    type: Literal["assign_result"] = "assign_result"
    table: TableNumber
    board: BoardNumber
    contract: ContractText | None
    declarer: Seat | None
    tricks: Annotated[int, Field(ge=0, le=13)]
    action_id: ActionId | None = None
    ref: Ref = None


class AdjustScore(Message):
    """Director only: an artificial adjusted score on ``board``: team A gets ``imps_a`` IMPs
    and team B the opposite (+3: average-plus to A, average-minus to B)."""

    type: Literal["adjust_score"] = "adjust_score"
    board: BoardNumber
    imps_a: Annotated[int, Field(ge=-24, le=24)]
    action_id: ActionId | None = None
    ref: Ref = None


class VoidBoard(Message):
    """Director only: void ``board``: it is not compared and counts for neither team."""

    type: Literal["void_board"] = "void_board"
    board: BoardNumber
    action_id: ActionId | None = None
    ref: Ref = None


class SeeCalls(Message):
    """Director only: the open calls for the director at ``table`` are seen (the director is
    on the way): their ``state`` becomes ``seen``."""

    type: Literal["see_calls"] = "see_calls"
    table: TableNumber
    action_id: ActionId | None = None
    ref: Ref = None


class CloseCalls(Message):
    """Director only: every call for the director at ``table`` is dealt with and leaves the
    queue (a ruling, an assigned result or an adjusted score on a call's board closes it
    without this)."""

    type: Literal["close_calls"] = "close_calls"
    table: TableNumber
    action_id: ActionId | None = None
    ref: Ref = None


class DecideWithdrawal(Message):
    """Director only (added within version 7): allow (``allow``) or refuse the withdrawal
    of a concession that a player at ``table`` asked for (``withdraw_concession``). Allowed,
    the play resumes where the claim stopped it; refused, the concession stands and the
    board's review starts again. Either closes the table's calls on that board."""

    type: Literal["decide_withdrawal"] = "decide_withdrawal"
    table: TableNumber
    allow: bool
    action_id: ActionId | None = None
    ref: Ref = None


class Substitute(Message):
    """Director only: a new player in place of the one who sits at ``table``, ``seat`` in
    the current round (and follows that player's moves from then on): a new link (the old
    one stops working), or the server's robot with ``robot``."""

    type: Literal["substitute"] = "substitute"
    table: TableNumber
    seat: Seat
    robot: bool = False
    ref: Ref = None


class StartRound(Message):
    """Director only: start ``round``, which the match holds until the director says so
    (stage 2 of replay duplicate created with ``stage_two`` ``director``, or the first round
    of each meeting after the first of a series: ``MatchSummary.held_round`` names it).
    ``round`` up to 11 in version 6, up to 22 since version 7 (a series of 12 meetings)."""

    type: Literal["start_round"] = "start_round"
    round: Annotated[int, Field(ge=2, le=22)]
    action_id: ActionId | None = None
    ref: Ref = None


class GetBoard(Message):
    """Ask for a board as both tables played it (answer: ``board_record``): a player once the
    board is compared, watchers as their mode allows."""

    type: Literal["get_board"] = "get_board"
    board: BoardNumber
    ref: Ref = None


class GetRecord(Message):
    """Ask for the match record: every board finished at both tables, as PBN (``format``
    ``pbn``, the default) or as BBO's LIN (``lin``: one line per table per board)."""

    type: Literal["get_record"] = "get_record"
    format: Literal["pbn", "lin"] = "pbn"
    match_id: MatchId | None = None
    """(Added within version 7.) The organiser's: which match (a player, spectator or
    director asks for their own match's record, and sends none)."""
    event_id: EventId | None = None
    """(Added within version 7.) The organiser's, or an event's results link's: the PBN of
    a whole event once it has ended (every match, round by round)."""
    ref: Ref = None


class OpenSession(Message):
    """(Added within version 7.) Organiser only, signed in with the organiser key: a
    session (answer: ``session``), a token that speaks for the organiser until it expires
    or is closed, for a page to keep instead of the key."""

    type: Literal["open_session"] = "open_session"
    ref: Ref = None


class CloseSession(Message):
    """(Added within version 7.) Organiser only: end the session this connection signed in
    with (answer: ``session_closed``); its token is refused from then on."""

    type: Literal["close_session"] = "close_session"
    ref: Ref = None


class ListMatches(Message):
    """(Added within version 7.) Organiser only: the matches on this server, newest first
    (answer: ``match_list``), without the archived ones unless ``archived``. ``live``: after
    the answer, a ``match_list`` again (``ref`` null) whenever the list changes, until a
    ``list_matches`` without ``live`` or the end of the connection."""

    type: Literal["list_matches"] = "list_matches"
    live: bool = False
    archived: bool = False
    ref: Ref = None


class GetLinks(Message):
    """(Added within version 7.) Organiser only: a match's links again, every player's,
    the spectators' and the director's, each with its QR code (answer: ``match_links``)."""

    type: Literal["get_links"] = "get_links"
    match_id: MatchId
    ref: Ref = None


class NewLink(Message):
    """(Added within version 7.) Organiser only: a new link for ``player`` of the match
    (answer: ``substituted``): the old one stops working, and the server's robot, if it
    played the player, stops too; the match logs it as the director's substitution."""

    type: Literal["new_link"] = "new_link"
    match_id: MatchId
    player: PlayerNumber
    ref: Ref = None


class ArchiveMatch(Message):
    """(Added within version 7.) Organiser only: put a finished match away (``archived``
    true), or back among the others (answer: ``match_archived``). An archived match stays
    in the store: its links, record and review still work."""

    type: Literal["archive_match"] = "archive_match"
    match_id: MatchId
    archived: bool = True
    ref: Ref = None


TeamNumber = Annotated[int, Field(ge=1, le=40)]
"""A team of an event, by its number (1 first, as the organiser listed the teams)."""


class EventTeamSpec(Message):
    """(Added within version 7.) A team of an event: its ``name`` (unique in the event), and
    either four to six ``players`` (the first four play every match: the first two North and
    South at table 1 when the team is home, else East and West at table 2...; see SPEC.md)
    or ``robots`` true, a team of the server's robots."""

    name: Name
    players: Annotated[list[Name], Field(max_length=6)] = []
    robots: bool = False


class CreateEvent(Message):
    """(Added within version 7.) Organiser only: an event of many two-table matches
    (answer: ``event_created``): a complete ``round_robin`` (each pair of teams meets once;
    ``rounds`` follows from the number of teams) or a ``swiss`` of ``rounds`` rounds, every
    round of ``boards_per_round`` boards that all its matches play (from ``deals_pbn``, in
    board order, else dealt here), each match converted to victory points on the WBF's
    continuous scale. ``first_round``: a Swiss's first round ``seeded`` (the teams in the
    order given, top half against bottom half) or ``drawn``. ``bye_vps``: what a team
    sitting out a round scores. ``start``: each round begins as soon as the one before ends
    (``auto``), or when the organiser sends ``start_event_round``."""

    type: Literal["create_event"] = "create_event"
    name: Name = "Teams"
    kind: Literal["round_robin", "swiss"] = "swiss"
    teams: Annotated[list[EventTeamSpec], Field(min_length=2, max_length=40)]
    rounds: Annotated[int | None, Field(ge=1, le=39)] = None
    boards_per_round: Annotated[int, Field(ge=1, le=32)] = 8
    first_round: Literal["seeded", "drawn"] = "seeded"
    bye_vps: Annotated[float, Field(ge=0, le=20)] = 12.0
    start: Literal["auto", "director"] = "auto"
    deals_pbn: Annotated[str | None, StringConstraints(max_length=900_000)] = None
    robot_level: RobotLevel = "seed"
    robot_delay_ms: Annotated[int | None, Field(ge=0, le=10_000)] = None
    request_id: RequestId | None = None
    ref: Ref = None


class EventPairing(Message):
    """(Added within version 7.) One match of a round: ``home`` sits North-South at
    table 1 and East-West at table 2."""

    home: TeamNumber
    away: TeamNumber


class StartEventRound(Message):
    """(Added within version 7.) Organiser only: begin ``round`` of the event (answer:
    ``event``): the next round, once every match of the one before has ended.
    ``matches`` (and ``bye``) re-pair it by hand; without them it is played as drawn."""

    type: Literal["start_event_round"] = "start_event_round"
    event_id: EventId
    round: Annotated[int, Field(ge=1, le=39)]
    matches: Annotated[list[EventPairing] | None, Field(max_length=20)] = None
    bye: TeamNumber | None = None
    ref: Ref = None


class AdjustEvent(Message):
    """(Added within version 7.) Organiser only: the director's adjustment of a team's
    victory points in the event (answer: ``event``): a penalty (``vps`` below 0) or an
    award, for ``reason``, in ``round`` or over the whole event (null)."""

    type: Literal["adjust_event"] = "adjust_event"
    event_id: EventId
    team: TeamNumber
    vps: Annotated[float, Field(ge=-20, le=20)]
    reason: ShortText
    round: Annotated[int | None, Field(ge=1, le=39)] = None
    ref: Ref = None


class ListEvents(Message):
    """(Added within version 7.) Organiser only: the events on this server, newest first
    (answer: ``event_list``)."""

    type: Literal["list_events"] = "list_events"
    ref: Ref = None


class GetEvent(Message):
    """(Added within version 7.) Organiser only: where an event stands (answer: ``event``)."""

    type: Literal["get_event"] = "get_event"
    event_id: EventId
    ref: Ref = None


class Ping(Message):
    """Keep-alive and round-trip probe; answered by ``pong``."""

    type: Literal["ping"] = "ping"
    ref: Ref = None


class HeartbeatAnswer(Message):
    """(Since version 7.) The answer to the server's :class:`Heartbeat` on a connection that
    asked for them (``hello.heartbeat``), with its ``ref``. Never answered."""

    type: Literal["heartbeat_answer"] = "heartbeat_answer"
    ref: Annotated[int, Field(ge=0, le=2**31 - 1)]


TableAction = (
    MakeCall
    | PlayCard
    | FaceLead
    | MakeClaim
    | AnswerClaim
    | WithdrawClaim
    | WithdrawConcession
    | Undo
    | AnswerUndo
    | NextBoard
    | SetName
    | CallDirector
    | AskAboutCall
    | ExplainCall
    | SendChat
    | Rule
    | AssignResult
    | AdjustScore
    | VoidBoard
    | StartRound
    | SeeCalls
    | CloseCalls
    | DecideWithdrawal
)
"""The messages that act on a match (a player's or the director's): each is checked by the
laws and logged."""

ClientMessage = Annotated[
    Hello
    | CreateMatch
    | ImportMatch
    | SealDeals
    | TableAction
    | Substitute
    | GetBoard
    | GetRecord
    | OpenSession
    | CloseSession
    | ListMatches
    | GetLinks
    | NewLink
    | ArchiveMatch
    | CreateEvent
    | StartEventRound
    | AdjustEvent
    | GetEvent
    | ListEvents
    | Ping
    | HeartbeatAnswer,
    Field(discriminator="type"),
]


# --------------------------------------------------------------------------------------
# Values inside server messages
# --------------------------------------------------------------------------------------


class AuctionEntry(Sent):
    """One call of the auction. ``alert`` is the caller's explanation, present only for
    the caller's opponents (and the caller), spectators and the director."""

    seat: Seat
    call: CallText
    alert: str | None = None


class PlayedCard(Sent):
    """A card and the seat it came from."""

    seat: Seat
    card: CardText


class TrickView(Sent):
    """A trick: its leader, the cards in the order played, and the winner once complete."""

    leader: Seat
    cards: list[PlayedCard]
    winner: Seat | None = None


ClaimStatus = Literal["pending", "accepted", "rejected", "withdrawn", "disputed"]


class ClaimView(Sent):
    """A claim: pending, or just settled (kept until the next card, or with the board it
    ended). ``deciders`` and ``accepted`` are in seat order N, E, S, W. ``cards`` are the
    claimer's remaining cards, shown to the deciders while the claim is pending (and to
    spectators and the director), and to everyone once the board is over."""

    claimer: Seat
    tricks: int
    remaining: int
    statement: str | None = None
    deciders: list[Seat]
    accepted: list[Seat]
    status: ClaimStatus = "pending"
    cards: list[CardText] | None = None
    withdrawal: Seat | None = None
    """(Added within version 7.) Who asked to withdraw the concession of this accepted
    claim, while the director has not decided (``decide_withdrawal``)."""
    disputed_by: Seat | None = None
    """(Added within version 7.) Who disputed the claim (``status`` ``disputed``, in a
    match created with ``disputed_claims`` ``director``); None otherwise."""


class UndoView(Sent):
    """A player's pending request to take back their last call or card; ``deciders`` (the
    opponents) answer it."""

    seat: Seat
    call: CallText | None = None
    card: CardText | None = None
    deciders: list[Seat]
    accepted: list[Seat]


class TableResultView(Sent):
    """A table's result on a board, in a round; ``ns_score`` is signed from North-South.
    ``assigned``: the director assigned it; ``ruled``: the director's ruling ended the play
    (``rule``; added within version 7)."""

    table: TableNumber
    round: int = 1
    board: int
    contract: ContractText | None
    declarer: Seat | None
    tricks: int
    ns_score: int
    assigned: bool = False
    ruled: bool = False


class ParView(Sent):
    """The par result: the score (from North-South) of the contract that both sides, playing
    and bidding perfectly, would reach, and the contracts that score it."""

    score: int
    contracts: list[str]


class ComparisonView(Sent):
    """A board decided at every table that plays it. ``results`` are its plays (round,
    table) and ``points`` each competitor's score on it, as the match is scored.

    In the team formats (``teams``, ``robot-table``, ``team-of-four``) also: ``table1`` and
    ``table2``, ``swing`` (team A's IMPs, team B's is -swing) and ``running_total`` (team
    A's total after this board); in the others these are None. ``artificial`` is an
    artificial adjusted score (team A's IMPs) and ``void`` a voided board, both the
    director's; then a table's result may be missing."""

    board: int
    results: list[TableResultView] = []
    points: dict[str, float] = {}
    table1: TableResultView | None
    table2: TableResultView | None
    difference: int | None
    swing: int | None
    running_total: int | None
    artificial: int | None = None
    void: bool = False
    double_dummy: dict[Seat, dict[Literal["C", "D", "H", "S", "NT"], int]] | None = None
    """Tricks each declarer takes in each strain with all four hands in view."""
    par: ParView | None = None


class Standing(Sent):
    """A competitor's total over the boards compared so far: a team (``"A"``), a pair
    (``"1-3"``) or a player (``"7"``), its members and their names joined (or the team's)."""

    competitor: str
    name: str
    players: list[PlayerNumber]
    points: float


class SessionView(Sent):
    """(Added within version 7.) One meeting of a replay-duplicate series: its ``rounds``,
    the ``boards`` it replays (a board is scored where it is replayed: none in the first
    meeting) and each pair's ``points`` on those of them compared so far."""

    session: int
    rounds: list[int]
    boards: list[int]
    points: dict[str, float]


class MatchSummary(Sent):
    """The match panel: the format, how it is scored, the boards and rounds, every board
    compared so far, the standings (best first) and the match's settings that players see.
    ``imps_a`` and ``imps_b`` are the teams' totals in the team formats (0 in the others).
    ``winner``, once finished: the team (``"A"``, ``"B"``), else the leading competitor, or
    ``"draw"``."""

    match_id: str
    format: Format = "teams"
    scoring: Scoring = "imps"
    rounds: int = 1
    team_a: str
    team_b: str
    boards: list[int]
    comparisons: list[ComparisonView]
    standings: list[Standing] = []
    imps_a: int
    imps_b: int
    finished: bool
    winner: str | None = None
    held_round: int | None = None
    """Every table has played the round, and the next one (this number) waits for the
    director's ``start_round`` (replay duplicate's stage 2, when the organiser asked)."""
    sessions: list[SessionView] = []
    """(Added within version 7.) A replay-duplicate series' meetings, in order (empty for
    every other match): ``standings`` is their sum."""
    chat: ChatMode = "opponents"
    review_seconds: int = 20
    deals_commitment: Sha256 | None = None
    """The SHA-256, in 64 lowercase hex digits, of the match's deal set: every board's deal
    and a secret salt, fixed before any card was seen. The deal set is published in the
    match record when the match ends (SPEC.md, "Deals nobody can doubt"). None only for a
    match created before commitments."""
    deals_seed_commitment: Sha256 | None = None
    """For boards drawn from a sealed seed and a public value: the seed's commitment (the
    one ``deals_sealed`` gave the organiser before the public value was fixed)."""
    deals_public_value: str | None = None
    """The public value those boards were drawn with (in its form's canonical spelling)."""
    deals_public_form: str | None = None
    """The public value's form, committed to with the seed (``deals_sealed.public_form``);
    None for every other match, and for one sealed before forms."""


class PlayerInfo(Sent):
    """Who sits at a seat and whether they are there. ``since`` is when ``connected`` last
    changed (None: never connected); ``robot``: a program plays the seat."""

    table: TableNumber
    seat: Seat
    player: PlayerNumber | None = None
    name: str | None = None
    robot: bool = False
    connected: bool = False
    since: Millis | None = None


class ChatLine(Sent):
    """A line of table chat: ``seat`` None is the director; ``to`` the players it reached."""

    table: TableNumber
    seat: Seat | None
    text: str
    to: list[Seat]


CallState = Literal["open", "seen", "answered"]
"""Where a call for the director stands: ``open`` (made), ``seen`` (the director is on the
way: ``see_calls``), ``answered`` (the director wrote to the table's chat: the call moved
from a view's ``director_calls`` to its ``answered_calls``). A closed call leaves both."""


class DirectorCallView(Sent):
    """A call for the director not closed yet: by ``close_calls``, or by a ruling, an
    assigned result or an adjusted score on its board. ``state``: added within version 7."""

    table: TableNumber
    seat: Seat
    board: int | None
    text: str | None = None
    at: Millis
    state: CallState = "open"


class ReviewView(Sent):
    """A finished board on review at the table: the next board starts when every seat in
    ``ready`` (all four) asked for it, or at ``until`` (a match without review time puts no
    board on review: the view's ``review`` is then None)."""

    board: int
    until: Millis
    ready: list[Seat]


Phase = Literal["auction", "play", "claim", "finished"]


class BoardView(Sent):
    """One table's board as one viewer may see it.

    ``hands`` holds only the hands this viewer may see (remaining cards): their own; dummy
    after the opening lead; the claimer's while they decide a claim; all four for
    spectators and the director. ``hand_sizes`` is every seat's number of remaining cards.
    ``deal`` is the four hands as dealt: for spectators and the director always, for players
    once their table finished the board. ``tricks`` are the completed tricks: for watchers
    always, for players once the board is over (during the play a player may look at the
    last trick only, in ``last_trick``, until their side has played to the next, law 66).
    ``legal`` lists the calls or cards the viewer may make now, when it is their turn;
    ``actions`` the other actions open to the viewer now.
    """

    table: TableNumber
    round: int = 1
    board: int
    dealer: Seat
    vulnerability: VulnerabilityText
    phase: Phase
    hands: dict[Seat, list[CardText]]
    hand_sizes: dict[Seat, int]
    deal: dict[Seat, list[CardText]] | None = None
    auction: list[AuctionEntry]
    contract: ContractText | None = None
    declarer: Seat | None = None
    dummy: Seat | None = None
    tricks: list[TrickView]
    last_trick: TrickView | None = None
    current_trick: TrickView | None = None
    turn: Seat | None = None
    acting: Seat | None = None
    tricks_ns: int = 0
    tricks_ew: int = 0
    claim: ClaimView | None = None
    undo: UndoView | None = None
    result: TableResultView | None = None
    legal: list[str] = []
    actions: list[Action] = []
    questions: list[int] = []
    """Indexes of this viewer's calls that an opponent asked about and that are not yet
    explained (players only)."""
    handviewer: str | None = None
    """Once the board is finished: a link that opens it, as this table played it, in
    Bridge Base Online's hand viewer (its LIN after ``lin=``; the alerts as this viewer
    saw them). None before."""


class NextSeat(Sent):
    """Where a player sits in the next round: table, seat, partner and opponents (player
    numbers; names in ``names``)."""

    round: int
    table: TableNumber
    seat: Seat
    partner: PlayerNumber
    opponents: list[PlayerNumber]
    names: dict[str, str] = {}
    """Player number (as text) -> name, for those with one."""


class RoundClock(Sent):
    """(Added within version 7.) A round's clock at a table (``create_match``'s
    ``minutes_per_board``): the round's ``boards`` at the table, how many of them are
    ``played`` (finished), when the round's first call there was made (``started_at``),
    when its time is up (``ends_at``: ``started_at`` plus ``boards`` times the minutes per
    board) and when the board in play should be over to keep to time (``due_at``: after
    ``played`` + 1 boards' time; ``ends_at`` once all are played). A table is slow while
    the time is past ``due_at`` and it has boards to play. ``time_up``: the round's time
    ran out with boards still to play (the ``time_up`` event); nothing was played for
    anyone. Moments are by the server's clock (``welcome.now``)."""

    table: TableNumber
    round: int
    boards: int
    played: int
    started_at: Millis
    ends_at: Millis
    due_at: Millis
    time_up: bool = False


class PlayerView(Sent):
    """Everything one player may see now: where they sit this round (``round``, ``table``,
    ``seat``, ``partner`` and ``opponents``), their table's current board, their results so
    far, the match panel, the players at the table, the table chat, the finished board's
    review and the table's calls for the director.

    ``next_seat`` is where the player sits in the next round (None in the last). Once their
    table has played its boards of the round (``played_round``), ``waiting_for`` lists the
    tables still playing it: the next round starts when none is and the last board's
    review is over everywhere (or, when ``match.held_round`` is that round, when the
    director starts it)."""

    type: Literal["player_view"] = "player_view"
    match: MatchSummary
    player: PlayerNumber
    round: int = 1
    table: TableNumber
    seat: Seat
    team: Team | None
    competitor: str
    partner: PlayerNumber
    opponents: list[PlayerNumber]
    played_round: bool = False
    """The player's table has played every board of the round (the last may still be on
    review): time to show where the player goes next (``next_seat``)."""
    waiting_for: list[TableNumber] = []
    next_seat: NextSeat | None = None
    board: BoardView | None
    results: list[TableResultView]
    players: list[PlayerInfo]
    chat: list[ChatLine]
    review: ReviewView | None = None
    director_calls: list[DirectorCallView] = []
    answered_calls: list[DirectorCallView] = []
    """Calls the director answered in the table's chat and has not closed (added within
    version 7)."""
    waiting_for_seats: list[Seat] = []
    """(Added within version 7.) The seats whose players the player's board waits for
    before its first call (or card), in a match created with ``wait_for_players``: it starts
    once all four are there at once, each connected or the server's robot, or the director
    seats a robot (``substitute``). Meanwhile the board's ``turn`` is None and nobody has
    ``legal`` calls. Empty once it started (it does not stop for a player who leaves)."""
    clock: RoundClock | None = None
    """(Added within version 7.) The round's clock at the player's table, in a match
    created with ``minutes_per_board``; None before the round's first call there (or
    without a clock)."""
    face_down_lead: FaceDownLead | None = None
    """(Added within version 7.) The opening lead at the player's table while it is face
    down (a match created with ``face_down_lead``): the leader's partner may ask about the
    auction, then faces it (``face_lead``); the card only for the leader."""


class FaceDownLead(Sent):
    """(Added within version 7.) An opening lead made face down (law 41A) and not yet
    faced: who led, and the card for the viewers who may see it (the leader, the director
    and live spectators; None for the others)."""

    table: TableNumber
    seat: Seat
    card: CardText | None = None


class WaitingTable(Sent):
    """(Added within version 7.) A table whose board waits for its players (``seats``)
    before its first call: see ``PlayerView.waiting_for_seats``."""

    table: TableNumber
    seats: list[Seat]


class WatchView(Sent):
    """What spectators and the director see: both tables (``live`` and ``director``: as they
    are played; ``delayed``: the latest board finished at both tables), every table's
    results so far (``delayed``: of the compared boards), the match panel and the players.
    The director also sees every chat line and the calls for the director."""

    type: Literal["watch_view"] = "watch_view"
    match: MatchSummary
    mode: Literal["live", "delayed", "director"]
    tables: list[BoardView]
    results: list[TableResultView] = []
    players: list[PlayerInfo] = []
    chat: list[ChatLine] = []
    director_calls: list[DirectorCallView] = []
    answered_calls: list[DirectorCallView] = []
    """Calls the director answered in the table's chat and has not closed (added within
    version 7)."""
    waiting: list[WaitingTable] = []
    """(Added within version 7.) The tables whose board waits for its players before its
    first call, with the seats it waits for (a match created with ``wait_for_players``)."""
    clocks: list[RoundClock] = []
    """(Added within version 7.) Each table's round clock (``PlayerView.clock``) for the
    director and live spectators, in a match created with ``minutes_per_board``: the tables
    whose round has started (delayed spectators: none)."""
    face_down_leads: list[FaceDownLead] = []
    """(Added within version 7.) The opening leads made face down and not yet faced, with
    their cards (delayed spectators: none)."""


View = Annotated[PlayerView | WatchView, Field(discriminator="type")]


# --------------------------------------------------------------------------------------
# Events: what just happened, inside each update
# --------------------------------------------------------------------------------------


class Snapshot(Sent):
    """The update replaces everything before it (sent on resume after a long gap)."""

    type: Literal["snapshot"] = "snapshot"


class BoardStarted(Sent):
    """A board started at a table: its players' hands are now in their views."""

    type: Literal["board_started"] = "board_started"
    table: TableNumber
    board: int
    round: int = 1


class CallMade(Sent):
    """A call was made. ``alert`` as in :class:`AuctionEntry`."""

    type: Literal["call_made"] = "call_made"
    table: TableNumber
    seat: Seat
    call: CallText
    alert: str | None = None


class CardPlayed(Sent):
    """A card was played; ``trick_winner`` is set when it completed a trick."""

    type: Literal["card_played"] = "card_played"
    table: TableNumber
    seat: Seat
    card: CardText
    trick_winner: Seat | None = None


class LeadFaceDown(Sent):
    """(Added within version 7.) The opening leader led face down (law 41A): the view's
    ``face_down_lead`` says it; ``card_played`` follows when the leader's partner faces it."""

    type: Literal["lead_face_down"] = "lead_face_down"
    table: TableNumber
    seat: Seat


class ClaimMade(Sent):
    """A claim (or concession) was made; the view's ``claim`` has the details."""

    type: Literal["claim_made"] = "claim_made"
    table: TableNumber
    claimer: Seat
    tricks: int


class ClaimAnswered(Sent):
    """A decider accepted or rejected the claim; after a rejection the play goes on."""

    type: Literal["claim_answered"] = "claim_answered"
    table: TableNumber
    seat: Seat
    accept: bool


class ClaimWithdrawn(Sent):
    """The claimer withdrew the pending claim; the play goes on."""

    type: Literal["claim_withdrawn"] = "claim_withdrawn"
    table: TableNumber
    seat: Seat


class ConcessionWithdrawn(Sent):
    """A concession was withdrawn after the board ended: the play resumes where it stopped."""

    type: Literal["concession_withdrawn"] = "concession_withdrawn"
    table: TableNumber
    seat: Seat


class ConcessionWithdrawalAsked(Sent):
    """(Added within version 7.) ``seat`` asks to withdraw their side's concession: the
    director is called to the table, and the board stays finished until they decide."""

    type: Literal["concession_withdrawal_asked"] = "concession_withdrawal_asked"
    table: TableNumber
    seat: Seat


class ConcessionWithdrawalRefused(Sent):
    """(Added within version 7.) The director refused the withdrawal ``seat`` asked for:
    the concession stands."""

    type: Literal["concession_withdrawal_refused"] = "concession_withdrawal_refused"
    table: TableNumber
    seat: Seat


class UndoRequested(Sent):
    """``seat`` asked to take back their last call or card; the opponents decide."""

    type: Literal["undo_requested"] = "undo_requested"
    table: TableNumber
    seat: Seat
    call: CallText | None = None
    card: CardText | None = None


class UndoAnswered(Sent):
    """An opponent (``seat``; None: the director) agreed to the undo or refused it."""

    type: Literal["undo_answered"] = "undo_answered"
    table: TableNumber
    seat: Seat | None
    accept: bool


class Undone(Sent):
    """A call or card was taken back (the opponents agreed, or the director ruled it):
    ``seat`` made it."""

    type: Literal["undone"] = "undone"
    table: TableNumber
    seat: Seat
    call: CallText | None = None
    card: CardText | None = None


class DirectorRuled(Sent):
    """The director ended the board with declarer's side taking ``declarer_tricks``.
    ``by_server`` (added within version 7): the server ruled, on a claim that a program
    disputed (``disputed_claims`` ``director``): the claimer's side takes what it surely
    takes against any defence, never more than it claimed (law 70)."""

    type: Literal["director_ruled"] = "director_ruled"
    table: TableNumber
    declarer_tricks: int
    by_server: bool = False


class ResultAssigned(Sent):
    """The director assigned a table's result on a board (an assigned adjusted score)."""

    type: Literal["result_assigned"] = "result_assigned"
    table: TableNumber
    result: TableResultView


class BoardFinished(Sent):
    """A table finished a board (13 tricks, an accepted claim, a ruling, four passes, an
    assigned result)."""

    type: Literal["board_finished"] = "board_finished"
    table: TableNumber
    result: TableResultView


class ReadyForNext(Sent):
    """A player asked for the next board while the finished one is on review."""

    type: Literal["ready_for_next"] = "ready_for_next"
    table: TableNumber
    seat: Seat


class ReviewEnded(Sent):
    """The finished board's review is over at the table (all asked for the next board, or
    the time was up); the next board starts, if there is one."""

    type: Literal["review_ended"] = "review_ended"
    table: TableNumber
    board: int


class BoardCompared(Sent):
    """A board is decided at both tables: the comparison, with the swing and running total.
    A director's adjustment publishes a board's comparison again; the later one stands."""

    type: Literal["board_compared"] = "board_compared"
    comparison: ComparisonView


class MatchFinished(Sent):
    """Every board is compared: the final totals and the winner (or a draw)."""

    type: Literal["match_finished"] = "match_finished"
    imps_a: int
    imps_b: int
    winner: str
    standings: list[Standing] = []


class ChatSent(Sent):
    """A line of table chat (``seat`` None: the director); ``to``: the players it reached."""

    type: Literal["chat_sent"] = "chat_sent"
    table: TableNumber
    seat: Seat | None
    text: str
    to: list[Seat]


class QuestionAsked(Sent):
    """``seat`` asked about call ``index``: sent to the caller (and the asker) only."""

    type: Literal["question_asked"] = "question_asked"
    table: TableNumber
    seat: Seat
    index: int


class CallExplained(Sent):
    """The caller explained call ``index``: sent to the caller's opponents (and the caller);
    the auction's entry carries the explanation as its ``alert`` from now on."""

    type: Literal["call_explained"] = "call_explained"
    table: TableNumber
    seat: Seat
    index: int
    text: str


class DirectorCalled(Sent):
    """``seat`` called the director to the table, during ``board``."""

    type: Literal["director_called"] = "director_called"
    table: TableNumber
    seat: Seat
    board: int | None
    text: str | None = None


class DirectorCallsSeen(Sent):
    """The director has seen ``table``'s open calls and is on the way (``see_calls``)."""

    type: Literal["director_calls_seen"] = "director_calls_seen"
    table: TableNumber


class DirectorCallsClosed(Sent):
    """The director closed ``table``'s calls (``close_calls``). A ruling, an assigned result
    or an adjusted score closes its board's calls too, told by its own event."""

    type: Literal["director_calls_closed"] = "director_calls_closed"
    table: TableNumber


class NameSet(Sent):
    """A seat's player's name changed (None: no name, after a substitution)."""

    type: Literal["name_set"] = "name_set"
    table: TableNumber
    seat: Seat
    name: str | None


class PresenceChanged(Sent):
    """A seat's player connected or went away; ``robot``: a program plays the seat."""

    type: Literal["presence_changed"] = "presence_changed"
    table: TableNumber
    seat: Seat
    connected: bool
    robot: bool


class SeatSubstituted(Sent):
    """The director gave a seat a new player (the old link no longer works)."""

    type: Literal["seat_substituted"] = "seat_substituted"
    table: TableNumber
    seat: Seat
    robot: bool


class TimeUp(Sent):
    """(Added within version 7.) The round's time at ``table`` is up with boards still to
    play (``RoundClock``): the director decides what happens; nothing is played for
    anyone."""

    type: Literal["time_up"] = "time_up"
    table: TableNumber
    round: int


Event = Annotated[
    Snapshot
    | BoardStarted
    | CallMade
    | CardPlayed
    | LeadFaceDown
    | ClaimMade
    | ClaimAnswered
    | ClaimWithdrawn
    | ConcessionWithdrawn
    | ConcessionWithdrawalAsked
    | ConcessionWithdrawalRefused
    | UndoRequested
    | UndoAnswered
    | Undone
    | DirectorRuled
    | ResultAssigned
    | BoardFinished
    | ReadyForNext
    | ReviewEnded
    | BoardCompared
    | MatchFinished
    | ChatSent
    | QuestionAsked
    | CallExplained
    | DirectorCalled
    | DirectorCallsSeen
    | DirectorCallsClosed
    | NameSet
    | PresenceChanged
    | SeatSubstituted
    | TimeUp,
    Field(discriminator="type"),
]


# --------------------------------------------------------------------------------------
# Server to client
# --------------------------------------------------------------------------------------


class Welcome(Sent):
    """The answer to a good ``hello``. ``seq`` is the newest sequence number for this
    viewer: the updates after the client's ``last_seq`` up to ``seq`` follow at once."""

    type: Literal["welcome"] = "welcome"
    version: int
    versions: list[int] = []
    """Every version this server serves (since version 7)."""
    role: Literal["player", "spectator", "director", "organiser", "event"]
    match_id: str | None = None
    event_id: str | None = None
    player: PlayerNumber | None = None
    """A player's number in the movement (their table and seat change between rounds)."""
    table: TableNumber | None = None
    seat: Seat | None = None
    seq: int = 0
    now: Millis | None = None
    """(Added within version 7.) The server's clock when it answered: a client that shows
    a countdown (``RoundClock``) takes the difference to its own clock from it."""


class Change(Sent):
    """One operation of a JSON Patch (RFC 6902): ``add`` (a new key of a map, or an item at
    the end of a list) or ``replace``, at ``path``, a JSON Pointer (RFC 6901) into the view
    (``"/board/auction/3"``, ``"/tables/0/turn"``)."""

    op: Literal["add", "replace"]
    path: Annotated[str, StringConstraints(pattern=r"^(/[^/]*)+$")]
    value: JsonValue
    """A part of the view: null, a boolean, a number, a string, a list or a map of them."""


class Update(Sent):
    """A sequenced frame of a viewer's log: what happened, and how the viewer's view changed.

    ``seq`` counts this viewer's updates from 1 without gaps (a ``snapshot`` may skip ahead).
    ``events`` are what one logged action did, in order (a last card: the card, then the
    board's end). ``view`` is the viewer's whole view after it, in a snapshot (and whenever
    the server does not know the view the client holds); else it is None and ``changes``
    turn the previous update's view into this one, applied once each ``board_compared``
    event's comparison is in ``match.comparisons`` (``protocol.changes``)."""

    type: Literal["update"] = "update"
    seq: Annotated[int, Field(ge=1)]
    events: list[Event]
    view: View | None = None
    changes: list[Change]

    @model_validator(mode="after")
    def _whole_or_changes(self) -> Update:
        if self.view is not None and self.changes:
            raise ValueError("an update carries its whole view or changes, not both")
        if self.view is None and any(event.type == "snapshot" for event in self.events):
            raise ValueError("a snapshot carries the whole view")
        return self


class Ack(Sent):
    """The action with this ``ref`` was accepted and stored; ``seq`` is the update recording it.
    ``repeated``: the action's ``action_id`` had been applied already, and this is its ack."""

    type: Literal["ack"] = "ack"
    ref: int | None = None
    seq: int
    repeated: bool = False


class ErrorMessage(Sent):
    """A refused frame or action; nothing was changed. ``ref`` echoes the message's ``ref``;
    ``retry_after_ms`` (with ``rate_limited``, and with ``unavailable`` from a server past
    what it can serve) says when to try again; ``versions`` (with
    ``unsupported_version``) the versions the server serves."""

    type: Literal["error"] = "error"
    code: Annotated[ErrorCode, Field(strict=False)]
    message: str
    ref: int | None = None
    retry_after_ms: int | None = None
    versions: list[int] | None = None
    field: str | None = None
    """(Added within version 7.) The field of the refused message that the error concerns
    (``"boards"``, ``"names"``, ``"roster"``), when it concerns one: a form shows the
    message beside it. Sent only when known."""


class SeatLink(Sent):
    """A player's join link, for the whole match (it holds the player's secret token);
    None for a player the server's robots play (``robot``). ``table`` and ``seat`` are
    where the player sits in round 1; ``team`` is their team in the team formats (None in
    the others); ``competitor`` what the standings rank them in: their team, pair
    (``"1-3"``) or themselves (``"7"``). ``name`` is the player's name, when the organiser
    gave one."""

    player: PlayerNumber
    table: TableNumber
    seat: Seat
    team: Team | None
    competitor: str
    link: str | None
    robot: bool = False
    name: str | None = None


class MatchCreated(Sent):
    """The organiser's answer: a link for each player (four, eight or twelve), a spectator
    link (None when off), a director link."""

    type: Literal["match_created"] = "match_created"
    match_id: str
    seats: list[SeatLink]
    spectator: str | None
    director: str
    deals_commitment: Sha256
    """The SHA-256 commitment to the match's deals (``match.deals_commitment``)."""
    ref: int | None = None


class DealsSealed(Sent):
    """The answer to ``seal_deals``: ``seal`` names the secret seed for ``create_match``
    (once, within :data:`SEAL_DAYS` days); ``seed_commitment`` is the SHA-256 of
    ``duplicate deal seed 2``, a newline, the seed (64 lowercase hex digits), a newline,
    ``form``, a space, ``public_form`` and a newline: publish it, with ``public_form``,
    before the public value is fixed."""

    type: Literal["deals_sealed"] = "deals_sealed"
    seal: str
    seed_commitment: Sha256
    public_form: str | None = None
    """The form the seed was sealed with (``seal_deals.public_form``)."""
    ref: int | None = None


class MatchRecord(Sent):
    """The answer to ``get_record``: every board finished at both tables, both tables'
    auctions (with their alerts) and play, card for card, as the ``format`` asked for.
    A PBN record also states the commitment to the deals, and publishes the deal set it
    commits to once the match is over (SPEC.md, "Deals nobody can doubt")."""

    type: Literal["match_record"] = "match_record"
    format: Literal["pbn", "lin"] = "pbn"
    record: str
    ref: int | None = None


class BoardRecord(Sent):
    """The answer to ``get_board``: the board as each table played it (table 1 first), as
    the asker may see it, and its comparison once there is one."""

    type: Literal["board_record"] = "board_record"
    board: int
    tables: list[BoardView]
    comparison: ComparisonView | None = None
    ref: int | None = None


class Substituted(Sent):
    """The director's answer to ``substitute``: the player's new link (None for a robot)."""

    type: Literal["substituted"] = "substituted"
    player: PlayerNumber
    table: TableNumber
    seat: Seat
    link: str | None
    ref: int | None = None


class SessionOpened(Sent):
    """(Added within version 7.) The answer to ``open_session``: ``token`` speaks for the
    organiser in ``hello`` until ``expires_at`` (or ``close_session``)."""

    type: Literal["session"] = "session"
    token: str
    expires_at: Millis
    ref: int | None = None


class SessionClosed(Sent):
    """(Added within version 7.) The answer to ``close_session``."""

    type: Literal["session_closed"] = "session_closed"
    ref: int | None = None


class TableEntry(Sent):
    """(Added within version 7.) One table of a match in the organiser's list: its round,
    the board in play (or the last one played) and its phase, the trick in play (1-13,
    during the play), the contract, how many boards it has finished in all, who sits there
    and whether they are there, its open calls for the director, its round's clock and the
    seats its board waits for."""

    table: TableNumber
    round: int | None = None
    board: int | None = None
    phase: Phase | None = None
    trick: int | None = None
    contract: ContractText | None = None
    declarer: Seat | None = None
    boards_played: int = 0
    players: list[PlayerInfo] = []
    director_calls: list[DirectorCallView] = []
    clock: RoundClock | None = None
    waiting_for: list[Seat] = []


class MatchEntry(Sent):
    """(Added within version 7.) A match in the organiser's list. ``status``: ``waiting``
    (no call made yet), ``playing`` or ``finished``. ``compared``: the boards compared so
    far; ``standings`` best first; ``winner`` once finished (a team, the leading
    competitor, or ``"draw"``)."""

    match_id: str
    format: Format
    scoring: Scoring
    status: Literal["waiting", "playing", "finished"]
    archived: bool = False
    created_at: Millis | None = None
    boards: int
    rounds: int
    compared: int = 0
    team_a: str
    team_b: str
    spectators: SpectatorMode = "live"
    standings: list[Standing] = []
    winner: str | None = None
    tables: list[TableEntry] = []


class MatchList(Sent):
    """(Added within version 7.) The answer to ``list_matches``, and, when it asked for
    ``live``, the list again (``ref`` null) whenever it changes."""

    type: Literal["match_list"] = "match_list"
    matches: list[MatchEntry]
    live: bool = False
    archived: bool = False
    ref: int | None = None


class LinkEntry(Sent):
    """(Added within version 7.) One link of a match: a player's (where they sit now), the
    spectators' or the director's. ``link`` is None for a player the server's robot plays,
    and for a link made before this server could give links again (a new one can be made:
    ``new_link``). ``qr``: the link's QR code, an SVG image as a ``data:`` URI."""

    role: Literal["player", "spectator", "director"]
    player: PlayerNumber | None = None
    table: TableNumber | None = None
    seat: Seat | None = None
    team: Team | None = None
    name: str | None = None
    robot: bool = False
    link: str | None = None
    qr: str | None = None


class MatchLinks(Sent):
    """(Added within version 7.) The answer to ``get_links``: every link of the match."""

    type: Literal["match_links"] = "match_links"
    match_id: str
    links: list[LinkEntry]
    ref: int | None = None


class MatchArchived(Sent):
    """(Added within version 7.) The answer to ``archive_match``."""

    type: Literal["match_archived"] = "match_archived"
    match_id: str
    archived: bool
    ref: int | None = None


class EventCreated(Sent):
    """(Added within version 7.) The answer to ``create_event``: the event's id, its
    number of rounds, and its results link (for anyone: no secret of a match in play)."""

    type: Literal["event_created"] = "event_created"
    event_id: str
    rounds: int
    results: str | None = None
    ref: int | None = None


class EventEntry(Sent):
    """(Added within version 7.) An event in the organiser's list: where it stands."""

    event_id: str
    name: str
    kind: Literal["round_robin", "swiss"]
    status: Literal["waiting", "playing", "finished"]
    teams: int
    rounds: int
    round: int
    created_at: Millis
    leader: str | None = None
    """The team first in the standings once a match has ended (None: none yet, or tied)."""


class EventList(Sent):
    """(Added within version 7.) The answer to ``list_events``."""

    type: Literal["event_list"] = "event_list"
    events: list[EventEntry]
    ref: int | None = None


class EventTeamEntry(Sent):
    """(Added within version 7.) A team of an event as the organiser named it."""

    team: int
    name: str
    players: list[str] = []
    robots: bool = False


class EventMatchEntry(Sent):
    """(Added within version 7.) One match of a round: ``home`` North-South at table 1.
    ``match_id`` once it is created; its IMPs and victory points once it has ended
    (``status`` ``finished``), never before: a match's results stay hidden while it is
    played."""

    home: int
    away: int
    match_id: str | None = None
    status: Literal["waiting", "playing", "finished"] = "waiting"
    home_imps: int | None = None
    away_imps: int | None = None
    home_vps: float | None = None
    away_vps: float | None = None


class EventRoundEntry(Sent):
    """(Added within version 7.) A round: ``status`` ``drawn`` (its pairing made, not yet
    begun), ``playing`` or ``finished``; its boards; the team sitting out, if any, and what
    it scores."""

    round: int
    status: Literal["drawn", "playing", "finished"]
    boards: list[int]
    matches: list[EventMatchEntry]
    bye: int | None = None
    bye_vps: float | None = None


class EventStanding(Sent):
    """(Added within version 7.) A team's place after the matches ended so far: ``rank``
    (shared when still ``tied`` after every tie-break), victory points (adjustments
    included), matches played, IMPs won and lost."""

    rank: int
    team: int
    vps: float
    played: int
    imps_for: int
    imps_against: int
    tied: bool = False


class CrossTableEntry(Sent):
    """(Added within version 7.) One ended match seen from ``team``'s side."""

    team: int
    opponent: int
    round: int
    imps_for: int
    imps_against: int
    vps: float


class EventAdjustment(Sent):
    """(Added within version 7.) A director's adjustment of a team's victory points."""

    team: int
    vps: float
    reason: str
    round: int | None = None


class ButlerEntry(Sent):
    """(Added within version 7.) A pair in the Butler ranking: its IMPs against each
    board's datum over the boards it played."""

    rank: int
    team: int
    players: list[str]
    boards: int
    imps: int
    per_board: float


class TravellerLine(Sent):
    """(Added within version 7.) One table's result on a board: who sat North-South and
    East-West, the contract (None: passed out), declarer, tricks, North-South's score and
    the IMPs each side got against the datum."""

    match_id: str
    table: int
    north_south: list[str]
    east_west: list[str]
    contract: str | None = None
    declarer: Seat | None = None
    tricks: int | None = None
    score: int
    ns_imps: int


class Traveller(Sent):
    """(Added within version 7.) A board's results at every table of the event, shown only
    once every table has played it: the deal and the Butler datum with them."""

    board: int
    dealer: Seat
    vulnerability: str
    deal: str
    datum: int
    lines: list[TravellerLine]


class EventView(Sent):
    """(Added within version 7.) An event as it stands (the answer to ``get_event``,
    ``start_event_round`` and ``adjust_event``): its teams and rounds, the standings, the
    cross-table, the Butler ranking of the pairs and the travellers of the boards every
    table has played. Nothing of a match in play: a match's score appears once it ends,
    a board's results once every table has played it."""

    type: Literal["event"] = "event"
    event_id: str
    results: str | None = None
    name: str
    kind: Literal["round_robin", "swiss"]
    status: Literal["waiting", "playing", "finished"]
    rounds: int
    boards_per_round: int
    round: int = 0
    teams: list[EventTeamEntry]
    schedule: list[EventRoundEntry] = []
    standings: list[EventStanding] = []
    cross_table: list[CrossTableEntry] = []
    adjustments: list[EventAdjustment] = []
    butler: list[ButlerEntry] = []
    travellers: list[Traveller] = []
    ref: int | None = None


class Pong(Sent):
    """The answer to ``ping``."""

    type: Literal["pong"] = "pong"
    ref: int | None = None


class Heartbeat(Sent):
    """(Since version 7.) Sent to a connection that asked for heartbeats
    (``hello.heartbeat``) whenever the server has sent it nothing for
    :data:`HEARTBEAT_EVERY_S` seconds: the client answers with ``heartbeat_answer`` and the
    same ``ref``."""

    type: Literal["heartbeat"] = "heartbeat"
    ref: int


ServerMessage = Annotated[
    Welcome
    | Update
    | Ack
    | ErrorMessage
    | MatchCreated
    | DealsSealed
    | MatchRecord
    | BoardRecord
    | Substituted
    | SessionOpened
    | SessionClosed
    | MatchList
    | MatchLinks
    | MatchArchived
    | EventCreated
    | EventView
    | EventList
    | Pong
    | Heartbeat,
    Field(discriminator="type"),
]
