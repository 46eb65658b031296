"""The small tools that hold the server's limits."""

from __future__ import annotations

import logging

import pytest

from server.limits import AddressThrottle, Limits, RepeatedLogFilter, TokenBucket


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
