"""Hostile load against one match, measured from another: does a burst of bad ``hello``s, a
resume storm or a connection flood stall a match that nobody attacks? (Issue #23, item 4.)

    .venv/bin/python -m bench.hostile [--phase-seconds 12] [--baseline-seconds 12]
                                      [--phases quiet,hellos,storm,flood] [--boards-played 8]
                                      [--memory] [--trace DIR] [--py-spy PATH] [--json FILE]

Starts ``duplicate serve`` (with its own embedded Redis, in a temporary data folder; on
tmpfs with ``--memory``) in a process of its own, with the limits it has by default, and
creates two matches: A, where North is played by the monitor, a process of its own, against
the server's robots; and B, which this process's robots play for ``--boards-played`` boards
before anything is measured (a log to resume from), and then leave.

The monitor sends a ping every 20 ms on a fixed schedule, not waiting for the answer to the
one before: a stall shows in every ping it holds up, as a client's heartbeat would see it,
and not in one. It times each from sending to its answer, and notes how late its own loop
sent it (its share of the machine's noise). It plays North's calls and cards too, at most
one every 0.25 s, each timed from sending to its ``ack``. Then, one after another, each
attack in a process of its own (at ``--attacker-nice``: the attackers' own CPU would be
another machine's):

``quiet``
    Nobody attacks: the baseline. This machine may be shared and noisy: read the other
    phases against it.
``hellos``
    Hellos with made-up tokens from 16 loopback addresses (127.0.0.2-17: each client socket
    is bound to one), ``--workers`` connections from each at once, each sending hellos as
    fast as they are answered and connecting again when the server closes it.
``storm``
    B's eight players, its spectator and its director, ``--devices`` connections each, from
    an address of their own each (127.0.0.18-27), reconnect all at once every 2 s with a
    ``last_seq`` 60 updates old: the server regenerates every update each of them missed.
``flood``
    New connections from the 16 addresses, opened and closed as fast as they go: bare TCP
    connections that close at once, and WebSocket handshakes closed as soon as answered.

A phase is measured from its attack's start until 2 s after its end (what the attack left
the server to do counts too). The figures are the monitor's, never the server's. Prints a
table: per phase, the monitor's pings (count, p50/p99/max ms, lost, how late it sent them),
its actions (count, p50/p99/max ms), the server's and Redis's CPU, and what the attack
achieved; then PASS or FAIL per phase against the target: ping p99 <= 20 ms and max <=
100 ms. Exits 0 when every phase meets it, 1 when one misses, 2 when the bench failed.

``--trace DIR`` starts the server through this module's tracer (``python -m bench.hostile
trace-server DIR -- serve ...``: bench code, nothing in the server), which notes every
event-loop callback of 5 ms or more, every garbage collection, each thread's CPU, and
samples the main thread's stack while a callback runs long; the report then says, per
phase, where the loop's time went. ``--py-spy PATH`` also records py-spy's samples of the
server's threads during each phase, in DIR (the tracer's own overhead is a few per cent).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import resource
import secrets
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from bench.serve import ServeProcess
from clients.client import Client, ClientError, Link
from clients.robot import Robot
from protocol.codec import encode
from protocol.messages import PROTOCOL_VERSION, Hello, MatchCreated, PlayerView
from server.redis_process import free_port

ROOT = Path(__file__).resolve().parents[1]
KEY = "hostile-bench-organiser-key"
PHASES = ("quiet", "hellos", "storm", "flood")

# The target (issue #23, item 4): another match's pings, in every phase.
TARGET_PING_P99_MS = 20.0
TARGET_PING_MAX_MS = 100.0

PING_EVERY = 0.02
"""Seconds between two of the monitor's pings (each sent on time, whatever the last one)."""
ACTION_GAP = 0.25
"""Seconds the monitor waits at the least between two of its actions."""
PING_TIMEOUT = 10.0
TAIL = 2.0
"""Seconds after an attack's end that still count as its phase."""
ATTACK_ADDRESSES = tuple(f"127.0.0.{n}" for n in range(2, 18))
"""The hostile clients' 16 source addresses (loopback: 127.0.0.0/8 is all the machine's)."""
STORM_FIRST_ADDRESS = 18
"""B's viewers resume from 127.0.0.18 on, one address each."""
STORM_BEHIND = 60
"""Updates a resuming viewer says it missed: under the server's RESUME_LIMIT (64), so that
each is regenerated rather than replaced by one snapshot."""
STORM_EVERY = 2.0
"""Seconds between two waves of the resume storm (within the seats' presence grace)."""
STRONG_NORTH = "N:AKQJ.AKQ.AKQ.AKQ T98.JT98.JT9.JT9 765.765.8765.876 432.432.432.5432"
"""North holds every ace, king and queen and bids 7NT: North declares every board of A and
plays dummy's cards too, so the monitor acts often."""
MONITOR_BOARDS = 64
SLOW_CALLBACK = 0.005
"""Seconds from which the tracer notes an event-loop callback (and samples its stack)."""


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank; 0.0 for none).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5), percentile([], 0.99)
    (3.0, 0.0)
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def deals_pbn(boards: int) -> str:
    """A PBN file of ``boards`` boards, each with :data:`STRONG_NORTH`'s cards."""
    return "\n".join(
        f'[Board "{n}"]\n[Dealer "N"]\n[Vulnerable "None"]\n[Deal "{STRONG_NORTH}"]\n'
        for n in range(1, boards + 1)
    )


