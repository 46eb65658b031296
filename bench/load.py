"""The load benchmark: many concurrent matches of light scripted players over real sockets,
at a human pace, flat out and overloaded, against our server and against two bare reference
servers.

    .venv/bin/python -m bench.load [--matches 250] [--seconds 60] [--processes 1]
                                   [--spread match|connection] [--load-processes N]
                                   [--phases quiet,human,flat,overload]
                                   [--references deltas,views]
                                   [--quick] [--boards 16] [--create-seconds 900]
                                   [--overload-lag MS] [--json FILE]

Starts its own ``redis-server`` (a free loopback port, never the machine's 6379), one or
more ``duplicate serve`` processes on it, and the load in processes of its own (clients never
share a process with a server): ``--matches`` teams matches, each played by eight scripted
players and watched by one live spectator (``bench/load_clients.py``). The matches are
created through the protocol, as the organiser, and timed; creation stops after
``--create-seconds`` and the load plays the matches made by then.

Phases, each ``--seconds`` measured after a warm-up: ``quiet`` (every connection open, no
match acting: what the server and Redis do on their own), ``human`` (each player acts about 2 s,
jittered, after it becomes its turn), ``flat`` (at once) and ``overload`` (after ``flat``:
about twice the load the server just served flat out is offered). The load is a closed
loop (a table's next action waits for the update of the one before), so flat out offers
what the server serves; to offer more, the overload phase gives each player a think time
again, chosen so that the tables, were the server instant, would send twice the actions
per second it served flat out (``2 x tables / think`` is the offered rate: each of the
2M tables acts once per think time), and as long as the server keeps up, it is offered
that. Refused actions are sent again (with their action id) when the refusal says
(``retry_after_ms``). With ``--processes N`` (N > 1) and ``--spread match`` a flat-out phase
with only the first process's matches playing comes first, for the throughput of N processes
against one.

Then the human and flat phases against each reference, on the core our (first) server had,
one after the other: ``deltas`` (``bench/load_deltas.py``), a bare ``websockets`` server that
builds each recipient's changes by hand straight from the action and packs each distinct
frame once (``tests/bench/test_load_deltas.py`` checks that its frames equal ours for the
same calls and cards), and ``views`` (``bench/load_baseline.py``), one that builds each
recipient's whole view per action and diffs it. Neither stores anything.

Prints one table: per phase, actions/s (acknowledged), frames/s received, bytes per frame;
p50/p99/max from an action to its ack, to its last viewer (the table's four players and the
spectator), and from the action that finished a board at its last table (the fourth
``next_board``, ending its review) to the last of the nine viewers receiving the comparison;
refusals by code, and how soon they came; server and Redis CPU (``/proc``) per action and per
frame received, and our server's CPU per frame against each reference's; server and Redis
CPU in all, and the commands Redis served a second (``INFO``); the load's own CPU. Memory
per connection is what the server processes' RSS grew from the matches made to every
connection open at the end of the human pace, over the connections (and their whole RSS
over them, "all included"); with the quiet phase, what it grew through the human pace per
action (the logs and states the matches keep).
Then one line per target of issue #27: PASS, FAIL, or SKIP when this run cannot show it
(fewer matches than the target's size, several processes, no reference). A CPU ratio is
shown only by a run of at least its size (fixed costs weigh more on fewer matches); a
latency missed at a smaller size is missed, and one met is shown only at the target's size
(the overload's: 100 matches, as few tables cannot queue much). Exits 1 when a target is
missed.

Everything it starts is stopped at the end, on Ctrl-C or an error too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from bench.load_clients import MatchSpec, PhaseOrder, SeatLink, work
from clients.client import Client, ClientError, Link
from protocol.messages import CreateMatch, MatchCreated
from server.redis_process import RedisProcess, death_signal, free_port

ROOT = Path(__file__).resolve().parents[1]
HUMAN_PACE = 2.0
"""Seconds a player takes, on average, to act at the human pace."""
MATCHES_PER_LOAD_PROCESS = 250
CREATING_AT_ONCE = 2
"""Organiser connections creating matches at once, per server process (it analyses one
board at a time: a second keeps it busy while the first's answer travels)."""
SOCKET_MARGIN = 256
"""Descriptors a process needs besides its sockets (files, Redis, pipes)."""
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_MIB = 1 / (1024 * 1024)

MATCHES = 250
"""The default size: the largest that issue #27's targets name."""
BOARDS = 16
"""Boards per match by default: enough for 250 matches to play every phase, flat out and
overloaded included, without finishing (about 60 actions a table a board)."""
QUICK_BOARDS = 48
"""Boards per match of ``--quick``'s 20 matches (the delta reference serves them flat out
at a few thousand actions a second)."""
CREATE_MATCHES = 1000

# The targets (issue #27).
TARGET_SIZES = (100, 250)
"""The sizes (matches) at which the CPU targets are set."""
TARGET_CPU_RATIO = 2.0
"""Our server's CPU per delivered frame against the delta reference's, at most."""
TARGET_HUMAN_CPU_MS = 0.8
"""Server and Redis CPU per action at a human pace, at most."""
TARGET_VIEWER_P99_MS = 25.0
TARGET_VIEWER_MATCHES = 250
TARGET_FLAT_SHARE = 0.5
"""Flat out, our actions per second against the delta reference's, at least."""
TARGET_BYTES_PER_CONNECTION = 16 * 1024
TARGET_MEMORY_MATCHES = 250
"""The size from which memory per connection is shown (below, the allocator's own slack
weighs more than the sockets)."""
OVERLOAD = 2.0
"""The overload phase offers this many times the actions per second served flat out."""
TARGET_OVERLOAD_GOODPUT = 0.9
"""Overloaded, the actions acknowledged per second against flat out's, at least."""
TARGET_OVERLOAD_P99_MS = 100.0
TARGET_COMPARE_P99_MS = 10.0
TARGET_CREATE_SECONDS = 20.0
TARGET_SCALING = 1.8
TARGET_QUIET_COMMANDS = 10.0
"""Redis commands a second, at most, while no match acts, with 250 matches: nothing per
match on a timer (issue #27, item 3). A process's own looks take some 3 a second (its
heartbeat and the look at the processes alive every 2 s, the events' rounds every second,
the robots nobody plays every 4 s); the analyses still coming in (each a few commands, once
per match) take the rest. A look at each match once a minute would take 4 more."""
TARGET_QUIET_MATCHES = 250


# -- processes ---------------------------------------------------------------------------


def raise_descriptor_limit() -> int:
    """Raise this process's open-file limit to its hard limit (children inherit it); return
    it."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard if hard != resource.RLIM_INFINITY else 1 << 20


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds process ``pid`` has used (``/proc/PID/stat``)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_bytes(pid: int) -> int:
    """Process ``pid``'s resident memory (``VmRSS``), all included."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class Child:
    """A server process (``duplicate serve``, a reference): started, its output
    drained (the last lines kept for an error message), stopped with SIGINT."""

    def __init__(self, name: str, command: list[str], ready: str, cores: set[int] | None) -> None:
        self.name = name
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=death_signal(os.getpid()),
        )  # fmt: skip
        if cores:
            os.sched_setaffinity(self.process.pid, cores)
        self.lines: deque[str] = deque(maxlen=20)
        self.collections: list[str] = []
        """The server's deep collections (server.heap logs each: objects walked, time)."""
        self._ready = threading.Event()
        threading.Thread(target=self._drain, args=(ready,), daemon=True).start()
        if not self._ready.wait(60) or self.process.poll() is not None:
            self.stop()
            raise RuntimeError(f"{name} did not start:\n" + "\n".join(self.lines))

    def _drain(self, ready: str) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode(errors="replace").rstrip()
            self.lines.append(line)
            if "deep collection:" in line:
                self.collections.append(line.partition("deep collection:")[2].strip())
            if ready in line:
                self._ready.set()
        self._ready.set()

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(
    index: int,
    folder: Path,
    redis_url: str,
    key_file: Path,
    limit: int,
    cores: set[int] | None,
    options: Sequence[str] = (),
) -> tuple[Child, str]:
    """``duplicate serve`` number ``index`` on the bench's Redis, with more ``options``;
    returns it and its URL."""
    port = free_port()
    command = [
        sys.executable, "-m", "duplicate", "serve", "--redis", redis_url,
        "--host", "127.0.0.1", "--port", str(port), "--data", str(folder / f"server{index}"),
        "--organiser-key-file", str(key_file), "--server-robot-delay", "0",
        # All the load comes from 127.0.0.1: a robot host's setting.
        "--max-connections", str(limit), "--max-connections-per-address", str(limit),
        *options,
    ]  # fmt: skip
    return Child(f"server {index + 1}", command, "Serving on", cores), f"ws://127.0.0.1:{port}/ws"


