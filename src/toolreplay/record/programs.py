"""``record --agent cmd:...``: a program run live against its real MCP servers, each run recorded as a session.

For each run the program gets an MCP configuration (``{mcp_config}``) naming every server by the name given, each
started behind ``record-mcp --name NAME``, all of them appending to the run's one log; it runs in a working
directory and ``HOME`` of its own, in a process group of its own, ended after the timeout. The run's log is then
imported into a session (the task, the system prompt, every call of every server in the order they were
answered, each server's own messages, and the program's final reply), ready for ``compare`` or as the recording a
replay starts from.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import field
from pathlib import Path

from toolreplay.agents.program import ProcessGroups, ProgramRun, Said, listening, read_reply, tail_line, unstarted
from toolreplay.canonical import json_utf8
from toolreplay.errors import InputError, ToolreplayError
from toolreplay.formats.files import write_atomic
from toolreplay.formats.mcp_log import ImportOptions, LogNotes, session_from_log
from toolreplay.formats.session import dump_session
from toolreplay.records import record
from toolreplay.redact import Redactor


@record
class LiveServer:
    """A real MCP server the program uses: the name its configuration gives it, and its command, or the URL it is
    reached at (Streamable HTTP, or a legacy SSE stream)."""

    name: str
    command: tuple[str, ...]
    url: str | None = None


@record
class Recorded:
    """One run: where its session went (None: it made none), how many calls it holds, and how the run ended."""

    number: int
    session: Path | None
    calls: int
    ending: str


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
    groups: ProcessGroups = field(default_factory=ProcessGroups)

    def paths(self, number: int) -> tuple[Path, Path]:
        """A run's directory and its session file."""
        return self.root / f"run-{number:04d}", self.root / f"run-{number:04d}.json"

    def run(self, number: int, seed: int) -> Recorded:
        directory, session = self.paths(number)
        place = ProgramRun(directory)
        log, system = directory / "mcp.jsonl", directory / "system.txt"
        proxy = [sys.executable, "-m", "toolreplay", "record-mcp", "-o", str(log)]
        # each behind a proxy that names it, all in the run's one log: a command started where record was (as
        # given), a URL behind a reverse proxy on the loopback, up before the program starts
        remote = {s.name: [*proxy, "--name", s.name, "--upstream", s.url] for s in self.servers if s.url is not None}
        directory.mkdir(parents=True, exist_ok=True)
        system.write_text(self.system, encoding="utf-8", errors="backslashreplace")
        with ExitStack() as proxies:
            try:
                urls = proxies.enter_context(listening(remote, directory, "toolreplay record-mcp:")) if remote else {}
            except ToolreplayError as exc:
                return Recorded(number, None, 0, exc.message)
            place.prepare(
                {
                    s.name: urls[s.name]
                    if s.url is not None
                    else [*proxy, "--name", s.name, "--cwd", self.here, "--", *s.command]
                    for s in self.servers
                }
            )
            said = Said(self.task, system, number, seed, self.here, next(iter(urls.values()), ""))
            argv, ended = place.run(self.words, said, self.timeout, self.groups)
        output, errors = place.output, place.errors
        if ended.unstarted is not None:
            return Recorded(number, None, 0, unstarted(argv[0], ended.unstarted, self.here))
        reply = read_reply(output)
        if not log.exists() or not log.stat().st_size:
            why = tail_line(errors) or tail_line(output) or "no output"
            return Recorded(number, None, 0, f"{ended.words()}, and no server started (see {errors}): {why}")
        options = ImportOptions(task=self.task, system=self.system, final_text=reply.text, model=self.model)
        try:
            context, _ = session_from_log(log, options, LogNotes())
        except InputError as exc:
            return Recorded(number, None, 0, f"{ended.words()}; its log could not be read: {exc.message}")
        text = dump_session(context, self.redactor)
        write_atomic(session, [json_utf8(text)])
        calls = sum(len(server.results) for server in context.servers)
        ending = ended.words() if ended.code != 0 else ("final reply" if reply.text else "no final reply")
        return Recorded(number, session, calls, ending)


def record_runs(runs: LiveRuns, seeds: Sequence[int], done: Callable[[Recorded], None]) -> list[Recorded]:
    """Each run in turn; an interruption ends every process group, and no run starts after it."""
    made: list[Recorded] = []
    try:
        for number, seed in enumerate(seeds, 1):
            recorded = runs.run(number, seed)
            done(recorded)
            made.append(recorded)
    except BaseException:
        runs.groups.stop()
        raise
    finally:
        runs.groups.end_all()
    return made