def process_cpu(pid: int) -> float:
    """CPU seconds (user and system) a process has used so far (0.0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- the monitor: a player of match A, in a process of its own ------------------------------


async def monitor(link: str) -> None:
    """Ping on a fixed schedule and play North's turns until standard input closes; then
    print one JSON line: every ping ``[sent, round trip or None, lateness]`` and every action
    ``[sent, round trip or None]`` (seconds; ``sent`` by ``time.monotonic``, the machine's
    clock that every process shares)."""
    client = await Client.connect(link, name="hostile-bench monitor")
    pings: list[tuple[float, float | None, float]] = []
    actions: list[tuple[float, float | None]] = []
    errors: Counter[str] = Counter()
    finished = False
    in_flight: set[asyncio.Task[None]] = set()

    async def one_ping(scheduled: float) -> None:
        sent = time.monotonic()
        try:
            async with asyncio.timeout(PING_TIMEOUT):
                await client.ping()
            pings.append((sent, time.monotonic() - sent, sent - scheduled))
        except (ClientError, TimeoutError) as error:
            errors[f"ping: {getattr(error, 'code', 'timeout')}"] += 1
            pings.append((sent, None, sent - scheduled))

    async def pinging() -> None:
        due = time.monotonic()
        while True:
            due += PING_EVERY
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            elif wait < -PING_EVERY:
                due = time.monotonic()  # this process was held up: no burst to catch up
            task = asyncio.create_task(one_ping(due))
            in_flight.add(task)
            task.add_done_callback(in_flight.discard)

    async def playing() -> None:
        nonlocal finished
        acted = 0.0
        while True:
            view = await client.wait_for(
                lambda v: v if v.match.finished or (v.board and v.board.legal) else None,
                timeout=None,
            )
            assert isinstance(view, PlayerView)
            if view.match.finished or view.board is None:
                finished = True
                return
            await asyncio.sleep(max(0.0, acted + ACTION_GAP - time.monotonic()))
            acted = sent = time.monotonic()
            try:
                if view.board.phase == "auction":
                    await client.call("7NT" if "7NT" in view.board.legal else "P")
                else:
                    await client.play(view.board.legal[0])
                actions.append((sent, time.monotonic() - sent))
            except ClientError as error:
                errors[f"action: {error.code}"] += 1
                actions.append((sent, None))
                if error.code == "closed":
                    return
                await asyncio.sleep(0.1)  # the view changed meanwhile: look again

    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    tasks = [asyncio.create_task(pinging()), asyncio.create_task(playing())]
    await loop.run_in_executor(None, sys.stdin.read)  # until the bench closes it
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if in_flight:
        await asyncio.wait(in_flight, timeout=PING_TIMEOUT + 1)
    await client.close()
    report = {"pings": pings, "actions": actions, "errors": errors, "finished": finished}
    print(json.dumps(report), flush=True)


# -- the attacks, each in a process of its own ----------------------------------------------


def _frame_type(frame: bytes | str) -> dict[str, Any]:
    """A server frame's top-level fields, read cheaply (the attacker's CPU is not the
    server's; no validation)."""
    try:
        data = msgpack.unpackb(frame, raw=False) if isinstance(frame, bytes) else {}
    except (ValueError, msgpack.ExtraData):
        return {}
    return data if isinstance(data, dict) else {}


def _hello(token: str, last_seq: int | None = None) -> bytes:
    return encode(
        Hello(
            version=PROTOCOL_VERSION,
            versions=[PROTOCOL_VERSION],
            token=token,
            last_seq=last_seq,
            client="hostile-bench",
        )
    )


def _open(url: str, address: str, **options: Any) -> Any:
    """A WebSocket connection from ``address`` (the client socket bound to it)."""
    return connect(
        url, local_addr=(address, 0), compression=None, open_timeout=10, close_timeout=1, **options
    )