REFERENCES = {
    "deltas": ("bench.load_deltas", "the delta reference", "Delta reference on"),
    "views": ("bench.load_baseline", "the views reference", "Views reference on"),
}
"""Each reference server: its module, its name, and the line it prints once serving."""


def start_reference(
    name: str, boards: int, review_seconds: int, cores: set[int] | None
) -> tuple[Child, str]:
    """Reference ``name`` (one of :data:`REFERENCES`) on a free port; returns it and its URL."""
    module, title, ready = REFERENCES[name]
    port = free_port()
    command = [
        sys.executable, "-m", module, "--port", str(port),
        "--boards", str(boards), "--review-seconds", str(review_seconds),
    ]  # fmt: skip
    return Child(title, command, ready, cores), f"ws://127.0.0.1:{port}/ws"


@dataclass(frozen=True)
class Cores:
    """Which cores each side runs on: each server process on its own (the references on the
    first's), Redis and the load on the rest; nothing pinned when there are too few."""

    servers: list[set[int]] | None
    rest: set[int] | None
    total: int

    @classmethod
    def plan(cls, processes: int) -> Cores:
        available = sorted(os.sched_getaffinity(0))
        if len(available) <= processes:
            return cls(None, None, len(available))
        return cls(
            [{core} for core in available[:processes]], set(available[processes:]), len(available)
        )

    def describe(self, processes: int, load_processes: int) -> str:
        if self.servers is None or self.rest is None:
            return (
                f"{self.total} cores shared by {processes} server process(es), Redis and "
                f"{load_processes} load process(es): nothing pinned"
            )
        return (
            f"{self.total} cores: each server process (and the references) on a core of its own, "
            f"Redis and {load_processes} load process(es) share {len(self.rest)} core(s)"
        )


class Load:
    """The load processes (spawned), each driven through a pipe."""

    def __init__(self, count: int, cores: set[int] | None) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        self.processes: list[BaseProcess] = []
        for _ in range(count):
            ours, theirs = context.Pipe()
            process = context.Process(target=work, args=(theirs,), daemon=True)
            process.start()
            if cores and process.pid is not None:
                os.sched_setaffinity(process.pid, cores)
            self.pipes.append(ours)
            self.processes.append(process)

    def send(self, command: str, arguments: Sequence[object]) -> None:
        for pipe, argument in zip(self.pipes, arguments, strict=True):
            pipe.send((command, argument))

    def answers(self, timeout: float) -> list[dict[str, Any]]:
        found = []
        deadline = time.monotonic() + timeout
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            if not pipe.poll(max(0.0, deadline - time.monotonic())):
                raise RuntimeError(f"load process {process.pid} did not answer in {timeout} s")
            try:
                answer = pipe.recv()
            except (EOFError, OSError):
                raise RuntimeError(f"load process {process.pid} died") from None
            if "error" in answer:
                raise RuntimeError(f"load process {process.pid} failed: {answer['error']}")
            found.append(answer)
        return found

    def stop(self) -> None:
        for pipe in self.pipes:
            with contextlib.suppress(OSError):
                pipe.send(("exit", None))
        for process in self.processes:
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join()


# -- matches -------------------------------------------------------------------------------


