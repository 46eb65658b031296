"""The ``duplicate`` command.

A director's tools at the table::

    duplicate score 4SX N --vul NS --tricks 8     the N-S score of a result
    duplicate imps 250                            IMPs for a score difference
    duplicate board 3 --seed 42                   board 3 of a seeded deal, as a diagram
    duplicate verify match.pbn [--commitment H]   the deals played are the ones committed to
        [--seed-commitment H] [--public-value V]  (and, if sealed, drawn from seed and value)

The server and its clients (``duplicate.serving``)::

    duplicate serve [--new-match]                 the match server, with its own Redis
    duplicate new-match --boards 4 ...            a match on a running server: its links
    duplicate new-event --teams FILE ...          an event of many matches (round robin, Swiss)
    duplicate event ID [--start-round N]          where an event stands: rounds, standings,
        [--adjust TEAM VPS REASON]                Butler; the director begins rounds, adjusts
    duplicate play LINK                           the table in a terminal
    duplicate bot LINK                            a robot at a seat
    duplicate bcb LINK...                         Blue Chip Bridge robots at seats (TCP)
    duplicate protocol-schema                     the JSON Schema of the protocol
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

from bridge import (
    BridgeError,
    Contract,
    Deal,
    Seat,
    Suit,
    Vulnerability,
    board_dealer,
    board_vulnerability,
    imps,
    score,
)
from bridge.cards import Hand
from bridge.commitment import RecordVerified, verify_record
from duplicate.events import add_event_commands
from duplicate.serving import CommandFailed, add_commands

_PASSED_OUT = {"P", "PASS", "PASSED", "PASSOUT", "AP"}


def seeded_deal(seed: int, board: int) -> Deal:
    """The deal of ``board`` in the set of boards made from ``seed``: the same on every machine."""
    return Deal.random(random.Random(f"duplicate:{seed}:{board}"))


def _hand_lines(hand: Hand, symbols: bool) -> list[str]:
    lines = []
    for suit in (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS):
        ranks = " ".join(card.rank.letter for card in hand.suit(suit)) or "-"
        lines.append(f"{suit.symbol if symbols else suit.letter} {ranks}")
    return lines


def board_diagram(number: int, deal: Deal, symbols: bool = True) -> str:
    """A board as a director prints it: number, dealer, vulnerability and the four hands."""
    vulnerability = board_vulnerability(number)
    vulnerable = {
        Vulnerability.NONE: "None",
        Vulnerability.NS: "N-S",
        Vulnerability.EW: "E-W",
        Vulnerability.BOTH: "All",
    }[vulnerability]
    north, east, south, west = (_hand_lines(deal[seat], symbols) for seat in Seat)
    width = max(len(line) for line in west) + 4
    indent = " " * width
    lines = [
        f"Board {number}    Dealer: {board_dealer(number).name.title()}    Vulnerable: {vulnerable}",
        "",
    ]
    lines.append(f"{indent}North")
    lines += [indent + line for line in north]
    lines.append(f"{'West'.ljust(width)}{' ' * width}East")
    lines += [f"{w.ljust(width)}{' ' * width}{e}" for w, e in zip(west, east, strict=True)]
    lines.append(f"{indent}South")
    lines += [indent + line for line in south]
    return "\n".join(lines)


def _score(args: argparse.Namespace) -> str:
    vulnerability = Vulnerability.parse(args.vul)
    if args.contract.strip().upper() in _PASSED_OUT:
        return str(score(None, None, vulnerability, 0))
    if args.declarer is None:
        raise BridgeError("a contract needs its declarer: N, E, S or W")
    if args.tricks is None:
        raise BridgeError("say how many tricks declarer took: --tricks N")
    contract = Contract.parse(args.contract)
    return str(score(contract, Seat.parse(args.declarer), vulnerability, args.tricks))


def _imps(args: argparse.Namespace) -> str:
    return str(imps(args.difference))


def _board(args: argparse.Namespace) -> str:
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(63)
    deal = seeded_deal(seed, args.number)
    text = board_diagram(args.number, deal, symbols=not args.letters)
    if args.pbn:
        text += f'\n\n[Deal "{deal.to_pbn(board_dealer(args.number))}"]'
    return text


def _verify(args: argparse.Namespace) -> str:
    if args.record == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(args.record, encoding="utf-8") as file:
                text = file.read()
        except (OSError, UnicodeDecodeError) as error:
            raise BridgeError(f"cannot read {args.record}: {error}") from None
    checked = verify_record(text, args.commitment, args.seed_commitment, args.public_value)
    said = (
        f"verified: the {checked.boards} boards committed to (sha256 {checked.commitment}) "
        f"are the boards of the record's {checked.games} games"
    )
    if checked.seed_commitment is not None:
        said += (
            f"; every board is the one drawn from the seed committed to (sha256 "
            f"{checked.seed_commitment}) and the public value {checked.public!r}"
        )
        if checked.form is not None:
            said += f" (its form, sealed with the seed: {checked.form.text()!r})"
    return "\n".join([said, *_unchecked(args, checked)])


def _unchecked(args: argparse.Namespace, checked: RecordVerified) -> list[str]:
    """What ``verify`` took from the record itself rather than from the user: the lines
    that say so (none when every value a check needs came from outside the record)."""
    notes = []
    if args.commitment is None:
        notes.append(
            "only self-consistency was checked: the record agrees with the commitment it "
            "states itself, which does not show that the deals were committed to before "
            "play; give --commitment with the one you were shown when the match began"
        )
    if checked.seed_commitment is not None and args.seed_commitment is None:
        notes.append(
            "the seed's commitment was taken from the record, not compared with the one "
            "published before the public value was fixed (--seed-commitment)"
        )
    if checked.seed_commitment is not None and args.public_value is None:
        notes.append(
            "the public value was taken from the record, not compared with the one "
            "announced (--public-value)"
        )
    if checked.seed_commitment is not None and checked.form is None:
        notes.append(
            "warning: the seed was sealed without a form for the public value (a deal set "
            "of version 1), so whoever held the seed could have chosen among spellings of "
            "the public value, each drawing other deals"
        )
    return notes


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``duplicate`` command."""
    parser = argparse.ArgumentParser(
        prog="duplicate", description="Duplicate bridge: a director's tools at the table."
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = commands.add_parser("score", help="the N-S score of a table's result")
    p.add_argument("contract", help="like 4S, 3NT, 4SX, 6HXX, or Pass for a passed-out board")
    p.add_argument("declarer", nargs="?", help="N, E, S or W")
    p.add_argument("--vul", default="None", help="None, NS, EW or All (default None)")
    p.add_argument("--tricks", type=int, help="the tricks declarer took, 0-13")
    p.set_defaults(run=_score)

    p = commands.add_parser("imps", help="IMPs for a difference of two N-S scores")
    p.add_argument("difference", type=int, help="table 1's N-S score minus table 2's")
    p.set_defaults(run=_imps)

    p = commands.add_parser("board", help="print a board from a seeded (or a fresh random) deal")
    p.add_argument("number", type=int, help="the board number, 1 or more")
    p.add_argument("--seed", type=int, help="the seed of the set of boards; omit for a fresh deal")
    p.add_argument("--letters", action="store_true", help="S H D C instead of suit symbols")
    p.add_argument("--pbn", action="store_true", help="also print the deal as a PBN tag")
    p.set_defaults(run=_board)

    p = commands.add_parser(
        "verify", help="check a finished match's record against its deal commitment"
    )
    p.add_argument("record", help="the match record (PBN, from `duplicate record`), or - for stdin")
    p.add_argument(
        "--commitment",
        help="the commitment you were shown when the match began (64 hex digits)",
    )
    p.add_argument(
        "--seed-commitment",
        help="for boards drawn from a sealed seed: the seed's commitment the organiser "
        "published before the public value was fixed",
    )
    p.add_argument(
        "--public-value",
        metavar="VALUE",
        help="for boards drawn from a sealed seed: the public value as you saw it announced "
        "(any spelling its form allows: for 'digits 5', '6 2 5 1 3' or 'dice 6-2-5-1-3')",
    )
    p.set_defaults(run=_verify)

    add_commands(commands)
    add_event_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for bad input, or for a failure the
    user can mend: a port in use, a server or Redis out of reach, a refused request)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        output = args.run(args)
        if output:
            print(output)
    except (BridgeError, CommandFailed) as error:
        # One line, whatever the message holds (a refusal may quote a file's lines).
        message = " ".join(str(error).splitlines())
        print(f"duplicate {args.command}: {message}", file=sys.stderr)
        return 2
    return 0
