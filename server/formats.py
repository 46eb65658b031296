"""Setting up a match's boards and, for the robot-table format, table 2's record."""

from __future__ import annotations

import random
from typing import Any

from bridge import Auction, BridgeError, Deal, Play, board_dealer, board_vulnerability
from bridge.commitment import seeded_deal
from bridge.lin import parse_lin_match
from bridge.records import PlayedMatch, match_from_lin, match_from_pbn
from robots.table2 import play_robot_table
from server.config import BoardSpec
from server.state import StoredEvent, result_to_json

__all__ = [
    "boards_from_pbn",
    "dealt_boards",
    "read_played_match",
    "robot_table_log",
    "seeded_boards",
]


def boards_from_pbn(text: str, count: int) -> tuple[BoardSpec, ...]:
    """The first ``count`` boards with a deal in a PBN file (dealer and vulnerability from
    the file, else from the board number)."""
    from bridge.pbn import parse_games

    specs: list[BoardSpec] = []
    seen: set[int] = set()
    for index, game in enumerate(parse_games(text)):
        if game.deal is None:
            continue
        number = game.board if game.board is not None else index + 1
        if number in seen:
            continue
        seen.add(number)
        dealer = game.dealer if game.dealer is not None else board_dealer(number)
        vulnerability = game.vulnerability or board_vulnerability(number)
        specs.append(BoardSpec(number, dealer, vulnerability, game.deal))
        if len(specs) == count:
            return tuple(specs)
    raise BridgeError(f"the deal file has {len(specs)} boards with deals; the match needs {count}")


def read_played_match(format: str, text: str) -> PlayedMatch:
    """The one team match of a record (``format`` ``pbn`` or ``lin``), checked through the
    rules; raises BridgeError (a RecordError saying which board and table)."""
    from bridge.pbn import parse_games

    if format == "lin":
        return match_from_lin(parse_lin_match(text))
    return match_from_pbn(parse_games(text))


def seeded_boards(seed: str, public: str, count: int) -> tuple[BoardSpec, ...]:
    """Boards 1..count drawn from a sealed seed and the organiser's public value
    (:func:`bridge.commitment.seeded_deal`)."""
    return tuple(
        BoardSpec(n, board_dealer(n), board_vulnerability(n), seeded_deal(seed, public, n))
        for n in range(1, count + 1)
    )


def dealt_boards(count: int) -> tuple[BoardSpec, ...]:
    """Boards 1..count dealt from the operating system's secure random source."""
    rng = random.SystemRandom()
    return tuple(
        BoardSpec(n, board_dealer(n), board_vulnerability(n), Deal.random(rng))
        for n in range(1, count + 1)
    )


def robot_table_log(
    boards: tuple[BoardSpec, ...],
) -> tuple[list[StoredEvent], dict[int, dict[str, Any]]]:
    """Table 2 of a robot-table match, played by the robots: its log (as the server would
    have stored it, card by card) and each board's result. Deterministic."""
    log: list[StoredEvent] = []
    results: dict[int, dict[str, Any]] = {}
    for spec in boards:
        record = play_robot_table(spec.deal, spec.dealer, spec.vulnerability)
        log.append({"type": "start", "board": spec.number})
        auction = Auction(spec.dealer)
        for call in record.calls:
            seat = auction.turn
            assert seat is not None
            log.append({"type": "call", "seat": seat.letter, "call": str(call)})
            auction.call(call)
        assert auction.contract is not None
        assert auction.declarer is not None
        play = Play(spec.deal, auction.contract, auction.declarer)
        for card in record.cards:
            actor = play.acting_seat
            assert actor is not None
            log.append({"type": "card", "seat": actor.letter, "card": str(card)})
            play.play(card)
        results[spec.number] = result_to_json(record.result)
    return log, results
