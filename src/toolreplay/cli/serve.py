"""``toolreplay serve``: a recorded session's answers as an MCP stdio server."""

from __future__ import annotations

import contextlib
import sys

import click

from toolreplay.cli.policy_options import load_policy
from toolreplay.cli.unrecorded_options import load_unrecorded, unrecorded_options
from toolreplay.errors import UsageError
from toolreplay.formats.recording import load_session
from toolreplay.replay.serve import ReplayServer
from toolreplay.report.text import format_call


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
@unrecorded_options
@click.option("--rules", "rules_file", metavar="FILE", help="A rules file, for its argument matching.")
def command(session_file: str, on_unrecorded: str, stubs_file: str | None, rules_file: str | None) -> int:
    policy, stubs = load_unrecorded(on_unrecorded, stubs_file)
    session = load_session(session_file)
    if session.context is None:
        raise UsageError(f"{session_file} is a transcript: serving needs a session's tool definitions")
    server = ReplayServer(session, load_policy(rules_file, False).matcher, policy, stubs)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve(sys.stdin.buffer, sys.stdout.buffer)
    log = server.log
    sys.stderr.write(f"toolreplay serve: {log.answered} calls, {len(log.unrecorded)} never recorded\n")
    for call, answered in log.unrecorded:
        sys.stderr.write(f"  unrecorded: {format_call(call)}  answered: {answered}\n")
    return 0