async def create_matches(
    urls: list[str], key: str, count: int, boards: int, review_seconds: int, budget: float
) -> tuple[list[tuple[int, MatchCreated]], float]:
    """Create ``count`` matches through the protocol, round robin over the server processes
    (a few organiser connections at once each), stopping after ``budget`` seconds. Returns
    each match with the index of the process that made it, and the seconds it took."""
    started = time.monotonic()
    created: list[tuple[int, MatchCreated]] = []
    numbers = iter(range(count))

    async def organiser(index: int) -> None:
        client = await Client.connect(Link(urls[index], key), name="load organiser")
        try:
            for _ in numbers:
                if time.monotonic() - started > budget:
                    return
                while True:
                    try:
                        match = await client.request(
                            lambda ref: CreateMatch(
                                boards=boards, review_seconds=review_seconds, ref=ref
                            ),
                            timeout=600,
                        )
                        break
                    except ClientError as refused:
                        # An organiser's connection is rate-limited like any: it waits.
                        if refused.code != "rate_limited":
                            raise
                        await asyncio.sleep((refused.retry_after_ms or 10) / 1000)
                assert isinstance(match, MatchCreated)
                created.append((index, match))
        finally:
            await client.close()

    await asyncio.gather(
        *(organiser(index) for index in range(len(urls)) for _ in range(CREATING_AT_ONCE))
    )
    return created, time.monotonic() - started


def token_of(link: str) -> str:
    return Link.parse(link).token


def spread(created: list[tuple[int, MatchCreated]], urls: list[str], how: str) -> list[MatchSpec]:
    """Each match's links: ``match``, wholly on the process that made it; ``connection``,
    table 1 there and table 2 and the spectator on the next process."""
    specs = []
    for number, (index, match) in enumerate(created):
        other = index if how == "match" else (index + 1) % len(urls)
        links = [
            SeatLink(
                seat.table,
                seat.seat,
                urls[index if seat.table == 1 else other],
                token_of(seat.link or ""),
            )
            for seat in match.seats
        ]
        if match.spectator is not None:
            links.append(SeatLink(0, "", urls[other], token_of(match.spectator)))
        specs.append(MatchSpec(number, tuple(links)))
    return specs


def reference_specs(count: int, url: str) -> list[MatchSpec]:
    """The same matches' links on a reference (its tokens name match, table and seat)."""
    return [
        MatchSpec(
            number,
            (
                *tuple(
                    SeatLink(table, seat, url, f"base {number} {table}{seat}")
                    for table in (1, 2)
                    for seat in "NESW"
                ),
                SeatLink(0, "", url, f"base {number} watch"),
            ),
        )
        for number in range(count)
    ]


# -- phases --------------------------------------------------------------------------------


@dataclass
class Phase:
    """One phase's figures, all load processes and server processes together."""

    label: str
    seconds: float
    tallies: list[dict[str, Any]]
    server_cpu: float
    redis_cpu: float
    rss: int = 0
    connections: int = 0
    offered: float | None = None
    """The actions per second offered, when the phase sets it (overload)."""
    redis_commands: int | None = None
    """The commands Redis served in the measured window (None: not counted)."""

    def total(self, name: str) -> Any:
        values = [tally[name] for tally in self.tallies]
        if isinstance(values[0], list):
            return [value for chunk in values for value in chunk]
        if isinstance(values[0], dict):
            counted: Counter[str] = Counter()
            for value in values:
                counted.update(value)
            return counted
        return sum(values)

    def examples(self) -> dict[str, str]:
        """A refusal's message for each code refused."""
        found: dict[str, str] = {}
        for tally in self.tallies:
            found = tally["refusal_examples"] | found
        return found

    @property
    def actions_per_second(self) -> float:
        return float(self.total("acked")) / self.seconds

    @property
    def frames(self) -> int:
        return int(self.total("frames"))

    def cpu_per_frame(self, with_redis: bool = False) -> float | None:
        cpu = self.server_cpu + (self.redis_cpu if with_redis else 0.0)
        return cpu / self.frames if self.frames else None

    def cpu_per_action(self, with_redis: bool = True) -> float | None:
        cpu = self.server_cpu + (self.redis_cpu if with_redis else 0.0)
        acked = self.total("acked")
        return cpu / acked if acked else None


@dataclass
class Run:
    """Everything measured in one run."""

    matches: int
    processes: int
    created: int = 0
    creation_seconds: float = 0.0
    connections: int = 0
    connect_seconds: float = 0.0
    failures: Counter[str] = field(default_factory=Counter)
    idle_rss: int = 0
    ours: dict[str, Phase] = field(default_factory=dict)
    references: dict[str, dict[str, Phase]] = field(default_factory=dict)
    """Each reference's phases, by reference (``deltas``, ``views``) and phase name."""
    machine: str | None = None
    """Why this machine cannot open the sockets the run needs (None: it can)."""
    collections: list[str] = field(default_factory=list)
    """Our servers' deep collections (the whole heap walked at once: a pause)."""


def run_phase(
    load: Load,
    label: str,
    pace: float,
    seconds: float,
    warmup: float,
    pids: list[int],
    redis: RedisProcess | None,
    matches: frozenset[int] | None = None,
) -> Phase:
    """One phase: the load acts for ``warmup + seconds``, the last ``seconds`` measured."""
    start = time.monotonic()
    order = PhaseOrder(label, pace, start + warmup, start + warmup + seconds, matches)
    load.send("phase", [order] * len(load.pipes))
    redis_pid = None if redis is None or redis.process is None else redis.process.pid

    def cpu() -> tuple[float, float]:
        used = 0.0 if redis_pid is None else cpu_seconds(redis_pid)
        return sum(cpu_seconds(pid) for pid in pids), used

    time.sleep(max(0.0, order.measure_from - time.monotonic()))
    commands_before = redis_commands(redis)
    server_before, redis_before = cpu()
    time.sleep(max(0.0, order.until - time.monotonic()))
    server_after, redis_after = cpu()
    commands_after = redis_commands(redis)
    rss = sum(rss_bytes(pid) for pid in pids)
    tallies = load.answers(timeout=120)
    phase = Phase(
        label, seconds, tallies, server_after - server_before, redis_after - redis_before, rss
    )
    if commands_before is not None and commands_after is not None:
        # Less the two INFO commands that counted them.
        phase.redis_commands = commands_after - commands_before - 1
    return phase


def redis_commands(redis: RedisProcess | None) -> int | None:
    """The commands ``redis`` has served since it started (None: no Redis of ours)."""
    if redis is None:
        return None
    import redis as redis_py  # the synchronous client: the bench's own process has no loop

    with redis_py.Redis.from_url(redis.url) as client:
        stats: dict[str, Any] = client.info("stats")
    return int(stats["total_commands_processed"])


