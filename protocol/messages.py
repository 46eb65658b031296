"""Every message of the wire protocol, as frozen pydantic models.

Client and server messages are discriminated unions on their ``type`` field. Values on the
wire are plain: seats are ``"N" "E" "S" "W"``, cards ``"SA"`` (suit letter, then rank
``A K Q J T 9 ... 2``), calls ``"1S" "3NT" "P" "X" "XX"``, contracts ``"4SX"``.
``protocol/SPEC.md`` describes them in prose with examples.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from protocol.errors import ErrorCode

PROTOCOL_VERSION = 1
"""The protocol version this code speaks; ``hello`` must ask for it."""

SUPPORTED_VERSIONS = frozenset({PROTOCOL_VERSION})

Seat = Literal["N", "E", "S", "W"]
CardText = Annotated[str, StringConstraints(pattern=r"^[SHDC][AKQJT98765432]$")]
CallText = Annotated[str, StringConstraints(pattern=r"^([1-7](C|D|H|S|NT)|P|X|XX)$")]
ContractText = Annotated[str, StringConstraints(pattern=r"^[1-7](C|D|H|S|NT)(X|XX)?$")]
VulnerabilityText = Literal["None", "NS", "EW", "All"]
SpectatorMode = Literal["live", "delayed", "off"]
Team = Literal["A", "B"]
TableNumber = Annotated[int, Field(ge=1, le=2)]
Ref = Annotated[int | None, Field(ge=0, le=2**31 - 1)]
ShortText = Annotated[str, StringConstraints(min_length=1, max_length=300)]
Name = Annotated[str, StringConstraints(min_length=1, max_length=40)]


class Message(BaseModel):
    """Base of every message: frozen, no unknown fields, no type coercion."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


# --------------------------------------------------------------------------------------
# Client to server
# --------------------------------------------------------------------------------------


class Hello(Message):
    """The first message on every connection: the protocol version and a link's token.

    ``last_seq`` is the last sequence number this viewer saw (resume), or None for a
    fresh start. ``client`` names the client software, for the server's log.
    """

    type: Literal["hello"] = "hello"
    version: int
    token: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    last_seq: Annotated[int | None, Field(ge=0)] = None
    client: Annotated[str, StringConstraints(max_length=100)] = ""


RobotSeats = Annotated[str, StringConstraints(pattern=r"^(t[12]|[12][NESW])$")]
"""``"t2"``: every seat of table 2; ``"1N"``: North at table 1."""


class CreateMatch(Message):
    """Organiser only: create a match. ``deals_pbn`` is a PBN file's text, or None for boards
    dealt by the server from a cryptographically secure source.

    ``format`` ``teams`` is the 8-player teams match (RULES.md 6.1; ``boards`` defaults to 4);
    ``robot-table`` is four people at table 1 against a table 2 played by robots (6.2;
    ``boards`` 4, 8 or 16, default 8). ``robots`` names seats the server fills with its own
    robots (``"t2"`` a whole table, ``"1N"`` one seat); their links are not handed out."""

    type: Literal["create_match"] = "create_match"
    format: Literal["teams", "robot-table"] = "teams"
    boards: Annotated[int | None, Field(ge=1, le=64)] = None
    team_a: Name = "Team A"
    team_b: Name = "Team B"
    deals_pbn: Annotated[str | None, StringConstraints(max_length=900_000)] = None
    spectators: SpectatorMode = "live"
    robots: Annotated[list[RobotSeats], Field(max_length=8)] = []
    ref: Ref = None


class MakeCall(Message):
    """A call by the seat on turn, with an optional alert: an explanation that goes to
    the opponents only, never to partner."""

    type: Literal["call"] = "call"
    call: CallText
    alert: ShortText | None = None
    ref: Ref = None


class PlayCard(Message):
    """A card by the seat on turn; declarer sends dummy's cards too."""

    type: Literal["card"] = "card"
    card: CardText
    ref: Ref = None


