"""``toolreplay record``: run a program live against its real MCP servers, N times, one session per run."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import click

from toolreplay.agent_spec import AgentSpecError, ProgramSpec, parse_agent
from toolreplay.agents.spec import read_prompt
from toolreplay.cli.options import redaction_options
from toolreplay.cli.output import write_text
from toolreplay.errors import UsageError
from toolreplay.record.programs import LiveRuns, LiveServer, Recorded, record_runs
from toolreplay.redact import Redactor
from toolreplay.settings import TIMEOUTS
from toolreplay.wording import count

MAX_RUNS = 1000


def _server(text: str) -> LiveServer:
    name, equals, command = text.partition("=")
    if not equals or not name.strip() or not command.strip():
        raise UsageError(f"--server {text!r}: must be NAME=COMMAND or NAME=URL, as in --server ops='python server.py'")
    if command.strip().startswith(("http://", "https://")):
        from toolreplay.mcp.urls import parse_upstream  # noqa: PLC0415 - only for a server reached by URL

        parse_upstream(command.strip())
        return LiveServer(name.strip(), (), command.strip())
    try:
        words = tuple(shlex.split(command))
    except ValueError as exc:
        raise UsageError(f"--server {name}: the command cannot be split into words ({exc})") from None
    return LiveServer(name.strip(), words)


@click.command(
    "record",
    help="""Run a program live against its real MCP servers, N times, and write one session per run.

    The program (--agent cmd:COMMAND, with the placeholders of replay's cmd:
    agents: {mcp_config}, {mcp_url}, {task}, {system}, {run}, {seed}, {workdir},
    {here})
    reads the MCP configuration toolreplay writes for each run: every --server
    NAME=COMMAND under its NAME, started behind 'toolreplay record-mcp --name
    NAME', and every --server NAME=URL (a server over Streamable HTTP, or a
    legacy SSE stream) as the URL of a loopback proxy in front of it ({mcp_url}:
    the first such), all logging to the run's one log. Each run has a working directory
    and HOME of its own under DIR/run-NNNN/; its session (the task, the system
    prompt, every call in the order answered, each server's own messages, and
    the final reply the program printed) goes to DIR/run-NNNN.json, ready for
    'compare' or as the recording a replay starts from. The servers really
    execute what the program asks.
    """,
)
@click.option("--agent", required=True, metavar="cmd:COMMAND", help="The program to run, as cmd:COMMAND.")
@click.option(
    "--server",
    "servers",
    multiple=True,
    required=True,
    metavar="NAME=COMMAND|URL",
    help="A server the program uses: its name in the program's configuration, and its command or its URL (repeatable).",
)
@click.option("--runs", type=click.IntRange(1, MAX_RUNS), default=1, show_default=True, help="How many runs.")
@click.option("-o", "--output", "root", required=True, metavar="DIR", help="Where the runs and sessions go.")
@click.option("--task", metavar="TEXT", help="The person's first message ({task}).")
@click.option("--task-file", metavar="FILE", help="The person's first message, from a file.")
@click.option("--system", "system_file", metavar="FILE", help="The system prompt ({system} is a file of it).")
@click.option("--model", default="unknown", show_default=True, metavar="NAME", help="The model name to record.")
@click.option("--seed", type=int, default=1, show_default=True, help="The first run's {seed}; each next run's is +1.")
@click.option(
    "--run-timeout",
    type=click.FloatRange(*TIMEOUTS["run_timeout"]),
    default=1800.0,
    show_default=True,
    metavar="SECONDS",
    help="How long one run may take before its process group is ended.",
)
@redaction_options("write")
def command(
    agent: str,
    servers: tuple[str, ...],
    runs: int,
    root: str,
    task: str | None,
    task_file: str | None,
    system_file: str | None,
    model: str,
    seed: int,
    run_timeout: float,
    redactor: Redactor,
) -> int:
    try:
        spec = parse_agent(agent)
    except AgentSpecError as exc:
        raise UsageError(f"--agent: {exc}") from None
    if not isinstance(spec, ProgramSpec):
        raise UsageError("--agent: record runs a program, cmd:COMMAND (run records a model or a scripted agent)")
    live = tuple(_server(text) for text in servers)
    names = [server.name for server in live]
    if len(set(names)) < len(names):
        raise UsageError(f"--server: each server needs a name of its own, found {', '.join(names)}")
    if (task is None) == (task_file is None):
        raise UsageError("give the task with one of --task and --task-file")
    said = task if task is not None else read_prompt(str(task_file))
    system = read_prompt(system_file) if system_file else ""
    out = Path(root).absolute()  # the program runs in a directory of its own: every path it is given is whole
    live_runs = LiveRuns(spec.words, live, said, system, model, out, run_timeout, os.getcwd(), redactor)
    taken = [path for number in range(1, runs + 1) for path in live_runs.paths(number) if path.exists()]
    if taken:
        raise UsageError(f"{taken[0]} exists: record writes new runs only; choose another -o")
    out.mkdir(parents=True, exist_ok=True)

    def done(recorded: Recorded) -> None:
        if recorded.session is None:
            write_text(f"run {recorded.number}: {recorded.ending}; no session\n")
        else:
            calls = count(recorded.calls, "call")
            write_text(f"run {recorded.number}: {calls}, {recorded.ending} → {recorded.session}\n")

    made = record_runs(live_runs, [seed + n for n in range(runs)], done)
    missing = [recorded.number for recorded in made if recorded.session is None]
    if missing:
        raise UsageError(f"{count(len(missing), 'run')} of {runs} made no session (see above)")
    return 0
