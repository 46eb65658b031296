"""A robot player: it plays through the protocol exactly as a third-party client would.

It connects with a seat link (saying it is a robot), sees only what that seat's view holds,
and acts when its view says it must: a call or a card on its turn, an answer to a claim or
an undo it decides, an explanation of its own call when an opponent asks, the next board
once a finished one is on review. Like a player at the table it remembers the tricks it
saw played (a view shows only the last one, law 66). Decisions come from :mod:`robots`
(pure, deterministic), at its ``level`` (:data:`robots.knowledge.Level`); a call or a card
is decided off the event loop, in a worker thread or as its owner says (``think``: the
server's strong robots think in worker processes, :mod:`server.thinking`), so a strong
robot thinking for a second never holds up the loop it shares with other robots or with
a server. It plays at a human pace: it waits ``delay`` seconds before each call, card or
answer, thinking meanwhile (0 for robots among robots, and in tests), and acts only if
what its seat knows has not changed in the meantime.

    duplicate bot [--level strong] http://127.0.0.1:8765/play#TOKEN
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from bridge import Call, Card, Contract, Hand, Seat, Vulnerability
from bridge.play import Trick
from clients.client import Client, ClientError, Link
from protocol.errors import ErrorCode
from protocol.messages import BoardView, PlayerView, TrickView, Update
from robots import SeatView
from robots.knowledge import Level
from robots.levels import decide, meaning_at
from robots.play import judge_claim

__all__ = ["Move", "Robot", "seat_view"]

log = logging.getLogger(__name__)

Action = Callable[[], Awaitable[object]]


Choice = tuple[str, str | None]
"""A call or a card as protocol text, and the call's alert (None: none)."""


@dataclass(frozen=True)
class Move:
    """A call or a card still to decide: ``choose`` (pure and picklable; slow at the strong
    level) gives it from ``knows``, what the seat knew; ``send`` sends it. Awaiting the
    move decides it in a worker thread, then sends it."""

    knows: SeatView
    choose: Callable[[], Choice]
    send: Callable[[str, str | None], Awaitable[object]]

    async def __call__(self) -> object:
        return await self.send(*await asyncio.to_thread(self.choose))


def _hand(cards: list[str]) -> Hand:
    return Hand(Card.parse(card) for card in cards)


def _trick(trick: TrickView) -> Trick:
    return Trick(
        Seat.parse(trick.leader),
        tuple(Card.parse(played.card) for played in trick.cards),
        None if trick.winner is None else Seat.parse(trick.winner),
    )


class TrickMemory:
    """The tricks of the board in play as a player saw them quitted, trick by trick: a view
    carries only the last one (law 66), so a player who wants them all remembers them."""

    def __init__(self) -> None:
        self.board: tuple[int, int, int] | None = None
        """(table, round, board) of the board remembered: a board may be replayed later."""
        self.tricks: dict[int, TrickView] = {}

    def observe(self, board: BoardView | None) -> None:
        """Note what one view shows of the tricks (call it for every update, in order)."""
        if board is None or board.contract is None:
            return
        if self.board != (board.table, board.round, board.board):
            self.board = (board.table, board.round, board.board)
            self.tricks = {}
        if board.tricks:
            self.tricks = dict(enumerate(board.tricks))
            return
        completed = board.tricks_ns + board.tricks_ew
        for index in [i for i in self.tricks if i >= completed]:
            del self.tricks[index]  # an undo reopened a trick
        if board.last_trick is not None and completed > 0:
            self.tricks[completed - 1] = board.last_trick

    def completed(self, board: BoardView) -> tuple[TrickView, ...] | None:
        """Every completed trick of ``board`` in order, or None when some were not seen."""
        if self.board != (board.table, board.round, board.board):
            return () if board.tricks_ns + board.tricks_ew == 0 else None
        count = board.tricks_ns + board.tricks_ew
        if any(index not in self.tricks for index in range(count)):
            return None
        return tuple(self.tricks[index] for index in range(count))


