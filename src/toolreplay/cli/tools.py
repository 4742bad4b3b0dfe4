"""``toolreplay tools``: the tool surface an agent is shown: how it changed, what its texts hide, pinned."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from toolreplay.cli.emitter import Printer
from toolreplay.cli.output import write_text
from toolreplay.commands import tools
from toolreplay.core.errors import UsageError
from toolreplay.core.escape import one_line
from toolreplay.core.files import guard_outputs
from toolreplay.core.verdict import Exit
from toolreplay.core.wording import count

if TYPE_CHECKING:
    pass

_SOURCES = """Each of OLD, NEW and SOURCE is a session, a record-mcp log, a tools file (a JSON array of
    tool definitions, or a tools/list result) or a tools.lock. With --live, the
    server is asked now instead: its command after -- (over stdio), or
    --live-url URL (Streamable HTTP); --server-name names its tools' server as a
    log or lock does."""


def _live_options(command: Callable[..., Exit]) -> Callable[..., Exit]:
    command = click.option("--server-name", default="", metavar="NAME", help="The live server's name.")(command)
    command = click.option("--live-url", metavar="URL", help="Ask the server at URL now (Streamable HTTP).")(command)
    return click.option("--live", is_flag=True, help="Ask the server whose command follows -- now (stdio).")(command)


@click.group(
    "tools",
    help=f"""Compare, lint and pin tool surfaces.

    {_SOURCES}""",
)
def command() -> None:
    """The group."""


@command.command(
    "diff",
    help=f"""What changed from the tools of OLD to those of NEW, tool by tool.

    {_SOURCES}

    Each change has a kind and a level by its effect: a tool removed, a new
    required argument, or annotations that make a call read as less dangerous
    (destructiveHint dropped, readOnlyHint claimed) are errors, as they break
    or reclassify recorded calls; a description, an argument's type or a
    narrowed enum warn; the rest is a note. Exits 1 when there is an error.

    --server NAME compares the tools of that one server of OLD and NEW (a log,
    session or lock of several servers), for instance one server asked live
    against a lock of two; a live server's tools are then named NAME unless
    --server-name says otherwise.
    """,
)
@click.argument("old", metavar="OLD")
@click.argument("rest", metavar="NEW|-- SERVER...", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
@click.option("--server", "only", metavar="NAME", help="Compare the tools of this server only.")
@_live_options
def diff(
    old: str,
    rest: tuple[str, ...],
    as_json: bool,
    only: str | None,
    live: bool,
    live_url: str | None,
    server_name: str,
) -> Exit:
    request = tools.ToolsDiffRequest(old, rest, only, tools.Reach(live, live_url, server_name))
    return tools.diff(request, Printer(as_json))


@command.command(
    "lint",
    help=f"""Report text in the tools of SOURCE that speaks to the model.

    {_SOURCES}

    Every text of a tool a model reads (name, title, description, every
    schema string and property name) and each server's instructions is read
    as a model reads it, whatever disguises it (format characters, accents,
    look-alike letters, leetspeak, spacing, encodings, hidden markup), against
    rules about how it looks and what it does: orders to the model, secrecy,
    claimed consent, overriding other guidance, role changes, steering other
    tools, asking for secrets (docs/checks.md says why each). With --judge,
    each prose text no rule flagged is also judged by that model. Exits 1 on
    any finding.
    """,
)
@click.argument("sources", metavar="SOURCE...|-- SERVER...", nargs=-1, required=True)
@_live_options
@click.option(
    "--judge",
    metavar="MODEL",
    help="Also ask MODEL (as --agent names a model: a Claude id, openai/..., bedrock/..., vertex/...) about each "
    "text the rules let pass, with a fixed rubric. A judge that fails is a warning, never a pass.",
)
@click.option(
    "--judge-url", metavar="URL", help="Where the judge model is asked (its provider's own address, by default)."
)
@click.option(
    "--judge-cache", metavar="FILE", help="Keep the judge's verdicts in FILE (JSON), so a text is judged once."
)
def lint(
    sources: tuple[str, ...],
    live: bool,
    live_url: str | None,
    server_name: str,
    judge: str | None,
    judge_url: str | None,
    judge_cache: str | None,
) -> Exit:
    if judge is None and (judge_url is not None or judge_cache is not None):
        raise UsageError("--judge-url and --judge-cache are for --judge MODEL")
    if judge_cache is not None:
        guard_outputs({"--judge-cache": judge_cache}, [] if live else list(sources))
    request = tools.ToolsLintRequest(sources, tools.Reach(live, live_url, server_name), judge, judge_url, judge_cache)
    return tools.lint(request, Printer())


@command.command(
    "pin",
    help=f"""Pin the tools of every SOURCE into a lock, for review.

    {_SOURCES}

    The lock (JSON) holds, per server and tool, the digest of the tool as the
    server sent it and its fields in readable form, each server's instructions,
    and the prompts, resources and resource templates it listed; a change to the
    surface is then a reviewable diff of the lock. 'check' holds the recorded
    surfaces to it (tools: lock: in the config). With --judge, the judge's
    verdicts are kept in it too.
    """,
)
@click.argument("sources", metavar="SOURCE...|-- SERVER...", nargs=-1, required=True)
@click.option("-o", "--output", metavar="FILE", required=True, help="Where the lock goes (tools.lock).")
@_live_options
@click.option(
    "--judge",
    metavar="MODEL",
    help="Keep MODEL's verdict on each text the lint's rules let pass in the lock (those it keeps already are "
    "reused), so a check with tools: judge: asks only of texts that changed.",
)
@click.option(
    "--judge-url", metavar="URL", help="Where the judge model is asked (its provider's own address, by default)."
)
def pin(
    sources: tuple[str, ...],
    output: str,
    live: bool,
    live_url: str | None,
    server_name: str,
    judge: str | None,
    judge_url: str | None,
) -> Exit:
    if not output.endswith(".lock"):
        raise UsageError(f"-o {output}: a lock's name ends in .lock (tools.lock), so it reads back as one")
    if judge is None and judge_url is not None:
        raise UsageError("--judge-url is for --judge MODEL")
    guard_outputs({"-o": output}, [] if live else list(sources))
    request = tools.ToolsPinRequest(sources, output, tools.Reach(live, live_url, server_name), judge, judge_url)
    pinned = tools.pin(request, Printer())
    write_text(f"pinned: {count(pinned, 'tool')} into {one_line(output)}\n")
    return Exit.CLEAN