def connect(load: Load, specs: list[MatchSpec]) -> tuple[int, float, Counter[str]]:
    """Open every connection, the matches shared out among the load processes; returns the
    connections asked for, the seconds it took and the failures by reason."""
    shares: list[list[MatchSpec]] = [[] for _ in load.pipes]
    for spec in specs:
        shares[spec.number % len(shares)].append(spec)
    started = time.monotonic()
    load.send("connect", shares)
    answers = load.answers(timeout=1800)
    failures: Counter[str] = Counter()
    for answer in answers:
        failures.update(answer["failures"])
    return sum(a["connections"] for a in answers), time.monotonic() - started, failures


def machine_limits(matches: int, processes: int, load_processes: int, limit: int) -> str | None:
    """Why this machine cannot hold the run's sockets, or None."""
    sockets = 9 * matches
    per_server = math.ceil(sockets / processes) + SOCKET_MARGIN
    per_load = math.ceil(sockets / load_processes) + SOCKET_MARGIN
    low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    if max(per_server, per_load) > limit:
        return (
            f"{sockets} sockets need {max(per_server, per_load)} descriptors in one process; "
            f"the open-file hard limit here is {limit}"
        )
    if math.ceil(sockets / processes) > high - low + 1:
        return f"{sockets} connections to one port need more local ports than {low}-{high}"
    return None


# -- the report ----------------------------------------------------------------------------


def percentiles(samples: list[float]) -> str:
    if not samples:
        return "-"
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return f"{statistics.median(ordered):.1f}/{p99:.1f}/{ordered[-1]:.0f}"


def p50(samples: list[float]) -> float | None:
    return statistics.median(samples) if samples else None


def p99(samples: list[float]) -> float | None:
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]


def _ratio(ours: Phase | None, reference: Phase | None) -> float | None:
    """Our server's CPU per delivered frame over a reference's (servers only)."""
    if ours is None or reference is None:
        return None
    mine, theirs = ours.cpu_per_frame(), reference.cpu_per_frame()
    return None if mine is None or not theirs else mine / theirs


def rows(phase: Phase, references: dict[str, Phase | None] | None) -> list[str]:
    """One column of the table (``references``: this phase's, for our columns; None for a
    reference's own column)."""
    frames = phase.frames
    acked = phase.total("acked")
    refusals = phase.total("refusals")

    def per(value: float, count: int, scale: float) -> str:
        return f"{value / count * scale:.1f}" if count else "-"

    def ratio(name: str) -> str:
        if references is None:
            return "-"
        found = _ratio(phase, references.get(name))
        return "-" if found is None else f"{found:.2f}x"

    ours = references is not None
    commands = phase.redis_commands
    return [
        "-" if phase.offered is None else f"{phase.offered:.0f}",
        f"{phase.actions_per_second:.0f}",
        f"{frames / phase.seconds:.0f}",
        f"{phase.total('bytes') / frames:.0f}" if frames else "-",
        percentiles(phase.total("ack_ms")),
        percentiles(phase.total("viewer_ms")),
        f"{percentiles(phase.total('compare_ms'))} ({len(phase.total('compare_ms'))})",
        " ".join(f"{code}:{n}" for code, n in sorted(refusals.items())) or "0",
        percentiles(phase.total("refusal_ms")),
        per(phase.server_cpu, acked, 1000),
        per(phase.server_cpu + phase.redis_cpu, acked, 1000) if ours else "-",
        per(phase.server_cpu, frames, 1e6),
        per(phase.redis_cpu, frames, 1e6) if ours else "-",
        ratio("deltas"),
        ratio("views"),
        f"{100 * phase.server_cpu / phase.seconds:.1f}%",
        f"{100 * phase.redis_cpu / phase.seconds:.1f}%" if ours else "-",
        "-" if commands is None else f"{commands / phase.seconds:.1f}",
        f"{100 * phase.total('load_cpu') / phase.seconds:.0f}%",
        f"{phase.total('boards_finished')}",
        f"{phase.total('compared')}/{phase.total('compared_partly')}"
        f"/{phase.total('compared_untimed')}",
        f"{phase.total('undelivered')}",
        f"{phase.total('playing')}",
    ]


ROW_NAMES = [
    "actions/s offered",
    "actions/s (acked)",
    "frames/s received",
    "bytes per frame (mean)",
    "action -> ack ms p50/p99/max",
    "action -> last viewer ms p50/p99/max",
    "comparison -> last of 9 ms (n)",
    "refusals by code",
    "action -> refusal ms p50/p99/max",
    "server CPU ms per action",
    "server+Redis CPU ms per action",
    "server CPU us per frame",
    "Redis CPU us per frame",
    "server CPU per frame / deltas'",
    "server CPU per frame / views'",
    "server CPU (% of one core)",
    "Redis CPU (% of one core)",
    "Redis commands/s",
    "load CPU (% of one core)",
    "boards finished",
    "comparisons: all/partly/untimed",
    "updates not delivered to all",
    "matches still playing at the end",
]


def print_table(run: Run) -> None:
    columns: list[tuple[str, list[str]]] = []
    for name, phase in run.ours.items():
        base = name.split(",")[0]
        references = {ref: phases.get(base) for ref, phases in run.references.items()}
        columns.append((phase.label, rows(phase, references)))
    for reference, phases in run.references.items():
        for phase in phases.values():
            columns.append((f"{reference} {phase.label}", rows(phase, None)))
    width = max(16, *(len(label) + 2 for label, _ in columns))
    print(f"{'measure':38}" + "".join(f"{label:>{width}}" for label, _ in columns))
    for index, name in enumerate(ROW_NAMES):
        print(f"{name:38}" + "".join(f"{cells[index]:>{width}}" for _, cells in columns))


@dataclass
class Verdict:
    status: str
    """PASS, FAIL or SKIP (not measurable in this run)."""
    text: str


def verdicts(run: Run) -> list[Verdict]:
    """One line per target of issue #27 (those this run's phases can speak to)."""
    found = [
        *(_cpu_target(run, name, size) for name in ("human", "flat") for size in TARGET_SIZES),
        _human_cpu_target(run),
        _quiet_target(run),
        _idle_cost_target(run),
        _viewer_target(run),
        _refusals_target(run),
        _flat_share_target(run),
        _overload_target(run),
        _comparison_target(run),
        _creation_target(run),
        _memory_target(run),
        _scaling_target(run),
    ]
    return [verdict for verdict in found if verdict is not None]