def seat_view(view: PlayerView, tricks: tuple[TrickView, ...] | None = None) -> SeatView:
    """What the robot's seat knows, from its protocol view and the tricks it remembers
    (``tricks``; None: the view's own, which holds them once the board is over)."""
    board = view.board
    assert board is not None
    me = Seat.parse(view.seat)
    dummy = None if board.dummy is None else Seat.parse(board.dummy)
    exposed = dummy is not None and dummy != me and board.dummy in board.hands
    in_play = board.contract is not None
    return SeatView(
        me=me,
        turn=Seat.parse(board.turn) if board.turn is not None else me,
        dealer=Seat.parse(board.dealer),
        vulnerability=Vulnerability.parse(board.vulnerability),
        calls=tuple(Call.parse(entry.call) for entry in board.auction),
        hand=_hand(board.hands[view.seat]),
        contract=Contract.parse(board.contract) if board.contract is not None else None,
        declarer=Seat.parse(board.declarer) if board.declarer is not None else None,
        dummy_hand=_hand(board.hands[board.dummy]) if exposed and board.dummy else None,
        tricks=tuple(_trick(t) for t in (board.tricks if tricks is None else tricks)),
        current=_trick(board.current_trick) if board.current_trick is not None else None,
        legal_calls=() if in_play else tuple(Call.parse(c) for c in board.legal),
        legal_cards=tuple(Card.parse(c) for c in board.legal) if in_play else (),
    )


