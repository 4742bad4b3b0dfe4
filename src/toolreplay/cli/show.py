"""``toolreplay show``: a session's calls, each with its class."""

from __future__ import annotations

import click

from toolreplay.classify import class_from_annotations
from toolreplay.cli.output import write_text
from toolreplay.formats.recording import load_session
from toolreplay.report.text import render_show


@click.command(
    "show",
    help="""Print each SESSION: a header (calls, model, source), one line per call with
    its arguments and its class, and the agent's final reply.

    The class is read-only, write, destructive or unknown, from the tool's MCP
    annotations. SESSION may be a session file, a transcript, or either sealed.
    """,
)
@click.argument("sessions", metavar="SESSION...", nargs=-1, required=True)
def command(sessions: tuple[str, ...]) -> int:
    reports = []
    for path in sessions:
        session = load_session(path)
        classes = [class_from_annotations(session.tool(call.tool)).value for call in session.calls]
        reports.append(render_show(session, classes))
    write_text("\n".join(reports))
    return 0