def _status(ok: bool, shown: bool = True) -> str:
    """PASS or FAIL; SKIP for a pass in a run too small to show the target."""
    return "FAIL" if not ok else "PASS" if shown else "SKIP"


def _short_of_sockets(run: Run) -> str:
    """Why the run lacks sockets, to append to the targets that need them all ("": none)."""
    if run.machine:
        return f" (this machine cannot: {run.machine})"
    if run.failures:
        return f" ({sum(run.failures.values())} sockets failed: {dict(run.failures)})"
    return ""


def _of_size(run: Run, size: int) -> bool:
    """Whether the run shows a target set at ``size`` matches on one process."""
    return run.created >= size and run.processes == 1


def _cpu_target(run: Run, name: str, size: int) -> Verdict | None:
    phase = run.ours.get(name)
    if phase is None:
        return None
    deltas = run.references.get("deltas", {}).get(name)
    ratio = _ratio(phase, deltas)
    text = (
        f"{phase.label}, {size} matches: server CPU per delivered frame <= "
        f"{TARGET_CPU_RATIO:g}x the delta reference's (measured "
        f"{'-' if ratio is None else f'{ratio:.2f}x'} with {run.created} matches)"
    )
    if ratio is None or not _of_size(run, size):
        return Verdict("SKIP", text)  # a smaller run's fixed costs weigh more per frame
    return Verdict(_status(ratio <= TARGET_CPU_RATIO), text)


def _human_cpu_target(run: Run) -> Verdict | None:
    human = run.ours.get("human")
    if human is None:
        return None
    per = human.cpu_per_action()
    text = (
        f"human pace: server and Redis CPU per action <= {TARGET_HUMAN_CPU_MS:g} ms "
        f"(measured {_ms(None if per is None else per * 1000)})"
    )
    if per is None:
        return Verdict("SKIP", text)
    return Verdict(_status(per * 1000 <= TARGET_HUMAN_CPU_MS), text)


def _quiet_target(run: Run) -> Verdict | None:
    quiet = run.ours.get("quiet")
    if quiet is None or quiet.redis_commands is None:
        return None
    rate = quiet.redis_commands / quiet.seconds
    text = (
        f"quiet, {TARGET_QUIET_MATCHES} matches: Redis commands/s <= "
        f"{TARGET_QUIET_COMMANDS:g}, nothing per match on a timer (measured {rate:.1f} with "
        f"{run.created} matches; server CPU "
        f"{100 * quiet.server_cpu / quiet.seconds:.1f}% of a core, Redis "
        f"{100 * quiet.redis_cpu / quiet.seconds:.1f}%)"
    )
    shown = _of_size(run, TARGET_QUIET_MATCHES)
    return Verdict(_status(rate <= TARGET_QUIET_COMMANDS, shown), text)


def _idle_cost_target(run: Run) -> Verdict | None:
    human, flat = run.ours.get("human"), run.ours.get("flat")
    if human is None or flat is None:
        return None
    acked = human.total("acked"), flat.total("acked")
    paced, fast = (
        (phase.redis_cpu / count if count else None)
        for phase, count in zip((human, flat), acked, strict=True)
    )
    text = (
        f"Redis CPU per action at a human pace <= flat out's (measured "
        f"{_us(paced)} against {_us(fast)})"
    )
    if paced is None or fast is None:
        return Verdict("SKIP", text)
    return Verdict(_status(paced <= fast), text)


def _viewer_target(run: Run) -> Verdict | None:
    human = run.ours.get("human")
    if human is None:
        return None
    worst = p99(human.total("viewer_ms"))
    short = _short_of_sockets(run)
    ok = worst is not None and worst <= TARGET_VIEWER_P99_MS and not short
    text = (
        f"human pace, {TARGET_VIEWER_MATCHES} matches on one process: p99 action -> last "
        f"viewer <= {TARGET_VIEWER_P99_MS:g} ms (measured {_ms(worst)} with {run.created} "
        f"matches on {run.processes} process(es)){short}"
    )
    return Verdict(_status(ok, _of_size(run, TARGET_VIEWER_MATCHES)), text)


def _refusals_target(run: Run) -> Verdict | None:
    human = run.ours.get("human")
    if human is None:
        return None
    refused = human.total("refusals")
    text = f"human pace: no refusals (got {sum(refused.values())}: {dict(refused) or 'none'})"
    return Verdict(_status(not refused), text)


def _one_process_flat(run: Run) -> Phase | None:
    """The flat-out phase on one process: the reference phase of a run of several."""
    return run.ours.get("flat, 1 process") or (run.ours.get("flat") if run.processes == 1 else None)


def _flat_share_target(run: Run) -> Verdict | None:
    phase = _one_process_flat(run)
    if phase is None:
        return None
    deltas = run.references.get("deltas", {}).get("flat")
    text = f"flat out, one process: >= {TARGET_FLAT_SHARE:.0%} of the delta reference's actions/s"
    if deltas is None or not deltas.actions_per_second:
        why = "no delta reference in this run" if deltas is None else "it served none"
        return Verdict("SKIP", f"{text} ({why})")
    share = phase.actions_per_second / deltas.actions_per_second
    text += (
        f" (measured {share:.0%}: {phase.actions_per_second:,.0f} against "
        f"{deltas.actions_per_second:,.0f})"
    )
    return Verdict(_status(share >= TARGET_FLAT_SHARE), text)


def _overload_target(run: Run) -> Verdict | None:
    phase, flat = run.ours.get("overload"), run.ours.get("flat")
    if phase is None or flat is None:
        return None
    goodput, peak = phase.actions_per_second, flat.actions_per_second
    share = goodput / peak if peak else 0.0
    worst = p99(phase.total("ack_ms"))
    refused = phase.total("refusals")
    timed, answered = phase.total("refusals_timed"), p99(phase.total("refusal_ms"))
    fast = worst is not None and worst <= TARGET_OVERLOAD_P99_MS
    ok = share >= TARGET_OVERLOAD_GOODPUT and fast
    size = TARGET_SIZES[0]
    text = (
        f"overload ({OVERLOAD:g}x the flat rate offered: {phase.offered or 0:,.0f} actions/s), "
        f"{size} matches or more: goodput >= {TARGET_OVERLOAD_GOODPUT:.0%} of flat out's and "
        f"p99 action -> ack of the admitted <= {TARGET_OVERLOAD_P99_MS:g} ms (measured "
        f"{goodput:,.0f} acked/s = {share:.0%} of {peak:,.0f}, p99 {_ms(worst)} with "
        f"{run.created} matches; refused: {dict(refused) or 'none'}, {timed} with "
        f"retry_after_ms, answered in p99 {_ms(answered)})"
    )
    # A closed loop of few tables cannot queue much: a pass shows only at a size's worth.
    return Verdict(_status(ok, _of_size(run, size)), text)


