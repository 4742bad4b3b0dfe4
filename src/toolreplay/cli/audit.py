"""``toolreplay audit``: the self-audit of one or more recordings."""

from __future__ import annotations

import click

from toolreplay.cli.emitter import Printer
from toolreplay.cli.options import policies_option, policy_options
from toolreplay.commands import audit
from toolreplay.core.verdict import Exit


@click.command(
    "audit",
    help="""Audit each FILE against itself.

    Reports non-determinism (an identical call that got a different response;
    the first is the divergence point), redundant calls (an identical call right
    after the same one, where nothing could have changed state) and, with
    --rules, tools annotated read-only that a rule says write or destroy;
    with --policies, each call that breaks a policy (at its line, naming the
    policy and, for an order or a flow, the earlier call). What
    changes state comes from the classification (rules, then annotations), else
    from a default list of mutating tools. FILE is a transcript, a session, or
    either of them sealed. Exits 1 when anything is found.
    """,
)
@click.argument("files", metavar="FILE...", nargs=-1, required=True)
@policy_options
@policies_option
def command(files: tuple[str, ...], rules_file: str | None, strict: bool, policies_file: str | None) -> Exit:
    return audit.execute(audit.AuditRequest(files, rules_file, strict, policies_file), Printer())
