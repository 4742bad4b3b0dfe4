"""Replaying an agent that is a program: any command that speaks MCP, run once per run against the recording.

``--agent 'cmd:claude -p {task} --mcp-config {mcp_config} ...'``: for each run
toolreplay writes the MCP configuration the program reads (the ``mcpServers``
JSON of Claude Code and the Agent SDK) naming one server, the recorded session
served by ``toolreplay serve --log``, which logs every message as
``record-mcp`` does (one process per run instead of a proxy and a server); runs the
program in a working directory and ``HOME`` of its own, in a process group of
its own, ended after ``run_timeout``; then turns what the proxy logged into the
run's calls, and the program's output into its final reply (Claude Code's JSON
``result``, else the last line it printed) and what it says it spent.

A run that crashes, hangs or prints nonsense ends that way, and what its proxy
logged counts. A run that failed before making a single call is no evidence of
what the agent does (the program never got going): it ends in an error, like a
model that never answered, and counts in no test.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

from toolreplay.agent_spec import fill
from toolreplay.agents.base import Usage
from toolreplay.canonical import JSONObject, JSONValue, json_utf8
from toolreplay.errors import ToolreplayError
from toolreplay.formats.mcp_content import relisted
from toolreplay.formats.mcp_log import served_calls, server_listing, with_listing
from toolreplay.formats.session import dump_session, person_messages
from toolreplay.mcp.server import UNNAMED
from toolreplay.model import McpServer, ToolDef, content_text
from toolreplay.replay.engine import ReplaySetup, Run
from toolreplay.settings import Unrecorded

OUTPUT_TAIL = 1 << 20  # the last bytes of a run's output read for its reply: a program may print gigabytes
REPLY_LIMIT = 100_000  # characters of a final reply kept
GRACE = 2.0  # seconds between asking a timed-out run's process group to end and killing it


@dataclass(frozen=True, slots=True)
class Served:
    """What one side's runs are served, as the texts each run gets its own copy of: no run can change what a later
    run is served."""

    session: str  # the recording, with the tools this side's agent is given
    system: str  # the side's system prompt: --system's text with the edit, the recorded one without
    rules: str | None  # the argument matching, when calls are matched ignoring some arguments
    on_unrecorded: Unrecorded
    stubs: str | None
    redact_off: tuple[str, ...] = ()  # secret shapes the run's log leaves alone, as the recording's did
    recorded: tuple[str, ...] = ()  # the session's MCP servers, by the names the agent's configuration gave them

    @property
    def names(self) -> tuple[str, ...]:
        """The servers' names in the program's configuration: the recorded ones (Claude Code calls their tools
        mcp__NAME__TOOL, as in production), or one plain name for a session that recorded none."""
        return self.recorded or (UNNAMED,)

    def write(self, directory: Path) -> tuple[Path, Path, Path | None]:
        """This run's copies: its session, its system prompt, its rules."""
        session, system = directory / "served.json", directory / "system.txt"
        session.write_bytes(json_utf8(self.session))
        system.write_text(self.system, encoding="utf-8", errors="backslashreplace")  # a lone surrogate written out
        rules = None
        if self.rules is not None:
            rules = directory / "matching.toml"
            rules.write_text(self.rules, encoding="utf-8")
        return session, system, rules


def serve_command(served: Served, session: Path, rules: Path | None, log: Path, name: str) -> list[str]:
    """An MCP server a run's program starts: ``serve`` of one of the session's servers, logging every message as
    record-mcp logs it (each server the program starts appends to the run's one log)."""
    serve = [sys.executable, "-m", "toolreplay", "serve", str(session), "--log", str(log)]
    if name in served.recorded:
        serve += ["--server", name]
    serve += ["--on-unrecorded", served.on_unrecorded.value]
    if served.stubs is not None:
        serve += ["--stubs", str(Path(served.stubs).resolve())]
    if rules is not None:
        serve += ["--rules", str(rules)]
    for shape in served.redact_off:
        serve += [f"--no-redact={shape}"]
    return serve