def _comparison_target(run: Run) -> Verdict | None:
    phases = [phase for name, phase in run.ours.items() if name != "overload"]
    samples = [sample for phase in phases for sample in phase.total("compare_ms")]
    partly = sum(phase.total("compared_partly") for phase in phases)
    worst = p99(samples)
    text = (
        f"a comparison reaches all 8 players and the spectator <= {TARGET_COMPARE_P99_MS:g} ms "
        f"p99 after the action that finished the board's last table, overload aside (measured "
        f"{_ms(worst)} over {len(samples)}; reached only some: {partly})"
    )
    if worst is None and not partly:
        return Verdict("SKIP", text)
    return Verdict(
        _status(worst is not None and worst <= TARGET_COMPARE_P99_MS and not partly), text
    )


def _creation_target(run: Run) -> Verdict | None:
    if not run.created:
        return None
    projected = run.creation_seconds / run.created * CREATE_MATCHES
    text = (
        f"creating {CREATE_MATCHES:,} matches < {TARGET_CREATE_SECONDS:g} s ({run.created} in "
        f"{run.creation_seconds:.1f} s: {projected:.0f} s for {CREATE_MATCHES:,} at that rate)"
    )
    return Verdict(_status(projected < TARGET_CREATE_SECONDS), text)


def _memory_target(run: Run) -> Verdict | None:
    """What a connection adds to the server's memory: its RSS with every connection open
    at the end of the human pace, less its RSS with the matches made and none open, over
    the connections (the match it plays in included: loaded when its first viewer comes).
    The process's own size (the interpreter, its libraries: some 70 MiB) is no connection's:
    at 250 matches it alone would be 30 KiB a connection, and the figure "all included" is
    shown beside it."""
    human = run.ours.get("human")
    if human is None or not human.connections:
        return None
    per = (human.rss - run.idle_rss) / human.connections
    whole = human.rss / human.connections
    short = _short_of_sockets(run)
    text = (
        f"memory <= {TARGET_BYTES_PER_CONNECTION // 1024} KiB per connection (measured "
        f"{per / 1024:.1f} KiB: server RSS {run.idle_rss * PAGE_MIB:.0f} MiB with no "
        f"connection, {human.rss * PAGE_MIB:.0f} MiB with {human.connections}; all included "
        f"{whole / 1024:.1f} KiB){short}"
    )
    if not _of_size(run, TARGET_MEMORY_MATCHES) and not short:
        return Verdict("SKIP", text)  # few sockets: the allocator's own slack weighs more
    return Verdict(_status(per <= TARGET_BYTES_PER_CONNECTION and not short), text)


def _scaling_target(run: Run) -> Verdict | None:
    single, scaled = _one_process_flat(run), run.ours.get("flat")
    if run.processes == 1 or scaled is None:
        return None
    text = f"flat out, {run.processes} processes against one: >= {TARGET_SCALING:g}x"
    if single is None:
        return Verdict("SKIP", f"{text} (the one-process phase needs --spread match)")
    base = single.actions_per_second
    factor = scaled.actions_per_second / base if base else 0.0
    return Verdict(_status(factor >= TARGET_SCALING), f"{text} (measured {factor:.2f}x)")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"


def _us(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:.0f} us"


def figures(run: Run, lines: list[Verdict]) -> dict[str, Any]:
    """The run's figures as plain data (``--json``): each phase's totals, ours and each
    reference's, and the targets."""

    def of(phase: Phase) -> dict[str, Any]:
        scalars = {
            name: phase.total(name)
            for name, value in phase.tallies[0].items()
            if isinstance(value, int | float)
        }
        latencies = {
            name: {"p50": p50(phase.total(name)), "p99": p99(phase.total(name))}
            for name in ("ack_ms", "viewer_ms", "compare_ms", "refusal_ms")
        }
        return {
            **scalars,
            **latencies,
            "refusals": dict(phase.total("refusals")),
            "actions_per_second": phase.actions_per_second,
            "offered_per_second": phase.offered,
            "server_cpu": phase.server_cpu,
            "redis_cpu": phase.redis_cpu,
            "redis_commands": phase.redis_commands,
            "server_cpu_per_frame": phase.cpu_per_frame(),
        }

    def ratios(name: str) -> dict[str, float | None]:
        phase = run.ours[name]
        base = name.split(",")[0]
        return {
            reference: _ratio(phase, phases.get(base))
            for reference, phases in run.references.items()
        }

    return {
        "matches": run.created,
        "creation_seconds": run.creation_seconds,
        "connections": run.connections,
        "failures": dict(run.failures),
        "ours": {name: of(phase) for name, phase in run.ours.items()},
        **{
            reference: {name: of(phase) for name, phase in phases.items()}
            for reference, phases in run.references.items()
        },
        "cpu_per_frame_ratios": {name: ratios(name) for name in run.ours},
        "targets": [{"status": v.status, "text": v.text} for v in lines],
    }