async def bad_hellos(url: str, until: float, workers: int, counts: Counter[str]) -> None:
    """From each attack address, ``workers`` connections sending hellos with made-up tokens
    as fast as the server answers, reconnecting when it closes them."""

    async def worker(address: str) -> None:
        while time.monotonic() < until:
            try:
                async with _open(url, address) as ws:
                    counts["connections opened"] += 1
                    while time.monotonic() < until:
                        await ws.send(_hello(f"guess-{secrets.token_urlsafe(18)}"))
                        counts["hellos sent"] += 1
                        reply = _frame_type(await ws.recv())
                        counts[f"hellos answered {reply.get('code', reply.get('type'))}"] += 1
            except InvalidStatus as refused:
                counts[f"connections refused ({refused.response.status_code})"] += 1
                await asyncio.sleep(0.1)
            except ConnectionClosed:
                counts["connections closed by the server"] += 1
            except (OSError, WebSocketException, TimeoutError):
                counts["connections failed"] += 1
                await asyncio.sleep(0.1)

    await asyncio.gather(*(worker(a) for a in ATTACK_ADDRESSES for _ in range(workers)))


async def _resume(
    url: str, address: str, token: str, last_seq: int | None, counts: Counter[str]
) -> int | None:
    """One resume: hello with ``last_seq``, read up to the welcome's number, close. The
    viewer's newest number, or None when refused."""
    try:
        async with _open(url, address, max_size=None) as ws:
            await ws.send(_hello(token, last_seq))
            welcome = _frame_type(await ws.recv())
            if welcome.get("type") != "welcome":
                counts[f"resumes refused: {welcome.get('code')}"] += 1
                return None
            newest = int(welcome["seq"])
            seq = last_seq or 0
            while seq < newest:
                frame = _frame_type(await ws.recv())
                if frame.get("type") == "update":
                    seq = int(frame["seq"])
                    # An update with the whole view is correct too, only longer.
                    whole = "updates with the whole view"
                    counts[whole if frame.get("view") else "updates regenerated"] += 1
            return newest
    except InvalidStatus as refused:
        counts[f"resumes refused ({refused.response.status_code})"] += 1
    except (OSError, WebSocketException, TimeoutError):
        counts["resumes failed"] += 1
    return None


async def resume_storm(
    url: str, seconds: float, links: list[str], devices: int, counts: Counter[str]
) -> list[float]:
    """Every viewer of ``links`` (from an address of its own), ``devices`` connections each,
    resumes all at once every :data:`STORM_EVERY` seconds, :data:`STORM_BEHIND` updates
    behind. Returns each resume's time (seconds)."""
    tokens = [Link.parse(link).token for link in links]
    addresses = [f"127.0.0.{STORM_FIRST_ADDRESS + n}" for n in range(len(tokens))]
    newest = dict.fromkeys(tokens, 0)
    for token, address in zip(tokens, addresses, strict=True):  # where each viewer is now
        newest[token] = await _resume(url, address, token, None, Counter()) or 0
    took: list[float] = []

    async def device(token: str, address: str) -> None:
        start = time.monotonic()
        behind = max(1, newest[token] - STORM_BEHIND)
        seq = await _resume(url, address, token, behind, counts)
        if seq is not None:
            newest[token] = max(newest[token], seq)
            counts["resumes"] += 1
            took.append(time.monotonic() - start)

    print("attacking", flush=True)
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        wave = time.monotonic()
        counts["waves"] += 1
        await asyncio.gather(
            *(
                device(token, address)
                for token, address in zip(tokens, addresses, strict=True)
                for _ in range(devices)
            )
        )
        await asyncio.sleep(max(0.0, wave + STORM_EVERY - time.monotonic()))
    return took


async def connection_flood(
    host: str, port: int, until: float, workers: int, counts: Counter[str]
) -> None:
    """From each attack address, ``workers`` loops opening connections and closing them at
    once: a bare TCP connection, then a WebSocket handshake closed (abruptly) once answered."""
    request = (
        f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n"
    ).encode()

    async def worker(address: str) -> None:
        while time.monotonic() < until:
            writer = None
            try:
                _reader, writer = await asyncio.open_connection(host, port, local_addr=(address, 0))
                counts["tcp connections"] += 1
                writer.transport.abort()
                reader, writer = await asyncio.open_connection(host, port, local_addr=(address, 0))
                writer.write(request)
                async with asyncio.timeout(10):
                    status = await reader.readline()
                parts = status.split()
                counts[f"handshakes answered {parts[1].decode() if len(parts) > 1 else '-'}"] += 1
            except (OSError, TimeoutError, ValueError):
                counts["connections failed"] += 1
                await asyncio.sleep(0.05)
            finally:
                if writer is not None:
                    writer.transport.abort()

    await asyncio.gather(*(worker(a) for a in ATTACK_ADDRESSES for _ in range(workers)))


