"""A program run as an agent: in a working directory and ``HOME`` of its own, in a process group of its own, ended
after a timeout; and what it printed at the end read as its final reply.

``replay --agent cmd:...`` runs a program against the recording, ``record --agent cmd:...`` against its real
servers; both run it here.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import field, replace
from pathlib import Path
from typing import Any, BinaryIO

from toolreplay.agent_spec import fill
from toolreplay.agents.base import Usage
from toolreplay.core.canonical import JSONValue
from toolreplay.core.errors import ToolreplayError
from toolreplay.core.escape import one_line
from toolreplay.core.records import record
from toolreplay.processes.isolation import RunAs

OUTPUT_TAIL = 1 << 20  # the last bytes of a run's output read for its reply: a program may print gigabytes
REPLY_LIMIT = 100_000  # characters of a final reply kept
GRACE = 2.0  # seconds between asking a timed-out run's process group to end and killing it


@record
class Reply:
    """What a program said at the end: its final reply, and what it spent when it says."""

    text: str | None
    usage: Usage
    failed: bool = False  # it said so itself (Claude Code's is_error)


def _int(value: JSONValue) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


MAX_COST = 1_000_000.0  # dollars one run may say it spent; a larger or non-finite figure is not a cost


def _cost(value: JSONValue) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    try:
        cost = float(value)
    except OverflowError:  # an integer past any float
        return 0.0
    return cost if math.isfinite(cost) and 0 <= cost <= MAX_COST else 0.0


def read_reply(output: Path) -> Reply:
    """The final reply in a program's output: a JSON result object (Claude Code's ``--output-format json``,
    or the last line of a stream of them) when it prints one, else its last line."""
    size = output.stat().st_size
    with output.open("rb") as handle:
        handle.seek(max(0, size - OUTPUT_TAIL))
        tail = handle.read().decode("utf-8", "replace")
    lines = [line for line in tail.splitlines() if line.strip()]
    if not lines:
        return Reply(None, Usage())
    for candidate in (tail.strip(), lines[-1]):
        try:
            parsed = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(parsed, dict) and isinstance(parsed.get("result"), str):
            usage = parsed.get("usage")
            spent = usage if isinstance(usage, dict) else {}
            cost = parsed.get("total_cost_usd")
            return Reply(
                parsed["result"][:REPLY_LIMIT],
                Usage(
                    _int(spent.get("input_tokens")),
                    _int(spent.get("output_tokens")),
                    _int(spent.get("cache_read_input_tokens")),
                    _int(spent.get("cache_creation_input_tokens")),
                    _cost(cost),
                ),
                parsed.get("is_error") is True,
            )
    return Reply(lines[-1][:REPLY_LIMIT], Usage())


@record
class Ended:
    """How a program's process ended."""

    code: int | None  # its exit code; None when it was ended for running too long
    timeout: float
    unstarted: str | None = None  # why it could not be started at all (no such program, not executable)
    process: subprocess.Popen[bytes] | None = field(default=None, compare=False)  # started, not yet ended
    how: str | None = None  # how it ended in words of its own (a python: agent's function raised)

    def words(self) -> str:
        if self.how is not None:
            return self.how
        if self.code is None:
            return f"timed out after {self.timeout:g} s"
        if self.code < 0:
            return f"killed by signal {-self.code}"
        return f"exited with {self.code}" if self.code else "exited"


