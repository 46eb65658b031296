"""The load benchmark: many concurrent matches of light scripted players over real sockets,
at a human pace and flat out, against our server and against a bare baseline server.

    .venv/bin/python -m bench.load [--matches 1000] [--seconds 60] [--processes 1]
                                   [--spread match|connection] [--load-processes N]
                                   [--phases human,flat] [--skip-baseline] [--quick]
                                   [--boards 4] [--create-seconds 900] [--json FILE]

Starts its own ``redis-server`` (a free loopback port, never the machine's 6379), one or
more ``duplicate serve`` processes on it, and the load in processes of its own (clients never
share a process with a server): ``--matches`` teams matches, each played by eight scripted
players and watched by one live spectator (``bench/load_clients.py``). The matches are
created through the protocol, as the organiser, and timed; creation stops after
``--create-seconds`` and the load plays the matches made by then.

Phases, each ``--seconds`` measured after a warm-up: ``human`` (each player acts about 2 s,
jittered, after it becomes its turn) and ``flat`` (at once). With ``--processes N`` (N > 1)
and ``--spread match`` a flat-out phase with only the first process's matches playing comes
first, for the throughput of N processes against one. Then the same phases against the
baseline (``bench/load_baseline.py``): a bare ``websockets`` server that builds each
recipient's view of the same shape and sends it, on the core our server had.

Prints one table: per phase, actions/s (acknowledged), frames/s received, bytes per frame;
p50/p99/max from an action to its ack, to its last viewer (the table's four players and the
spectator), and from the action that finished a board at its last table (the fourth
``next_board``, ending its review) to the last of the nine viewers receiving the comparison;
refusals by code; server and Redis CPU (``/proc``) per action and per frame received, and
ours (server and Redis) per frame against the baseline's; the load's own CPU. Memory is the
server processes' whole RSS over their connections ("all included"). Then one line per
target: PASS, FAIL, or SKIP when this run cannot show it (fewer matches than the target's,
several processes); a target missed at a smaller size is missed. Exits 1 when one is.

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

# The targets (issue #11).
TARGET_MATCHES = 1000
TARGET_VIEWER_P99_MS = 25.0
TARGET_CPU_RATIO = 2.0
TARGET_FLAT_ACTIONS = 1500.0
TARGET_COMPARE_P99_MS = 10.0
TARGET_CREATE_SECONDS = 20.0
TARGET_BYTES_PER_CONNECTION = 32 * 1024
TARGET_SCALING = 1.8


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
    """A server process of ours (``duplicate serve``, the baseline): started, its output
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
    index: int, folder: Path, redis_url: str, key_file: Path, limit: int, cores: set[int] | None
) -> tuple[Child, str]:
    """``duplicate serve`` number ``index`` on the bench's Redis; returns it and its URL."""
    port = free_port()
    command = [
        sys.executable, "-m", "duplicate", "serve", "--redis", redis_url,
        "--host", "127.0.0.1", "--port", str(port), "--data", str(folder / f"server{index}"),
        "--organiser-key-file", str(key_file), "--server-robot-delay", "0",
        # All the load comes from 127.0.0.1: a robot host's setting.
        "--max-connections", str(limit), "--max-connections-per-address", str(limit),
    ]  # fmt: skip
    return Child(f"server {index + 1}", command, "Serving on", cores), f"ws://127.0.0.1:{port}/ws"


def start_baseline(boards: int, review_seconds: int, cores: set[int] | None) -> tuple[Child, str]:
    port = free_port()
    command = [
        sys.executable, "-m", "bench.load_baseline", "--port", str(port),
        "--boards", str(boards), "--review-seconds", str(review_seconds),
    ]  # fmt: skip
    return Child("the baseline", command, "Baseline on", cores), f"ws://127.0.0.1:{port}/ws"


@dataclass(frozen=True)
class Cores:
    """Which cores each side runs on: each server process on its own (the baseline on the
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
            f"{self.total} cores: each server process (and the baseline) on a core of its own, "
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


def baseline_specs(count: int, url: str) -> list[MatchSpec]:
    """The same matches' links on the baseline (its tokens name match, table and seat)."""
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

    def cpu_per_frame(self, with_redis: bool = True) -> float | None:
        cpu = self.server_cpu + (self.redis_cpu if with_redis else 0.0)
        return cpu / self.frames if self.frames else None


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
    baseline: dict[str, Phase] = field(default_factory=dict)
    machine: str | None = None
    """Why this machine cannot open the sockets the run needs (None: it can)."""


