"""A robot player: it plays through the protocol exactly as a third-party client would.

It connects with a seat link, sees only what that seat's view holds, and acts when its
view says it must: a call or a card on its turn, an answer to a claim it decides, an
explanation of its own call when an opponent asks. Decisions come from :mod:`robots`
(pure, deterministic); the robot never waits on a timer of its own, only on updates.

    duplicate bot http://127.0.0.1:8765/play#TOKEN
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bridge import Call, Card, Contract, Hand, Seat, Vulnerability
from bridge.play import Trick
from clients.client import Client, ClientError, Link
from protocol.errors import ErrorCode
from protocol.messages import BoardView, PlayerView, TrickView
from robots import SeatView
from robots.bidding import choose_call, describe
from robots.play import choose_card, judge_claim

__all__ = ["Robot", "seat_view"]

log = logging.getLogger(__name__)

Action = Callable[[], Awaitable[object]]


def _hand(cards: list[str]) -> Hand:
    return Hand(Card.parse(card) for card in cards)


def _trick(trick: TrickView) -> Trick:
    return Trick(
        Seat.parse(trick.leader),
        tuple(Card.parse(played.card) for played in trick.cards),
        None if trick.winner is None else Seat.parse(trick.winner),
    )


def seat_view(view: PlayerView) -> SeatView:
    """What the robot's seat knows, from its protocol view (which holds nothing more)."""
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
        tricks=tuple(_trick(t) for t in board.tricks),
        current=_trick(board.current_trick) if board.current_trick is not None else None,
        legal_calls=() if in_play else tuple(Call.parse(c) for c in board.legal),
        legal_cards=tuple(Card.parse(c) for c in board.legal) if in_play else (),
    )


class Robot:
    """One robot at one seat, for the whole match (it resumes after a dropped connection)."""

    def __init__(self, link: str | Link, name: str = "duplicate-robot") -> None:
        self.link = link if isinstance(link, Link) else Link.parse(link)
        self.name = name
        self.client: Client | None = None
        self.errors: list[ClientError] = []
        """Refusals the server sent this robot (a correct robot gets none)."""
        self._acted_at = -1

    async def run(self) -> None:
        """Play until the match is over, reconnecting (and resuming) when the link drops."""
        delay = 0.1
        while True:
            try:
                if self.client is None:
                    self.client = await Client.connect(self.link, name=self.name)
                elif not self.client.is_connected:
                    await self.client.reconnect()
                delay = 0.1
                if await self._play():
                    return
            except (ClientError, OSError) as error:
                if isinstance(error, ClientError) and error.code == ErrorCode.BAD_TOKEN:
                    raise
                log.info("%s: connection lost (%s); resuming", self.name, error)
                await asyncio.sleep(delay)  # back off before reconnecting, not before deciding
                delay = min(delay * 2, 5.0)

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()

    async def _play(self) -> bool:
        """Act on each update that asks something of this seat; True when the match is over."""
        client = self.client
        assert client is not None
        while True:
            view: PlayerView = await client.wait_for(self._due, timeout=None)
            if view.match.finished:
                return True
            action = self.next_action(view)
            if action is None:
                continue
            self._acted_at = client.seq
            try:
                await action()
            except ClientError as error:
                if error.code in ("closed", ErrorCode.UNAVAILABLE):
                    raise
                self.errors.append(error)
                log.warning("%s: refused: %s", self.name, error)
                await self._fallback(view)

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
        if not isinstance(view, PlayerView):
            return None
        if view.match.finished:
            return view
        fresh = self.client is not None and self.client.seq != self._acted_at
        return view if fresh and self.next_action(view) is not None else None

    def next_action(self, view: PlayerView) -> Action | None:
        """What this seat must do now, if anything."""
        board = view.board
        client = self.client
        if board is None or client is None or board.phase == "finished":
            return None
        if board.questions:
            index = board.questions[0]
            calls = [Call.parse(entry.call) for entry in board.auction]
            text = describe(Seat.parse(board.dealer), calls, index)
            return lambda: client.explain(index, text or "natural")
        if board.phase == "claim" and board.claim is not None:
            claim = board.claim
            if view.seat in claim.deciders and view.seat not in claim.accepted:
                accept = self._judge(view, board)
                return lambda: client.answer_claim(accept)
            return None
        if board.acting != view.seat or not board.legal:
            return None
        knowledge = seat_view(view)
        if board.phase == "auction":
            call, _meaning = choose_call(knowledge)  # told on request (ask), not alerted
            return lambda: client.call(str(call), None)
        card = choose_card(knowledge)
        return lambda: client.play(str(card))

    @staticmethod
    def _judge(view: PlayerView, board: BoardView) -> bool:
        claim = board.claim
        assert claim is not None
        if claim.cards is None:
            return False  # cannot see the claim's cards: never accept blind
        return judge_claim(
            seat_view(view), Seat.parse(claim.claimer), claim.tricks, _hand(claim.cards)
        )


async def run_robot(link: str) -> None:
    """Run one robot for a seat link until its match is over."""
    robot = Robot(link)
    try:
        await robot.run()
    finally:
        await robot.close()
