"""Tokens derived from the organiser key: links, results links, robots' seats and seals.

The store keeps only the tokens' hashes and the nonces they were made with, so that the
same answer (a creation asked for again, the organiser's ``get_links``) can be given again
and a copy of the store holds no token that works.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable

from server.console import SESSION_TOKEN_PREFIX
from server.events import EVENT_TOKEN_PREFIX

__all__ = ["RESERVED_PREFIXES", "Keys"]

RESERVED_PREFIXES = (SESSION_TOKEN_PREFIX, EVENT_TOKEN_PREFIX)
"""How the tokens begin that the hello tells apart before any lookup: a link's never does."""


class Keys:
    """What the organiser key derives. Pure: no I/O."""

    def __init__(self, organiser_key: str) -> None:
        self._key = organiser_key.encode()

    def is_organiser(self, token: str) -> bool:
        """Whether ``token`` is the organiser key itself (compared in constant time)."""
        return hmac.compare_digest(token.encode(), self._key)

    def tokens(self, match_id: str, nonce: str) -> Callable[[str], str]:
        """The token of each link of a new match, by its key (``"1N"``, ``"spectator"``,
        ``"director"``), made with the match's ``nonce`` (drawn at random, or a creation's
        that may be asked for again)."""
        return lambda key: self.link_token(match_id, key, nonce)

    def link_token(self, match_id: str, key: str, nonce: str) -> str:
        """The token of the match's link ``key`` (``"1N"``, ``"spectator"``, ``"director"``)
        made with ``nonce``: never beginning as a session's or a results link's token does
        (the hello tells those apart by how they begin)."""
        return self.derived(f"link:{match_id}:{key}:{nonce}", RESERVED_PREFIXES)

    def results_token(self, event_id: str, nonce: str) -> str:
        """The token of an event's results link, made with the event's nonce."""
        return EVENT_TOKEN_PREFIX + self.derived(f"results:{event_id}:{nonce}")

    def robot_token(self, match_id: str, seat: str, nonce: str) -> str:
        """The token of a seat the server's robot plays, made with the seat's nonce."""
        return self.derived(f"robot:{match_id}:{seat}:{nonce}", RESERVED_PREFIXES, size=43)

    def seal_of(self, nonce: str) -> str:
        """The seal of a ``seal_deals`` that may be asked for again (never starts with "-":
        it is typed after --seal on a command line)."""
        return self.derived(f"seal:{nonce}", ("-",))

    def derived(self, message: str, unlike: tuple[str, ...] = (), size: int = 32) -> str:
        """A token-like string derived from the organiser key (``size`` characters, at most
        43; 32 as a drawn token's) that begins with none of ``unlike`` (derived again,
        counted, until so)."""
        derived = message
        counter = 0
        while True:
            digest = hmac.new(self._key, derived.encode(), hashlib.sha256).digest()
            token = base64.urlsafe_b64encode(digest).decode()[:size]
            if not token.startswith(unlike):
                return token
            counter += 1
            derived = f"{message}:{counter}"
