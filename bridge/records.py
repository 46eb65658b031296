"""Team matches played elsewhere, read from their records: each board's deal and how each
of its two tables bid and played it, checked through the rules.

A record may stop the play early (a claim, or only the first tricks written down): the
table's result then says how many tricks declarer took, and the rest of the play is a
claim by declarer of what was left to make it. Table 1 is the open room, where team A
sits North-South; table 2 the closed room, where team A sits East-West.

>>> from bridge.pbn import parse_games
>>> text = '''
... [Board "1"][HomeTeam "Reds"][VisitTeam "Blues"][Room "Open"][Dealer "N"]
... [Vulnerable "None"]
... [Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]
... [Declarer "N"][Contract "1S"][Result "7"]
... [Auction "N"]
... 1S Pass Pass Pass
...
... [Board "1"][HomeTeam "Reds"][VisitTeam "Blues"][Room "Closed"][Dealer "N"]
... [Vulnerable "None"]
... [Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]
... [Declarer ""][Contract "Pass"][Result ""]
... [Auction "N"]
... Pass Pass Pass Pass
... '''
>>> [match] = matches_from_pbn(parse_games(text))
>>> assert isinstance(match, PlayedMatch)
>>> match.team_a, match.team_b, match.swings()
('Reds', 'Blues', (2,))
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from bridge.auction import Auction, Call, Contract
from bridge.boards import Vulnerability
from bridge.cards import Card, Deal, Seat
from bridge.errors import BridgeError
from bridge.lin import LinBoard, LinMatch, Room
from bridge.pbn import PbnGame
from bridge.play import Play
from bridge.scoring import imps, score

__all__ = [
    "Action",
    "PlayedBoard",
    "PlayedMatch",
    "PlayedTable",
    "RecordError",
    "match_from_lin",
    "match_from_pbn",
    "matches_from_pbn",
    "pbn_matches",
    "played_tables",
]


class RecordError(BridgeError):
    """A record that does not hold a played match, or holds one the rules refuse; the
    message names the board and the table."""


Action = tuple[str, Seat, Call | Card | int, str | None]
"""One thing a player did at the table, in order: ``("call", seat, call, alert)`` (the
alert as :attr:`PlayedTable.calls` gives it),
``("card", seat, card, None)`` (declarer's seat for dummy's cards: declarer plays them) or
``("claim", declarer, tricks of those left, None)``."""


@dataclass(frozen=True, slots=True)
class PlayedTable:
    """One table's play of a board: who sat where, the calls (each with its alert's
    explanation, ``""`` for an alert the record does not explain, or None when it was not
    alerted), the cards in the order played, and the tricks declarer took (None for a
    board passed out)."""

    names: tuple[str | None, str | None, str | None, str | None]
    """North, East, South, West."""
    calls: tuple[tuple[Call, str | None], ...]
    cards: tuple[Card, ...]
    tricks: int | None

    def replay(self, deal: Deal, dealer: Seat) -> tuple[Auction, Play | None]:
        """The auction and the play through the rules, the play ended by declarer's claim
        of what the record says was left (raises :class:`RecordError`)."""
        auction = Auction(dealer)
        try:
            for call, _alert in self.calls:
                auction.call(call)
        except BridgeError as error:
            raise RecordError(f"the auction: {error}") from None
        if not auction.is_complete:
            raise RecordError("the auction is not complete")
        contract, declarer = auction.contract, auction.declarer
        if contract is None or declarer is None:
            if self.cards or self.tricks is not None:
                raise RecordError("a board passed out has no play and no result")
            return auction, None
        if self.tricks is None:
            raise RecordError(f"{contract} by {declarer.name.title()} has no result")
        play = Play(deal, contract, declarer)
        try:
            for card in self.cards:
                play.play(card)
        except BridgeError as error:
            raise RecordError(f"the play: {error}") from None
        if not play.is_complete:
            left = self.tricks - play.declarer_tricks
            if not 0 <= left <= play.remaining_tricks:
                raise RecordError(
                    f"declarer took {self.tricks} tricks, but had {play.declarer_tricks} "
                    f"with {play.remaining_tricks} to play"
                )
            play.claim(declarer, left)
            for decider in sorted(play.pending_claim.deciders if play.pending_claim else ()):
                play.accept_claim(decider)
        if play.result != self.tricks:
            raise RecordError(
                f"declarer took {play.result} tricks in the play, the record says {self.tricks}"
            )
        return auction, play

    def actions(self, deal: Deal, dealer: Seat) -> Iterator[Action]:
        """What the players did, in order, as they would do it at our table."""
        _, play = self.replay(deal, dealer)
        seat = dealer
        for call, alert in self.calls:
            yield ("call", seat, call, alert)
            seat = seat.next
        if play is None:
            return
        replay = Play(deal, play.contract, play.declarer)
        for card in self.cards:
            actor = replay.acting_seat
            assert actor is not None
            yield ("card", actor, card, None)
            replay.play(card)
        if not replay.is_complete:
            assert self.tricks is not None
            yield ("claim", play.declarer, self.tricks - replay.declarer_tricks, None)

    def ns_score(self, deal: Deal, dealer: Seat, vulnerability: Vulnerability) -> int:
        """North-South's score at this table."""
        auction, _ = self.replay(deal, dealer)
        return score(auction.contract, auction.declarer, vulnerability, self.tricks or 0)

    def contract(self, deal: Deal, dealer: Seat) -> tuple[Contract | None, Seat | None]:
        auction, _ = self.replay(deal, dealer)
        return auction.contract, auction.declarer


