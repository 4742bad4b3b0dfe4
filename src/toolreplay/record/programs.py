"""``record --agent cmd:...``: a program run live against its real MCP servers, each run recorded as a session.

For each run the program gets an MCP configuration (``{mcp_config}``) naming every server by the name given, each
started behind ``record-mcp --name NAME``, all of them appending to the run's one log; it runs in a working
directory and ``HOME`` of its own, in a process group of its own, ended after the timeout. A setup command
(``--before-run``) may first put the servers' world in the same state for every run. The run's log is then
imported into a session (the task, the system prompt, every call of every server in the order they were
answered, each server's own messages, the program's final reply, and the agent itself as written), ready for
``compare`` or as the recording a replay starts from. A run that failed before any call is no recording: it
writes no session.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.agent_spec import FunctionSpec, ProgramSpec, fill
from toolreplay.agents.program import (
    Ended,
    ProcessGroups,
    ProgramRun,
    Said,
    listening,
    read_reply,
    stop_on_sigterm,
    tail_lines,
    unstarted,
)
from toolreplay.core.canonical import JSONObject, json_utf8
from toolreplay.core.errors import InputError, ToolreplayError
from toolreplay.core.files import path_from, write_atomic
from toolreplay.core.records import record
from toolreplay.formats.mcp_log.importer import ImportOptions, session_from_log
from toolreplay.formats.mcp_log.log import LogNotes
from toolreplay.formats.session.writer import dump_session
from toolreplay.redact import Redactor

if TYPE_CHECKING:
    from toolreplay.agents.function import FunctionWorker


@record
class LiveServer:
    """A real MCP server the program uses: the name its configuration gives it, and its command, or the URL it is
    reached at (Streamable HTTP, or a legacy SSE stream)."""

    name: str
    command: tuple[str, ...]
    url: str | None = None
    env: tuple[str, ...] = ()  # the variables of record's environment passed through to it, by name


@record
class Recorded:
    """One run: where its session went (None: it made none), how many calls it holds, how the run ended, and, for
    a run that made no session, the last lines the program (or the setup command) said on stderr."""

    number: int
    session: Path | None
    calls: int
    ending: str
    said: tuple[str, ...] = ()


_RUN_NAME = re.compile(r"run-(\d{4,})(?:\.json)?")


def next_number(root: Path) -> int:
    """The number the next run in ``root`` takes: one past the highest run there (a session or a run's
    directory), so runs are added to a directory and nothing recorded is written over."""
    try:
        names = [entry.name for entry in os.scandir(root)]
    except FileNotFoundError:
        return 1
    numbers = [int(found.group(1)) for name in names if (found := _RUN_NAME.fullmatch(name))]
    return max(numbers, default=0) + 1


@record
class LiveRuns:
    """A program's live runs: its command, its servers, what it is told, where the runs go."""

    words: tuple[str, ...]
    servers: tuple[LiveServer, ...]
    task: str
    system: str
    model: str
    root: Path
    timeout: float
    here: str
    redactor: Redactor
    agent: str = ""  # the agent as written (cmd:..., placeholders and all), kept in each session
    before: tuple[str, ...] = ()  # the setup command run before each run's program (none: empty)
    groups: ProcessGroups = field(default_factory=ProcessGroups)
    function: FunctionWorker | None = field(default=None, compare=False)  # a python: agent's, run in place of words
    placed: Path | None = None  # where the one run's session is moved to (pytest's record modes): its paths from there

    def paths(self, number: int) -> tuple[Path, Path]:
        """A run's directory and its session file."""
        return self.root / f"run-{number:04d}", self.root / f"run-{number:04d}.json"

    def run(self, number: int, seed: int) -> Recorded:
        directory, session = self.paths(number)
        place = ProgramRun(directory)
        log, system = directory / "mcp.jsonl", directory / "system.txt"
        place.workdir.mkdir(parents=True, exist_ok=True)  # the setup command may put the world there
        system.write_text(self.system, encoding="utf-8", errors="backslashreplace")
        said = Said(self.task, system, number, seed, self.here)
        values = place.values(said)
        if self.before:
            failed = self._before(fill(self.before, values), directory)
            if failed is not None:
                return Recorded(number, None, 0, failed, tail_lines(directory / "before-run.stderr"))
        proxy = [sys.executable, "-m", "toolreplay", "record-mcp", "-o", str(log)]
        # each behind a proxy that names it, all in the run's one log: a command started where record was (as
        # given), a URL behind a reverse proxy on the loopback, up before the program starts
        remote = {
            s.name: [*proxy, "--name", s.name, "--upstream", fill([s.url], values)[0]]
            for s in self.servers
            if s.url is not None
        }
        with ExitStack() as proxies:
            try:
                urls = proxies.enter_context(listening(remote, directory, "toolreplay record-mcp:")) if remote else {}
            except ToolreplayError as exc:
                return Recorded(number, None, 0, exc.message)
            commands: dict[str, Sequence[str] | str] = {
                s.name: urls[s.name]
                if s.url is not None
                else [
                    *proxy,
                    *(word for key in s.env for word in ("--redact-env", key)),
                    "--name",
                    s.name,
                    "--cwd",
                    self.here,
                    "--stderr-copy",
                    str(self._said_by(directory, s.name)),
                    "--",
                    *fill(s.command, values),
                ]
                for s in self.servers
            }
            place.prepare(commands, env=self._passed())
            said = replace(said, url=next(iter(urls.values()), ""))
            try:
                if self.function is not None:
                    argv, ended = [self.function.spec.show()], self._called(self.function, place, said, commands)
                else:
                    argv, ended = place.run(self.words, said, self.timeout, self.groups)
            finally:
                place.forget_env()  # the values passed through stay on disk only while the run runs
        output, errors = place.output, place.errors
        if ended.unstarted is not None:
            return Recorded(number, None, 0, unstarted(argv[0], ended.unstarted, self.here))
        reply = read_reply(output)
        last = self._last_words(directory, errors, output)
        if not log.exists() or not log.stat().st_size:
            return Recorded(number, None, 0, f"{ended.words()}, and no server started", last)
        options = ImportOptions(
            task=self.task, system=self.system, final_text=reply.text, model=self.model, every_process=True
        )
        try:
            context, _ = session_from_log(log, options, LogNotes())
        except InputError as exc:
            return Recorded(number, None, 0, f"{ended.words()}; its log could not be read: {exc.message}", last)
        calls = sum(len(server.results) for server in context.servers)
        if not calls and (ended.code != 0 or not reply.text):  # it failed before it did anything: no recording
            how = ended.words() if ended.code != 0 else "ended with no final reply"
            return Recorded(number, None, 0, f"{how} before any call", last)
        context = replace(context, source=self._source(context.source, log, session))
        text = dump_session(context, self._redactor())
        write_atomic(session, [json_utf8(text)])
        ending = ended.words() if ended.code != 0 else ("final reply" if reply.text else "no final reply")
        return Recorded(number, session, calls, ending)

    def _called(
        self, function: FunctionWorker, place: ProgramRun, said: Said, commands: dict[str, Sequence[str] | str]
    ) -> Ended:
        """One run of a python: agent's function, its sessions the SDK's own with the servers behind their proxies;
        its reply written where a program's output goes (as a JSON result), what it raised where its stderr goes."""
        import json  # noqa: PLC0415
        import queue  # noqa: PLC0415
        import time  # noqa: PLC0415

        place.output.write_text("", encoding="utf-8")
        place.errors.write_text("", encoding="utf-8")
        passed = self._passed()
        live = {
            name: server if isinstance(server, str) else {"command": list(server), "env": passed.get(name, {})}
            for name, server in commands.items()
        }
        takes = function.ready()
        urls = {name: server for name, server in commands.items() if isinstance(server, str)}  # proxies' addresses
        if {"url", "urls"} & set(takes) and len(urls) < len(commands):
            place.errors.write_text(
                f"{function.spec.show()} takes a url, so its servers are given as URLs (--server NAME=URL)\n",
                encoding="utf-8",
            )
            return Ended(1, self.timeout, how="was not run")
        message = {
            "op": "run", "run": said.number, "seed": said.seed, "task": said.task, "system": self.system,
            "servers": list(live), "live": live, "urls": urls,
        }  # fmt: skip
        inbox = function.start(message)
        deadline = time.monotonic() + self.timeout
        try:
            while True:
                try:
                    heard = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    function.stop()
                    return Ended(None, self.timeout)
                if heard is None:
                    place.errors.write_text(function.last_words() + "\n", encoding="utf-8")
                    return Ended(1, self.timeout, how="its worker ended")
                if "reply" in heard:
                    reply = heard["reply"] if isinstance(heard["reply"], str) else ""
                    place.output.write_text(json.dumps({"result": reply}) + "\n", encoding="utf-8")
                    return Ended(0, self.timeout)
                if "error" in heard:
                    told = f"{heard.get('traceback') or ''}{heard['error']}\n"
                    place.errors.write_text(told, encoding="utf-8", errors="backslashreplace")
                    place.output.write_text("", encoding="utf-8")
                    return Ended(1, self.timeout, how=f"raised {str(heard['error']).split(':')[0]}")
        finally:
            function.finish(said.number)

    def _said_by(self, directory: Path, name: str) -> Path:
        """Where a run's server started here has its stderr copied."""
        return directory / f"server-{[server.name for server in self.servers].index(name) + 1}.stderr"

    def _last_words(self, directory: Path, errors: Path, output: Path) -> tuple[str, ...]:
        """What a failed run said last: each server's last lines on stderr (a server that could not start says
        why there), then the program's."""
        said: list[str] = []
        for server in self.servers:
            if server.url is None:
                said += [f"{server.name}: {line}" for line in tail_lines(self._said_by(directory, server.name), 3)]
        return (*said, *(tail_lines(errors, 5 - min(len(said), 3)) or tail_lines(output, 3)))

    def _before(self, argv: Sequence[str], directory: Path) -> str | None:
        """Run the setup command where record was started, in a process group of its own (ended, all of it, when it
        is too slow or record is stopped; what it leaves when it is done is its own, a service say), its output to
        the run's directory; why it failed, or None."""
        with (directory / "before-run.stdout").open("wb") as out, (directory / "before-run.stderr").open("wb") as err:
            try:
                setup = subprocess.Popen(
                    argv, cwd=self.here, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True
                )
            except OSError as exc:
                return f"the --before-run command {argv[0]} could not be started ({exc.strerror or exc})"
            try:
                code = setup.wait(self.timeout)
            except BaseException as exc:  # too slow, or record stopped: all of it ends (what it leaves when done
                with contextlib.suppress(ProcessLookupError, PermissionError):  # is its own: a service, say)
                    os.killpg(setup.pid, signal.SIGKILL)
                setup.wait()
                if isinstance(exc, subprocess.TimeoutExpired):
                    return f"the --before-run command took longer than {self.timeout:g} s"
                raise
        if code != 0:
            return f"the --before-run command exited with {code}, so the program was not run"
        return None

    def _passed(self) -> dict[str, dict[str, str]]:
        """Each server's variables passed through by name, with their values from record's environment."""
        return {s.name: {key: os.environ[key] for key in s.env} for s in self.servers if s.env}

    def _redactor(self) -> Redactor:
        """The user's redaction, and every value passed through to a server that is long enough to be a secret:
        a token given to a server is never written into its session."""
        values = sorted({value for passed in self._passed().values() for value in passed.values() if len(value) >= 8})
        if not values or not self.redactor.defaults:
            return self.redactor
        return self.redactor.with_literals(values, "server-env")

    def _source(self, source: JSONObject, log: Path, session: Path) -> JSONObject:
        """Where the session came from, every path relative to the session's own directory: the run's log, and the
        agent as written with the directory its ``{here}`` stands for."""
        placed = self.placed or session
        kept: JSONObject = {key: value for key, value in source.items() if key != "log"}
        if self.placed is None:
            kept["log"] = path_from(log, session)
        if self.agent:
            kept["agent"] = self.agent
            kept["here"] = path_from(self.here, placed)
        return kept


