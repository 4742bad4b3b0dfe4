"""``toolreplay rules init``: a starter rules file from recorded sessions."""

from __future__ import annotations

import tomllib
from pathlib import Path

import click
import tomli_w

from toolreplay.cli.output import guard_outputs, write_text
from toolreplay.errors import UsageError
from toolreplay.formats.files import write_atomic
from toolreplay.formats.recording import load_session
from toolreplay.formats.rules import read_rules
from toolreplay.rules_init import starter_rules


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
    guard_outputs({"-o": output}, list(sessions))
    if Path(output).exists():  # a rules file is the user's own work: never written over
        raise UsageError(f"-o {output} exists; rules init writes a new file (remove it, or name another)")
    loaded = [load_session(path) for path in sessions]
    document, header = starter_rules(loaded)
    text = "".join(f"# {line}\n" for line in header) + "\n" + tomli_w.dumps(document)
    if tomllib.loads(text) != document:  # the comments hold nothing TOML reads: checked before writing
        raise UsageError("the starter rules would not read back as generated; please report this")
    write_atomic(output, [text.encode("utf-8")])
    policy = read_rules(output)  # and what was written loads as rules
    write_text(f"wrote {output}: {len(policy.rules)} rules for the tools of {len(loaded)} sessions\n")
    return 0
