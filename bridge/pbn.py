"""Read and write PBN (Portable Bridge Notation): boards, auctions, play and results.

Text in, text out: the caller opens files. :func:`parse_games` reads leniently, as real
files need (comments, ``#`` for "as in the previous game", ``AP``, ``*``, annotations,
lowercase, ``10`` for ``T``), and raises :class:`~bridge.errors.ParseError` with the line
number when the text is broken. :func:`dump_games` writes standard PBN export text. Tags
this module does not interpret are kept verbatim, in order, with their section lines.

>>> game = parse_game('''
... [Board "1"]
... [Dealer "N"]
... [Vulnerable "None"]
... [Deal "N:AKQ.AKQJ.A.65432 T98.T98.KQJT9.AK 765.765.8765.QJT J432.432.432.987"]
... [Declarer "N"]
... [Contract "3NT"]
... [Result "12"]
... [Auction "N"]
... 2C! Pass 2D Pass
... 3NT =1= AP
... [Note "1: to play"]
... [Play "E"]
... DK D8 D2 DA
... *
... [Room "Open"]
... ''')
>>> str(game.contract), game.declarer, game.result, game.tag("Room")
('3NT', <Seat.NORTH: 0>, 12, 'Open')
>>> game.auction.calls[0].alert, game.auction.calls[4].notes
(True, ('to play',))
>>> auction = game.build_auction()
>>> str(auction.contract), auction.declarer == game.declarer
('3NT', True)
>>> [str(card) for card in game.played_cards()]
['DK', 'D8', 'D2', 'DA']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from bridge.auction import PASS, Auction, Call, Contract, Pass
from bridge.boards import Vulnerability
from bridge.cards import Card, Deal, Seat, Strain
from bridge.errors import BridgeError, OutOfTurn, ParseError, WrongPhase
from bridge.play import Play

__all__ = [
    "NO_CARD",
    "AnnotatedCall",
    "AnnotatedCard",
    "PbnAuction",
    "PbnGame",
    "PbnPlay",
    "PbnTag",
    "TrickRow",
    "dump_game",
    "dump_games",
    "parse_game",
    "parse_games",
    "roster_names",
]

_SUFFIXES = frozenset(("!", "?", "!!", "??", "!?", "?!"))
_T = TypeVar("_T")
_Resolver = Callable[[str, str, int], str]
"""Finds the text of note ``number`` for a reference in section ``where`` on ``line``."""


@dataclass(frozen=True, slots=True)
class AnnotatedCall:
    """A call of a PBN auction with its annotations.

    ``alert`` comes from a ``!`` after the call; ``suffix`` is any other suffix annotation
    (``?``, ``!!``, ``??``, ``!?``, ``?!``); ``nags`` are ``$n`` glyphs; ``notes`` are the
    texts of the ``[Note]`` tags the call refers to with ``=n=``.

    >>> AnnotatedCall(Call.parse("1C"), alert=True, notes=("2+ clubs",)).alert
    True
    """

    call: Call
    alert: bool = False
    suffix: str = ""
    nags: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.suffix and (self.suffix == "!" or self.suffix not in _SUFFIXES):
            raise BridgeError(f"not a call's suffix annotation: {self.suffix!r} (alert is '!')")
        for note in self.notes:
            _check_one_line("Note", note)


@dataclass(frozen=True, slots=True)
class AnnotatedCard:
    """One cell of a PBN play row: a card, or None for ``-`` (no card), with annotations.

    >>> str(AnnotatedCard(Card.parse("SA"), suffix="!").card)
    'SA'
    """

    card: Card | None
    suffix: str = ""
    nags: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.suffix and self.suffix not in _SUFFIXES:
            raise BridgeError(f"not a suffix annotation: {self.suffix!r}")
        for note in self.notes:
            _check_one_line("Note", note)


NO_CARD = AnnotatedCard(None)
"""The ``-`` cell: no card recorded for that seat in that trick."""

TrickRow = tuple[AnnotatedCard, AnnotatedCard, AnnotatedCard, AnnotatedCard]
"""One trick in PBN column order: the [Play] seat first, then clockwise."""


@dataclass(frozen=True, slots=True)
class PbnAuction:
    """The auction section: the seat that called first ([Auction] tag) and the calls.

    ``continues`` is a ``+`` at the end (more calls, not recorded); ``terminated`` a ``*``.

    >>> from bridge import Seat
    >>> auction = PbnAuction(Seat.NORTH, tuple(AnnotatedCall(Call.parse(c)) for c in "1S P 4S P P P".split()))
    >>> str(auction.replay().contract)
    '4S'
    """

    dealer: Seat
    calls: tuple[AnnotatedCall, ...] = ()
    continues: bool = False
    terminated: bool = False

    @classmethod
    def from_auction(cls, auction: Auction) -> PbnAuction:
        """The section that records a :class:`~bridge.auction.Auction` (no annotations)."""
        return cls(auction.dealer, tuple(AnnotatedCall(call) for call in auction.calls))

    def replay(self) -> Auction:
        """A :class:`~bridge.auction.Auction` with these calls; raises IllegalCall if one is illegal."""
        return Auction.replay(self.dealer, (annotated.call for annotated in self.calls))


@dataclass(frozen=True, slots=True)
class PbnPlay:
    """The play section: the seat of column 0 ([Play] tag) and the trick rows in column order.

    ``terminated`` is a ``*`` at the end; it is always set when the play stops early
    (fewer than 13 full tricks), since PBN writes one there.

    >>> from bridge import Seat, Strain
    >>> row = tuple(AnnotatedCard(Card.parse(c)) for c in ("SK", "S2", "SA", "S3"))
    >>> play = PbnPlay(Seat.WEST, (row,))
    >>> play.terminated, [str(card) for card in play.cards(Strain.NOTRUMP)]
    (True, ['SK', 'S2', 'SA', 'S3'])
    """

    leader: Seat
    tricks: tuple[TrickRow, ...] = ()
    terminated: bool = False

    def __post_init__(self) -> None:
        if len(self.tricks) > 13 or any(len(row) != 4 for row in self.tricks):
            raise BridgeError("a play section holds at most 13 rows of 4 cells")
        if not self.is_complete:
            object.__setattr__(self, "terminated", True)

    @classmethod
    def from_play(cls, play: Play) -> PbnPlay:
        """The section that records the cards of a :class:`~bridge.play.Play` so far.

        A trick in progress is written with ``-`` for the seats yet to play, also when a
        claim or a ruling ended the play during it (:attr:`~bridge.play.Play.unfinished_trick`).
        """
        leader = play.opening_leader
        tricks = list(play.tricks)
        current = play.unfinished_trick if play.is_complete else play.current_trick
        if current is not None and current.cards:
            tricks.append(current)
        rows: list[TrickRow] = []
        for trick in tricks:
            cells = [trick.card_of(Seat((leader + column) % 4)) for column in range(4)]
            a, b, c, d = (NO_CARD if card is None else AnnotatedCard(card) for card in cells)
            rows.append((a, b, c, d))
        return cls(leader, tuple(rows))

    @property
    def is_complete(self) -> bool:
        """True when all 13 tricks are recorded with no ``-`` cell."""
        return len(self.tricks) == 13 and all(
            cell.card is not None for row in self.tricks for cell in row
        )

    def cards(self, strain: Strain) -> tuple[Card, ...]:
        """The cards in the order played, given the contract's strain (it decides who leads).

        The first trick is led by :attr:`leader`, each later one by the previous winner;
        the list stops at the first ``-`` in playing order.
        """
        trump = strain.suit
        played: list[Card] = []
        leader = self.leader
        for row in self.tricks:
            trick: list[Card] = []
            for offset in range(4):
                card = row[(leader + offset - self.leader) % 4].card
                if card is None:
                    return tuple(played)
                trick.append(card)
                played.append(card)
            best = 0
            for position in (1, 2, 3):
                top, other = trick[best], trick[position]
                if (other.suit == top.suit and other.rank > top.rank) or (
                    other.suit == trump and top.suit != trump
                ):
                    best = position
            leader = Seat((leader + best) % 4)
        return tuple(played)


_TAG_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class PbnTag:
    """A tag this module does not interpret, kept verbatim: name, value and section lines.

    >>> PbnTag("Room", "Open")
    PbnTag(name='Room', value='Open', section=())
    """

    name: str
    value: str
    section: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not _TAG_NAME_RE.fullmatch(self.name):
            raise BridgeError(f"not a PBN tag name: {self.name!r}")
        _check_one_line(self.name, self.value)
        for line in self.section:
            # What the reader could not give back: blank, trailing space, escape, tag, comment.
            if (
                not line.strip()
                or line != line.rstrip()
                or line.startswith("%")
                or any(char in line for char in "[;{\n")
            ):
                raise BridgeError(f"cannot write {line!r} as a section line of [{self.name}]")


def _check_one_line(name: str, value: str) -> None:
    if "\n" in value:
        raise BridgeError(f"the value of [{name}] must be one line: {value!r}")


# The tags PbnGame gives fields to; every other tag is a PbnTag.
_TYPED_TAGS = (
    "Event", "Site", "Date", "Board", "West", "North", "East", "South", "Dealer", "Vulnerable",
    "Deal", "Scoring", "Declarer", "Contract", "Result", "Auction", "Play", "Score", "ScoreIMP",
)  # fmt: skip
_CANONICAL = {name.lower(): name for name in (*_TYPED_TAGS, "Note")}


@dataclass(frozen=True, slots=True)
class PbnGame:
    """One PBN game: a board and, when played, its auction, play and result.

    Empty values read as None, and so does ``?`` (unknown) for the tags that are not plain
    text (Board, Dealer, Vulnerable, Deal, Declarer, Contract, Result, ...). ``contract`` is None
    both when unknown and when ``passed_out`` (``[Contract "Pass"]``). ``score`` and
    ``score_imp`` are signed from North-South. Tags without a field are in
    ``other_tags``, in the order read.

    >>> from bridge import Seat
    >>> game = PbnGame(board=3, dealer=Seat.SOUTH, contract=Contract.parse("4HX"), declarer=Seat.EAST)
    >>> game.tag("Contract"), game.tag("Dealer"), game.tag("Room")
    ('4HX', 'S', None)
    """

    event: str | None = None
    site: str | None = None
    date: str | None = None
    board: int | None = None
    west: str | None = None
    north: str | None = None
    east: str | None = None
    south: str | None = None
    dealer: Seat | None = None
    vulnerability: Vulnerability | None = None
    deal: Deal | None = None
    deal_first: Seat = Seat.NORTH
    """The seat whose hand the [Deal] tag lists first."""
    scoring: str | None = None
    declarer: Seat | None = None
    contract: Contract | None = None
    passed_out: bool = False
    result: int | None = None
    """Tricks taken by declarer."""
    auction: PbnAuction | None = None
    play: PbnPlay | None = None
    score: int | None = None
    score_imp: int | float | None = None
    other_tags: tuple[PbnTag, ...] = ()

    def __post_init__(self) -> None:
        if self.passed_out and self.contract is not None:
            raise BridgeError(f"a passed-out board has no contract, got {self.contract}")
        if self.result is not None and not 0 <= self.result <= 13:
            raise BridgeError(f"declarer's tricks are 0 to 13, got {self.result}")
        for name in ("Event", "Site", "Date", "West", "North", "East", "South", "Scoring"):
            value = getattr(self, name.lower())
            if value is not None:
                _check_one_line(name, value)
        for tag in self.other_tags:
            if tag.name.lower() in _CANONICAL and tag.name.lower() != "note":
                raise BridgeError(f"[{tag.name}] has its own field; it is not an other tag")

    def player(self, seat: Seat) -> str | None:
        """The name in the [North], [East], [South] or [West] tag."""
        return (self.north, self.east, self.south, self.west)[seat]

    def tag(self, name: str) -> str | None:
        """The value of tag ``name`` as :func:`dump_game` writes it, or None if not written.

        For a repeated tag (such as Note) the first one.
        """
        for tag in _output_tags(self):
            if tag.name == name:
                return tag.value
        return None

    def played_cards(self, strain: Strain | None = None) -> tuple[Card, ...]:
        """The recorded cards in the order played (see :meth:`PbnPlay.cards`).

        ``strain`` defaults to the contract's.
        """
        if self.play is None:
            return ()
        if strain is None:
            if self.contract is None:
                raise BridgeError("the order of play needs the trump strain: no contract")
            strain = self.contract.strain
        return self.play.cards(strain)

    def build_auction(self) -> Auction:
        """Replay the recorded calls through :class:`~bridge.auction.Auction`.

        Raises IllegalCall for an illegal call, OutOfTurn when [Auction] is not [Dealer].
        """
        if self.auction is None:
            raise BridgeError("the game has no auction")
        if self.dealer is not None and self.auction.dealer != self.dealer:
            raise OutOfTurn(
                f"the auction starts with {self.auction.dealer.name.title()}, "
                f"but the dealer is {self.dealer.name.title()}"
            )
        return self.auction.replay()

    def build_play(self) -> Play:
        """A :class:`~bridge.play.Play` of the contract with the recorded cards played.

        Raises IllegalPlay for a card that cannot be played, OutOfTurn when the [Play]
        seat is not the opening leader, WrongPhase for a passed-out board.
        """
        if self.contract is None:
            raise WrongPhase("the board was passed out" if self.passed_out else "no contract")
        if self.declarer is None:
            raise BridgeError("the game has no declarer")
        if self.deal is None:
            raise BridgeError("the game has no deal")
        play = Play(self.deal, self.contract, self.declarer)
        if self.play is None:
            return play
        if self.play.leader != play.opening_leader:
            raise OutOfTurn(
                f"the play starts with {self.play.leader.name.title()}, "
                f"but the opening leader is {play.opening_leader.name.title()}"
            )
        for card in self.play.cards(self.contract.strain):
            play.play(card)
        return play

    def to_pbn(self) -> str:
        """This game as PBN text: the same as :func:`dump_game`."""
        return dump_game(self)


# -- reading ---------------------------------------------------------------------------


@dataclass(slots=True)
class _RawTag:
    name: str
    value: str
    line: int
    section: list[tuple[str, int]] = field(default_factory=list)  # (text, line number)


def parse_games(text: str) -> list[PbnGame]:
    """Every game in a PBN text, in order.

    Raises ParseError with ``line`` set when the text is broken.

    >>> games = parse_games('[Board "1"]\\n[Event "Club"]\\n\\n[Board "2"]\\n[Event "#"]\\n')
    >>> [(game.board, game.event) for game in games]
    [(1, 'Club'), (2, 'Club')]
    >>> parse_games('[Board "1"]\\n[Deal "N:AKQ"]\\n')
    Traceback (most recent call last):
    ...
    bridge.errors.ParseError: line 2: [Deal]: not a PBN deal (need four hands): 'N:AKQ'
    """
    games: list[PbnGame] = []
    previous: dict[str, str] | None = None
    for tags in _split_games(text):
        game, previous = _read_game(tags, previous)
        games.append(game)
    return games


def roster_names(text: str) -> dict[str, str]:
    r"""The players' names in a PBN-style roster, by first-round seat (``"1N"``): a game per
    table, ``[Table "1"]`` or ``[Room "Open"]`` (table 1) / ``"Closed"`` (table 2), with
    ``[North "Ann"]`` and so on; a game that names no table is the next one. A PBN record
    of an earlier match with the same seating works too (its first game of each room).
    Raises BridgeError for text that is not PBN, or a table other than 1 to 3.

    >>> roster_names('[Table "2"]\n[North "Ann"]\n[South " Cy "]\n')
    {'2N': 'Ann', '2S': 'Cy'}
    """
    names: dict[str, str] = {}
    seen: set[int] = set()
    for index, game in enumerate(parse_games(text), start=1):
        tags = {tag.name.lower(): tag.value for tag in game.other_tags}
        room = {"open": 1, "closed": 2}.get(tags.get("room", "").lower())
        table = int(tags["table"]) if tags.get("table", "").isdigit() else room or index
        if table in seen:
            continue
        if table not in (1, 2, 3):
            raise BridgeError(f"table {table}: a match has tables 1 to 3")
        seen.add(table)
        for seat, name in zip("NESW", (game.north, game.east, game.south, game.west), strict=True):
            if name and name.strip():
                names[f"{table}{seat}"] = name.strip()
    return names


def parse_game(text: str) -> PbnGame:
    """The one game in a PBN text; ParseError if there is none or more than one."""
    games = parse_games(text)
    if len(games) != 1:
        raise ParseError(f"expected one PBN game, found {len(games)}")
    return games[0]


def _split_games(text: str) -> list[list[_RawTag]]:
    """Tags (with their comment-free section lines) grouped by game."""
    games: list[list[_RawTag]] = []
    tags: list[_RawTag] = []
    comment_line: int | None = None  # where the open {comment} started
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if comment_line is None:
            if line.startswith("%"):
                continue
            if not line.strip():
                if tags:
                    games.append(tags)
                    tags = []
                continue
        pieces: list[str] = []
        position = 0
        while position < len(line):
            if comment_line is not None:
                close = line.find("}", position)
                if close < 0:
                    break
                comment_line = None
                pieces.append(" ")
                position = close + 1
                continue
            char = line[position]
            if char == "{":
                comment_line = number
                position += 1
            elif char == ";":
                break
            elif char == "[":
                _add_section_text(tags, "".join(pieces), number)
                pieces = []
                tag, position = _read_tag(line, position, number)
                tags.append(tag)
            else:
                pieces.append(char)
                position += 1
        _add_section_text(tags, "".join(pieces), number)
    if comment_line is not None:
        raise ParseError("unterminated { comment", line=comment_line)
    if tags:
        games.append(tags)
    return games


def _add_section_text(tags: list[_RawTag], text: str, number: int) -> None:
    if not text.strip():
        return
    if not tags:
        raise ParseError(f"text before any tag: {text.strip()!r}", line=number)
    if text.startswith("%"):
        # Only a line's first character makes "%" an escape; right after a tag it cannot
        # be written back as a section line.
        raise ParseError(f"section text cannot start with '%': {text!r}", line=number)
    tags[-1].section.append((text.rstrip(), number))


_TAG_START_RE = re.compile(r"\[\s*([A-Za-z][A-Za-z0-9_]*)\s*\"")


def _read_tag(line: str, start: int, number: int) -> tuple[_RawTag, int]:
    match = _TAG_START_RE.match(line, start)
    if match is None:
        if "]" not in line[start:]:
            raise ParseError("unterminated tag: no closing ']'", line=number)
        raise ParseError(
            f'bad tag syntax: expected [Name "value"], got {line[start:].strip()!r}', line=number
        )
    value: list[str] = []
    position = match.end()
    while True:
        if position >= len(line):
            raise ParseError(
                f"unterminated value of tag [{match[1]}]: no closing '\"'", line=number
            )
        char = line[position]
        if char == '"':
            break
        if char == "\\" and position + 1 < len(line) and line[position + 1] in '"\\':
            position += 1
            char = line[position]
        value.append(char)
        position += 1
    position += 1
    while position < len(line) and line[position] in " \t":
        position += 1
    if position >= len(line) or line[position] != "]":
        raise ParseError(f"unterminated tag [{match[1]}]: no closing ']'", line=number)
    return _RawTag(match[1], "".join(value), number), position + 1


def _read_game(
    tags: list[_RawTag], previous: dict[str, str] | None
) -> tuple[PbnGame, dict[str, str]]:
    values: dict[str, str] = {}
    for tag in tags:
        if tag.value == "#":
            if previous is None or tag.name not in previous:
                raise ParseError(
                    f'[{tag.name} "#"] copies the previous game\'s tag, but it has none',
                    line=tag.line,
                )
            tag.value = previous[tag.name]
        values.setdefault(tag.name, tag.value)

    typed: dict[str, _RawTag] = {}
    notes: list[tuple[str, str, _RawTag]] = []  # (number, text, tag), in file order
    note_section: dict[int, str] = {}  # id(tag) -> "Auction", "Play" or ""
    order: list[_RawTag | None] = []  # other tags in order; None marks a note's place
    section = ""
    for tag in tags:
        name = _CANONICAL.get(tag.name.lower())
        if name is None:
            order.append(tag)
            continue
        if name not in ("Auction", "Play") and tag.section:
            text, line = tag.section[0]
            raise ParseError(f"unexpected text after [{name}]: {text.strip()!r}", line=line)
        if name == "Note":
            note_section[id(tag)] = section
            match = re.fullmatch(r"\s*([0-9]{1,6})\s*:(.*)", tag.value, re.DOTALL)
            if match is None:
                order.append(tag)  # not a numbered note: nothing can refer to it
            else:
                text = match[2][1:] if match[2].startswith(" ") else match[2]
                notes.append((str(int(match[1])), text, tag))
                order.append(None)
            continue
        if name in typed:
            raise ParseError(f"[{name}] appears twice in one game", line=tag.line)
        typed[name] = tag
        if name in ("Auction", "Play"):
            section = name

    used: set[int] = set()

    def resolve(number: str, where: str, line: int) -> str:
        # A note in the referring section first, else any note with that number.
        candidates = [note for note in notes if note[0] == number]
        if not candidates:
            raise ParseError(f'={number}= refers to no [Note "{number}: ..."]', line=line)
        candidates.sort(key=lambda note: note_section[id(note[2])] != where)
        _, text, tag = candidates[0]
        used.add(id(tag))
        return text

    auction = _read_auction(typed.get("Auction"), resolve)
    play = _read_play(typed.get("Play"), resolve)

    other: list[PbnTag] = []
    remaining_notes = iter(notes)
    for entry in order:
        tag = entry if entry is not None else next(remaining_notes)[2]
        if entry is None and id(tag) in used:
            continue
        other.append(PbnTag(tag.name, tag.value, tuple(text for text, _ in tag.section)))

    def text_of(name: str) -> tuple[str | None, int]:
        tag = typed.get(name)
        if tag is None or tag.value.strip() in ("", "?"):
            return None, 0 if tag is None else tag.line
        return tag.value.strip(), tag.line

    def string(name: str) -> str | None:
        tag = typed.get(name)
        return None if tag is None or tag.value == "" else tag.value

    contract: Contract | None = None
    passed_out = False
    contract_text, line = text_of("Contract")
    if contract_text is not None:
        if contract_text.upper() == "PASS":
            passed_out = True
        else:
            contract = _convert("Contract", Contract.parse, contract_text, line)

    deal: Deal | None = None
    deal_first = Seat.NORTH
    deal_text, line = text_of("Deal")
    if deal_text is not None:
        deal = _convert("Deal", Deal.from_pbn, deal_text, line)
        deal_first = Seat.parse(deal_text.partition(":")[0])

    result_text, line = text_of("Result")
    result: int | None = None
    if result_text is not None:
        if not re.fullmatch(r"[0-9]{1,2}", result_text) or int(result_text) > 13:
            raise ParseError(f"[Result]: not a number of tricks 0-13: {result_text!r}", line=line)
        result = int(result_text)

    board_text, line = text_of("Board")
    if board_text is not None and (
        not re.fullmatch(r"[0-9]{1,9}", board_text) or int(board_text) < 1
    ):
        raise ParseError(f"[Board]: not a board number: {board_text!r}", line=line)

    score_text, line = text_of("Score")
    score = None if score_text is None else int(_ns_figure("Score", score_text, line, False))
    imp_text, line = text_of("ScoreIMP")
    score_imp = None if imp_text is None else _ns_figure("ScoreIMP", imp_text, line, True)

    game = PbnGame(
        event=string("Event"),
        site=string("Site"),
        date=string("Date"),
        board=None if board_text is None else int(board_text),
        west=string("West"),
        north=string("North"),
        east=string("East"),
        south=string("South"),
        dealer=_optional(text_of("Dealer"), "Dealer", Seat.parse),
        vulnerability=_optional(text_of("Vulnerable"), "Vulnerable", Vulnerability.parse),
        deal=deal,
        deal_first=deal_first,
        scoring=string("Scoring"),
        declarer=_optional(text_of("Declarer"), "Declarer", Seat.parse),
        contract=contract,
        passed_out=passed_out,
        result=result,
        auction=auction,
        play=play,
        score=score,
        score_imp=score_imp,
        other_tags=tuple(other),
    )
    return game, values


def _convert(name: str, parse: Callable[[str], _T], text: str, line: int) -> _T:
    try:
        return parse(text)
    except ParseError as error:
        raise ParseError(f"[{name}]: {error}", line=line) from None


def _optional(found: tuple[str | None, int], name: str, parse: Callable[[str], _T]) -> _T | None:
    text, line = found
    return None if text is None else _convert(name, parse, text, line)


_NUMBER_RE = re.compile(r"[+-]?[0-9]{1,7}(?:\.[0-9]{0,7})?")


def _ns_figure(name: str, text: str, line: int, fractions: bool) -> int | float:
    """``"NS 120"``, ``"EW -50"``, ``"NS 4 EW -4"`` or ``"120"`` -> the N-S figure."""
    words = text.split()
    if len(words) == 1:
        pairs = [("NS", words[0])]
    elif len(words) in (2, 4):
        pairs = list(zip(words[::2], words[1::2], strict=True))
    else:
        pairs = []
    figures: list[int | float] = []
    for side, number in pairs:
        side = side.upper().replace("-", "")
        if side not in ("NS", "EW") or not _NUMBER_RE.fullmatch(number):
            break
        value: int | float = float(number)
        if float(value).is_integer():
            value = int(value)
        elif not fractions:
            break
        figures.append(value if side == "NS" else -value)
    if figures and len(figures) == len(pairs) and all(f == figures[0] for f in figures):
        return figures[0]
    raise ParseError(f"[{name}]: not a score like 'NS 120' or 'EW -50': {text!r}", line=line)


_TOKEN_CORE_RE = re.compile(r"[^!?=$]*")
_ANNOTATION_RE = re.compile(r"([!?]{1,2})|=([0-9]{1,6})=|\$([0-9]{1,6})")


@dataclass(slots=True)
class _Item:
    """A call or card being read, with its annotations."""

    value: Call | Card | None
    line: int
    suffixes: list[str] = field(default_factory=list)
    nags: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _split_token(token: str, line: int) -> tuple[str, list[tuple[str, str]]]:
    """``"1C!"`` -> ``("1C", [("suffix", "!")])``; ``"=2="`` -> ``("", [("note", "2")])``."""
    core = _TOKEN_CORE_RE.match(token)
    assert core is not None  # the pattern matches the empty string
    annotations: list[tuple[str, str]] = []
    position = core.end()
    while position < len(token):
        match = _ANNOTATION_RE.match(token, position)
        if match is None:
            raise ParseError(f"cannot read annotation {token[position:]!r} in {token!r}", line=line)
        if match[1]:
            annotations.append(("suffix", match[1]))
        elif match[2]:
            annotations.append(("note", str(int(match[2]))))
        else:
            annotations.append(("nag", match[3]))
        position = match.end()
    return core.group(), annotations


def _annotate(
    item: _Item | None,
    annotations: list[tuple[str, str]],
    where: str,
    line: int,
    resolve: _Resolver,
) -> None:
    if not annotations:
        return
    if item is None:
        raise ParseError(
            f"annotation before any {'call' if where == 'Auction' else 'card'}", line=line
        )
    for kind, text in annotations:
        if kind == "suffix":
            item.suffixes.append(text)
        elif kind == "nag":
            item.nags.append(int(text))
        else:
            item.notes.append(resolve(text, where, line))


def _section_tokens(tag: _RawTag) -> list[tuple[list[str], int]]:
    return [(text.split(), line) for text, line in tag.section]


def _read_auction(tag: _RawTag | None, resolve: _Resolver) -> PbnAuction | None:
    if tag is None:
        return None
    seat_text = tag.value.strip()
    if seat_text in ("", "?") and not tag.section:
        return None
    dealer = _convert("Auction", Seat.parse, seat_text, tag.line)
    items: list[_Item] = []
    continues = terminated = False
    last: _Item | None = None
    for tokens, line in _section_tokens(tag):
        for token in tokens:
            core, annotations = _split_token(token, line)
            if core:
                if terminated:
                    raise ParseError(f"{core!r} after the '*' that ends the auction", line=line)
                key = core.upper()
                if key == "*":
                    terminated = True
                    last = None
                elif key == "+":
                    continues = True
                    last = None
                elif continues:
                    raise ParseError(f"{core!r} after the '+' that ends the auction", line=line)
                elif key == "AP":
                    # All pass: the passes that end the auction from here.
                    so_far = [item.value for item in items]
                    acted = max(
                        (i + 1 for i, call in enumerate(so_far) if not isinstance(call, Pass)),
                        default=0,
                    )
                    trailing = len(so_far) - acted
                    for _ in range((3 if acted else 4) - trailing):
                        items.append(_Item(PASS, line))
                    last = items[-1] if items else None
                else:
                    try:
                        call = Call.parse(core)
                    except ParseError:
                        raise ParseError(f"not a call: {core!r}", line=line) from None
                    last = _Item(call, line)
                    items.append(last)
            _annotate(last, annotations, "Auction", line, resolve)
    calls: list[AnnotatedCall] = []
    for item in items:
        assert isinstance(item.value, Call)
        alert = "!" in item.suffixes
        others = [suffix for suffix in item.suffixes if suffix != "!"]
        if len(others) > 1:
            raise ParseError(f"call {item.value} has two suffix annotations", line=item.line)
        calls.append(
            AnnotatedCall(item.value, alert, "".join(others), tuple(item.nags), tuple(item.notes))
        )
    return PbnAuction(dealer, tuple(calls), continues, terminated)


def _read_play(tag: _RawTag | None, resolve: _Resolver) -> PbnPlay | None:
    if tag is None:
        return None
    seat_text = tag.value.strip()
    if seat_text in ("", "?") and not tag.section:
        return None
    leader = _convert("Play", Seat.parse, seat_text, tag.line)
    rows: list[list[_Item]] = []
    terminated = False
    last: _Item | None = None
    for tokens, line in _section_tokens(tag):
        cells: list[_Item] = []
        for token in tokens:
            core, annotations = _split_token(token, line)
            if core:
                if terminated:
                    raise ParseError(f"{core!r} after the '*' that ends the play", line=line)
                if core == "*":
                    terminated = True
                    last = None
                else:
                    card = None
                    if core != "-":
                        try:
                            card = Card.parse(core)
                        except ParseError:
                            raise ParseError(f"not a card: {core!r}", line=line) from None
                    last = _Item(card, line)
                    cells.append(last)
            _annotate(last, annotations, "Play", line, resolve)
        while cells:
            row, cells = cells[:4], cells[4:]
            rows.append(row + [_Item(None, line) for _ in range(4 - len(row))])
            if len(rows) > 13:
                raise ParseError("more than 13 tricks in the play section", line=line)
    tricks: list[TrickRow] = []
    for row in rows:
        cells_out: list[AnnotatedCard] = []
        for item in row:
            assert item.value is None or isinstance(item.value, Card)
            if len(item.suffixes) > 1:
                raise ParseError(f"card {item.value} has two suffix annotations", line=item.line)
            cells_out.append(
                AnnotatedCard(
                    item.value, "".join(item.suffixes), tuple(item.nags), tuple(item.notes)
                )
            )
        a, b, c, d = cells_out
        tricks.append((a, b, c, d))
    return PbnPlay(leader, tuple(tricks), terminated)


# -- writing ---------------------------------------------------------------------------


def dump_games(games: Iterable[PbnGame]) -> str:
    """PBN export text for ``games``: a ``% PBN 2.1`` header, games separated by blank lines.

    >>> print(dump_games([PbnGame(board=1)]), end="")
    % PBN 2.1
    % EXPORT
    [Event ""]
    [Site ""]
    [Date ""]
    [Board "1"]
    [West ""]
    [North ""]
    [East ""]
    [South ""]
    [Dealer ""]
    [Vulnerable ""]
    [Deal ""]
    [Declarer ""]
    [Contract ""]
    [Result ""]
    """
    return "% PBN 2.1\n% EXPORT\n" + "\n".join(dump_game(game) for game in games)


def dump_game(game: PbnGame) -> str:
    """PBN text for one game (no file header), ending with a newline.

    Tags come in the standard order (Event Site Date Board West North East South Dealer
    Vulnerable Deal Scoring Declarer Contract Result), then the auction and its notes, the
    play and its notes, Score, ScoreIMP, and the other tags in their order.
    """
    lines: list[str] = []
    for tag in _output_tags(game):
        lines.append(f'[{tag.name} "{_escape(tag.value, tag.name.endswith("Table"))}"]')
        lines.extend(tag.section)
    return "\n".join(lines) + "\n"


def _escape(value: str, table: bool = False) -> str:
    r"""A tag value as PBN writes it: a quote as ``\"`` and a backslash as ``\\``, the
    standard's two escapes (a note written ``2\\3`` read then written stays ``2\\3``;
    written ``2\3`` it would hold a backslash before a ``3``, which the standard leaves
    undefined and readers take differently).

    ``table``: the value of a table tag (``ScoreTable``...), whose column formats are a lone
    backslash (``Score\5R``): a backslash is escaped there only where a reader would take it
    for an escape (before ``"`` or ``\``, or at the end).
    """
    if not table:
        return value.replace("\\", "\\\\").replace('"', '\\"')
    out: list[str] = []
    for position, char in enumerate(value):
        if char == '"':
            out.append('\\"')
        elif char == "\\" and value[position + 1 : position + 2] in ("", '"', "\\"):
            out.append("\\\\")
        else:
            out.append(char)
    return "".join(out)


def _output_tags(game: PbnGame) -> list[PbnTag]:
    def text(value: object) -> str:
        return "" if value is None else str(value)

    contract = "Pass" if game.passed_out else text(game.contract)
    deal = "" if game.deal is None else game.deal.to_pbn(game.deal_first)
    tags = [
        PbnTag("Event", text(game.event)),
        PbnTag("Site", text(game.site)),
        PbnTag("Date", text(game.date)),
        PbnTag("Board", text(game.board)),
        PbnTag("West", text(game.west)),
        PbnTag("North", text(game.north)),
        PbnTag("East", text(game.east)),
        PbnTag("South", text(game.south)),
        PbnTag("Dealer", text(game.dealer)),
        PbnTag("Vulnerable", text(game.vulnerability)),
        PbnTag("Deal", deal),
    ]
    if game.scoring is not None:
        tags.append(PbnTag("Scoring", game.scoring))
    tags += [
        PbnTag("Declarer", text(game.declarer)),
        PbnTag("Contract", contract),
        PbnTag("Result", text(game.result)),
    ]
    notes: dict[str, int] = {}
    if game.auction is not None:
        tags.append(
            PbnTag("Auction", game.auction.dealer.letter, _auction_lines(game.auction, notes))
        )
        tags += [PbnTag("Note", f"{number}: {note}") for note, number in notes.items()]
    if game.play is not None:
        play_notes: dict[str, int] = {}
        first = len(notes) + 1
        tags.append(
            PbnTag("Play", game.play.leader.letter, _play_lines(game.play, play_notes, first))
        )
        tags += [PbnTag("Note", f"{number}: {note}") for note, number in play_notes.items()]
    if game.score is not None:
        tags.append(PbnTag("Score", f"NS {game.score}"))
    if game.score_imp is not None:
        imp = game.score_imp
        tags.append(PbnTag("ScoreIMP", f"NS {_number(imp)} EW {_number(-imp)}"))
    tags += game.other_tags
    return tags


def _number(value: int | float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _annotations(
    nags: Sequence[int], notes: Sequence[str], numbers: dict[str, int], first: int
) -> str:
    words = [f"${nag}" for nag in nags]
    for note in notes:
        number = numbers.setdefault(note, first + len(numbers))
        words.append(f"={number}=")
    return "".join(" " + word for word in words)


def _auction_lines(auction: PbnAuction, notes: dict[str, int]) -> tuple[str, ...]:
    words: list[str] = []
    for annotated in auction.calls:
        call = annotated.call
        word = "Pass" if isinstance(call, Pass) else str(call)
        if annotated.alert:
            word += "!"
        if annotated.suffix:
            word += (" " if annotated.alert else "") + annotated.suffix
        words.append(word + _annotations(annotated.nags, annotated.notes, notes, 1))
    lines = [" ".join(words[start : start + 4]) for start in range(0, len(words), 4)]
    markers = (["+"] if auction.continues else []) + (["*"] if auction.terminated else [])
    if markers:
        lines.append(" ".join(markers))
    return tuple(lines)


def _play_lines(play: PbnPlay, notes: dict[str, int], first: int) -> tuple[str, ...]:
    lines: list[str] = []
    for row in play.tricks:
        words = []
        for cell in row:
            word = "-" if cell.card is None else str(cell.card)
            words.append(word + cell.suffix + _annotations(cell.nags, cell.notes, notes, first))
        lines.append(" ".join(words))
    if play.terminated:
        lines.append("*")
    return tuple(lines)