def run_phase(
    load: Load,
    label: str,
    pace: float,
    seconds: float,
    warmup: float,
    pids: list[int],
    redis_pid: int | None,
    matches: frozenset[int] | None = None,
) -> Phase:
    """One phase: the load acts for ``warmup + seconds``, the last ``seconds`` measured."""
    start = time.monotonic()
    order = PhaseOrder(label, pace, start + warmup, start + warmup + seconds, matches)
    load.send("phase", [order] * len(load.pipes))

    def cpu() -> tuple[float, float]:
        redis = 0.0 if redis_pid is None else cpu_seconds(redis_pid)
        return sum(cpu_seconds(pid) for pid in pids), redis

    time.sleep(max(0.0, order.measure_from - time.monotonic()))
    server_before, redis_before = cpu()
    time.sleep(max(0.0, order.until - time.monotonic()))
    server_after, redis_after = cpu()
    rss = sum(rss_bytes(pid) for pid in pids)
    tallies = load.answers(timeout=120)
    return Phase(
        label, seconds, tallies, server_after - server_before, redis_after - redis_before, rss
    )


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


def _ratio(ours: Phase | None, base: Phase | None) -> float | None:
    if ours is None or base is None:
        return None
    mine, theirs = ours.cpu_per_frame(), base.cpu_per_frame(with_redis=False)
    return None if mine is None or not theirs else mine / theirs


def rows(phase: Phase, baseline: Phase | None, base_row: bool) -> list[str]:
    """One column of the table."""
    frames = phase.frames
    acked = phase.total("acked")
    refusals = phase.total("refusals")
    ratio = _ratio(phase, baseline)

    def per(value: float, count: int, scale: float) -> str:
        return f"{value / count * scale:.1f}" if count else "-"

    return [
        f"{phase.actions_per_second:.0f}",
        f"{frames / phase.seconds:.0f}",
        f"{phase.total('bytes') / frames:.0f}" if frames else "-",
        percentiles(phase.total("ack_ms")),
        percentiles(phase.total("viewer_ms")),
        f"{percentiles(phase.total('compare_ms'))} ({len(phase.total('compare_ms'))})",
        " ".join(f"{code}:{n}" for code, n in sorted(refusals.items())) or "0",
        per(phase.server_cpu, acked, 1000),
        per(phase.server_cpu, frames, 1e6),
        "-" if base_row else per(phase.redis_cpu, frames, 1e6),
        "-" if ratio is None else f"{ratio:.2f}x",
        f"{100 * phase.total('load_cpu') / phase.seconds:.0f}%",
        f"{phase.total('boards_finished')}",
        f"{phase.total('compared')}/{phase.total('compared_partly')}"
        f"/{phase.total('compared_untimed')}",
        f"{phase.total('undelivered')}",
        f"{phase.total('playing')}",
    ]


ROW_NAMES = [
    "actions/s (acked)",
    "frames/s received",
    "bytes per frame (mean)",
    "action -> ack ms p50/p99/max",
    "action -> last viewer ms p50/p99/max",
    "comparison -> last of 9 ms (n)",
    "refusals by code",
    "server CPU ms per action",
    "server CPU us per frame",
    "Redis CPU us per frame",
    "CPU per frame vs baseline",
    "load CPU (% of one core)",
    "boards finished",
    "comparisons: all/partly/untimed",
    "updates not delivered to all",
    "matches still playing at the end",
]