@dataclass(frozen=True, slots=True)
class PlayedBoard:
    """A board and its two tables: ``open`` (table 1) and ``closed`` (table 2)."""

    number: int
    dealer: Seat
    vulnerability: Vulnerability
    deal: Deal
    open: PlayedTable
    closed: PlayedTable

    def swing(self) -> int:
        """Team A's IMPs on the board (its N-S score at table 1 against table 2's)."""
        return imps(
            self.open.ns_score(self.deal, self.dealer, self.vulnerability)
            - self.closed.ns_score(self.deal, self.dealer, self.vulnerability)
        )


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """A team match played elsewhere: team A sits North-South at table 1 (the open
    room) and East-West at table 2; its boards in order. ``left_out``: the numbers of
    boards the record holds at one table only (they cannot be compared)."""

    team_a: str
    team_b: str
    boards: tuple[PlayedBoard, ...]
    left_out: tuple[int, ...] = ()

    def swings(self) -> tuple[int, ...]:
        """Team A's IMPs on each board, in order."""
        return tuple(board.swing() for board in self.boards)

    @property
    def name(self) -> str:
        return f"{self.team_a} - {self.team_b}"


def _table(game: PbnGame, where: str) -> PlayedTable:
    if game.auction is None:
        raise RecordError(f"{where}: no auction (the board was not played there)")
    calls = tuple(
        (annotated.call, "; ".join(annotated.notes) if annotated.alert or annotated.notes else None)
        for annotated in game.auction.calls
    )
    if game.auction.dealer != game.dealer and game.dealer is not None:
        raise RecordError(f"{where}: the auction does not start with the dealer")
    strain = game.contract.strain if game.contract is not None else None
    cards = () if game.play is None or strain is None else game.play.cards(strain)
    names = (game.north, game.east, game.south, game.west)
    return PlayedTable(names, calls, cards, None if game.passed_out else game.result)


def _teams(game: PbnGame) -> tuple[str, str]:
    home, visit = game.tag("HomeTeam"), game.tag("VisitTeam")
    if not home or not visit:
        raise RecordError(f"board {game.board}: a team match's record names HomeTeam and VisitTeam")
    return home, visit


def pbn_matches(games: Sequence[PbnGame]) -> list[list[PbnGame]]:
    """The games of a PBN file (a whole round may hold many matches) grouped by match:
    by their two teams (``HomeTeam``, ``VisitTeam``), in the order they first appear."""
    grouped: dict[frozenset[str], list[PbnGame]] = {}
    for game in games:
        grouped.setdefault(frozenset(_teams(game)), []).append(game)
    return list(grouped.values())


def matches_from_pbn(games: Sequence[PbnGame]) -> list[PlayedMatch | RecordError]:
    """Each match of a PBN file (:func:`pbn_matches`) read by :func:`match_from_pbn`, or
    the reason it cannot be."""
    found: list[PlayedMatch | RecordError] = []
    for group in pbn_matches(games):
        try:
            found.append(match_from_pbn(group))
        except RecordError as error:
            found.append(error)
    return found


def match_from_pbn(games: Sequence[PbnGame]) -> PlayedMatch:
    """The team match of these games (one match: two teams), each board's two tables
    paired and checked through the rules.

    With ``Room`` tags the ``Open`` room is table 1 and its home team is team A. Without
    them a record's home team is the one sitting North-South there, and team A is the
    home team of the first record. A board found at one table only is left out
    (``left_out``); a record of other teams, no board at both tables, a board twice at a
    table, or a table the rules refuse is a :class:`RecordError`."""
    if not games:
        raise RecordError("the record holds no games")
    if len(pbn_matches(games)) > 1:
        names = [" - ".join(_teams(group[0])) for group in pbn_matches(games)]
        raise RecordError(f"the record holds {len(names)} matches: {', '.join(names)}")
    return _match(list(games))