class MakeClaim(Message):
    """Claim ``tricks`` of the remaining tricks for your side (fewer than all: a concession)."""

    type: Literal["claim"] = "claim"
    tricks: Annotated[int, Field(ge=0, le=13)]
    ref: Ref = None


class AnswerClaim(Message):
    """Accept or reject the pending claim (only the seats that decide it may answer)."""

    type: Literal["claim_answer"] = "claim_answer"
    accept: bool
    ref: Ref = None


class SendChat(Message):
    """Table chat: goes to the four players at your table only."""

    type: Literal["chat"] = "chat"
    text: ShortText
    ref: Ref = None


class AskAboutCall(Message):
    """Ask what an opponent's call means (``index`` counts the auction's calls from 0).
    Only the caller is told of the question; the answer goes to both opponents."""

    type: Literal["ask"] = "ask"
    index: Annotated[int, Field(ge=0, le=400)]
    ref: Ref = None


class ExplainCall(Message):
    """Explain your own call (``index`` as in ``ask``), asked or not: the explanation goes
    to the opponents only, never to partner, like an alert."""

    type: Literal["explain"] = "explain"
    index: Annotated[int, Field(ge=0, le=400)]
    text: ShortText
    ref: Ref = None


class Rule(Message):
    """Director only: end a table's board whose claim was rejected, with declarer's
    side taking ``declarer_tricks`` in all."""

    type: Literal["rule"] = "rule"
    table: TableNumber
    declarer_tricks: Annotated[int, Field(ge=0, le=13)]
    ref: Ref = None


class GetRecord(Message):
    """Ask for the match record: every board finished at both tables, as PBN."""

    type: Literal["get_record"] = "get_record"
    ref: Ref = None


class Ping(Message):
    """Keep-alive and round-trip probe; answered by ``pong``."""

    type: Literal["ping"] = "ping"
    ref: Ref = None


ClientMessage = Annotated[
    Hello
    | CreateMatch
    | MakeCall
    | PlayCard
    | MakeClaim
    | AnswerClaim
    | AskAboutCall
    | ExplainCall
    | SendChat
    | Rule
    | GetRecord
    | Ping,
    Field(discriminator="type"),
]


# --------------------------------------------------------------------------------------
# Values inside server messages
# --------------------------------------------------------------------------------------


class AuctionEntry(Message):
    """One call of the auction. ``alert`` is the caller's explanation, present only for
    the caller's opponents (and the caller), spectators and the director."""

    seat: Seat
    call: CallText
    alert: str | None = None


class PlayedCard(Message):
    """A card and the seat it came from."""

    seat: Seat
    card: CardText


class TrickView(Message):
    """A trick: its leader, the cards in the order played, and the winner once complete."""

    leader: Seat
    cards: list[PlayedCard]
    winner: Seat | None = None


class ClaimView(Message):
    """A claim in progress or just settled. ``cards`` are the claimer's remaining cards,
    shown to the seats that decide the claim (and to spectators and the director)."""

    claimer: Seat
    tricks: int
    remaining: int
    deciders: list[Seat]
    accepted: list[Seat]
    rejected: bool = False
    cards: list[CardText] | None = None


class TableResultView(Message):
    """A table's result on a board; ``ns_score`` is signed from North-South."""

    table: TableNumber
    board: int
    contract: ContractText | None
    declarer: Seat | None
    tricks: int
    ns_score: int


class ParView(Message):
    """The par result: the score (from North-South) of the contract that both sides, playing
    and bidding perfectly, would reach, and the contracts that score it."""

    score: int
    contracts: list[str]


class ComparisonView(Message):
    """A board finished at both tables: ``swing`` is team A's IMPs (team B's is -swing);
    ``running_total`` is team A's total after this board."""

    board: int
    table1: TableResultView
    table2: TableResultView
    difference: int
    swing: int
    running_total: int
    double_dummy: dict[Seat, dict[Literal["C", "D", "H", "S", "NT"], int]] | None = None
    """Tricks each declarer takes in each strain with all four hands in view."""
    par: ParView | None = None


