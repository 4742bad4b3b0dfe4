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

import signal
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import field, replace
from pathlib import Path
from typing import Protocol

from toolreplay.agents.base import Usage
from toolreplay.agents.program import (
    ProcessGroups,
    ProgramRun,
    Said,
    error_line,
    listening,
    read_reply,
    stop_on_sigterm,
    tail_line,
    unstarted,
)
from toolreplay.core.canonical import json_utf8
from toolreplay.core.errors import ToolreplayError
from toolreplay.core.escape import for_terminal
from toolreplay.core.model import McpServer, ToolDef, content_text
from toolreplay.core.records import record
from toolreplay.formats.mcp_log.content import relisted
from toolreplay.formats.mcp_log.importer import with_listing
from toolreplay.formats.mcp_log.log import served_calls
from toolreplay.formats.session.shape import person_messages
from toolreplay.formats.session.writer import dump_session
from toolreplay.mcp.handshake import UNNAMED
from toolreplay.processes.isolation import RunAs
from toolreplay.replay.engine import ReplaySetup, Run
from toolreplay.replay.relayed import relayed
from toolreplay.settings import McpTransport, Unrecorded


@record
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
            with_listing(server, relisted(server.listing(), context.tools, share))
            for server, share in zip(servers, shares, strict=True)
        )
    session = dump_session(replace(context, tools=tuple(setup.tools), servers=servers))
    names = tuple(server.name for server in servers)
    return Served(session, content_text(setup.system, "\n"), rules, on_unrecorded, stubs, redact_off, names)


def _shared_out(servers: Sequence[McpServer], given: Sequence[ToolDef]) -> list[list[ToolDef]]:
    """The tools given to the agent, per server: each to the server that listed it, a new one to the first."""
    owner: dict[str, int] = {}
    for number, server in enumerate(servers):
        for entry in server.listing():
            owner.setdefault(str(entry.get("name")), number)
    shares: list[list[ToolDef]] = [[] for _ in servers]
    for tool in given:
        shares[owner.get(tool.name, 0)].append(tool)
    return shares


def task_text(setup: ReplaySetup) -> str:
    """What the person first asked, as text: what ``{task}`` stands for."""
    context = setup.recording.context
    return content_text(person_messages(context.messages)[0]["content"], "\n") if context is not None else ""


@record
class CommandRuns:
    """One side's runs of a program: the command, what it is served, where the runs' directories go."""

    words: tuple[str, ...]
    setup: ReplaySetup
    served: Served
    root: Path
    side: str
    timeout: float
    here: str  # what {here} stands for: the directory the command was given from
    transport: McpTransport = McpTransport.STDIO  # how the program reaches its servers
    groups: ProcessGroups = field(default_factory=ProcessGroups)
    env: tuple[str, ...] | None = None  # the variables the program is given beyond the allowlist; None: all
    user: RunAs | None = None  # the user the program runs as (check --isolate-user); its servers answer from here
    keep: Path | None = (
        None  # where a failed run's directory is moved (replay --keep-runs); None: it goes with the rest
    )

    def run(self, number: int, seed: int) -> Run:
        directory = self.root / f"{self.side}-{number:04d}"
        directory.mkdir(parents=True)
        made = self._run(number, seed, directory)
        if self.keep is not None and made.ending != "final reply":
            self._keep(directory)
        return made

    def _keep(self, directory: Path) -> None:
        """Move a failed run's directory out of the replay's, which is removed at its end; a move that fails
        is said, and costs the replay nothing."""
        import shutil  # noqa: PLC0415 - only runs kept

        assert self.keep is not None
        target = self.keep / directory.name
        try:
            self.keep.mkdir(parents=True, exist_ok=True)
            shutil.move(directory, target)
        except OSError as exc:
            said = f"{directory.name} not kept in {self.keep}: {exc.strerror or exc}"
            print(f"toolreplay: {for_terminal(said)}", file=sys.stderr)

    def _run(self, number: int, seed: int, directory: Path) -> Run:
        place = ProgramRun(directory)
        log = directory / "mcp.log"
        session, system, rules = self.served.write(directory)
        # each recorded server under its own name, as the agent knew it
        commands = {name: serve_command(self.served, session, rules, log, name) for name in self.served.names}
        with ExitStack() as servers:
            if self.transport is McpTransport.HTTP:  # each server up on its own port before the program starts
                try:
                    urls = servers.enter_context(listening(commands, directory, "toolreplay serve:", "--http"))
                except ToolreplayError as exc:
                    return _no_calls(number, seed, exc.message)
                place.prepare(urls, self.user)
                said = Said(task_text(self.setup), system, number, seed, self.here, next(iter(urls.values())))
            elif self.user is not None:  # each server answered from the check's side of a relay
                place.prepare(servers.enter_context(relayed(commands, directory, self.user)), self.user)
                said = Said(task_text(self.setup), system, number, seed, self.here)
            else:
                place.prepare(commands)
                said = Said(task_text(self.setup), system, number, seed, self.here)
            argv, ended = place.run(self.words, said, self.timeout, self.groups, self.env, self.user)
        output, errors = place.output, place.errors
        if ended.unstarted is not None:  # no evidence of what the agent does, and the same for every run
            return _no_calls(number, seed, unstarted(argv[0], ended.unstarted, self.here))
        served = served_calls(log)
        calls, made = tuple(call for call, _ in served), tuple(origin for _, origin in served)
        reply = read_reply(output)
        failed = ended.code != 0
        if failed and not calls:  # it never got going: no evidence of what the agent does
            why = error_line(errors) or tail_line(output) or "no output"
            return _no_calls(number, seed, f"{ended.words()} before any call: {why}", reply.usage)
        ending = ended.words() if failed else ("final reply" if reply.text else "no final reply")
        if reply.failed and not failed:
            ending = "error reply"
        return Run(number, seed, calls, made, ending, final_reply=reply.text, usage=reply.usage)


def _no_calls(number: int, seed: int, error: str, usage: Usage | None = None) -> Run:
    """A run that failed before its first call: no evidence of what the agent does, and why in one line."""
    return Run(number, seed, (), (), "error", final_reply=None, usage=usage or Usage(), error=error)


class Stoppable(Protocol):
    """What a side's runs end when toolreplay is stopped (a program's process groups, a function's worker)."""

    def stop(self) -> None: ...

    def end_all(self) -> None: ...


class NumberedRuns(Protocol):
    """One side's runs, each made from its number and seed."""

    @property
    def groups(self) -> Stoppable: ...

    def run(self, number: int, seed: int) -> Run: ...


def command_runs(
    runs: NumberedRuns, seeds: Sequence[int], start: int, concurrency: int, done: Callable[[Run], None]
) -> list[Run]:
    """The runs numbered from ``start``, ``concurrency`` at a time, in number order (a program's, or a function's)."""
    lock = threading.Lock()

    def one(item: tuple[int, int]) -> Run:
        number, seed = item
        made = runs.run(number, seed)
        with lock:
            done(made)
        return made

    items = [(start + offset, seed) for offset, seed in enumerate(seeds)]
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    stopped = stop_on_sigterm()
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
