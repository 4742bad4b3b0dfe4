"""``toolreplay tools``: the tool surface an agent is shown: how it changed, what its texts hide, pinned."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from toolreplay.cli.output import emit, guard_outputs, write_text
from toolreplay.core.errors import UsageError
from toolreplay.core.escape import one_line
from toolreplay.core.findings import Gate, Rule, gated
from toolreplay.core.verdict import Exit
from toolreplay.core.wording import count
from toolreplay.results.shown import LintShown, SurfaceChanges

if TYPE_CHECKING:
    from toolreplay.surface.model import Surface

_SOURCES = """Each of OLD, NEW and SOURCE is a session, a record-mcp log, a tools file (a JSON array of
    tool definitions, or a tools/list result) or a tools.lock. With --live, the
    server is asked now instead: its command after -- (over stdio), or
    --live-url URL (Streamable HTTP); --server-name names its tools' server as a
    log or lock does."""


def _live_options(command: Callable[..., Exit]) -> Callable[..., Exit]:
    command = click.option("--server-name", default="", metavar="NAME", help="The live server's name.")(command)
    command = click.option("--live-url", metavar="URL", help="Ask the server at URL now (Streamable HTTP).")(command)
    return click.option("--live", is_flag=True, help="Ask the server whose command follows -- now (stdio).")(command)


def _live(live: bool, url: str | None, command: list[str], name: str) -> Surface | None:
    """The live surface the options ask for, or None."""
    if live and url is not None:
        raise UsageError("--live and --live-url: give one way to reach the server")
    if not live and url is None:
        return None
    if live and not command:
        raise UsageError("--live needs the server's command after --")
    if url is not None and command:
        raise UsageError(f"--live-url takes no command; {command[0]!r} is one too many")
    from toolreplay.surface.live import live_surface  # noqa: PLC0415 - only a live surface starts a server

    return live_surface(command, url, name)


@click.group(
    "tools",
    help=f"""Compare, lint and pin tool surfaces.

    {_SOURCES}""",
)
def command() -> None:
    """The group."""


def _surfaces(sources: tuple[str, ...], live: bool, url: str | None, name: str) -> list[Surface]:
    """The files' surfaces, or the live one (the arguments then the server's command)."""
    from toolreplay.surface.sources import read_surface  # noqa: PLC0415

    asked = _live(live, url, list(sources) if live else [], name)
    if asked is not None:
        return [asked]
    return [read_surface(source) for source in sources]


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
    from toolreplay.surface.drift import diff_surfaces  # noqa: PLC0415
    from toolreplay.surface.sources import read_surface  # noqa: PLC0415

    if only is not None and not only:
        raise UsageError("--server must name a server, not an empty string")
    asked = _live(live, live_url, list(rest), server_name or only or "")
    if asked is None and len(rest) != 1:
        raise UsageError(f"give OLD and NEW (or --live -- SERVER...), not {count(len(rest) + 1, 'source')}")
    before = read_surface(old)
    after = asked if asked is not None else read_surface(rest[0])
    if only is not None:
        before, after = _one_server(before, only, old), _one_server(after, only, after.source)
    new = after.source
    changes = diff_surfaces(before, after)
    emit(SurfaceChanges(old, new, len(before.tools), len(after.tools), tuple(changes)), as_json)
    return gated(((Rule.TOOL_CHANGED, c.level) for c in changes), Gate.AN_ERROR).exit_code


def _one_server(surface: Surface, name: str, shown: str) -> Surface:
    """The tools and instructions of one server of a surface; a source without that server is refused."""
    from toolreplay.surface.model import Surface  # noqa: PLC0415

    tools = tuple(tool for tool in surface.tools if tool.server == name)
    if not tools:
        servers = sorted({tool.server for tool in surface.tools} - {""})
        held = f"its servers: {', '.join(servers)}" if servers else "it names no server"
        raise UsageError(f"--server {name}: {shown} lists no tool of that server ({held})")
    said = tuple(item for item in surface.instructions if item.server == name)
    return Surface(surface.source, tools, said)


@command.command(
    "lint",
    help=f"""Report text in the tools of SOURCE that speaks to the model.

    {_SOURCES}

    Each description, title, argument description and server instruction is
    read as a model reads it (entities decoded, invisible characters removed,
    case folded) against the rules: invisible-character, bidi-control,
    model-instruction, hidden-markup, sensitive-path, unexpected-address,
    cross-server-reference, encoded-blob (docs/checks.md says why each). Exits 1
    on any finding.
    """,
)
@click.argument("sources", metavar="SOURCE...|-- SERVER...", nargs=-1, required=True)
@_live_options
def lint(sources: tuple[str, ...], live: bool, live_url: str | None, server_name: str) -> Exit:
    from toolreplay.surface.lint import lint_surface  # noqa: PLC0415
    from toolreplay.surface.model import Surface  # noqa: PLC0415

    surfaces = _surfaces(sources, live, live_url, server_name)
    # One surface of them all, so a server's text that names another source's server's tool is found.
    together = Surface(
        "", tuple(t for s in surfaces for t in s.tools), tuple(i for s in surfaces for i in s.instructions)
    )
    found = lint_surface(together)
    emit(LintShown(tuple(found)))
    return gated(((Rule.TOOL_TEXT, Rule.TOOL_TEXT.level) for _ in found), Gate.ANY_FINDING).exit_code


@command.command(
    "pin",
    help=f"""Pin the tools of every SOURCE into a lock, for review.

    {_SOURCES}

    The lock (JSON) holds, per server and tool, the digest of the tool as the
    server sent it and its fields in readable form; a change to the surface is
    then a reviewable diff of the lock. 'check' holds the recorded surfaces
    to it (tools: lock: in the config).
    """,
)
@click.argument("sources", metavar="SOURCE...|-- SERVER...", nargs=-1, required=True)
@click.option("-o", "--output", metavar="FILE", required=True, help="Where the lock goes (tools.lock).")
@_live_options
def pin(sources: tuple[str, ...], output: str, live: bool, live_url: str | None, server_name: str) -> Exit:
    from toolreplay.core.files import write_atomic  # noqa: PLC0415
    from toolreplay.surface.lock import write_lock  # noqa: PLC0415

    if not output.endswith(".lock"):
        raise UsageError(f"-o {output}: a lock's name ends in .lock (tools.lock), so it reads back as one")
    guard_outputs({"-o": output}, [] if live else list(sources))
    surfaces = _surfaces(sources, live, live_url, server_name)
    data, tools = write_lock(surfaces)
    write_atomic(output, [data])
    write_text(f"pinned: {count(tools, 'tool')} into {one_line(output)}\n")
    return Exit.CLEAN
