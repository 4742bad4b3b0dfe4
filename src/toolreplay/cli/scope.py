"""``toolreplay scope``: the calls outside a declared scope."""

from __future__ import annotations

import click

from toolreplay.analysis.scope import check_scope
from toolreplay.cli.output import emit
from toolreplay.core.findings import Gate, gated, rules_of
from toolreplay.core.verdict import Exit
from toolreplay.formats.recording import iter_calls
from toolreplay.formats.scope import read_scope


@click.command(
    "scope",
    help="""Check every call in FILE against the declared SCOPE.

    SCOPE is a JSON object naming the agent and its allowed tools:
    {"agent": "docs-reader", "allowed_tools": ["read_file", "search"]}.
    A call to any other tool is a permission overreach. Names match exactly and
    case-sensitively. Exits 1 when any call is out of scope.
    """,
)
@click.argument("file", metavar="FILE")
@click.argument("scope_file", metavar="SCOPE")
def command(file: str, scope_file: str) -> Exit:
    scope = read_scope(scope_file)
    report = check_scope(iter_calls(file), scope)
    emit(report)
    return gated(rules_of(report.findings), Gate.ANY_FINDING).exit_code