def prepare(
    setup: ReplaySetup, on_unrecorded: Unrecorded, stubs: str | None, redact_off: tuple[str, ...] = ()
) -> Served:
    """What one side serves: its session (with the tools this side's agent is given), its system prompt, and, when
    calls are matched ignoring some arguments, those rules; ``redact_off``: the secret shapes its log leaves alone."""
    context = setup.recording.context
    if context is None:
        raise ToolreplayError("only a session can be replayed", setup.recording.path)
    rules = None
    matcher = setup.matcher
    if matcher.ignore or matcher.ignore_by_tool:
        import tomli_w  # noqa: PLC0415 - only when calls are matched ignoring arguments

        table: dict[str, object] = {"ignore": list(matcher.ignore)}
        table["tools"] = {tool: {"ignore": list(paths)} for tool, paths in matcher.ignore_by_tool.items()}
        rules = tomli_w.dumps({"matching": table})
    servers = context.servers
    if tuple(setup.tools) != context.tools:  # the candidate's tools, each listed by its server
        shares = _shared_out(servers, setup.tools)
        servers = tuple(
            with_listing(server, relisted(server_listing(server), context.tools, share))
            for server, share in zip(servers, shares, strict=True)
        )
    session = dump_session(replace(context, tools=tuple(setup.tools), servers=servers))
    names = tuple(server.name for server in servers)
    return Served(session, content_text(setup.system, "\n"), rules, on_unrecorded, stubs, redact_off, names)


def _shared_out(servers: Sequence[McpServer], given: Sequence[ToolDef]) -> list[list[ToolDef]]:
    """The tools given to the agent, per server: each to the server that listed it, a new one to the first."""
    owner: dict[str, int] = {}
    for number, server in enumerate(servers):
        for entry in server_listing(server):
            owner.setdefault(str(entry.get("name")), number)
    shares: list[list[ToolDef]] = [[] for _ in servers]
    for tool in given:
        shares[owner.get(tool.name, 0)].append(tool)
    return shares