async def attack(phase: str, url: str, seconds: float, workers: int, links: list[str]) -> None:
    """Run one phase's attack for ``seconds``; print ``attacking`` once it has begun, and at
    the end one JSON line of what it did (with this process's CPU seconds)."""
    counts: Counter[str] = Counter()
    host, port = url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    extra: dict[str, Any] = {}
    if phase == "storm":
        took = await resume_storm(url, seconds, links, workers, counts)
        extra["resume p50 ms"] = round(percentile(took, 0.5) * 1000, 1)
        extra["resume max ms"] = round(max(took, default=0.0) * 1000, 1)
    else:
        until = time.monotonic() + seconds
        print("attacking", flush=True)
        if phase == "hellos":
            await bad_hellos(url, until, workers, counts)
        elif phase == "flood":
            await connection_flood(host, int(port), until, workers, counts)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    extra["attacker cpu s"] = round(usage.ru_utime + usage.ru_stime, 2)
    print(json.dumps({**counts, **extra}, sort_keys=True), flush=True)


# -- the tracer: where the server's loop spends its time (bench code, run in its process) --


class LoopTracer:
    """Notes, in a JSON-lines file, what holds up an asyncio loop in this process: each
    callback that runs :data:`SLOW_CALLBACK` or more (what it was), the main thread's stack
    sampled while one runs that long, every garbage collection over a millisecond, and
    every thread's CPU each second. Installed before the server starts; costs a few per
    cent."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.running: tuple[float, object] | None = None
        self.main = threading.main_thread().ident
        self.stopped = threading.Event()
        self.gc_started = 0.0
        self.gc_cpu = 0.0
        self.callbacks = 0
        self.busy = 0.0

    def note(self, record: dict[str, Any]) -> None:
        with self.lock:
            self.records.append(record)

    def install(self) -> None:
        handle_run = asyncio.events.Handle._run
        tracer = self

        def timed(handle: asyncio.Handle) -> None:
            start = time.monotonic()
            cpu = time.thread_time()
            tracer.running = (start, handle)
            try:
                handle_run(handle)
            finally:
                took = time.monotonic() - start
                tracer.running = None
                tracer.callbacks += 1
                tracer.busy += took
                if took >= SLOW_CALLBACK:
                    used = time.thread_time() - cpu
                    what = _label(handle)
                    tracer.note({"t": start, "kind": "slow", "s": took, "cpu": used, "what": what})

        setattr(asyncio.events.Handle, "_run", timed)  # noqa: B010 (a private method)
        gc.callbacks.append(self._collected)
        threading.Thread(target=self._sample, name="loop tracer", daemon=True).start()

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        now = time.monotonic()
        if phase == "start":
            self.gc_started = now
            self.gc_cpu = time.thread_time()
            return
        took = now - self.gc_started
        if took >= 0.001 or info["generation"] == 2:
            record = {
                "cpu": time.thread_time() - self.gc_cpu,
                "t": self.gc_started,
                "kind": "gc",
                "s": took,
                "generation": info["generation"],
            }
            self.note(record | {"collected": info["collected"]})

    def _sample(self) -> None:
        """Sample the main thread's stack while a callback runs long; note the threads' CPU
        every second; write the records out."""
        last = time.monotonic()
        while not self.stopped.wait(0.002):
            running = self.running
            now = time.monotonic()
            if running is not None and now - running[0] >= SLOW_CALLBACK:
                frame = sys._current_frames().get(self.main or 0)
                if frame is not None:
                    self.note({"t": now, "kind": "sample", "stack": _stack(frame)})
            if now - last >= 1.0:
                last = now
                self.note_cpu()
                self.flush()
        self.flush()

    def note_cpu(self) -> None:
        """Note every thread's CPU so far, and the loop's callbacks and time in them."""
        self.note(
            {
                "t": time.monotonic(),
                "kind": "cpu",
                "threads": _thread_cpu(),
                "callbacks": self.callbacks,
                "busy": self.busy,
            }
        )

    def flush(self) -> None:
        with self.lock:  # held while writing too: two threads' lines never interleave
            records, self.records = self.records, []
            if records:
                with self.path.open("a") as out:
                    out.writelines(json.dumps(r) + "\n" for r in records)

    def close(self) -> None:
        self.note_cpu()  # the end of the last phase's window
        self.stopped.set()
        self.flush()


def _label(handle: asyncio.Handle) -> str:
    """What a loop callback is: a task's coroutine, or a transport's protocol, or the
    function."""
    callback = getattr(handle, "_callback", None)
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coroutine = owner.get_coro()
        return f"task {getattr(coroutine, '__qualname__', repr(coroutine))}"
    if owner is not None:
        protocol = getattr(owner, "_protocol", None)
        name = getattr(callback, "__name__", "?")
        if protocol is not None:
            return f"{type(owner).__name__}.{name} -> {type(protocol).__qualname__}"
        return f"{type(owner).__qualname__}.{name}"
    return str(getattr(callback, "__qualname__", repr(callback)))


def _stack(frame: FrameType | None) -> str:
    """A stack, outermost first, as ``module:function`` joined by ``;`` (collapsed)."""
    names = []
    while frame is not None:
        code = frame.f_code
        module = Path(code.co_filename).stem
        names.append(f"{module}:{code.co_name}")
        frame = frame.f_back
    return ";".join(reversed(names))


def _thread_cpu() -> dict[str, float]:
    """CPU seconds of each thread of this process, by thread name."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    ticks = os.sysconf("SC_CLK_TCK")
    cpu: dict[str, float] = defaultdict(float)
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = names.get(int(task.name), "other")
        if name.startswith("asyncio_"):
            name = "to_thread workers"
        cpu[name] += (int(fields[11]) + int(fields[12])) / ticks
    return dict(cpu)


