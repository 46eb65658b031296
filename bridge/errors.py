"""The one exception tree of the rules library.

Every error the rules raise is a :class:`BridgeError`, itself a ``ValueError``, so
callers that only care that input was refused can catch one class. The subclasses
say what kind of refusal it was, which is what the server maps to wire error codes.
"""

from __future__ import annotations


class BridgeError(ValueError):
    """Root of every error raised by :mod:`bridge`."""


class ParseError(BridgeError):
    """Text that does not describe a card, call, contract, deal or record.

    ``line`` is the 1-based line number for errors in multi-line files (PBN), else None.
    """

    def __init__(self, message: str, *, line: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)


class IllegalCall(BridgeError):
    """A call the auction does not allow now; the auction is left unchanged."""


class IllegalPlay(BridgeError):
    """A card or claim action the play does not allow now; the play is left unchanged."""


class OutOfTurn(IllegalCall, IllegalPlay):
    """The seat that tried to act is not the seat whose turn it is."""


class WrongPhase(IllegalCall, IllegalPlay):
    """The action belongs to another phase: the auction or play is over, or a claim is pending."""


class MovementError(BridgeError):
    """A movement that cannot be built or asked that: wrong numbers of players or boards, a
    board or table it does not have, a board compared before all its tables played it."""