def print_table(run: Run) -> None:
    columns: list[tuple[str, list[str]]] = []
    for name, phase in run.ours.items():
        base = run.baseline.get(name.split(",")[0])
        columns.append((phase.label, rows(phase, base, base_row=False)))
    for phase in run.baseline.values():
        columns.append((f"baseline {phase.label}", rows(phase, None, base_row=True)))
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
    """One line per target of the issue (those this run's phases can speak to)."""
    found = [
        _viewer_target(run),
        _refusals_target(run),
        *(_cpu_target(run, name) for name in ("human", "flat")),
        _throughput_target(run),
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


def _full_size(run: Run) -> bool:
    return run.created >= TARGET_MATCHES and run.processes == 1


def _viewer_target(run: Run) -> Verdict | None:
    human = run.ours.get("human")
    if human is None:
        return None
    worst = p99(human.total("viewer_ms"))
    short = _short_of_sockets(run)
    ok = worst is not None and worst <= TARGET_VIEWER_P99_MS and not short
    text = (
        f"human pace, {TARGET_MATCHES:,} matches on one process: p99 action -> last viewer "
        f"<= {TARGET_VIEWER_P99_MS:g} ms (measured {_ms(worst)} with {run.created} matches "
        f"on {run.processes} process(es)){short}"
    )
    return Verdict(_status(ok, _full_size(run)), text)


def _refusals_target(run: Run) -> Verdict | None:
    human = run.ours.get("human")
    if human is None:
        return None
    refused = human.total("refusals")
    text = f"human pace: no refusals (got {sum(refused.values())}: {dict(refused) or 'none'})"
    return Verdict(_status(not refused), text)


def _cpu_target(run: Run, name: str) -> Verdict | None:
    phase = run.ours.get(name)
    if phase is None:
        return None
    ratio = _ratio(phase, run.baseline.get(name))
    text = (
        f"{phase.label}: CPU (server and Redis) per delivered frame <= {TARGET_CPU_RATIO:g}x the "
        f"baseline's (measured {'-' if ratio is None else f'{ratio:.2f}x'})"
    )
    return Verdict("SKIP" if ratio is None else _status(ratio <= TARGET_CPU_RATIO), text)


def _one_process_flat(run: Run) -> Phase | None:
    """The flat-out phase on one process: the reference phase of a run of several."""
    return run.ours.get("flat, 1 process") or (run.ours.get("flat") if run.processes == 1 else None)


def _throughput_target(run: Run) -> Verdict | None:
    phase = _one_process_flat(run)
    if phase is None:
        return None
    rate = phase.actions_per_second
    text = f"flat out, one process: >= {TARGET_FLAT_ACTIONS:,.0f} actions/s (measured {rate:,.0f})"
    return Verdict(_status(rate >= TARGET_FLAT_ACTIONS), text)


def _comparison_target(run: Run) -> Verdict | None:
    samples = [sample for phase in run.ours.values() for sample in phase.total("compare_ms")]
    partly = sum(phase.total("compared_partly") for phase in run.ours.values())
    worst = p99(samples)
    text = (
        f"a comparison reaches all 8 players and the spectator <= {TARGET_COMPARE_P99_MS:g} ms "
        f"p99 after the action that finished the board's last table (measured {_ms(worst)} "
        f"over {len(samples)}; reached only some: {partly})"
    )
    if worst is None and not partly:
        return Verdict("SKIP", text)
    return Verdict(
        _status(worst is not None and worst <= TARGET_COMPARE_P99_MS and not partly), text
    )


def _creation_target(run: Run) -> Verdict | None:
    if not run.created:
        return None
    projected = run.creation_seconds / run.created * TARGET_MATCHES
    text = (
        f"creating {TARGET_MATCHES:,} matches < {TARGET_CREATE_SECONDS:g} s ({run.created} in "
        f"{run.creation_seconds:.1f} s: {projected:.0f} s for {TARGET_MATCHES:,} at that rate)"
    )
    return Verdict(_status(projected < TARGET_CREATE_SECONDS), text)


def _memory_target(run: Run) -> Verdict | None:
    human = run.ours.get("human")
    if human is None or not human.connections:
        return None
    per = human.rss / human.connections
    short = _short_of_sockets(run)
    text = (
        f"memory <= {TARGET_BYTES_PER_CONNECTION // 1024} KiB per connection, all included "
        f"(measured {per / 1024:.1f} KiB: server RSS {human.rss * PAGE_MIB:.0f} MiB over "
        f"{human.connections} connections){short}"
    )
    if not _full_size(run) and not short:
        return Verdict("SKIP", text)  # the process's own size weighs more on fewer sockets
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


def figures(run: Run, lines: list[Verdict]) -> dict[str, Any]:
    """The run's figures as plain data (``--json``): each phase's totals and the targets."""

    def of(phase: Phase) -> dict[str, Any]:
        scalars = {
            name: phase.total(name)
            for name, value in phase.tallies[0].items()
            if isinstance(value, int | float)
        }
        latencies = {
            name: {"p50": p50(phase.total(name)), "p99": p99(phase.total(name))}
            for name in ("ack_ms", "viewer_ms", "compare_ms")
        }
        return {
            **scalars,
            **latencies,
            "refusals": dict(phase.total("refusals")),
            "actions_per_second": phase.actions_per_second,
            "server_cpu": phase.server_cpu,
            "redis_cpu": phase.redis_cpu,
        }

    return {
        "matches": run.created,
        "creation_seconds": run.creation_seconds,
        "connections": run.connections,
        "failures": dict(run.failures),
        "ours": {name: of(phase) for name, phase in run.ours.items()},
        "baseline": {name: of(phase) for name, phase in run.baseline.items()},
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
    if run.machine:
        print(f"THIS MACHINE CANNOT OPEN THE SOCKETS THIS RUN NEEDS: {run.machine}")
    print()
    print_table(run)
    for phase in [*run.ours.values(), *run.baseline.values()]:
        for code, text in phase.examples().items():
            print(f"  {phase.label}: {code}, e.g. {text!r}")
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


PHASES = {"human": ("human pace", HUMAN_PACE), "flat": ("flat out", 0.0)}
"""Each phase's label and pace (the seconds a player takes to act, on average)."""


@dataclass
class Stage:
    """What the phases run against: the load, the servers' pids, Redis's."""

    load: Load
    pids: list[int]
    redis_pid: int | None
    seconds: float
    warmup: float

    def run(self, name: str, only: frozenset[int] | None = None) -> Phase:
        """Phase ``name`` (with ``only``: those matches playing, on the first server)."""
        label, pace = PHASES[name]
        pids = self.pids if only is None else self.pids[:1]
        if only is not None:
            label = f"{name}, 1 process"
        return run_phase(
            self.load, label, pace, self.seconds, self.warmup, pids, self.redis_pid, only
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
    stack: contextlib.ExitStack, count: int, folder: Path, redis: RedisProcess, cores: Cores
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
        server, url = start_server(index, folder, redis.url, key_file, limit, pinned)
        stack.callback(server.stop)
        servers.append(server)
        urls.append(url)
    return servers, urls, key


def play_ours(
    args: argparse.Namespace, run: Run, stage: Stage, created: list[tuple[int, MatchCreated]]
) -> None:
    """Our server's phases; before flat out on several processes, flat out with only the
    first process's matches playing (the one-process reference)."""
    for name in args.phases.split(","):
        if name == "flat" and args.processes > 1 and args.spread == "match":
            first = frozenset(number for number, (index, _) in enumerate(created) if index == 0)
            run.ours["flat, 1 process"] = stage.run(name, first)
        phase = stage.run(name)
        phase.connections = run.connections - sum(run.failures.values())
        run.ours[name] = phase


def play_baseline(
    args: argparse.Namespace, run: Run, stack: contextlib.ExitStack, load: Load, cores: Cores
) -> None:
    """The same phases against the baseline, on the core our (first) server had."""
    pinned = cores.servers[0] if cores.servers else None
    baseline, url = start_baseline(args.boards, args.review_seconds, pinned)
    stack.callback(baseline.stop)
    connect(load, baseline_specs(run.created, url))
    stage = Stage(load, [baseline.pid], None, args.seconds, args.warmup)
    for name in args.phases.split(","):
        run.baseline[name] = stage.run(name)
    stage.close()


def measure(args: argparse.Namespace, run: Run, description: list[str]) -> None:
    """Start everything, create, connect, run the phases (ours, then the baseline's), and
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
        servers, urls, key = start_servers(stack, args.processes, folder, redis, cores)
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
        assert redis.process is not None
        stage = Stage(load, pids, redis.process.pid, args.seconds, args.warmup)
        play_ours(args, run, stage, created)
        stage.close()
        for server in servers:
            server.stop()  # its core is the baseline's now
        if not args.skip_baseline:
            play_baseline(args, run, stack, load, cores)


def options(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=TARGET_MATCHES)
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
    parser.add_argument("--phases", default="human,flat", help="human, flat, or both")
    parser.add_argument("--boards", type=int, default=4, help="boards per match")
    parser.add_argument("--review-seconds", type=int, default=20)
    parser.add_argument(
        "--create-seconds",
        type=float,
        default=900.0,
        help="stop creating matches after this long, and play those made",
    )
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a short run: 20 matches, 10 s per phase, 2 s of warm-up",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.matches, args.seconds, args.warmup = 20, 10.0, 2.0
    if set(args.phases.split(",")) - {"human", "flat"}:
        parser.error("--phases takes human, flat or human,flat")
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
