"""``toolreplay show``: a session's calls, each with its class."""

from __future__ import annotations

import click

from toolreplay.classify import Classifier
from toolreplay.cli.options import load_policy, policy_options
from toolreplay.cli.output import write_text
from toolreplay.formats.recording import load_session
from toolreplay.report.text import class_label, render_show


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
    policy = load_policy(rules_file, strict)
    reports = []
    for path in sessions:
        session = load_session(path)
        classifier = Classifier(policy, session.context.tools if session.context is not None else ())
        reports.append(render_show(session, [class_label(call, classifier) for call in session.calls]))
    write_text("\n".join(reports))
    return 0
