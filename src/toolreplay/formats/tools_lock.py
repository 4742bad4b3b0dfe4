"""``tools.lock``: a tool surface pinned for review, written by ``tools pin``.

TOML, one ``[[tool]]`` table per tool, in server and name order: its server and name, the digest of the raw
object the server sent (SHA-256 of its canonical JSON), the readable fields a reviewer reads in a diff (title,
description, annotations, the input schema), and the raw object itself as canonical JSON. Read back, every entry
is checked: the digest must be the raw object's and every readable field the one the raw object gives. A lock
edited by hand (a description reworded, a digest pasted) is refused at the entry's line, never trusted.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable

from toolreplay.canonical import canonical_bytes
from toolreplay.errors import InputError
from toolreplay.formats.files import read_text
from toolreplay.formats.surface import Surface, SurfaceTool
from toolreplay.records import record

VERSION = 1
_HEADER = (
    "# The tool surface, pinned: toolreplay tools pin. Review a change to it as code; regenerate it, never edit it.\n"
)


def _readable(value: object) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _fields(tool: SurfaceTool) -> dict[str, str]:
    """What a reviewer reads: the texts as they are, the annotations and the schema as indented JSON (a line a
    property, so a diff of the lock shows the property that changed)."""
    return {
        "title": tool.title,
        "description": tool.description,
        "annotations": _readable(tool.annotations),
        "input-schema": _readable(tool.input_schema),
    }


def write_lock(surfaces: Iterable[Surface]) -> bytes:
    """The lock's bytes for every tool of ``surfaces`` (a tool in two of them: the later one's)."""
    import tomli_w  # noqa: PLC0415 - only tools pin writes TOML

    tools: dict[tuple[str, str], SurfaceTool] = {}
    for surface in surfaces:
        for tool in surface.tools:
            tools[tool.key] = tool
    entries = [
        {
            "server": tool.server,
            "name": tool.name,
            "digest": tool.digest,
            **_fields(tool),
            "raw": canonical_bytes(tool.raw).decode(),
        }
        for _, tool in sorted(tools.items())
    ]
    return (_HEADER + tomli_w.dumps({"version": VERSION, "tool": entries}, multiline_strings=True)).encode("utf-8")


@record
class Lock:
    """A lock as read, each tool with the line of its table."""

    path: str
    tools: tuple[SurfaceTool, ...]

    def surface(self) -> Surface:
        return Surface(self.path, self.tools)


def read_lock(path: str) -> Lock:
    text = read_text(path)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"line (\d+)", str(exc))
        raise InputError(f"not a tools.lock: {exc}", path, int(at.group(1)) if at else None) from None
    lines = [number for number, row in enumerate(text.splitlines(), start=1) if row.strip() == "[[tool]]"]
    if document.get("version") != VERSION:
        raise InputError(f"not a tools.lock of version {VERSION} (regenerate it: toolreplay tools pin)", path, 1)
    entries = document.get("tool", [])
    if not isinstance(entries, list) or len(entries) != len(lines):
        raise InputError("its [[tool]] tables cannot be read (regenerate it: toolreplay tools pin)", path, 1)
    tools: list[SurfaceTool] = []
    for entry, line in zip(entries, lines, strict=True):
        tools.append(_entry(entry, path, line))
    return Lock(path, tuple(tools))


def _entry(entry: object, path: str, line: int) -> SurfaceTool:
    def refused(problem: str) -> InputError:
        return InputError(f"{problem}: the lock was edited by hand; regenerate it (toolreplay tools pin)", path, line)

    keys = {"server", "name", "digest", "title", "description", "annotations", "input-schema", "raw"}
    if not isinstance(entry, dict) or set(entry) != keys or not all(isinstance(v, str) for v in entry.values()):
        raise refused(f"a [[tool]] table holds exactly the strings {', '.join(sorted(keys))}")
    try:
        raw = json.loads(entry["raw"])
    except ValueError:
        raise refused("'raw' is not JSON") from None
    if not isinstance(raw, dict) or canonical_bytes(raw).decode() != entry["raw"]:
        raise refused("'raw' is not a tool in canonical JSON")
    tool = SurfaceTool(entry["server"], raw, path, line)
    if raw.get("name") != entry["name"]:
        raise refused(f"'name' is {entry['name']!r}, and the raw tool's {raw.get('name')!r}")
    if tool.digest != entry["digest"]:
        raise refused("'digest' is not the raw tool's")
    for key, value in _fields(tool).items():
        if entry[key] != value:
            raise refused(f"'{key}' is not the raw tool's")
    return tool
