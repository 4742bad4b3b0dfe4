"""``toolreplay tools``: the tool surface an agent is shown: how it changed, what its texts hide, pinned."""

from __future__ import annotations

import json

import click

from toolreplay.cli.output import guard_outputs, write_text
from toolreplay.errors import UsageError
from toolreplay.escape import for_terminal
from toolreplay.findings import Level
from toolreplay.verdict import Exit, exit_for

_SOURCES = """Each of OLD, NEW and SOURCE is a session, a record-mcp log, a tools file (a JSON array of
    tool definitions, or a tools/list result) or a tools.lock."""


@click.group(
    "tools",
    help=f"""Compare, lint and pin tool surfaces.

    {_SOURCES}""",
)
def command() -> None:
    """The group."""


def _level(level: Level) -> str:
    return {Level.ERROR: "error", Level.WARNING: "warning", Level.NOTE: "note"}[level]


@command.command(
    "diff",
    help=f"""What changed from the tools of OLD to those of NEW, tool by tool.

    {_SOURCES}

    Each change has a kind and a level by its effect: a tool removed, a new
    required argument, or annotations that make a call read as less dangerous
    (destructiveHint dropped, readOnlyHint claimed) are errors, as they break
    or reclassify recorded calls; a description, an argument's type or a
    narrowed enum warn; the rest is a note. Exits 1 when there is an error.
    """,
)
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="NEW")
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
def diff(old: str, new: str, as_json: bool) -> Exit:
    from toolreplay.drift import diff_surfaces  # noqa: PLC0415
    from toolreplay.formats.surface import read_surface  # noqa: PLC0415

    before, after = read_surface(old), read_surface(new)
    changes = diff_surfaces(before, after)
    if as_json:
        rows = [
            {"kind": c.kind.value, "level": _level(c.level), "tool": c.tool, "detail": c.detail, "line": c.line}
            for c in changes
        ]
        from toolreplay.cli.output import write_json  # noqa: PLC0415

        write_json(json.dumps({"old": old, "new": new, "changes": rows}, indent=2, ensure_ascii=False) + "\n")
    else:
        lines = [f"tools diff: {len(before.tools)} tools in {old}, {len(after.tools)} in {new}"]
        lines += [f"  {_level(c.level):<8} {c.kind.value:<22} {c.tool}  {c.detail}" for c in changes]
        lines.append("no change" if not changes else f"{len(changes)} changes")
        write_text(for_terminal("\n".join(lines)) + "\n")
    return exit_for(any(c.level is Level.ERROR for c in changes))


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
@click.argument("sources", metavar="SOURCE...", nargs=-1, required=True)
def lint(sources: tuple[str, ...]) -> Exit:
    from toolreplay.formats.surface import read_surface  # noqa: PLC0415
    from toolreplay.tool_lint import lint_surface  # noqa: PLC0415

    found = [finding for source in sources for finding in lint_surface(read_surface(source))]
    lines = [f"{f.path}:{f.line}  {f.rule.value:<22} {f.tool} {f.field}: {f.excerpt}" for f in found] or [
        "tools lint: nothing found"
    ]
    write_text(for_terminal("\n".join(lines)) + "\n")
    return exit_for(bool(found))


@command.command(
    "pin",
    help=f"""Pin the tools of every SOURCE into a lock, for review.

    {_SOURCES}

    The lock (TOML) holds, per server and tool, the digest of the tool as the
    server sent it and its fields in readable form; a change to the surface is
    then a reviewable diff of the lock. 'check' holds the recorded surfaces
    to it (tools: lock: in the config).
    """,
)
@click.argument("sources", metavar="SOURCE...", nargs=-1, required=True)
@click.option("-o", "--output", metavar="FILE", required=True, help="Where the lock goes (tools.lock).")
def pin(sources: tuple[str, ...], output: str) -> Exit:
    from toolreplay.formats.files import write_atomic  # noqa: PLC0415
    from toolreplay.formats.surface import read_surface  # noqa: PLC0415
    from toolreplay.formats.tools_lock import write_lock  # noqa: PLC0415

    if not output.endswith(".lock"):
        raise UsageError(f"-o {output}: a lock's name ends in .lock (tools.lock), so it reads back as one")
    guard_outputs({"-o": output}, list(sources))
    surfaces = [read_surface(source) for source in sources]
    write_atomic(output, [write_lock(surfaces)])
    write_text(f"pinned: {sum(len(s.tools) for s in surfaces)} tools into {for_terminal(output)}\n")
    return exit_for(False)
