"""Robot players' decisions, pure: what to call and what to play from what a seat may know.

Nothing here sees a hand the laws hide: decisions take a :class:`SeatView`, built from the
rules (:meth:`SeatView.from_play`, :meth:`SeatView.from_auction`) or from a protocol view,
holding only the seat's own hand, dummy after the opening lead, and the public record.
Standard library and :mod:`bridge` only (and endplay's double-dummy solver, for the strong
level's card play: :mod:`robots.sampling`); no clock, no global random state: the strong
level's sampling is seeded by the view it decides on.
"""

from robots.knowledge import SeatView

__all__ = ["SeatView"]