def trace_server(folder: Path, argv: list[str]) -> int:
    """Run ``duplicate`` with ``argv`` (``serve ...``) in this process, traced into
    ``folder/trace.jsonl``."""
    folder.mkdir(parents=True, exist_ok=True)
    tracer = LoopTracer(folder / "trace.jsonl")
    tracer.install()
    from duplicate.cli import main as duplicate_main

    try:
        return duplicate_main(argv)
    finally:
        tracer.close()


# -- the bench -------------------------------------------------------------------------------


@dataclass
class Phase:
    name: str
    start: float
    end: float = 0.0
    attack: dict[str, Any] = field(default_factory=dict)
    server_cpu: float = 0.0
    redis_cpu: float = 0.0
    log_lines: int = 0


@dataclass
class Bench:
    """What one run measured."""

    phases: list[Phase] = field(default_factory=list)
    pings: list[tuple[float, float | None, float]] = field(default_factory=list)
    actions: list[tuple[float, float | None]] = field(default_factory=list)
    monitor_errors: dict[str, int] = field(default_factory=dict)
    monitor_finished: bool = False
    log: list[tuple[float, str]] = field(default_factory=list)
    """The server's log lines, with when they were read."""
    description: list[str] = field(default_factory=list)


async def _child(role: list[str], nice: int = 0, stdin: bool = False) -> asyncio.subprocess.Process:
    """A process of this module's (``role``: its arguments), at ``nice``."""
    environment = dict(os.environ, PYTHONPATH=str(ROOT))

    def lower() -> None:
        if nice:
            os.nice(nice)

    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.hostile", *role,
        stdin=asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=environment,
        cwd=ROOT, preexec_fn=lower,
    )  # fmt: skip


async def _line(process: asyncio.subprocess.Process, text: str, within: float = 120) -> None:
    """Wait until ``process`` prints ``text`` (RuntimeError, with its errors, if it ends)."""
    assert process.stdout is not None
    assert process.stderr is not None
    async with asyncio.timeout(within):
        while text.encode() not in (line := await process.stdout.readline()):
            if not line:
                error = (await process.stderr.read()).decode(errors="replace")
                raise RuntimeError(f"a bench process ended before '{text}':\n{error[-3000:]}")


async def _last_json(process: asyncio.subprocess.Process, within: float) -> dict[str, Any]:
    """The last line ``process`` prints before it ends, as JSON."""
    out, err = await asyncio.wait_for(process.communicate(), within)
    if process.returncode != 0:
        raise RuntimeError(f"a bench process failed:\n{err.decode(errors='replace')[-3000:]}")
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return result


async def play_match_b(links: list[str]) -> None:
    """Robots (this process's, no delay) play every seat of match B to its end."""
    robots = [Robot(link, name=f"B robot {n}", keep_messages=False) for n, link in enumerate(links)]
    try:
        async with asyncio.timeout(600):
            await asyncio.gather(*(robot.run() for robot in robots))
    finally:
        for robot in robots:
            await robot.close()


