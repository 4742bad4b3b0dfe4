"""``toolreplay show``: a session's calls, each with its class."""

from __future__ import annotations

import click

from toolreplay.cli.emitter import Printer
from toolreplay.cli.options import policy_options
from toolreplay.commands import show


@click.command(
    "show",
    help="""Print each SESSION: a header (calls, model, source), one line per call with
    its arguments and its class, and the agent's final reply.

    The class is read-only, write, destructive or unknown: from the first
    matching rule of --rules, else from the tool's MCP annotations. Where the
    annotations say read-only and a rule disagrees, the line says so. SESSION
    may be a session file, a transcript, or either sealed.
    """,
)
@click.argument("sessions", metavar="SESSION...", nargs=-1, required=True)
@policy_options
def command(sessions: tuple[str, ...], rules_file: str | None, strict: bool) -> int:
    return show.execute(show.ShowRequest(sessions, rules_file, strict), Printer())