class Robot:
    """One robot at one seat, for the whole match (it resumes after a dropped connection).

    ``delay`` is how long it waits before each call, card or answer, in seconds."""

    def __init__(
        self,
        link: str | Link,
        name: str = "duplicate-robot",
        delay: float = 0.0,
        headers: Mapping[str, str] | None = None,
        keep_messages: bool = True,
        level: Level = "seed",
        think: Callable[[Callable[[], Choice]], Awaitable[Choice]] | None = None,
        heartbeat: bool = False,
    ) -> None:
        self.link = link if isinstance(link, Link) else Link.parse(link)
        self.heartbeat = heartbeat
        """Ask for heartbeats (:class:`Client`): a robot elsewhere on the network learns
        within seconds that its connection died, and resumes."""
        self.name = name
        self.delay = delay
        self.level: Level = level
        self.think = think or asyncio.to_thread
        """How a call or a card is worked out (by default in a thread of this process; the
        server's robots think in worker processes: :mod:`server.thinking`)."""
        self.keep_messages = keep_messages
        """Keep every message its client received (for audits); else let each go once
        noted: a match's updates, each with its whole view, are thousands of objects that
        every full garbage collection of the process walks."""
        self.headers = dict(headers or {})
        """Extra headers of its connections' opening requests."""
        self.client: Client | None = None
        self.errors: list[ClientError] = []
        """Refusals the server sent this robot (a correct robot gets none)."""
        self.memory = TrickMemory()
        self.plain_cards = 0
        """Cards played without the quitted tricks in memory (after a restart mid-board)."""
        self._seen = 0  # messages of client.received already noted in the memory
        self._acted_at = -1

    async def run(self) -> None:
        """Play until the match is over, reconnecting (and resuming) when the link drops."""
        delay = 0.1
        while True:
            try:
                if self.client is None:
                    self.client = await Client.connect(
                        self.link,
                        name=self.name,
                        robot=True,
                        headers=self.headers,
                        heartbeat=self.heartbeat,
                    )
                elif not self.client.is_connected:
                    await self.client.reconnect()
                    # Look at the table afresh: an action cut short before it was sent is
                    # decided again (one that was sent is in doubt, and sent again below).
                    self._acted_at = -1
                if self.client.in_doubt:
                    refused = await self._resend()
                    if self.client.in_doubt:  # the server still cannot take it: wait, again
                        raise refused or ClientError(
                            ErrorCode.UNAVAILABLE, "an action is still in doubt"
                        )
                delay = 0.1
                if await self._play():
                    return
            except (ClientError, OSError) as error:
                if isinstance(error, ClientError) and error.code == ErrorCode.BAD_TOKEN:
                    raise
                if (
                    isinstance(error, ClientError)
                    and error.code == ErrorCode.UNAVAILABLE
                    and error.retry_after_ms
                    and self.client is not None
                    and self.client.is_connected
                ):
                    # The server is past what it can serve and says when to come back:
                    # then, and no later (its action, in doubt, goes again first).
                    log.info("%s: %s; again in %d ms", self.name, error, error.retry_after_ms)
                    await asyncio.sleep(error.retry_after_ms / 1000)
                    continue
                log.info("%s: connection lost (%s); resuming", self.name, error)
                if isinstance(error, ClientError) and error.retry_after_ms:
                    delay = max(delay, error.retry_after_ms / 1000)  # as the server asks
                await asyncio.sleep(delay)  # back off before reconnecting, not before deciding
                delay = min(delay * 2, 5.0)

    async def _resend(self) -> ClientError | None:
        """An action whose answer a drop took (or that the server could not take just then)
        is sent again: never applied twice. Returns the last refusal that leaves one in
        doubt (``unavailable``), if any."""
        assert self.client is not None
        refused = None
        for message, answer in await self.client.resend():
            log.info("%s: %s sent again: %s", self.name, message.type, answer)
            if isinstance(answer, ClientError) and answer.code == ErrorCode.UNAVAILABLE:
                refused = answer
        # Whatever came of it, look at the table afresh: a refused or forgotten action is
        # decided again, and nothing waits for an update that may never come.
        self._acted_at = -1
        return refused

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()

    def _remember(self) -> None:
        """Note the tricks of every update received since the last look, in order."""
        client = self.client
        if client is None:
            return
        received = client.received
        for message in received[self._seen :]:
            if isinstance(message, Update) and isinstance(message.view, PlayerView):
                self.memory.observe(message.view.board)
        if self.keep_messages:
            self._seen = len(received)
        else:
            received.clear()
            self._seen = 0

    async def _play(self) -> bool:
        """Act on each update that asks something of this seat; True when the match is over."""
        client = self.client
        assert client is not None
        while True:
            view: PlayerView = await client.wait_for(self._due, timeout=None)
            if view.match.finished and self._review_done(view):
                return True
            action, paced = self.next_action(view)
            if action is None:
                continue
            loop = asyncio.get_running_loop()
            wait = self.delay if paced else 0.0
            if isinstance(action, Move):
                # Think (in a worker), wait out the rest of a human's moment, then act, if
                # what the seat knows has not changed meanwhile (an undo, a claim): else
                # look at the table again.
                started = loop.time()
                choice = await self.think(action.choose)
                await asyncio.sleep(max(0.0, wait - (loop.time() - started)))
                current = client.view
                if not isinstance(current, PlayerView):
                    continue
                again, _paced = self.next_action(current)
                if not isinstance(again, Move) or again.knows != action.knows:
                    continue
                view, action = current, functools.partial(action.send, *choice)
            elif wait > 0:
                # A human pace: a moment, then act on the view as it is by then.
                await asyncio.sleep(wait)
                current = client.view
                if not isinstance(current, PlayerView):
                    continue
                view = current
                action, _paced = self.next_action(view)
                if action is None:
                    continue
            self._acted_at = client.seq
            try:
                await action()
            except ClientError as error:
                if error.code in ("closed", ErrorCode.UNAVAILABLE):
                    raise
                if error.code == ErrorCode.RATE_LIMITED:
                    # Too fast for the server: wait as told, then look at the table again.
                    await asyncio.sleep((error.retry_after_ms or 1000) / 1000)
                    self._acted_at = -1
                    continue
                self.errors.append(error)
                log.warning("%s: refused: %s", self.name, error)
                await self._fallback(view)

    @staticmethod
    def _review_done(view: PlayerView) -> bool:
        board = view.board
        return board is None or "next_board" not in board.actions

    async def _fallback(self, view: PlayerView) -> None:
        """After a refusal (a bug in a decision), make the plainest legal move rather than
        stall the table: pass, or the first legal card."""
        board = view.board
        client = self.client
        if board is None or client is None or board.acting != view.seat or not board.legal:
            return
        try:
            if board.phase == "auction":
                await client.call("P")
            elif board.phase == "play":
                await client.play(board.legal[0])
        except ClientError as error:
            if error.code in ("closed", ErrorCode.UNAVAILABLE):
                raise
            self.errors.append(error)

    def _due(self, view: PlayerView | object) -> PlayerView | None:
        """The view, when the match is over or the view asks something new of this seat."""
        self._remember()
        if not isinstance(view, PlayerView):
            return None
        if view.match.finished and self._review_done(view):
            return view
        fresh = self.client is not None and self.client.seq != self._acted_at
        return view if fresh and self.next_action(view)[0] is not None else None

    def next_action(self, view: PlayerView) -> tuple[Action | None, bool]:
        """What this seat must do now, if anything, and whether to take a human's time."""
        board = view.board
        client = self.client
        if board is None or client is None:
            return None, False
        if "next_board" in board.actions:
            return client.next_board, False
        if board.phase == "finished":
            return None, False
        if board.questions:
            index = board.questions[0]
            calls = [Call.parse(entry.call) for entry in board.auction]
            text = meaning_at(self.level, Seat.parse(board.dealer), calls, index)
            return (lambda: client.explain(index, text or "natural")), False
        if "undo_answer" in board.actions:
            return (lambda: client.answer_undo(True)), True  # a slip is forgiven, as at a club
        if "face_lead" in board.actions:
            return client.face_lead, False  # partner's lead face down: no question to ask
        if "claim_answer" in board.actions:
            accept = self._judge(view, board)
            return (lambda: client.answer_claim(accept)), True
        if board.acting != view.seat or not board.legal:
            return None, False
        if board.phase == "auction":
            knows = seat_view(view, ())
            # An artificial call is alerted; a natural one is told on request (ask).
            return Move(
                knows, functools.partial(decide, "call", self.level, knows), client.call
            ), True
        tricks = self.memory.completed(board)
        # Restarted in the middle of the play, the robot never saw the quitted tricks: it
        # plays safe rather than reason from a wrong count of the cards out.
        if tricks is None:
            self.plain_cards += 1
            card = _plain_card(board)
            return (lambda: client.play(card)), True
        knows = seat_view(view, tricks)
        return Move(
            knows,
            functools.partial(decide, "card", self.level, knows),
            lambda card, _alert: client.play(card),
        ), True

    def _judge(self, view: PlayerView, board: BoardView) -> bool:
        claim = board.claim
        assert claim is not None
        tricks = self.memory.completed(board)
        if claim.cards is None or tricks is None:
            return False  # cannot see the claim's cards (or the play so far): never accept blind
        return judge_claim(
            seat_view(view, tricks), Seat.parse(claim.claimer), claim.tricks, _hand(claim.cards)
        )


def _plain_card(board: BoardView) -> str:
    """The lowest legal card: following suit, the lowest of the suit led; else the lowest of
    the longest suit (keeping the short suits' guards)."""
    legal = [Card.parse(card) for card in board.legal]
    lengths = {
        suit: sum(1 for card in legal if card.suit == suit) for suit in {c.suit for c in legal}
    }
    longest = max(lengths.values())
    pool = [card for card in legal if lengths[card.suit] == longest]
    return str(min(pool, key=lambda card: (card.rank, -int(card.suit))))


async def run_robot(link: str, delay: float = 1.0, level: Level = "seed") -> None:
    """Run one robot for a seat link until its match is over, ``delay`` seconds before
    each call, card or answer, playing at ``level``."""
    robot = Robot(link, delay=delay, level=level, heartbeat=True)
    try:
        await robot.run()
    finally:
        await robot.close()
