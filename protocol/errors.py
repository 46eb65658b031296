"""Named error codes of the wire protocol, and the one exception of the protocol layer."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ErrorCode", "ProtocolError"]


class ErrorCode(StrEnum):
    """Why the server refused a frame or an action. Sent as the ``code`` of an ``error`` frame."""

    # The frame itself.
    MALFORMED = "malformed"
    """Not a msgpack map, broken msgpack, or bytes after the message."""
    BINARY_ONLY = "binary_only"
    """A text WebSocket frame: the protocol speaks msgpack in binary frames only."""
    TOO_LARGE = "too_large"
    """The frame is larger than the protocol's size limit."""
    UNKNOWN_TYPE = "unknown_type"
    """The ``type`` field names no message of the protocol."""
    INVALID_MESSAGE = "invalid_message"
    """A known message with missing, extra or wrongly typed fields."""
    UNSUPPORTED_VERSION = "unsupported_version"
    """``hello`` asked for a protocol version this server does not speak."""

    # Who is speaking.
    NOT_AUTHENTICATED = "not_authenticated"
    """Anything but ``hello`` or ``ping`` before a successful ``hello``."""
    ALREADY_AUTHENTICATED = "already_authenticated"
    """A second ``hello`` on the same connection."""
    BAD_TOKEN = "bad_token"
    """The token is unknown here (or its match is no longer stored)."""
    FORBIDDEN = "forbidden"
    """This role may not send this message (a spectator calling, a player ruling...)."""
    BAD_SEQUENCE = "bad_sequence"
    """``last_seq`` is ahead of anything the server sent this viewer."""

    # The rules.
    OUT_OF_TURN = "out_of_turn"
    """It is not this seat's turn to act (or not theirs to answer this claim)."""
    ILLEGAL_CALL = "illegal_call"
    """A call the auction does not allow (insufficient bid, double of partner...)."""
    ILLEGAL_CARD = "illegal_card"
    """A card not held, or a revoke."""
    ILLEGAL_CLAIM = "illegal_claim"
    """A claim of more tricks than remain, by dummy, or an answer already given."""
    WRONG_PHASE = "wrong_phase"
    """The action belongs to another phase: a card in the auction, a call in the play,
    a card while a claim is pending, anything after the match is over."""

    # The match and the server.
    RATE_LIMITED = "rate_limited"
    """Too much, too fast from this connection (or this address): nothing was done. The
    error's ``retry_after_ms`` says when to try again."""
    BAD_DEALS = "bad_deals"
    """The organiser's deal file is not valid PBN or has too few boards."""
    BAD_RECORD = "bad_record"
    """The record of a match to import cannot be read, holds no team match played at two
    tables, or holds a call, card or result the rules refuse (the message names the
    board and the table)."""
    UNAVAILABLE = "unavailable"
    """The store did not confirm the action. Usually it was not stored; if the store failed
    after storing it, the action stands and the next updates show it. Try again after them."""
    INTERNAL = "internal"
    """A bug on the server; nothing was applied."""


class ProtocolError(Exception):
    """A frame or action refused with a named :class:`ErrorCode`; nothing was changed.

    ``ref`` is the refused message's ``ref`` when it could be read, even from a message that
    failed validation, so that a client can match the error to its request.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        ref: int | None = None,
        retry_after_ms: int | None = None,
        *,
        field: str | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.ref = ref
        self.retry_after_ms = retry_after_ms
        self.field = field
        """The refused message's field that the error concerns, when it concerns one."""