def report(run: Run, description: list[str], json_file: Path | None = None) -> bool:
    """Print the table and the targets; True when none was missed."""
    for line in description:
        print(line)
    print(
        f"creating {run.created} matches: {run.creation_seconds:.1f} s; connecting "
        f"{run.connections} sockets: {run.connect_seconds:.1f} s"
        + (f"; failed: {dict(run.failures)}" if run.failures else "")
    )
    human = run.ours.get("human")
    if human is not None and human.connections:
        more = (human.rss - run.idle_rss) / human.connections / 1024
        print(
            f"server RSS: {run.idle_rss * PAGE_MIB:.0f} MiB with the matches made and no "
            f"connection, {human.rss * PAGE_MIB:.0f} MiB with {human.connections} connections "
            f"at the end of the human pace ({more:.1f} KiB more per connection)"
        )
        quiet, acked = run.ours.get("quiet"), human.total("acked")
        if quiet is not None and quiet.rss and quiet.connections:
            print(
                f"server RSS at rest (every connection open, no action yet: the quiet phase): "
                f"{(quiet.rss - run.idle_rss) / quiet.connections / 1024:.1f} KiB more per "
                "connection than with none"
            )
        if quiet is not None and quiet.rss and acked:
            # What the matches keep as they are played (their logs, their states), beside
            # what each connection costs: the human pace's growth over its actions (those
            # of its warm-up are not counted: at most this).
            print(
                f"server RSS kept per action at the human pace: at most "
                f"{(human.rss - quiet.rss) / acked:.0f} bytes ({acked} actions measured)"
            )
    print(
        f"our servers' deep collections (each a pause): {len(run.collections)}"
        + "".join(f"; {collection}" for collection in run.collections)
    )
    if run.machine:
        print(f"THIS MACHINE CANNOT OPEN THE SOCKETS THIS RUN NEEDS: {run.machine}")
    print()
    print_table(run)
    labelled = [(phase.label, phase) for phase in run.ours.values()]
    labelled += [
        (f"{reference} {phase.label}", phase)
        for reference, phases in run.references.items()
        for phase in phases.values()
    ]
    for label, phase in labelled:
        for code, text in phase.examples().items():
            print(f"  {label}: {code}, e.g. {text!r}")
    print()
    lines = verdicts(run)
    for verdict in lines:
        print(f"{verdict.status}  {verdict.text}")
    if json_file is not None:
        json_file.write_text(json.dumps(figures(run, lines), indent=2))
    return not any(verdict.status == "FAIL" for verdict in lines)


# -- the run -------------------------------------------------------------------------------


@contextlib.contextmanager
def interrupted_as_error() -> Iterator[None]:
    """SIGTERM stops the run like Ctrl-C does: through every ``finally``."""

    def stop(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


PHASES = {
    "quiet": ("quiet", HUMAN_PACE),
    "human": ("human pace", HUMAN_PACE),
    "flat": ("flat out", 0.0),
    "overload": ("overload", None),
}
"""Each phase's label and pace (the seconds a player takes to act, on average; None: set by
the flat-out phase before it, :func:`overload_pace`). In the quiet phase no match acts:
every connection open, nothing played."""
REFERENCE_PHASES = ("human", "flat")
"""The phases each reference plays (it refuses nothing: overloading it shows nothing)."""


@dataclass
class Stage:
    """What the phases run against: the load, the servers' pids, Redis's."""

    load: Load
    pids: list[int]
    redis: RedisProcess | None
    seconds: float
    warmup: float

    def run(
        self, name: str, only: frozenset[int] | None = None, pace: float | None = None
    ) -> Phase:
        """Phase ``name`` (with ``only``: those matches playing, on the first server; with
        ``pace``: that pace, not the phase's own)."""
        label, own = PHASES[name]
        pids = self.pids if only is None else self.pids[:1]
        if only is not None:
            label = f"{name}, 1 process"
        chosen = own if pace is None else pace
        assert chosen is not None, f"the {name} phase needs a pace"
        matches = frozenset() if name == "quiet" else only
        return run_phase(
            self.load, label, chosen, self.seconds, self.warmup, pids, self.redis, matches
        )

    def close(self) -> None:
        """Every connection of the load closed."""
        self.load.send("close", [None] * len(self.load.pipes))
        self.load.answers(timeout=300)


def start_redis(stack: contextlib.ExitStack, folder: Path, cores: Cores) -> RedisProcess:
    """The bench's own redis-server, stopped with the stack."""
    redis = RedisProcess(folder / "redis")
    redis.start()
    stack.callback(redis.stop)
    assert redis.process is not None
    if cores.rest:
        os.sched_setaffinity(redis.process.pid, cores.rest)
    return redis


def start_servers(
    stack: contextlib.ExitStack,
    count: int,
    folder: Path,
    redis: RedisProcess,
    cores: Cores,
    options: Sequence[str] = (),
) -> tuple[list[Child], list[str], str]:
    """``count`` server processes on the bench's Redis, stopped with the stack; returns them,
    their URLs and the organiser key they share."""
    key_file = folder / "organiser.key"
    key = "load-organiser-key"
    key_file.write_text(key)
    key_file.chmod(0o600)
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0] - SOCKET_MARGIN
    servers: list[Child] = []
    urls: list[str] = []
    for index in range(count):
        pinned = cores.servers[index] if cores.servers else None
        server, url = start_server(index, folder, redis.url, key_file, limit, pinned, options)
        stack.callback(server.stop)
        servers.append(server)
        urls.append(url)
    return servers, urls, key


def overload_pace(flat: Phase) -> tuple[float, float] | None:
    """The overload phase's pace after ``flat``: the mean think time at which the tables
    still playing would offer :data:`OVERLOAD` times the actions per second served flat out
    (each of them acts once per think time, were the server instant); and that offered rate.
    None when no match is left to play, or none was served."""
    tables = 2 * int(flat.total("playing"))
    offered = OVERLOAD * flat.actions_per_second
    if not tables or not offered:
        return None
    return tables / offered, offered


def play_ours(
    args: argparse.Namespace,
    run: Run,
    stage: Stage,
    created: list[tuple[int, MatchCreated]],
    description: list[str],
) -> None:
    """Our server's phases; before flat out on several processes, flat out with only the
    first process's matches playing (the one-process reference)."""
    for name in args.phases.split(","):
        pace = offered = None
        if name == "overload":
            overload = overload_pace(run.ours["flat"])
            if overload is None:
                description.append(
                    "overload: not played, no match was left to play after flat out "
                    "(more --boards make longer matches)"
                )
                continue
            pace, offered = overload
        if name == "flat" and args.processes > 1 and args.spread == "match":
            first = frozenset(number for number, (index, _) in enumerate(created) if index == 0)
            run.ours["flat, 1 process"] = stage.run(name, first)
        phase = stage.run(name, pace=pace)
        phase.connections = run.connections - sum(run.failures.values())
        if pace is not None and offered is not None:
            phase.offered = offered
            description.append(
                f"overload: each player acts {pace * 1000:.1f} ms (mean, jittered) after its "
                f"turn comes, offering {offered:,.0f} actions/s, {OVERLOAD:g}x the "
                f"{run.ours['flat'].actions_per_second:,.0f} served flat out"
            )
        run.ours[name] = phase


