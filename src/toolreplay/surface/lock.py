"""``tools.lock``: a tool surface pinned for review, written by ``tools pin``.

JSON, indented, one entry per tool in server and name order: its server and name, the digest of the raw object
the server sent (SHA-256 of its canonical JSON), the readable fields a reviewer reads in a diff (title,
description, annotations and the input schema, as objects, a property a line), and the raw object itself as
canonical JSON text. Read back, every entry is checked: the digest must be the raw object's and every readable
field the one the raw object gives. A lock edited by hand (a description reworded, a digest pasted) is refused at
the entry's line, never trusted.

JSON rather than TOML: a schema is JSON already (TOML has no null, and its strings would escape every quote of
it), and a check reads the lock on every run, where JSON reads several times faster.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from toolreplay.core.canonical import JSONObject, canonical_bytes
from toolreplay.core.errors import InputError
from toolreplay.core.files import read_text
from toolreplay.core.records import record
from toolreplay.surface.model import Instructions, Surface, SurfaceTool, listed_once

FORMAT = "toolreplay-tools-lock"
VERSION = 1
_KEYS = frozenset({"server", "name", "digest", "title", "description", "annotations", "input_schema", "raw"})
_ENTRY_START = '    {\n      "annotations": '  # how the writer opens each entry: how the reader finds its line


def _fields(tool: SurfaceTool) -> JSONObject:
    """What a reviewer reads: the texts as they are, the annotations and the schema as objects."""
    return {
        "title": tool.title,
        "description": tool.description,
        "annotations": tool.annotations,
        "input_schema": tool.input_schema,
    }


def pinned(surfaces: Iterable[Surface]) -> tuple[dict[tuple[str, str], SurfaceTool], dict[str, Instructions]]:
    """Every tool and every server's instructions of ``surfaces``, each once: a tool two sources give alike is one
    tool; given otherwise, neither is chosen over the other, and the pin is refused."""
    tools: dict[tuple[str, str], SurfaceTool] = {}
    said: dict[str, Instructions] = {}
    for surface in surfaces:
        for tool in surface.tools:
            known = tools.get(tool.key)
            if known is not None and known.digest != tool.digest:
                where = f"server {tool.server!r}'s " if tool.server else ""
                raise InputError(
                    f"{where}tool '{tool.name}' is listed otherwise in {known.path}: pin one source of each server's "
                    "tools (or name the servers apart, record-mcp --name)",
                    tool.path,
                    tool.line,
                )
            tools[tool.key] = tool
        for item in surface.instructions:
            known_said = said.get(item.server)
            if known_said is not None and known_said.text != item.text:
                raise InputError(f"the server's instructions differ from those in {known_said.path}", item.path)
            said[item.server] = item
    return tools, said


def write_lock(surfaces: Iterable[Surface]) -> tuple[bytes, int]:
    """The lock's bytes for every tool and every server's instructions of ``surfaces``, and how many tools."""
    tools, said = pinned(surfaces)
    entries = [
        {"server": tool.server, "name": tool.name, "digest": tool.digest, **_fields(tool),
         "raw": canonical_bytes(tool.raw).decode()}
        for _, tool in sorted(tools.items())
    ]  # fmt: skip
    instructions = [{"server": server, "text": item.text} for server, item in sorted(said.items())]
    document = {"format": FORMAT, "version": VERSION, "tools": entries, "instructions": instructions}
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return text.encode("utf-8", "backslashreplace") if _has_surrogate(text) else text.encode("utf-8"), len(entries)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


@record
class Lock:
    """A lock as read, each tool with the line of its entry, and the servers' instructions."""

    path: str
    tools: tuple[SurfaceTool, ...]
    instructions: tuple[Instructions, ...] = ()

    def surface(self) -> Surface:
        return Surface(self.path, self.tools, self.instructions)


def read_lock(path: str) -> Lock:
    text = read_text(path)
    try:
        document = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(f"not a tools.lock: {exc}", path, line) from None
    except RecursionError:
        raise InputError("not a tools.lock: nested too deeply to read", path, 1) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT or document.get("version") != VERSION:
        raise InputError(f"not a tools.lock of version {VERSION} (regenerate it: toolreplay tools pin)", path, 1)
    entries, said = document.get("tools"), document.get("instructions")
    if set(document) != {"format", "version", "tools", "instructions"} or not isinstance(entries, list):
        raise InputError(
            "a tools.lock holds 'format', 'version', 'tools' and 'instructions' (regenerate it: toolreplay tools pin)",
            path,
            1,
        )
    lines = _entry_lines(text, len(entries))
    tools = listed_once((_entry(entry, path, line) for entry, line in zip(entries, lines, strict=True)), path)
    if not isinstance(said, list) or not all(
        isinstance(item, dict) and set(item) == {"server", "text"} and all(isinstance(v, str) for v in item.values())
        for item in said
    ):
        raise InputError("its 'instructions' are not the servers' and their texts (regenerate it)", path, 1)
    instructions = tuple(Instructions(item["server"], item["text"], path, 1) for item in said)
    if len({item.server for item in instructions}) != len(instructions):
        raise InputError("a server's instructions are given twice (regenerate it: toolreplay tools pin)", path, 1)
    return Lock(path, tools, instructions)


def _entry_lines(text: str, count: int) -> list[int]:
    """Each entry's first line, where the file is as the writer laid it out; else the file's first line."""
    lines: list[int] = []
    at = text.find(_ENTRY_START)
    while at != -1:
        lines.append(text.count("\n", 0, at) + 1)
        at = text.find(_ENTRY_START, at + 1)
    return lines if len(lines) == count else [1] * count


def _entry(entry: object, path: str, line: int) -> SurfaceTool:
    def refused(problem: str) -> InputError:
        return InputError(f"{problem}: the lock was edited by hand; regenerate it (toolreplay tools pin)", path, line)

    if not isinstance(entry, dict) or set(entry) != _KEYS:
        raise refused(f"an entry holds exactly {', '.join(sorted(_KEYS))}")
    raw_text = entry["raw"]
    try:
        raw = json.loads(raw_text) if isinstance(raw_text, str) else None
    except (ValueError, RecursionError):
        raw = None
    if not isinstance(raw, dict) or canonical_bytes(raw).decode() != raw_text:
        raise refused("'raw' is not a tool in canonical JSON")
    if not isinstance(entry["server"], str):
        raise refused("'server' is not a string")
    tool = SurfaceTool(entry["server"], raw, path, line)
    if raw.get("name") != entry["name"]:
        raise refused(f"'name' is {entry['name']!r}, and the raw tool's {raw.get('name')!r}")
    if tool.digest != entry["digest"]:
        raise refused("'digest' is not the raw tool's")
    for key, value in _fields(tool).items():
        if canonical_bytes(entry[key]) != canonical_bytes(value):
            raise refused(f"'{key}' is not the raw tool's")
    return tool
