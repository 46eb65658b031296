"""The small tools that hold the server's limits."""

from __future__ import annotations

import logging

import pytest

from server.limits import AddressThrottle, LagWatch, Limits, RepeatedLogFilter, TokenBucket


class TestTokenBucket:
    def test_a_steady_rate_after_a_burst(self) -> None:
        bucket = TokenBucket(rate=10.0, burst=3.0, now=0.0)
        assert [bucket.take(0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
        assert bucket.take(0.0) == pytest.approx(0.1)
        assert bucket.take(0.1) == 0.0
        assert bucket.take(100.0) == 0.0  # a long pause refills to the burst, no more
        assert bucket.tokens == pytest.approx(2.0)

    def test_an_amount_larger_than_the_burst_waits_for_a_full_bucket(self) -> None:
        bucket = TokenBucket(rate=1024.0, burst=2048.0, now=0.0)
        assert bucket.take(0.0, amount=4096) == 0.0
        assert bucket.take(0.0, amount=1024) == pytest.approx(1.0)


class TestAddressThrottle:
    def test_counts_per_address_within_the_window(self) -> None:
        throttle = AddressThrottle(limit=2, window=60.0)
        for now in (0.0, 1.0):
            assert throttle.wait("10.0.0.1", now) == 0.0
            throttle.note("10.0.0.1", now)
        assert throttle.wait("10.0.0.1", 2.0) == pytest.approx(58.0)
        assert throttle.wait("10.0.0.2", 2.0) == 0.0  # another address is not held back
        assert throttle.wait("10.0.0.1", 60.5) == 0.0  # the first one has left the window


class TestRepeatedLogFilter:
    def test_a_flood_of_one_line_is_cut_and_counted(self, caplog: pytest.LogCaptureFixture) -> None:
        logger = logging.getLogger("tests.flood")
        log_filter = RepeatedLogFilter(per_second=5)
        logger.addFilter(log_filter)
        try:
            with caplog.at_level(logging.WARNING, logger="tests.flood"):
                for _ in range(1000):
                    logger.warning("socket.accept() out of system resource")
                logger.warning("something else")
            lines = [r.getMessage() for r in caplog.records]
            assert lines.count("socket.accept() out of system resource") <= 10
            assert "something else" in lines
        finally:
            logger.removeFilter(log_filter)

    def test_one_filter_on_several_handlers_counts_each_record_once(self) -> None:
        # The server puts one instance on every handler of the root logger. A record that
        # reaches three handlers is one line, not three: each handler keeps the same lines,
        # and the summary is said once, on the first line of the next second.
        now = [100.2]
        log_filter = RepeatedLogFilter(per_second=5, clock=lambda: now[0])
        kept: list[list[str]] = [[], [], []]

        class Keep(logging.Handler):
            def __init__(self, into: list[str]) -> None:
                super().__init__()
                self.into = into

            def emit(self, record: logging.LogRecord) -> None:
                self.into.append(record.getMessage())

        logger = logging.getLogger("tests.flood.shared")
        logger.propagate = False
        handlers = [Keep(into) for into in kept]
        for handler in handlers:
            handler.addFilter(log_filter)
            logger.addHandler(handler)
        try:
            for _ in range(40):
                logger.warning("dropping a connection from %s", "192.0.2.1")
            now[0] = 101.1
            for _ in range(3):
                logger.warning("dropping a connection from %s", "192.0.2.1")
        finally:
            for handler in handlers:
                logger.removeHandler(handler)
            logger.propagate = True
        line = "dropping a connection from 192.0.2.1"
        expected = [line] * 5 + [f"{line} (35 similar lines left out)"] + [line] * 2
        assert kept == [expected, expected, expected]


def test_the_default_limits_leave_room_for_a_club() -> None:
    limits = Limits()
    assert limits.max_connections_per_address >= 16  # a club's players behind one router
    assert limits.connections_burst >= 16  # all of them reconnecting at once
    assert limits.hello_timeout >= 5
    assert limits.actions_per_second >= 5  # no person acts faster


def looks_on_time(watch: LagWatch, start: float, seconds: float) -> float:
    """``watch``'s looks every ``every`` from ``start`` for ``seconds``; the time after."""
    now = start
    for _ in range(round(seconds / watch.every)):
        now += watch.every
        watch.look(now)
    return now


def test_an_overload_is_the_loop_late_look_after_look_not_once() -> None:
    watch = LagWatch(limit=0.025, every=0.02, now=0.0)
    watch.look(0.2)  # one turn of 200 ms: a blip, nothing refused
    assert watch.admit(0.2 + watch.every + 0.05)
    watch.done()
    now = looks_on_time(watch, 0.2, 0.2)
    for _ in range(2):  # turns of 80 ms, look after look: still a blip
        now += 0.08
        watch.look(now)
    assert watch.admit(now)
    watch.done()
    for _ in range(3):  # ... until the trend is past the limit: refused
        now += 0.08
        watch.look(now)
    assert not watch.admit(now)
    # Looks on time, but the overload lasts: admitted while the loop keeps time, refused
    # once the turn under way is past the limit.
    now = looks_on_time(watch, now, 0.1)
    assert watch.admit(now)
    assert not watch.admit(now + watch.every + 0.03)
    watch.done()
    # A second of looks on time and the trend down: over, even a long turn is served.
    now = looks_on_time(watch, now, 1.2)
    assert watch.admit(now + 0.5)


def test_in_an_overload_the_actions_under_way_are_bounded_by_their_cost() -> None:
    watch = LagWatch(limit=0.05, every=0.02, now=0.0)
    for _ in range(20):  # outside an overload nothing is bounded
        assert watch.admit(0.0)
    for _ in range(20):
        watch.done()
    watch.look(0.6)
    watch.look(0.62)  # an overload, and the loop keeps time now
    watch.cost = 0.01
    admitted = 0
    while watch.admit(0.62):
        admitted += 1
    assert admitted == 5  # 5 under way x 10 ms fill the limit
    watch.done()
    assert watch.admit(0.62)  # one answered: another may start


def test_refused_clients_wait_longer_while_they_outnumber_the_served() -> None:
    watch = LagWatch(limit=0.05, every=0.02, now=0.0)
    first = watch.wait
    for _ in range(100):
        assert watch.admit(0.0)
        watch.done()
    waits = [watch.retry_after_ms() for _ in range(400)]
    assert all(first * 500 <= wait <= first * 1500 for wait in waits)  # spread out
    now = looks_on_time(watch, 0.0, 1.0)
    assert watch.wait == pytest.approx(2 * first)  # four refused to one served: twice, no more
    for _ in range(100):
        watch.retry_after_ms()
    now = looks_on_time(watch, now, 1.0)
    assert watch.wait == pytest.approx(4 * first)  # none served: twice, no more
    looks_on_time(watch, now, 10.0)  # nobody refused: down to twice the limit
    assert watch.wait == pytest.approx(2 * watch.limit)