class MatchSummary(Message):
    """The match panel: boards, every board compared so far, and the totals."""

    match_id: str
    team_a: str
    team_b: str
    boards: list[int]
    comparisons: list[ComparisonView]
    imps_a: int
    imps_b: int
    finished: bool
    winner: Literal["A", "B", "draw"] | None = None


class ChatLine(Message):
    """A line of table chat."""

    seat: Seat
    text: str


Phase = Literal["auction", "play", "claim", "director", "finished"]


class BoardView(Message):
    """One table's board as one viewer may see it.

    ``hands`` holds only the hands this viewer may see (remaining cards): their own; dummy
    after the opening lead; all four for spectators and the director. ``hand_sizes`` is
    every seat's number of remaining cards. ``deal`` is the four hands as dealt: for
    spectators and the director always, for players once their table finished the board.
    ``legal`` lists the calls or cards the viewer
    may make now, when it is their turn to act.
    """

    table: TableNumber
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
    current_trick: TrickView | None = None
    turn: Seat | None = None
    acting: Seat | None = None
    tricks_ns: int = 0
    tricks_ew: int = 0
    claim: ClaimView | None = None
    result: TableResultView | None = None
    legal: list[str] = []
    questions: list[int] = []
    """Indexes of this viewer's calls that an opponent asked about and that are not yet
    explained (players only)."""


class PlayerView(Message):
    """Everything one player may see now: their table's current board, their table's
    results so far, the match panel and the table chat."""

    type: Literal["player_view"] = "player_view"
    match: MatchSummary
    table: TableNumber
    seat: Seat
    team: Team
    board: BoardView | None
    results: list[TableResultView]
    chat: list[ChatLine]


class WatchView(Message):
    """What spectators and the director see: both tables (``live`` and ``director``: as they
    are played; ``delayed``: the latest board finished at both tables) and the match panel."""

    type: Literal["watch_view"] = "watch_view"
    match: MatchSummary
    mode: Literal["live", "delayed", "director"]
    tables: list[BoardView]


View = Annotated[PlayerView | WatchView, Field(discriminator="type")]


# --------------------------------------------------------------------------------------
# Events: what just happened, inside each update
# --------------------------------------------------------------------------------------


class Snapshot(Message):
    """The update replaces everything before it (sent on resume after a long gap)."""

    type: Literal["snapshot"] = "snapshot"


class BoardStarted(Message):
    """A board started at a table: its players' hands are now in their views."""

    type: Literal["board_started"] = "board_started"
    table: TableNumber
    board: int


class CallMade(Message):
    """A call was made. ``alert`` as in :class:`AuctionEntry`."""

    type: Literal["call_made"] = "call_made"
    table: TableNumber
    seat: Seat
    call: CallText
    alert: str | None = None


class CardPlayed(Message):
    """A card was played; ``trick_winner`` is set when it completed a trick."""

    type: Literal["card_played"] = "card_played"
    table: TableNumber
    seat: Seat
    card: CardText
    trick_winner: Seat | None = None


class ClaimMade(Message):
    """A claim (or concession) was made; the view's ``claim`` has the details."""

    type: Literal["claim_made"] = "claim_made"
    table: TableNumber
    claimer: Seat
    tricks: int


class ClaimAnswered(Message):
    """A decider accepted or rejected the claim; a rejection calls the director."""

    type: Literal["claim_answered"] = "claim_answered"
    table: TableNumber
    seat: Seat
    accept: bool


class DirectorRuled(Message):
    """The director ended the board with declarer's side taking ``declarer_tricks``."""

    type: Literal["director_ruled"] = "director_ruled"
    table: TableNumber
    declarer_tricks: int


class BoardFinished(Message):
    """A table finished a board (13 tricks, an accepted claim, a ruling or four passes)."""

    type: Literal["board_finished"] = "board_finished"
    table: TableNumber
    result: TableResultView