@contextlib.contextmanager
def data_folder(memory: bool) -> Iterator[Path]:
    """A temporary data folder, on tmpfs if ``memory`` (and there is one)."""
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(prefix="hostile-", dir=shm if memory and shm.is_dir() else None))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def run(args: argparse.Namespace, bench: Bench) -> None:
    phases = [p.strip() for p in args.phases.split(",") if p.strip()]
    unknown = set(phases) - set(PHASES)
    if unknown:
        raise RuntimeError(f"no such phase: {', '.join(sorted(unknown))}")
    trace = None if args.trace is None else Path(args.trace).resolve()
    if trace is not None:
        trace.mkdir(parents=True, exist_ok=True)
        (trace / "trace.jsonl").unlink(missing_ok=True)
    with data_folder(args.memory) as folder:
        launcher = ["-m", "duplicate"]
        if trace is not None:  # this module's tracer runs the server
            launcher = ["-m", "bench.hostile", "trace-server", str(trace), "--"]
        server = ServeProcess(
            folder / "data", free_port(), KEY, launcher=launcher,
            on_line=lambda line: bench.log.append((time.monotonic(), line)),
        )  # fmt: skip
        await server.start()
        monitor_process: asyncio.subprocess.Process | None = None
        try:
            url = f"ws://127.0.0.1:{server.port}/ws"
            organiser = await Client.connect(Link(url, KEY))
            watched = await organiser.create_match(
                boards=MONITOR_BOARDS, robots=["1E", "1S", "1W"], review_seconds=0,
                robot_delay_ms=100, deals_pbn=deals_pbn(MONITOR_BOARDS), chat="off",
            )  # fmt: skip
            attacked: MatchCreated = await organiser.create_match(
                boards=args.boards_played, review_seconds=0
            )
            await organiser.close()
            started = time.monotonic()
            await play_match_b([seat.link or "" for seat in attacked.seats])
            bench.description.append(
                f"match B: {args.boards_played} boards played by robots in "
                f"{time.monotonic() - started:.1f} s before the phases"
            )
            viewers = [seat.link or "" for seat in attacked.seats]
            viewers += [attacked.spectator or "", attacked.director]
            north = next(s.link for s in watched.seats if s.link and s.seat == "N")
            assert north is not None
            monitor_process = await _child(["monitor", north], stdin=True)
            await _line(monitor_process, "ready")
            await asyncio.sleep(1.0)  # its first snapshot and the robots' first moves
            for name in phases:
                await run_phase(name, args, url, viewers, server, bench)
            assert monitor_process.stdin is not None
            monitor_process.stdin.close()
            figures = await _last_json(monitor_process, PING_TIMEOUT + 30)
            bench.pings = [tuple(p) for p in figures["pings"]]
            bench.actions = [tuple(a) for a in figures["actions"]]
            bench.monitor_errors = figures["errors"]
            bench.monitor_finished = figures["finished"]
        finally:
            if monitor_process is not None and monitor_process.returncode is None:
                monitor_process.kill()
                await monitor_process.wait()
            await server.stop()


async def run_phase(
    name: str, args: argparse.Namespace, url: str, viewers: list[str], server: ServeProcess,
    bench: Bench,
) -> None:  # fmt: skip
    """One phase: its attack (none for ``quiet``), measured until :data:`TAIL` after it."""
    redis_pid = server.redis_pid()
    cpu_before = process_cpu(server.pid), 0.0 if redis_pid is None else process_cpu(redis_pid)
    profiler = None
    if name == "quiet":
        phase = Phase(name, time.monotonic())
        seconds = args.baseline_seconds
        profiler = await _py_spy(args, server.pid, name, seconds)
        await asyncio.sleep(seconds)
    else:
        workers = args.devices if name == "storm" else args.workers
        role = ["attack", name, "--server", url, "--seconds", str(args.phase_seconds)]
        role += ["--workers", str(workers), *(viewers if name == "storm" else [])]
        attacker = await _child(role, nice=args.attacker_nice)
        await _line(attacker, "attacking")
        phase = Phase(name, time.monotonic())
        profiler = await _py_spy(args, server.pid, name, args.phase_seconds + TAIL)
        phase.attack = await _last_json(attacker, args.phase_seconds + 120)
        await asyncio.sleep(TAIL)
    phase.end = time.monotonic()
    if profiler is not None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(profiler.wait(), 30)
    phase.server_cpu = process_cpu(server.pid) - cpu_before[0]
    phase.redis_cpu = (0.0 if redis_pid is None else process_cpu(redis_pid)) - cpu_before[1]
    phase.log_lines = sum(1 for at, _ in bench.log if phase.start <= at < phase.end)
    bench.phases.append(phase)
    print(f"phase {name}: {phase.end - phase.start:.1f} s measured", file=sys.stderr, flush=True)


