"""``toolreplay scope``: the calls outside a declared scope."""

from __future__ import annotations

import click

from toolreplay.cli.emitter import Printer
from toolreplay.commands import scope
from toolreplay.core.verdict import Exit


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
    return scope.execute(scope.ScopeRequest(file, scope_file), Printer())