def play_reference(
    args: argparse.Namespace,
    run: Run,
    stack: contextlib.ExitStack,
    load: Load,
    cores: Cores,
    name: str,
) -> None:
    """The human and flat phases against reference ``name``, on the core our (first)
    server had, stopped at the end (the next reference has the core to itself)."""
    pinned = cores.servers[0] if cores.servers else None
    reference, url = start_reference(name, args.boards, args.review_seconds, pinned)
    stack.callback(reference.stop)
    connect(load, reference_specs(run.created, url))
    stage = Stage(load, [reference.pid], None, args.seconds, args.warmup)
    phases = run.references.setdefault(name, {})
    for phase in args.phases.split(","):
        if phase in REFERENCE_PHASES:
            phases[phase] = stage.run(phase)
    stage.close()
    reference.stop()


def measure(args: argparse.Namespace, run: Run, description: list[str]) -> None:
    """Start everything, create, connect, run the phases (ours, then each reference's), and
    stop everything, whatever happens."""
    limit = raise_descriptor_limit()
    load_count = args.load_processes or min(8, math.ceil(args.matches / MATCHES_PER_LOAD_PROCESS))
    run.machine = machine_limits(args.matches, args.processes, load_count, limit)
    cores = Cores.plan(args.processes)
    description.append(
        f"load: {args.matches} matches of {args.boards} boards (8 players and a live spectator "
        f"each: {9 * args.matches} sockets), {args.processes} server process(es) (--spread "
        f"{args.spread}), {load_count} load process(es)"
    )
    description.append(cores.describe(args.processes, load_count))
    shm = Path("/dev/shm")
    with contextlib.ExitStack() as stack:
        where = shm if shm.is_dir() else None
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="load-", dir=where)))
        redis = start_redis(stack, folder, cores)
        kind = "tmpfs: its fsyncs cost nothing" if where else "disk"
        description.append(
            f"Redis: our own redis-server on 127.0.0.1:{redis.port}, appendfsync always, its "
            f"files in {folder} ({kind})"
        )
        overload = [] if args.overload_lag is None else ["--overload-lag", str(args.overload_lag)]
        servers, urls, key = start_servers(stack, args.processes, folder, redis, cores, overload)
        created, run.creation_seconds = asyncio.run(
            create_matches(
                urls, key, args.matches, args.boards, args.review_seconds, args.create_seconds
            )
        )
        run.created = len(created)
        if run.created < args.matches:
            description.append(
                f"creation stopped after {args.create_seconds:g} s (--create-seconds): "
                f"{run.created} of {args.matches} matches made; the load plays those"
            )
        pids = [server.pid for server in servers]
        run.idle_rss = sum(rss_bytes(pid) for pid in pids)  # the matches made, no connection
        load = Load(load_count, cores.rest)
        stack.callback(load.stop)
        specs = spread(created, urls, args.spread)
        run.connections, run.connect_seconds, run.failures = connect(load, specs)
        stage = Stage(load, pids, redis, args.seconds, args.warmup)
        play_ours(args, run, stage, created, description)
        stage.close()
        for server in servers:
            server.stop()  # its core is the references' now
            run.collections += server.collections
        for name in args.references:
            play_reference(args, run, stack, load, cores, name)


def options(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=MATCHES)
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds per phase")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before each measure")
    parser.add_argument("--processes", type=int, default=1, help="server processes")
    parser.add_argument(
        "--spread",
        choices=("match", "connection"),
        default="match",
        help="match: each match wholly on one process; connection: table 1 on "
        "one, table 2 and the spectator on the next",
    )
    parser.add_argument(
        "--load-processes",
        type=int,
        default=0,
        help=f"default: one per {MATCHES_PER_LOAD_PROCESS} matches, at most 8",
    )
    parser.add_argument(
        "--phases",
        default="quiet,human,flat,overload",
        help="some of quiet, human, flat, overload (overload comes after flat and needs it; "
        "in quiet no match acts)",
    )
    parser.add_argument(
        "--boards",
        type=int,
        help=f"boards per match (default {BOARDS}; --quick: {QUICK_BOARDS}): a match over "
        "plays no more, and few matches flat out need many",
    )
    parser.add_argument("--review-seconds", type=int, default=20)
    parser.add_argument(
        "--create-seconds",
        type=float,
        default=900.0,
        help="stop creating matches after this long, and play those made",
    )
    parser.add_argument(
        "--references",
        default="deltas,views",
        help="the reference servers to run after ours: deltas, views, both, or none",
    )
    parser.add_argument(
        "--overload-lag",
        type=float,
        metavar="MS",
        help="our servers' --overload-lag (default: duplicate serve's)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"a short run: 20 matches of {QUICK_BOARDS} boards, 10 s per phase, 2 s of warm-up",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.matches, args.seconds, args.warmup = 20, 10.0, 2.0
    if args.boards is None:
        args.boards = QUICK_BOARDS if args.quick else BOARDS
    phases = args.phases.split(",")
    if set(phases) - set(PHASES) or len(set(phases)) < len(phases):
        parser.error("--phases takes some of quiet, human, flat and overload, each once")
    if "overload" in phases and (
        "flat" not in phases or phases.index("flat") > phases.index("overload")
    ):
        parser.error("--phases: overload needs flat before it (it offers twice flat out's rate)")
    args.references = [] if args.references == "none" else args.references.split(",")
    if set(args.references) - set(REFERENCES):
        parser.error("--references takes deltas, views, deltas,views or none")
    return args


def main(argv: list[str] | None = None) -> None:
    args = options(argv)
    run = Run(matches=args.matches, processes=args.processes)
    description: list[str] = []
    with interrupted_as_error():
        try:
            measure(args, run, description)
        except KeyboardInterrupt:
            print("interrupted: everything the bench started is stopped", file=sys.stderr)
            sys.exit(130)
        except (ClientError, RuntimeError, OSError) as error:
            print(f"the bench failed: {error!r}", file=sys.stderr)
            sys.exit(2)
    sys.exit(0 if report(run, description, args.json) else 1)


if __name__ == "__main__":
    main()
