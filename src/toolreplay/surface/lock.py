"""``tools.lock``: a tool surface pinned for review, written by ``tools pin``.

JSON, indented, one entry per tool in server and name order: its server and name, the digest of the raw object
the server sent (SHA-256 of its canonical JSON), the readable fields a reviewer reads in a diff (title,
description, annotations and the input schema, as objects, a property a line), and the raw object itself as
canonical JSON text. Read back, every entry is checked: the digest must be the raw object's and every readable
field the one the raw object gives. A lock edited by hand (a description reworded, a digest pasted) is refused at
the entry's line, never trusted.

A server's prompts, resources and resource templates are pinned beside its tools (``listed``: kind, server, name,
digest and raw, checked as a tool's are), and ``tools pin --judge`` keeps the judge's verdicts (``verdicts``, by
the digest :mod:`toolreplay.surface.judge` keys them by). A lock holding neither is written as version 1, as it
always was; one holding either is version 2, and both are read.

JSON rather than TOML: a schema is JSON already (TOML has no null, and its strings would escape every quote of
it), and a check reads the lock on every run, where JSON reads several times faster.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from toolreplay.core.canonical import JSONObject, canonical_bytes
from toolreplay.core.errors import InputError
from toolreplay.core.files import read_text
from toolreplay.core.records import record
from toolreplay.surface.model import LISTED, Instructions, Listed, Surface, SurfaceTool, listed_once

if TYPE_CHECKING:
    from toolreplay.surface.judge import JudgeVerdict

FORMAT = "toolreplay-tools-lock"
VERSION = 2  # the newest; version 1 is a lock of tools and instructions alone
_KEYS = frozenset({"server", "name", "digest", "title", "description", "annotations", "input_schema", "raw"})
_LISTED_KEYS = frozenset({"server", "kind", "name", "digest", "raw"})
_TOP = {1: {"format", "version", "tools", "instructions"}, 2: {"format", "version", "tools", "instructions", "listed",
                                                               "verdicts"}}  # fmt: skip
_ENTRY_START = '    {\n      "annotations": '  # how the writer opens each entry: how the reader finds its line


def _fields(tool: SurfaceTool) -> JSONObject:
    """What a reviewer reads: the texts as they are, the annotations and the schema as objects."""
    return {
        "title": tool.title,
        "description": tool.description,
        "annotations": tool.annotations,
        "input_schema": tool.input_schema,
    }


@record
class Pinned:
    """What a lock pins: each tool, each server's instructions and each listed item, once."""

    tools: dict[tuple[str, str], SurfaceTool]
    instructions: dict[str, Instructions]
    listed: dict[tuple[str, str, str], Listed]


def pinned(surfaces: Iterable[Surface]) -> Pinned:
    """Every tool, every server's instructions and every listed item of ``surfaces``, each once: a tool two sources
    give alike is one tool; given otherwise, neither is chosen over the other, and the pin is refused."""
    tools: dict[tuple[str, str], SurfaceTool] = {}
    said: dict[str, Instructions] = {}
    listed: dict[tuple[str, str, str], Listed] = {}
    for surface in surfaces:
        for entry in surface.listed:
            known_entry = listed.get(entry.key)
            if known_entry is not None and known_entry.digest != entry.digest:
                raise InputError(f"{entry.shown} is listed otherwise in {known_entry.path}", entry.path, entry.line)
            listed[entry.key] = entry
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
    return Pinned(tools, said, listed)


def write_lock(surfaces: Iterable[Surface], verdicts: Mapping[str, JudgeVerdict] | None = None) -> tuple[bytes, int]:
    """The lock's bytes for every tool, every server's instructions and every listed item of ``surfaces``, with
    the judge's ``verdicts`` (by their digests), and how many tools."""
    held = pinned(surfaces)
    tools, said = held.tools, held.instructions
    entries = [
        {"server": tool.server, "name": tool.name, "digest": tool.digest, **_fields(tool),
         "raw": canonical_bytes(tool.raw).decode()}
        for _, tool in sorted(tools.items())
    ]  # fmt: skip
    instructions = [{"server": server, "text": item.text} for server, item in sorted(said.items())]
    listed = [
        {"server": item.server, "kind": item.kind, "name": item.name, "digest": item.digest,
         "raw": canonical_bytes(item.raw).decode()}
        for _, item in sorted(held.listed.items())
    ]  # fmt: skip
    document: dict[str, object] = {"format": FORMAT, "version": 1, "tools": entries, "instructions": instructions}
    if listed or verdicts:
        judged = {key: {"verdict": v.verdict, "reason": v.reason} for key, v in sorted((verdicts or {}).items())}
        document.update({"version": VERSION, "listed": listed, "verdicts": judged})
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
    """A lock as read, each tool with the line of its entry, the servers' instructions, each listed item, and the
    judge's verdicts kept in it."""

    path: str
    tools: tuple[SurfaceTool, ...]
    instructions: tuple[Instructions, ...] = ()
    listed: tuple[Listed, ...] = ()
    verdicts: Mapping[str, JudgeVerdict] | None = None

    def surface(self) -> Surface:
        return Surface(self.path, self.tools, self.instructions, self.listed)