class ProcessGroups:
    """The process groups of one replay's program runs: those going on now, and those of finished runs not yet
    killed; once :meth:`stop` is called no program starts any more."""

    def __init__(self) -> None:
        self._live: set[int] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    def start(
        self,
        argv: Sequence[str],
        workdir: Path,
        env: dict[str, str],
        out: BinaryIO,
        err: BinaryIO,
        user: RunAs | None = None,
    ) -> Ended:
        """Start one program in a process group of its own (as ``user``, where one is given), wait for it, and end
        its group; ``out`` and ``err`` take its output."""
        with _unbroken(), self._lock:  # started and noted at once, so a stop in between cannot miss it
            if self._stopping.is_set():
                err.write(b"toolreplay was stopped before this run started\n")
                return Ended(-signal.SIGTERM, 0.0)
            try:
                process = subprocess.Popen(
                    list(argv), cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                    start_new_session=True, **(user.popen() if user is not None else {}),  # type: ignore[call-overload]
                )  # fmt: skip
            except (OSError, ValueError) as exc:  # no such program; a NUL in an argument
                message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                err.write(f"{argv[0]}: {message}\n".encode("utf-8", "backslashreplace"))
                return Ended(127, 0.0, message)
            self._live.add(process.pid)
        return Ended(None, 0.0, process=process)

    def end(self, process: subprocess.Popen[bytes], finished: bool) -> None:
        """End a run's whole process group (its MCP server included): asked to end, then killed after a grace.

        A program that finished has left at most what it started (its server, which is done once its client is):
        those are asked to end now and killed after the grace in the background, so a finished run waits for
        nothing, or when the runs are over (:meth:`end_all`), whichever comes first."""
        _signal_group(process.pid, signal.SIGTERM)
        if finished:
            timer = threading.Timer(GRACE, self._kill, (process.pid,))
            timer.daemon = True
            timer.start()
            return
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(GRACE)
        self._kill(process.pid)
        process.wait()

    def stop(self) -> None:
        """No program starts from now on, and every group still there is killed."""
        self._stopping.set()
        self.end_all()

    def end_all(self) -> None:
        """Kill every run's process group still there: what runs now, and what finished runs left behind."""
        with self._lock:
            groups = list(self._live)
            self._live.clear()
        for group in groups:
            _signal_group(group, signal.SIGKILL)
        _gone(groups)

    def _kill(self, group: int) -> None:
        with self._lock:
            if group not in self._live:
                return  # killed already, with every other
            self._live.discard(group)
        _signal_group(group, signal.SIGKILL)


KILLED_WAIT = 2.0  # seconds killed groups are given to be gone (a kill is delivered, not done, when it returns)


def _gone(groups: list[int]) -> None:
    """Wait, a bounded while, until no process of ``groups`` is left: a busy machine may not have run a killed
    process's end yet when the kill returns, and nothing may outlive the runs."""
    import time  # noqa: PLC0415 - only once runs are over

    deadline = time.monotonic() + KILLED_WAIT
    waiting = list(groups)
    while waiting and time.monotonic() < deadline:
        waiting = [group for group in waiting if _group_left(group)]
        if waiting:
            time.sleep(0.01)


def _group_left(group: int) -> bool:
    """Whether a process of ``group`` still runs; a zombie has ended, whoever is to reap it."""
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    from toolreplay.processes.isolation import processes  # noqa: PLC0415 - only once runs are over

    table = processes()
    if table is None:
        return True  # no /proc to tell a zombie by: the group is there
    return any(process.group == group and not process.ended for process in table)


def _signal_group(group: int, number: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, number)


# What every program is given of toolreplay's environment where its variables are named (``env:``): what finding
# programs and reading text needs, nothing that holds a secret.
ALLOWED_ENV = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TERM", "USER", "LOGNAME")


def program_environment(names: Sequence[str] | None) -> dict[str, str]:
    """The environment a program starts from: toolreplay's own where ``names`` is None, else the allowlist and the
    variables ``names`` names (those set)."""
    if names is None:
        return dict(os.environ)
    return {name: os.environ[name] for name in (*ALLOWED_ENV, *names) if name in os.environ}


def run_program(
    argv: Sequence[str],
    workdir: Path,
    home: Path,
    output: Path,
    errors: Path,
    timeout: float,
    groups: ProcessGroups | None = None,
    env_names: Sequence[str] | None = None,
    user: RunAs | None = None,
) -> Ended:
    """Run one program in its own process group, its output to files; end the group when it is done or too slow.
    ``env_names``: the variables it is given beyond the allowlist (None: all of toolreplay's)."""
    groups = groups if groups is not None else ProcessGroups()
    env = dict(program_environment(env_names), HOME=str(home), PWD=str(workdir), TMPDIR=str(home))
    with output.open("wb") as out, errors.open("wb") as err:
        started = groups.start(argv, workdir, env, out, err, user)
        if started.process is None:
            return replace(started, timeout=timeout)
        try:
            code: int | None = started.process.wait(timeout)
        except subprocess.TimeoutExpired:
            code = None
        groups.end(started.process, code is not None)  # what it left behind (a server, a child) goes with it
        return Ended(code, timeout)