async def _py_spy(
    args: argparse.Namespace, pid: int, name: str, seconds: float
) -> asyncio.subprocess.Process | None:
    """py-spy recording the server's threads for ``seconds`` (if asked), into the trace
    folder."""
    if args.py_spy is None or args.trace is None:
        return None
    output = Path(args.trace) / f"{name}.pyspy.txt"
    return await asyncio.create_subprocess_exec(
        args.py_spy, "record", "--pid", str(pid), "--duration", str(max(1, round(seconds))),
        "--rate", "250", "--nonblocking", "--threads", "--format", "raw", "--output", str(output),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


# -- the report ----------------------------------------------------------------------------


def _ms(values: list[float], share: float) -> float:
    return round(percentile(values, share) * 1000, 1)


def figures_of(bench: Bench, phase: Phase) -> dict[str, Any]:
    """The monitor's figures in ``phase``'s window."""
    inside = [p for p in bench.pings if phase.start <= p[0] < phase.end]
    answered = [p[1] for p in inside if p[1] is not None]
    late = [p[2] for p in inside]
    acted = [a[1] for a in bench.actions if phase.start <= a[0] < phase.end and a[1] is not None]
    seconds = max(phase.end - phase.start, 1e-9)
    lost = len(inside) - len(answered)
    return {
        "seconds": round(seconds, 1),
        "pings": len(inside),
        "ping p50 ms": _ms(answered, 0.5),
        "ping p99 ms": _ms(answered, 0.99) if not lost else PING_TIMEOUT * 1000,
        "ping max ms": round(max(answered, default=0.0) * 1000, 1) if not lost else None,
        "pings lost": lost,
        "monitor late p99 ms": _ms(late, 0.99),
        "actions": len(acted),
        "action p50 ms": _ms(acted, 0.5),
        "action p99 ms": _ms(acted, 0.99),
        "action max ms": round(max(acted, default=0.0) * 1000, 1),
        "server cpu %": round(100 * phase.server_cpu / seconds),
        "redis cpu %": round(100 * phase.redis_cpu / seconds),
        "server log lines": phase.log_lines,
        "attack": phase.attack,
    }


def meets_target(figures: dict[str, Any]) -> bool:
    worst = figures["ping max ms"]
    return (
        figures["pings"] > 0
        and figures["pings lost"] == 0
        and figures["ping p99 ms"] <= TARGET_PING_P99_MS
        and worst is not None
        and worst <= TARGET_PING_MAX_MS
    )


def trace_report(path: Path, phase: Phase) -> dict[str, Any]:
    """Where the server's loop spent ``phase``'s time, from the tracer's records: wall time
    and the main thread's CPU time (the difference is time the thread did not run: the
    machine's other work, or another thread holding the GIL)."""
    slow: dict[str, list[tuple[float, float]]] = defaultdict(list)
    collections: dict[int, list[tuple[float, float]]] = defaultdict(list)
    stacks: Counter[str] = Counter()
    cpu: list[dict[str, Any]] = []
    with path.open() as records:
        for line in records:
            record = json.loads(line)
            if record["kind"] == "cpu":
                cpu.append(record)  # the samples around the window too: differences
                continue
            if not phase.start <= record["t"] < phase.end:
                continue
            if record["kind"] == "slow":
                slow[record["what"]].append((record["s"], record["cpu"]))
            elif record["kind"] == "gc":
                collections[record["generation"]].append((record["s"], record["cpu"]))
            elif record["kind"] == "sample":
                stacks[_leaf(record["stack"])] += 1
    before = max((c for c in cpu if c["t"] <= phase.start), key=lambda c: c["t"], default=None)
    after = min((c for c in cpu if c["t"] >= phase.end), key=lambda c: c["t"], default=None)
    threads: dict[str, float] = {}
    busy = None
    if before is not None and after is not None:
        span = after["t"] - before["t"]
        for name, used in after["threads"].items():
            share = (used - before["threads"].get(name, 0.0)) / span
            if share >= 0.01:
                threads[name] = round(100 * share)
        busy = round(100 * (after["busy"] - before["busy"]) / span)

    def summary(times: list[tuple[float, float]]) -> str:
        walls = [wall for wall, _ in times]
        cpus = [used for _, used in times]
        return (
            f"{len(times)}x, wall {1000 * sum(walls):.0f} ms (max {1000 * max(walls):.0f}), "
            f"cpu {1000 * sum(cpus):.0f} ms (max {1000 * max(cpus):.0f})"
        )

    everything = [t for times in slow.values() for t in times]
    return {
        "loop busy in callbacks %": busy,
        "thread cpu %": threads,
        f"callbacks >= {SLOW_CALLBACK * 1000:g} ms": summary(everything) if everything else "0",
        "worst callbacks": [
            f"{what}: {summary(times)}"
            for what, times in sorted(slow.items(), key=lambda kv: -sum(w for w, _ in kv[1]))[:6]
        ],
        "gc": {f"gen{gen}": summary(times) for gen, times in sorted(collections.items())},
        "main thread stacks in long callbacks (a sample every ~2 ms)": [
            f"{count}x {stack}" for stack, count in stacks.most_common(8)
        ],
    }


def _leaf(stack: str, depth: int = 5) -> str:
    """The innermost frames of a collapsed stack that are the project's or the libraries'
    (not asyncio's own plumbing), innermost first."""
    frames = [f for f in stack.split(";") if not f.startswith(("events:", "base_events:"))]
    return " <- ".join(reversed(frames[-depth:]))


def report(bench: Bench, args: argparse.Namespace) -> bool:
    rows = [(phase, figures_of(bench, phase)) for phase in bench.phases]
    quiet = next((f for p, f in rows if p.name == "quiet"), None)
    print()
    for line in bench.description:
        print(line)
    print(
        f"monitor: ping every {PING_EVERY * 1000:.0f} ms (fixed schedule), an action at most "
        f"every {ACTION_GAP:g} s; attackers at nice {args.attacker_nice}; "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"
    )
    header = (
        f"{'phase':<7} {'s':>5} {'pings':>6} {'ping p50/p99/max ms':>22} {'lost':>4} "
        f"{'late p99':>8} {'acts':>5} {'action p50/p99/max ms':>23} {'srv%':>5} {'rds%':>5} "
        f"{'log':>4}"
    )
    print(header)
    print("-" * len(header))
    for phase, f in rows:
        worst = "-" if f["ping max ms"] is None else f"{f['ping max ms']:g}"
        ping = f"{f['ping p50 ms']:g}/{f['ping p99 ms']:g}/{worst}"
        action = f"{f['action p50 ms']:g}/{f['action p99 ms']:g}/{f['action max ms']:g}"
        print(
            f"{phase.name:<7} {f['seconds']:>5} {f['pings']:>6} {ping:>22} {f['pings lost']:>4} "
            f"{f['monitor late p99 ms']:>8} {f['actions']:>5} {action:>23} "
            f"{f['server cpu %']:>5} {f['redis cpu %']:>5} {f['server log lines']:>4}"
        )
    print()
    for phase, f in rows:
        if f["attack"]:
            print(f"{phase.name}: {json.dumps(f['attack'], sort_keys=True)}")
    if quiet is not None:
        for phase, f in rows:
            if phase.name == "quiet":
                continue
            ratios = ", ".join(
                f"{name} x{f[name] / max(quiet[name], 0.1):.1f}"
                for name in ("ping p50 ms", "ping p99 ms", "action p99 ms")
            )
            print(f"{phase.name} / quiet: {ratios}")
    tracebacks = sum(1 for _, line in bench.log if line.startswith("Traceback"))
    print(f"server log: {len(bench.log)} lines, {tracebacks} tracebacks")
    if bench.monitor_errors:
        print(f"monitor refusals: {json.dumps(bench.monitor_errors, sort_keys=True)}")
    if bench.monitor_finished:
        print("match A finished during the run: later phases have no actions")
    traced: dict[str, Any] = {}
    if args.trace is not None:
        path = Path(args.trace) / "trace.jsonl"
        if path.exists():
            print()
            print("where the server's loop went (tracer):")
            for phase, _ in rows:
                traced[phase.name] = trace_report(path, phase)
                print(f"  {phase.name}: {json.dumps(traced[phase.name], indent=4)}")
    print()
    passed = True
    for phase, f in rows:
        met = meets_target(f)
        passed = passed and met
        print(
            f"{'PASS' if met else 'FAIL'} {phase.name}: ping p99 {f['ping p99 ms']:g} ms "
            f"(target <= {TARGET_PING_P99_MS:g}), max {f['ping max ms']} ms "
            f"(target <= {TARGET_PING_MAX_MS:g})"
        )
    if args.json:
        figures = {phase.name: f for phase, f in rows}
        Path(args.json).write_text(
            json.dumps(
                {"phases": figures, "trace": traced, "tracebacks": tracebacks, "passed": passed},
                indent=1,
            )
        )
    return passed


# -- the command line ----------------------------------------------------------------------


def options(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.hostile", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--phases", default=",".join(PHASES), help="of: " + ", ".join(PHASES))
    parser.add_argument("--phase-seconds", type=float, default=12.0, help="each attack's")
    parser.add_argument("--baseline-seconds", type=float, default=12.0, help="the quiet phase's")
    parser.add_argument("--boards-played", type=int, default=8, help="match B's, before")
    parser.add_argument("--workers", type=int, default=4, help="connections per attack address")
    parser.add_argument("--devices", type=int, default=5, help="connections per viewer of B")
    parser.add_argument("--attacker-nice", type=int, default=10)
    parser.add_argument("--memory", action="store_true", help="the data folder on tmpfs")
    parser.add_argument("--trace", metavar="DIR", help="trace the server's loop into DIR")
    parser.add_argument("--py-spy", metavar="PATH", help="with --trace: py-spy per phase")
    parser.add_argument("--json", metavar="FILE", help="the figures, as JSON")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    arguments = sys.argv[1:] if argv is None else argv
    role = arguments[0] if arguments else ""
    if role == "monitor":
        asyncio.run(monitor(arguments[1]))
        return
    if role == "attack":
        parser = argparse.ArgumentParser(prog="python -m bench.hostile attack")
        parser.add_argument("phase", choices=PHASES[1:])
        parser.add_argument("--server", required=True)
        parser.add_argument("--seconds", type=float, required=True)
        parser.add_argument("--workers", type=int, default=4)
        parser.add_argument("links", nargs="*")
        given = parser.parse_intermixed_args(arguments[1:])
        asyncio.run(attack(given.phase, given.server, given.seconds, given.workers, given.links))
        return
    if role == "trace-server":
        split = arguments.index("--")
        sys.exit(trace_server(Path(arguments[1]), arguments[split + 1 :]))
    args = options(arguments)
    bench = Bench()
    try:
        asyncio.run(run(args, bench))
    except KeyboardInterrupt:
        print("interrupted: everything the bench started is stopped", file=sys.stderr)
        sys.exit(130)
    except (ClientError, RuntimeError, OSError, TimeoutError) as error:
        print(f"the bench failed: {error!r}", file=sys.stderr)
        sys.exit(2)
    sys.exit(0 if report(bench, args) else 1)


if __name__ == "__main__":
    main()
