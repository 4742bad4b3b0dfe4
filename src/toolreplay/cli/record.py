"""``toolreplay record``: run a program live against its real MCP servers, N times, one session per run."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import click

from toolreplay.agent_spec import PLACEHOLDERS, AgentSpecError, FunctionSpec, ProgramSpec, fill, parse_agent
from toolreplay.agents.spec import read_prompt
from toolreplay.cli.options import redaction_options
from toolreplay.cli.output import warn, write_text
from toolreplay.core.errors import UsageError
from toolreplay.core.escape import for_terminal
from toolreplay.core.wording import count
from toolreplay.record.programs import LiveRuns, LiveServer, Recorded, driven, next_number, record_runs
from toolreplay.redact import Redactor
from toolreplay.settings import TIMEOUTS

MAX_RUNS = 1000


def _server(text: str, env: dict[str, list[str]]) -> LiveServer:
    name, equals, command = text.partition("=")
    name = name.strip()
    if not equals or not name or not command.strip():
        raise UsageError(f"--server {text!r}: must be NAME=COMMAND or NAME=URL, as in --server ops='python server.py'")
    if command.strip().startswith(("http://", "https://")):
        from toolreplay.mcp.http.urls import parse_upstream  # noqa: PLC0415 - only for a server reached by URL

        if env.get(name):
            raise UsageError(f"--server-env {name}:{env[name][0]}: {name} is reached by URL; it is not started here")
        parse_upstream(fill([command.strip()], _EXAMPLE)[0])
        return LiveServer(name, (), command.strip())
    try:
        words = tuple(shlex.split(command))
    except ValueError as exc:
        raise UsageError(f"--server {name}: the command cannot be split into words ({exc})") from None
    return LiveServer(name, words, env=tuple(env.get(name, ())))


# What the placeholders stand for when a command is checked before any run: a run's own values come later.
_EXAMPLE = {**dict.fromkeys(PLACEHOLDERS, "x"), "run": "1", "seed": "1"}


def _passed(pairs: tuple[str, ...], names: list[str]) -> dict[str, list[str]]:
    """``--server-env NAME:KEY`` by server: the variables each is given from record's environment."""
    passed: dict[str, list[str]] = {}
    for pair in pairs:
        name, colon, key = pair.partition(":")
        if not colon or not name or not key:
            raise UsageError(f"--server-env {pair!r}: must be NAME:KEY, as in --server-env git:GITHUB_TOKEN")
        if name not in names:
            raise UsageError(f"--server-env {pair}: no --server is named {name} (the servers: {', '.join(names)})")
        if key not in os.environ:
            raise UsageError(f"--server-env {pair}: {key} is not set in this environment")
        passed.setdefault(name, []).append(key)
    return passed