def unstarted(program: str, why: str, here: str) -> str:
    """Why a run's program could not be started, in one line, with the fix when a relative path or a bare name may
    be the cause: each run starts in an empty working directory of its own, and a bare name is looked up on PATH."""
    said = f"the program {program} could not be started ({why})"
    where = "{here} is the config's directory, or the one replay was run from"
    if "/" in program and not Path(program).is_absolute():
        fixed = program.removeprefix("./")
        looked = "a relative path is looked up in the run's own empty working directory"
        return f"{said}: {looked}; write {{here}}/{fixed} ({where})"
    if "/" not in program and (Path(here) / program).is_file():
        return f"{said}: a bare name is looked up on PATH; for the file {program} write {{here}}/{program} ({where})"
    return said


def tail_line(path: Path, limit: int = 400) -> str:
    """The last line of a file that says something (a letter or a digit), cut to ``limit``."""
    lines = tail_lines(path, 1, limit)
    return lines[-1] if lines else ""


# A line that names an error: a Python exception (``ConnectionError: ...``), or a program's own word for one.
_NAMES_AN_ERROR = re.compile(
    r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Exit|Interrupt)\b|\b(?:error|fatal|panic|failed)\b", re.IGNORECASE
)


def error_line(path: Path, limit: int = 400) -> str:
    """Why a program failed, from its stderr: the last line that names an error (a traceback's frames, the
    margins of an exception group and the context a framework prints after the error left out), else the last
    line."""
    lines = tail_lines(path, 40, limit)
    for line in reversed(lines):
        text = line.lstrip("|+- ")
        if text.startswith(("File ", "During ", "Traceback", "The above exception")):
            continue
        if _NAMES_AN_ERROR.search(text):
            return text
    return lines[-1] if lines else ""


def tail_lines(path: Path, most: int = 5, limit: int = 400) -> tuple[str, ...]:
    """The last ``most`` lines of a file that say something (a letter or a digit), each cut to ``limit``."""
    size = path.stat().st_size if path.is_file() else 0
    if not size:
        return ()
    with path.open("rb") as handle:
        handle.seek(max(0, size - 8192))
        text = handle.read().decode("utf-8", "replace")
    lines = [line.strip()[:limit] for line in text.splitlines() if any(char.isalnum() for char in line)]
    return tuple(lines[-most:])


# A program started and not yet noted would outlive a stop that came in between: while the main thread starts one,
# a SIGTERM waits, and is raised once it is noted.
_STARTING: dict[str, Any] = {"depth": 0, "pending": None}


@contextmanager
def _unbroken() -> Iterator[None]:
    """While a program is started and noted, a SIGTERM (see :func:`stop_on_sigterm`) waits for the end of it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _STARTING["depth"] += 1
    try:
        yield
    finally:
        _STARTING["depth"] -= 1
    pending, _STARTING["pending"] = _STARTING["pending"], None
    if pending is not None and not _STARTING["depth"]:
        raise KeyboardInterrupt(pending)


def stop_on_sigterm() -> Any:
    """While runs go on, SIGTERM stops toolreplay the way Ctrl-C does, so their process groups are ended."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(number: int, _: object) -> None:
        if _STARTING["depth"]:  # a program is being started: raised once it is noted, so it is ended too
            _STARTING["pending"] = f"signal {number}"
            return
        raise KeyboardInterrupt(f"signal {number}")

    return signal.signal(signal.SIGTERM, stop)