def driven(spec: ProgramSpec | FunctionSpec, here: str) -> tuple[tuple[str, ...], FunctionWorker | None]:
    """A program's words, or a function's worker (started at the first run), for :class:`LiveRuns`."""
    if isinstance(spec, ProgramSpec):
        return spec.words, None
    from toolreplay.agents.function import FunctionWorker  # noqa: PLC0415 - only python: agents

    return (), FunctionWorker(spec, here, None, None, False)


def record_runs(
    runs: LiveRuns,
    numbered: Sequence[tuple[int, int]],
    done: Callable[[Recorded], None],
    keep_going: bool = False,
) -> list[Recorded]:
    """Each run (its number and seed) in turn, up to the first that made no session unless ``keep_going``; an
    interruption ends every process group, and no run starts after it."""
    made: list[Recorded] = []
    stopped = stop_on_sigterm()  # SIGTERM (a job cancelled) ends the runs as Ctrl-C does: nothing outlives record
    try:
        for number, seed in numbered:
            recorded = runs.run(number, seed)
            done(recorded)
            made.append(recorded)
            if recorded.session is None and not keep_going:
                break
    except BaseException:
        runs.groups.stop()
        raise
    finally:
        runs.groups.end_all()
        if stopped is not None:
            signal.signal(signal.SIGTERM, stopped)
    return made