def task_text(setup: ReplaySetup) -> str:
    """What the person first asked, as text: what ``{task}`` stands for."""
    context = setup.recording.context
    return content_text(person_messages(context.messages)[0]["content"], "\n") if context is not None else ""


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class Ended:
    """How a program's process ended."""

    code: int | None  # its exit code; None when it was ended for running too long
    timeout: float
    unstarted: str | None = None  # why it could not be started at all (no such program, not executable)
    process: subprocess.Popen[bytes] | None = field(default=None, compare=False)  # started, not yet ended

    def words(self) -> str:
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

    def start(self, argv: Sequence[str], workdir: Path, env: dict[str, str], out: BinaryIO, err: BinaryIO) -> Ended:
        """Start one program in a process group of its own, wait for it, and end its group; ``out`` and ``err``
        take its output."""
        with self._lock:  # started and noted at once, so a stop in between cannot miss it
            if self._stopping.is_set():
                err.write(b"toolreplay was stopped before this run started\n")
                return Ended(-signal.SIGTERM, 0.0)
            try:
                process = subprocess.Popen(
                    list(argv), cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                    start_new_session=True,
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

    def _kill(self, group: int) -> None:
        with self._lock:
            if group not in self._live:
                return  # killed already, with every other
            self._live.discard(group)
        _signal_group(group, signal.SIGKILL)


def _signal_group(group: int, number: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, number)


def run_program(
    argv: Sequence[str],
    workdir: Path,
    home: Path,
    output: Path,
    errors: Path,
    timeout: float,
    groups: ProcessGroups | None = None,
) -> Ended:
    """Run one program in its own process group, its output to files; end the group when it is done or too slow."""
    groups = groups if groups is not None else ProcessGroups()
    env = dict(os.environ, HOME=str(home), PWD=str(workdir))
    with output.open("wb") as out, errors.open("wb") as err:
        started = groups.start(argv, workdir, env, out, err)
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


def _tail(path: Path, limit: int = 400) -> str:
    size = path.stat().st_size if path.is_file() else 0
    if not size:
        return ""
    with path.open("rb") as handle:
        handle.seek(max(0, size - 4096))
        text = handle.read().decode("utf-8", "replace")
    lines = [line.strip() for line in text.splitlines() if any(char.isalnum() for char in line)]
    return lines[-1][:limit] if lines else ""


@dataclass(frozen=True, slots=True)
class CommandRuns:
    """One side's runs of a program: the command, what it is served, where the runs' directories go."""

    words: tuple[str, ...]
    setup: ReplaySetup
    served: Served
    root: Path
    side: str
    timeout: float
    here: str  # what {here} stands for: the directory the command was given from
    groups: ProcessGroups = field(default_factory=ProcessGroups)

    def run(self, number: int, seed: int) -> Run:
        directory = self.root / f"{self.side}-{number:04d}"
        workdir, home = directory / "work", directory / "home"
        workdir.mkdir(parents=True)
        home.mkdir()
        log, config = directory / "mcp.log", directory / "mcp.json"
        session, system, rules = self.served.write(directory)
        servers: JSONObject = {}
        for name in self.served.names:  # each recorded server under its own name, as the agent knew it
            server = serve_command(self.served, session, rules, log, name)
            arguments: list[JSONValue] = list(server[1:])
            servers[name] = {"command": server[0], "args": arguments}
        config.write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n", encoding="utf-8")
        values = {
            "mcp_config": str(config),
            "task": task_text(self.setup),
            "system": str(system),
            "run": str(number),
            "seed": str(seed),
            "workdir": str(workdir),
            "here": self.here,
        }
        output, errors = directory / "stdout", directory / "stderr"
        argv = fill(self.words, values)
        ended = run_program(argv, workdir, home, output, errors, self.timeout, self.groups)
        if ended.unstarted is not None:  # no evidence of what the agent does, and the same for every run
            return Run(number, seed, (), (), "error", None, Usage(), unstarted(argv[0], ended.unstarted, self.here))
        served = served_calls(log)
        calls, made = tuple(call for call, _ in served), tuple(origin for _, origin in served)
        reply = read_reply(output)
        failed = ended.code != 0
        if failed and not calls:  # it never got going: no evidence of what the agent does
            why = _tail(errors) or _tail(output) or "no output"
            return Run(number, seed, (), (), "error", None, reply.usage, f"{ended.words()} before any call: {why}")
        ending = ended.words() if failed else ("final reply" if reply.text else "no final reply")
        if reply.failed and not failed:
            ending = "error reply"
        return Run(number, seed, calls, made, ending, reply.text, reply.usage)


def command_runs(
    runs: CommandRuns, seeds: Sequence[int], start: int, concurrency: int, done: Callable[[Run], None]
) -> list[Run]:
    """The runs numbered from ``start``, ``concurrency`` at a time, in number order."""
    lock = threading.Lock()

    def one(item: tuple[int, int]) -> Run:
        number, seed = item
        made = runs.run(number, seed)
        with lock:
            done(made)
        return made

    items = [(start + offset, seed) for offset, seed in enumerate(seeds)]
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    stopped = _stop_on_sigterm()
    try:
        return list(pool.map(one, items))
    except BaseException:  # interrupted, or stopped: no program starts again, and none outlives toolreplay
        runs.groups.stop()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        runs.groups.end_all()  # what finished runs left behind, not yet killed
        if stopped is not None:
            signal.signal(signal.SIGTERM, stopped)


def _stop_on_sigterm() -> Any:
    """While runs go on, SIGTERM stops toolreplay the way Ctrl-C does, so their process groups are ended."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(number: int, _: object) -> None:
        raise KeyboardInterrupt(f"signal {number}")

    return signal.signal(signal.SIGTERM, stop)
