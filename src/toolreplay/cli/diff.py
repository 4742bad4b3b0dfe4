"""``toolreplay diff``: what B did that A did not, call by call."""

from __future__ import annotations

import click

from toolreplay.cli.emitter import Printer
from toolreplay.cli.options import fail_on_option, policies_option, policy_options
from toolreplay.cli.report_options import Outputs, outputs_options
from toolreplay.commands import diff
from toolreplay.core.verdict import FailOn


@click.command(
    "diff",
    help="""Compare the calls of recording B against recording A.

    Identical calls in the same order anchor the alignment; an identical call
    made at another point is 'moved'; between anchors, two calls to the same
    tool are one 'changed' call, listed argument by argument; the rest is
    'added' (only in B) or 'removed' (only in A). The final replies are
    compared by similarity, as context only.

    With --policies, each policy B breaks and A keeps is a finding at the
    policy's level, at B's call that broke it.

    Exits 1 when B makes a destructive call A does not or breaks an
    error-level policy A keeps (--fail-on destructive, the default), on any
    difference (--fail-on changed), or never.
    """,
)
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@fail_on_option
@outputs_options
@policy_options
@policies_option
def command(
    a: str, b: str, fail_on: str, outputs: Outputs, rules_file: str | None, strict: bool, policies_file: str | None
) -> int:
    outputs.guard([a, b, rules_file, policies_file])
    request = diff.DiffRequest(a, b, FailOn(fail_on), rules_file, strict, policies_file)
    return diff.execute(request, Printer(outputs=outputs))