def _words(option: str, text: str | None) -> tuple[str, ...]:
    if text is None:
        return ()
    try:
        words = tuple(shlex.split(text))
    except ValueError as exc:
        raise UsageError(f"{option}: the command cannot be split into words ({exc})") from None
    if not words:
        raise UsageError(f"{option}: needs a command")
    return words


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
    the first such), all logging to the run's one log. A server's command takes
    the same placeholders, and --server-env NAME:KEY passes the variable KEY of
    this environment to the server NAME (an MCP client gives a server little of
    its own). --before-run CMD runs before each run's program, where record was
    started, so each run starts from the same state.

    Each run has a working directory and HOME of its own under DIR/run-NNNN/;
    its session (the task, the system prompt, every call in the order answered,
    each server's own messages, the final reply the program printed, and the
    agent as written, which replay runs when given no --agent) goes to
    DIR/run-NNNN.json, ready for 'compare' or as the recording a replay starts
    from. Runs are added to DIR, numbered on from the last one there. Commit the
    sessions; the run directories hold what each run left (logs, output). The
    servers really execute what the program asks.

    A run that fails before any call (a server that never started, a program
    that crashed) writes no session: record says why, with the last lines the
    program wrote on stderr, stops, and exits 2; with --keep-going it goes on to
    the other runs and exits 1 if any failed so.
    """,
)
@click.option(
    "--agent",
    required=True,
    metavar="cmd:COMMAND|python:MODULE:FUNCTION",
    help="The program to run, as cmd:COMMAND, or a Python function given an MCP session per server, as "
    "python:MODULE:FUNCTION (or python:FILE.py:FUNCTION; docs/python.md).",
)
@click.option(
    "--server",
    "servers",
    multiple=True,
    required=True,
    metavar="NAME=COMMAND|URL",
    help="A server the program uses: its name in the program's configuration, and its command or its URL (repeatable).",
)
@click.option(
    "--server-env",
    "server_env",
    multiple=True,
    metavar="NAME:KEY",
    help="Pass the variable KEY of this environment to the server NAME (repeatable); its value is redacted from "
    "the sessions.",
)
@click.option(
    "--before-run",
    metavar="CMD",
    help="A command run before each run's program, where record was started ({run}, {workdir}, {here}, {seed}).",
)
@click.option("--keep-going", is_flag=True, help="Go on after a run that failed before any call (then exit 1).")
@click.option("--runs", type=click.IntRange(1, MAX_RUNS), default=1, show_default=True, help="How many runs.")
@click.option("-o", "--output", "root", required=True, metavar="DIR", help="Where the runs and sessions go.")
@click.option("--task", metavar="TEXT", help="The person's first message ({task}).")
@click.option("--task-file", metavar="FILE", help="The person's first message, from a file.")
@click.option("--system", "system_file", metavar="FILE", help="The system prompt ({system} is a file of it).")
@click.option("--model", default="unknown", show_default=True, metavar="NAME", help="The model name to record.")
@click.option(
    "--seed", type=int, metavar="N", help="The first run's {seed}, each next run's +1 (default: the run's number)."
)
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
    server_env: tuple[str, ...],
    before_run: str | None,
    keep_going: bool,
    runs: int,
    root: str,
    task: str | None,
    task_file: str | None,
    system_file: str | None,
    model: str,
    seed: int | None,
    run_timeout: float,
    redactor: Redactor,
) -> int:
    try:
        spec = parse_agent(agent)
    except AgentSpecError as exc:
        raise UsageError(f"--agent: {exc}") from None
    if not isinstance(spec, ProgramSpec | FunctionSpec):
        raise UsageError(
            "--agent: record runs a program, cmd:COMMAND, or a function, python:MODULE:FUNCTION (run records a model "
            "or a scripted agent)"
        )
    named = [text.partition("=")[0].strip() for text in servers]
    live = tuple(_server(text, _passed(server_env, named)) for text in servers)
    names = [server.name for server in live]
    if len(set(names)) < len(names):
        raise UsageError(f"--server: each server needs a name of its own, found {', '.join(names)}")
    if (task is None) == (task_file is None):
        raise UsageError("give the task with one of --task and --task-file")
    said = task if task is not None else read_prompt(str(task_file))
    system = read_prompt(system_file) if system_file else ""
    if system_file is None:
        warn(
            "no --system: each session records an empty system prompt (and {system} is an empty file), so a replay "
            "given a prompt would take all of it for the edit; give the prompt the agent runs with"
        )
    out = Path(root).absolute()  # the program runs in a directory of its own: every path it is given is whole
    before = _words("--before-run", before_run)
    words, function = driven(spec, os.getcwd())
    live_runs = LiveRuns(
        words, live, said, system, model, out, run_timeout, os.getcwd(), redactor, agent, before, function=function
    )
    if out.exists() and not out.is_dir():
        raise UsageError(f"-o {root}: not a directory")
    first = next_number(out)
    out.mkdir(parents=True, exist_ok=True)

    def done(recorded: Recorded) -> None:
        shown = Path(root) / recorded.session.name if recorded.session is not None else None
        if shown is None:  # what went wrong goes where errors go: a job's log of stderr holds why
            said = "".join(f"\n  {line}" for line in recorded.said)
            text = f"run {recorded.number}: {recorded.ending}; no session{':' if said else ''}{said}"
            click.echo(f"toolreplay: {for_terminal(text)}", err=True)
        else:
            calls = count(recorded.calls, "call")
            write_text(f"run {recorded.number}: {calls}, {recorded.ending} → {shown}\n")

    numbered = [(first + n, (seed if seed is not None else first) + n) for n in range(runs)]
    try:
        made = record_runs(live_runs, numbered, done, keep_going)
    finally:
        if function is not None:
            function.close()
    failed = [recorded.number for recorded in made if recorded.session is None]
    if failed and not keep_going:
        left = runs - len(made)
        after = f"; {count(left, 'run')} not started (--keep-going goes on)" if left else ""
        raise UsageError(f"run {failed[0]} failed before any call and wrote no session (see above){after}")
    if failed:
        write_text(f"{len(failed)} of {count(runs, 'run')} failed before any call and wrote no session\n")
        return 1
    return 0
