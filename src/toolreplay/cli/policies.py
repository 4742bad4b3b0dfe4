"""``toolreplay policies suggest``: a starter policy file from recorded sessions."""

from __future__ import annotations

import click

from toolreplay.cli.emitter import Printer
from toolreplay.cli.options import policy_options
from toolreplay.commands import policies


@click.group("policies", help="Work with policy files (what the calls must never do, and in what order).")
def command() -> None:
    pass


@command.command(
    "suggest",
    help="""Write a starter policy file (TOML) from the orders, counts and flows SESSION... all keep.

    For each tool that writes or destroys (by --rules, then the tools'
    annotations): each earlier call that passed the same argument value
    (an archive of a path before its deletion), each tool called before it in
    every run, and the most calls one run made of it. A tool whose name says
    it reads a secret gets a flow policy to each tool whose name says it sends
    something out, where no run carried one into the other. Each policy says
    how many runs and calls support it; review the file, then pass it with
    --policies.
    """,
)
@click.argument("sessions", metavar="SESSION...", nargs=-1, required=True)
@click.option("-o", "--output", required=True, metavar="FILE", help="The policy file to write (refused if it exists).")
@policy_options
def suggest(sessions: tuple[str, ...], output: str, rules_file: str | None, strict: bool) -> int:
    return policies.suggest(policies.SuggestRequest(sessions, output, rules_file, strict), Printer())
