"""``toolreplay rules init``: a starter rules file from recorded sessions."""

from __future__ import annotations

import tomllib
from pathlib import Path

import click
import tomli_w

from toolreplay.analysis.rules_init import starter_rules
from toolreplay.cli.output import guard_outputs, write_text
from toolreplay.core.errors import InputError, UsageError
from toolreplay.core.files import write_atomic
from toolreplay.core.wording import count
from toolreplay.formats.recording import load_session
from toolreplay.formats.rules import parse_rules


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
    try:  # checked before writing: the comments hold nothing TOML reads, and the text loads as rules
        policy = parse_rules(text, output)
        same = tomllib.loads(text) == document
    except InputError as exc:
        raise UsageError(f"the starter rules would not load ({exc.message}); please report this") from None
    if not same:
        raise UsageError("the starter rules would not read back as generated; please report this")
    write_atomic(output, [text.encode("utf-8")])
    write_text(f"wrote {output}: {count(len(policy.rules), 'rule')} for the tools of {count(len(loaded), 'session')}\n")
    return 0