class BoardCompared(Message):
    """Both tables finished a board: the comparison, with the swing and running total."""

    type: Literal["board_compared"] = "board_compared"
    comparison: ComparisonView


class MatchFinished(Message):
    """Every board is compared: the final totals and the winner (or a draw)."""

    type: Literal["match_finished"] = "match_finished"
    imps_a: int
    imps_b: int
    winner: Literal["A", "B", "draw"]


class ChatSent(Message):
    """A line of table chat."""

    type: Literal["chat_sent"] = "chat_sent"
    table: TableNumber
    seat: Seat
    text: str


class QuestionAsked(Message):
    """``seat`` asked about call ``index``: sent to the caller (and the asker) only."""

    type: Literal["question_asked"] = "question_asked"
    table: TableNumber
    seat: Seat
    index: int


class CallExplained(Message):
    """The caller explained call ``index``: sent to the caller's opponents (and the caller);
    the auction's entry carries the explanation as its ``alert`` from now on."""

    type: Literal["call_explained"] = "call_explained"
    table: TableNumber
    seat: Seat
    index: int
    text: str


Event = Annotated[
    Snapshot
    | BoardStarted
    | CallMade
    | CardPlayed
    | ClaimMade
    | ClaimAnswered
    | DirectorRuled
    | BoardFinished
    | BoardCompared
    | MatchFinished
    | ChatSent
    | QuestionAsked
    | CallExplained,
    Field(discriminator="type"),
]


# --------------------------------------------------------------------------------------
# Server to client
# --------------------------------------------------------------------------------------


class Welcome(Message):
    """The answer to a good ``hello``. ``seq`` is the newest sequence number for this
    viewer: the updates after the client's ``last_seq`` up to ``seq`` follow at once."""

    type: Literal["welcome"] = "welcome"
    version: int
    role: Literal["player", "spectator", "director", "organiser"]
    match_id: str | None = None
    table: TableNumber | None = None
    seat: Seat | None = None
    seq: int = 0


class Update(Message):
    """A sequenced frame of a viewer's log: what happened and the viewer's whole view after it.

    ``seq`` counts this viewer's updates from 1 without gaps (a ``snapshot`` may skip ahead).
    ``events`` are what one logged action did, in order (a last card: the card, then the
    board's end)."""

    type: Literal["update"] = "update"
    seq: Annotated[int, Field(ge=1)]
    events: list[Event]
    view: View


class Ack(Message):
    """The action with this ``ref`` was accepted and stored; ``seq`` is the update recording it."""

    type: Literal["ack"] = "ack"
    ref: int | None = None
    seq: int


class ErrorMessage(Message):
    """A refused frame or action; nothing was changed. ``ref`` echoes the message's ``ref``."""

    type: Literal["error"] = "error"
    code: Annotated[ErrorCode, Field(strict=False)]
    message: str
    ref: int | None = None


class SeatLink(Message):
    """A seat's join link (it holds the seat's secret token); None for a seat the server's
    robots play (``robot``)."""

    table: TableNumber
    seat: Seat
    team: Team
    link: str | None
    robot: bool = False


class MatchCreated(Message):
    """The organiser's answer: eight seat links, a spectator link (None when off), a
    director link."""

    type: Literal["match_created"] = "match_created"
    match_id: str
    seats: list[SeatLink]
    spectator: str | None
    director: str
    ref: int | None = None


class MatchRecord(Message):
    """The answer to ``get_record``: PBN text of every board finished at both tables, both
    tables' auctions (alerts as notes) and play, card for card."""

    type: Literal["match_record"] = "match_record"
    pbn: str
    ref: int | None = None


class Pong(Message):
    """The answer to ``ping``."""

    type: Literal["pong"] = "pong"
    ref: int | None = None


ServerMessage = Annotated[
    Welcome | Update | Ack | ErrorMessage | MatchCreated | MatchRecord | Pong,
    Field(discriminator="type"),
]