def _match(games: list[PbnGame]) -> PlayedMatch:
    first = games[0]
    rooms = {game.tag("Room") for game in games}
    by_room = rooms <= {"Open", "Closed"} and None not in rooms
    team_a, team_b = _teams(first)
    if by_room:
        opens = [g for g in games if g.tag("Room") == "Open"]
        if opens:
            team_a, team_b = _teams(opens[0])
    boards: dict[int, dict[int, PbnGame]] = {}
    for game in games:
        if game.board is None:
            raise RecordError(f"{team_a} - {team_b}: a game without a board number")
        if by_room:
            table = 1 if game.tag("Room") == "Open" else 2
        else:
            table = 1 if _teams(game)[0] == team_a else 2
        tables = boards.setdefault(game.board, {})
        if table in tables:
            raise RecordError(f"{team_a} - {team_b}: board {game.board} twice at table {table}")
        tables[table] = game
    played: list[PlayedBoard] = []
    left_out: list[int] = []
    for number, tables in sorted(boards.items()):
        if len(tables) < 2:
            left_out.append(number)
            continue
        played.append(_board(number, tables[1], tables[2], f"{team_a} - {team_b}"))
    if not played:
        raise RecordError(f"{team_a} - {team_b}: no board was played at both tables")
    return PlayedMatch(team_a, team_b, tuple(played), tuple(left_out))


def _board(number: int, open_game: PbnGame, closed_game: PbnGame, match: str) -> PlayedBoard:
    where = f"{match}, board {number}"
    deal, dealer, vulnerability = open_game.deal, open_game.dealer, open_game.vulnerability
    if deal is None or dealer is None or vulnerability is None:
        raise RecordError(f"{where}: the record lacks the deal, the dealer or the vulnerability")
    if (closed_game.deal, closed_game.dealer, closed_game.vulnerability) != (
        deal,
        dealer,
        vulnerability,
    ):
        raise RecordError(f"{where}: the two tables' deals differ")
    board = PlayedBoard(
        number,
        dealer,
        vulnerability,
        deal,
        _table(open_game, f"{where}, table 1"),
        _table(closed_game, f"{where}, table 2"),
    )
    for table, played, game in ((1, board.open, open_game), (2, board.closed, closed_game)):
        try:
            contract, declarer = played.contract(deal, dealer)
        except RecordError as error:
            raise RecordError(f"{where}, table {table}: {error}") from None
        if game.contract is not None and (contract, declarer) != (game.contract, game.declarer):
            raise RecordError(
                f"{where}, table {table}: the auction ends in {contract} by {declarer}, "
                f"the record says {game.contract} by {game.declarer}"
            )
    return board


def match_from_lin(match: LinMatch) -> PlayedMatch:
    """The team match of a LIN vugraph file: its first team sits North-South in the open
    room (``qx|o..|``, table 1). A board found in one room only is left out; a board the
    rules refuse, or no board in both rooms, is a :class:`RecordError`."""
    team_a, team_b = (
        name or fallback for name, fallback in zip(match.teams, ("Team A", "Team B"), strict=True)
    )
    name = f"{team_a} - {team_b}"
    rooms: dict[int, dict[Room, LinBoard]] = {}
    for board in match.boards:
        assert board.number is not None
        assert board.room is not None
        if board.room in rooms.setdefault(board.number, {}):
            raise RecordError(
                f"{name}: board {board.number} twice in the {board.room.name.lower()} room"
            )
        rooms[board.number][board.room] = board
    played: list[PlayedBoard] = []
    left_out: list[int] = []
    for number, both in sorted(rooms.items()):
        if len(both) < 2:
            left_out.append(number)
            continue
        first, second = both[Room.OPEN], both[Room.CLOSED]
        where = f"{name}, board {number}"
        if (first.deal, first.dealer, first.vulnerability) != (
            second.deal,
            second.dealer,
            second.vulnerability,
        ):
            raise RecordError(f"{where}: the two tables' deals differ")
        tables = []
        for table, board in ((1, first), (2, second)):
            played_table = _lin_table(board)
            try:
                played_table.replay(board.deal, board.dealer)
            except RecordError as error:
                raise RecordError(f"{where}, table {table}: {error}") from None
            tables.append(played_table)
        played.append(
            PlayedBoard(number, first.dealer, first.vulnerability, first.deal, tables[0], tables[1])
        )
    if not played:
        raise RecordError(f"{name}: no board was played in both rooms")
    return PlayedMatch(team_a, team_b, tuple(played), tuple(left_out))


def _lin_table(board: LinBoard) -> PlayedTable:
    names = (board.north or None, board.east or None, board.south or None, board.west or None)
    calls = tuple(
        (lin.call, lin.explanation if lin.alert or lin.explanation else None) for lin in board.calls
    )
    tricks = None if board.is_passed_out else board.result
    return PlayedTable(names, calls, board.cards, tricks)


def played_tables(match: PlayedMatch) -> Iterable[tuple[PlayedBoard, int, PlayedTable]]:
    """Every (board, table, its play) of the match, board by board."""
    for board in match.boards:
        yield board, 1, board.open
        yield board, 2, board.closed
