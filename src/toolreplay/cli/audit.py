"""``toolreplay audit``: the self-audit of one or more recordings."""

from __future__ import annotations

import click

from toolreplay.audit import audit
from toolreplay.cli.output import write_text
from toolreplay.formats.recording import iter_calls
from toolreplay.report.text import render_audit


def audit_files(paths: tuple[str, ...]) -> int:
    """Audit each file and print its report; 1 if any has findings."""
    status = 0
    for number, path in enumerate(paths):
        report = audit(iter_calls(path))
        text = render_audit(report)
        if len(paths) > 1:
            text = ("\n" if number else "") + f"== {path} ==\n" + text
        write_text(text)
        if report.findings:
            status = 1
    return status


@click.command(
    "audit",
    help="""Audit each FILE against itself.

    Reports non-determinism (an identical call that got a different response;
    the first is the divergence point) and redundant calls (an identical call
    right after the same one, with nothing between that could change state).
    FILE is a transcript, a session, or either of them sealed. Exits 1 when anything is found.
    """,
)
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
def command(files: tuple[str, ...]) -> int:
    return audit_files(files)