class ProgramRun:
    """One run of a program in a directory of its own: its working directory and ``HOME``, the MCP configuration
    it is given, and the files its output goes to."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.workdir, self.home = directory / "work", directory / "home"
        self.config = directory / "mcp.json"
        self.output, self.errors = directory / "stdout", directory / "stderr"
        self._servers: dict[str, Sequence[str] | str] = {}
        self._env: dict[str, dict[str, str]] = {}

    def prepare(
        self,
        servers: Mapping[str, Sequence[str] | str],
        user: RunAs | None = None,
        env: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        """The run's directories (the working directory and ``HOME`` the only ones ``user`` may write), and the
        ``mcpServers`` configuration naming each server: its command words (with the variables ``env`` gives it by
        server name), or the URL it listens on (Streamable HTTP). A configuration that holds variables is readable
        by its owner only."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.home.mkdir(exist_ok=True)
        if user is not None:
            for directory in (self.workdir, self.home):
                os.chown(directory, user.uid, user.gid)
        self._write_config(servers, env or {})

    def _write_config(self, servers: Mapping[str, Sequence[str] | str], env: Mapping[str, Mapping[str, str]]) -> None:
        named: dict[str, JSONValue] = {}
        for name, server in servers.items():
            if isinstance(server, str):
                named[name] = {"type": "http", "url": server}
            else:
                entry: dict[str, JSONValue] = {"command": server[0], "args": list(server[1:])}
                if env.get(name):
                    entry["env"] = dict(env[name])
                named[name] = entry
        self._servers, self._env = dict(servers), {name: dict(values) for name, values in env.items() if values}
        text = json.dumps({"mcpServers": named}, indent=2) + "\n"
        with contextlib.suppress(FileNotFoundError):
            self.config.unlink()
        descriptor = os.open(self.config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if self._env else 0o644)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)

    def forget_env(self) -> None:
        """The configuration written again without the variables' values (their names kept), once the run is over."""
        if self._env:
            gone = "(passed from the environment while the run ran; not kept)"
            self._write_config(self._servers, {name: dict.fromkeys(keys, gone) for name, keys in self._env.items()})

    def values(self, said: Said) -> dict[str, str]:
        """What each placeholder of a run stands for."""
        return {
            "mcp_config": str(self.config),
            "mcp_url": said.url,
            "task": said.task,
            "system": str(said.system),
            "run": str(said.number),
            "seed": str(said.seed),
            "workdir": str(self.workdir),
            "here": said.here,
        }

    def run(
        self,
        words: Sequence[str],
        said: Said,
        timeout: float,
        groups: ProcessGroups,
        env_names: Sequence[str] | None = None,
        user: RunAs | None = None,
    ) -> tuple[list[str], Ended]:
        """The program's command with its placeholders filled, and how it ended."""
        argv = fill(words, self.values(said))
        ran = run_program(argv, self.workdir, self.home, self.output, self.errors, timeout, groups, env_names, user)
        return argv, ran


@record
class Said:
    """What a run's placeholders say: the task, the file of the system prompt, the run's number and seed, the
    directory the command was given from, and the URL of its first server (over HTTP; else empty)."""

    task: str
    system: Path
    number: int
    seed: int
    here: str
    url: str = ""


_LISTENING_WAIT = 30.0  # seconds a server of a run has to say where it listens


@contextmanager
def listening(
    commands: Mapping[str, Sequence[str]], directory: Path, says: str, *more: str
) -> Iterator[dict[str, str]]:
    """Each server of a run started (before the program, which is given their URLs) with ``more`` words after its
    command, and ended, each for certain, when the run is over: the URL each says, after ``says``, on its first line
    of stderr, by name. Its stderr goes to a file of the run's ``directory``."""
    started: list[subprocess.Popen[bytes]] = []
    try:
        urls: dict[str, str] = {}
        for name, words in commands.items():
            said = directory / f"listening-{len(started) + 1}.stderr"
            with said.open("wb") as errors:
                started.append(
                    subprocess.Popen([*words, *more], stdin=subprocess.DEVNULL, stderr=errors, start_new_session=True)
                )
            urls[name] = _listening_at(started[-1], said, name, says)
        yield urls
    finally:
        for server in started:
            with contextlib.suppress(OSError):
                server.terminate()
        for server in started:
            try:
                server.wait(5)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def _listening_at(server: subprocess.Popen[bytes], said: Path, name: str, says: str) -> str:
    """The URL a starting server says on its first line of stderr, after ``says``."""
    deadline = time.monotonic() + _LISTENING_WAIT
    while time.monotonic() < deadline:
        first = said.read_bytes().split(b"\n", 1)
        if len(first) == 2:
            words = first[0].decode("utf-8", "replace").split()
            if words[:2] == says.split() and len(words) >= 3 and words[2].startswith("http://"):
                return words[2]
            raise ToolreplayError(f"the server for {name} did not start: {one_line(first[0].decode())}")
        if server.poll() is not None:
            raise ToolreplayError(f"the server for {name} ended before it listened (exit {server.returncode})")
        time.sleep(0.02)
    raise ToolreplayError(f"the server for {name} did not listen within {_LISTENING_WAIT:g} s")