def read_lock(path: str) -> Lock:
    from toolreplay.formats.parsing.jsonl import unique_keys  # noqa: PLC0415

    text = read_text(path)
    try:
        document = json.loads(text, object_pairs_hook=unique_keys)  # a key twice: which copy was meant is unknown
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(f"not a tools.lock: {exc}", path, line) from None
    except RecursionError:
        raise InputError("not a tools.lock: nested too deeply to read", path, 1) from None
    version = document.get("version") if isinstance(document, dict) else None
    if (
        not isinstance(document, dict)
        or document.get("format") != FORMAT
        or not isinstance(version, int)
        or isinstance(version, bool)
        or version not in _TOP
    ):
        raise InputError(f"not a tools.lock of version 1 or {VERSION} (regenerate it: toolreplay tools pin)", path, 1)
    entries, said = document.get("tools"), document.get("instructions")
    if set(document) != _TOP[version] or not isinstance(entries, list):
        held = ", ".join(f"'{key}'" for key in sorted(_TOP[version]))
        raise InputError(
            f"a tools.lock of version {version} holds {held} (regenerate it: toolreplay tools pin)", path, 1
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
    if version == 1:
        return Lock(path, tools, instructions)
    return Lock(path, tools, instructions, _listed(document["listed"], path), _verdicts(document["verdicts"], path))


def _listed(entries: object, path: str) -> tuple[Listed, ...]:
    """The lock's listed items, each checked as a tool is: its digest the raw object's, its name and kind its own."""

    def refused(problem: str) -> InputError:
        return InputError(f"{problem}: the lock was edited by hand; regenerate it (toolreplay tools pin)", path, 1)

    if not isinstance(entries, list):
        raise refused("'listed' is not a list")
    items: dict[tuple[str, str, str], Listed] = {}
    for entry in entries:
        if not isinstance(entry, dict) or set(entry) != _LISTED_KEYS:
            raise refused(f"a listed item holds exactly {', '.join(sorted(_LISTED_KEYS))}")
        server, kind = entry["server"], entry["kind"]
        raw = _canonical_object(entry["raw"])
        if raw is None:
            raise refused("a listed item's 'raw' is not an object in canonical JSON")
        if not isinstance(server, str) or kind not in LISTED.values():
            raise refused(f"a listed item's kind is one of {', '.join(LISTED.values())}, and its server a string")
        item = Listed(server, kind, raw, path, 1)
        if item.name != entry["name"] or item.digest != entry["digest"] or item.key in items:
            raise refused(f"{item.shown}: its name or digest is not its raw object's, or it is given twice")
        items[item.key] = item
    return tuple(items.values())


def _canonical_object(text: object) -> JSONObject | None:
    """The object a lock's ``raw`` text holds, where the text is that object's canonical JSON; else None."""
    try:
        raw = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return None
    return raw if isinstance(raw, dict) and canonical_bytes(raw).decode() == text else None


_DIGEST = re.compile(r"[0-9a-f]{64}")  # a verdict's key: the SHA-256 of the model, the rubric's version and the text


def _verdicts(entries: object, path: str) -> dict[str, JudgeVerdict]:
    """The judge's verdicts the lock keeps, by digest: each safe or suspect, with its reason."""
    from toolreplay.surface.judge import JudgeVerdict  # noqa: PLC0415

    found: dict[str, JudgeVerdict] = {}
    for key, entry in entries.items() if isinstance(entries, dict) else [(None, None)]:
        if not (
            isinstance(key, str)
            and _DIGEST.fullmatch(key)
            and isinstance(entry, dict)
            and set(entry) == {"verdict", "reason"}
            and entry["verdict"] in ("safe", "suspect")
            and isinstance(entry["reason"], str)
        ):
            raise InputError(
                "its 'verdicts' are not the judge's, by digest (regenerate it: tools pin --judge)", path, 1
            )
        found[key] = JudgeVerdict(entry["verdict"], entry["reason"])
    return found


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
    raw = _canonical_object(entry["raw"])
    if raw is None:
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
