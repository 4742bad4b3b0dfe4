"""``toolreplay serve``: a recorded session's answers as an MCP stdio server."""

from __future__ import annotations

import contextlib
import sys

import click

from toolreplay.cli.options import load_policy, settings_options
from toolreplay.errors import UsageError
from toolreplay.escape import one_line
from toolreplay.formats.recording import load_session
from toolreplay.formats.stubs import read_stubs
from toolreplay.redact import Redactor
from toolreplay.replay.serve import ReplayServer
from toolreplay.settings import ReplaySettings
from toolreplay.wording import format_call


@click.command(
    "serve",
    help="""Serve SESSION's recorded answers as an MCP stdio server.

    Put this where an MCP client's server command was, with 'toolreplay
    record-mcp -o LOG --' in front to log what the client does, then import and
    compare the log. tools/list returns the recorded tools; tools/call is
    answered from the recording; a call never recorded gets an error result
    (--on-unrecorded error), a stub (stub, with --stubs) or a JSON-RPC error
    (stop). Nothing is executed. When the client leaves, a summary goes to stderr.
    """,
)
@click.argument("session_file", metavar="SESSION")
@settings_options("on_unrecorded", "stubs")
@click.option("--rules", "rules_file", metavar="FILE", help="A rules file, for its argument matching.")
def command(session_file: str, settings: ReplaySettings, rules_file: str | None) -> int:
    stubs = read_stubs(settings.stubs) if settings.stubs else ()
    session = load_session(session_file)
    if session.context is None:
        raise UsageError(f"{session_file} is a transcript: serving needs a session's tool definitions")
    server = ReplayServer(session, load_policy(rules_file, False).matcher, settings.on_unrecorded, stubs)
    # The client leaving, by closing its end or by interrupting, is the normal end of a session.
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        server.serve(sys.stdin.buffer, sys.stdout.buffer)
    log = server.log
    sys.stderr.write(f"toolreplay serve: {log.answered} calls, {len(log.unrecorded)} never recorded\n")
    redactor = Redactor.default()
    for call, answered in log.unrecorded:
        shown = one_line(redactor.text(format_call(call)))
        sys.stderr.write(f"  unrecorded: {shown}  answered: {answered}\n")
    return 0
