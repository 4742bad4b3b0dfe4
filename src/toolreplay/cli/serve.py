"""``toolreplay serve``: a recorded session's answers as an MCP stdio server."""

from __future__ import annotations

import contextlib
import sys

import click

from toolreplay.cli.options import load_policy, settings_options
from toolreplay.errors import UsageError
from toolreplay.escape import one_line
from toolreplay.formats.faults import read_faults
from toolreplay.formats.mcp_log import is_log, pick_run, read_log
from toolreplay.formats.recording import load_session
from toolreplay.formats.stubs import read_stubs
from toolreplay.redact import Redactor
from toolreplay.replay.serve import log_server, session_server
from toolreplay.settings import ReplaySettings
from toolreplay.wording import format_call


@click.command(
    "serve",
    help="""Serve RECORDING's answers as an MCP stdio server.

    RECORDING is a record-mcp log, replayed exactly: every request it holds
    (the handshake, tools, resources, prompts) gets its recorded result or
    error, with the notifications that came before it. Or a session: its tools
    are listed and its calls answered from its results. Put this where an MCP
    client's server command was, with 'toolreplay record-mcp -o LOG --' in
    front to log what the client does, then import and compare the log. A
    tools/call never recorded gets an error result (--on-unrecorded error), a
    stub (stub, with --stubs) or a JSON-RPC error (stop). Nothing is executed.
    When the client leaves, a summary goes to stderr.
    """,
)
@click.argument("recording", metavar="RECORDING")
@settings_options("on_unrecorded", "stubs")
@click.option("--rules", "rules_file", metavar="FILE", help="A rules file, for its argument matching.")
@click.option("--run", "run_number", type=int, metavar="N", help="Which run of a log (1 = first; default: last).")
@click.option(
    "--faults",
    "faults_file",
    metavar="FILE",
    help="Failures to inject into chosen calls: errors, error results, delays, hangs, a dropped connection.",
)
def command(
    recording: str, settings: ReplaySettings, rules_file: str | None, run_number: int | None, faults_file: str | None
) -> int:
    stubs = read_stubs(settings.stubs) if settings.stubs else ()
    faults = read_faults(faults_file) if faults_file else ()
    matcher = load_policy(rules_file, False).matcher
    if is_log(recording):
        server = log_server(
            pick_run(read_log(recording), run_number, recording), matcher, settings.on_unrecorded, stubs
        )
    else:
        if run_number is not None:
            raise UsageError("--run is for a record-mcp log; a session holds one run")
        session = load_session(recording)
        if session.context is None:
            raise UsageError(f"{recording} is a transcript: serving needs a session's tool definitions, or a log")
        server = session_server(session, matcher, settings.on_unrecorded, stubs, faults)
    # The client leaving, by closing its end or by interrupting, is the normal end of a session.
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        server.serve(sys.stdin.buffer, sys.stdout.buffer)
    log = server.log
    injected = f", {len(log.faults)} faults injected" if faults else ""
    sys.stderr.write(f"toolreplay serve: {log.answered} calls, {len(log.unrecorded)} never recorded{injected}\n")
    redactor = Redactor.default()
    for call, answered in log.unrecorded:
        shown = one_line(redactor.text(format_call(call)))
        sys.stderr.write(f"  unrecorded: {shown}  answered: {answered}\n")
    return 0
