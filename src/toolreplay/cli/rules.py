"""``toolreplay rules init``: a starter rules file from recorded sessions."""

from __future__ import annotations

import click

from toolreplay.cli.emitter import Printer
from toolreplay.commands import rules


@click.group("rules", help="Work with rules files (classification and argument matching).")
def command() -> None:
    pass


@command.command(
    "init",
    help="""Write a starter rules file (TOML) for the tools in SESSION...

    Every tool the sessions define or call gets a rule with the class its MCP
    annotations give; tools without annotations are marked REVIEW. Claude
    Code's own tools get the rules toolreplay ships for them (Bash by its
    command: rm -r and git push --force are destructive). Arguments that alone
    tell otherwise identical calls apart, and look like timestamps or ids, are
    proposed as ignored. Review the file, then pass it with --rules.
    """,
)
@click.argument("sessions", metavar="SESSION...", nargs=-1, required=True)
@click.option("-o", "--output", required=True, metavar="FILE", help="The rules file to write (refused if it exists).")
def init(sessions: tuple[str, ...], output: str) -> int:
    return rules.init(rules.RulesInitRequest(sessions, output), Printer())
