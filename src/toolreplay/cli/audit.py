"""``toolreplay audit``: the self-audit of one or more recordings."""

from __future__ import annotations

import click

from toolreplay.analysis.audit import audit
from toolreplay.analysis.classify import Policy
from toolreplay.cli.options import load_policy, policy_options
from toolreplay.cli.output import emit
from toolreplay.core.findings import Gate, gated, rules_of
from toolreplay.core.model import Finding
from toolreplay.core.verdict import Exit
from toolreplay.formats.recording import calls_and_classifier
from toolreplay.results.shown import FileAudit


def audit_files(paths: tuple[str, ...], policy: Policy) -> Exit:
    """Audit each file and print its report; findings in any of them decide the exit code."""
    found: list[Finding] = []
    for number, path in enumerate(paths):
        report = audit(*calls_and_classifier(path, policy))
        emit(FileAudit(path, report, number, len(paths)))
        found += report.findings
    return gated(rules_of(found), Gate.ANY_FINDING).exit_code


@click.command(
    "audit",
    help="""Audit each FILE against itself.

    Reports non-determinism (an identical call that got a different response;
    the first is the divergence point), redundant calls (an identical call right
    after the same one, where nothing could have changed state) and, with
    --rules, tools annotated read-only that a rule says write or destroy. What
    changes state comes from the classification (rules, then annotations), else
    from a default list of mutating tools. FILE is a transcript, a session, or
    either of them sealed. Exits 1 when anything is found.
    """,
)
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
@policy_options
def command(files: tuple[str, ...], rules_file: str | None, strict: bool) -> Exit:
    return audit_files(files, load_policy(rules_file, strict))
