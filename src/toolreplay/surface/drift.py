"""How a tool surface changed between two sources: each change by kind, at a level set by its effect.

Tools are matched by server and name; a tool removed and one added with the same input schema (and the same
server) are one tool renamed. Per tool the kinds are compared field by field. The levels follow what a change
does to recorded calls and to how toolreplay reads them: a tool removed, or a new required argument, breaks the
recorded calls (error); annotations that make a call read as *less* dangerous (a destructive tool no longer so,
read-only newly claimed) reclassify recorded calls (error); a description or an argument's type changes what the
model is told (warning); the rest is a note. A config may give any kind another level.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator

from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes
from toolreplay.core.findings import Level
from toolreplay.core.model import ToolDef
from toolreplay.core.records import record
from toolreplay.surface.model import Surface, SurfaceTool


class DriftKind(enum.Enum):
    """A kind of change to a tool; definition order is report order."""

    REMOVED = "tool-removed"
    ANNOTATION_WEAKENED = "annotation-weakened"
    ARGUMENT_REQUIRED = "argument-required"
    RENAMED = "tool-renamed"
    DESCRIPTION_CHANGED = "description-changed"
    ARGUMENT_REMOVED = "argument-removed"
    ARGUMENT_TYPE_CHANGED = "argument-type-changed"
    ENUM_NARROWED = "enum-narrowed"
    ADDED = "tool-added"
    TITLE_CHANGED = "title-changed"
    ANNOTATION_CHANGED = "annotation-changed"
    ARGUMENT_ADDED = "argument-added"
    ENUM_WIDENED = "enum-widened"
    SCHEMA_CHANGED = "schema-changed"
    OUTPUT_SCHEMA_CHANGED = "output-schema-changed"
    INSTRUCTIONS_CHANGED = "instructions-changed"
    LISTING_CHANGED = "listing-changed"  # a prompt, resource or template added, removed or changed


LEVELS: dict[DriftKind, Level] = {
    DriftKind.REMOVED: Level.ERROR,
    DriftKind.ANNOTATION_WEAKENED: Level.ERROR,
    DriftKind.ARGUMENT_REQUIRED: Level.ERROR,
    DriftKind.RENAMED: Level.WARNING,
    DriftKind.DESCRIPTION_CHANGED: Level.WARNING,
    DriftKind.ARGUMENT_REMOVED: Level.WARNING,
    DriftKind.ARGUMENT_TYPE_CHANGED: Level.WARNING,
    DriftKind.ENUM_NARROWED: Level.WARNING,
    DriftKind.INSTRUCTIONS_CHANGED: Level.WARNING,
    DriftKind.LISTING_CHANGED: Level.WARNING,
    DriftKind.ADDED: Level.NOTE,
    DriftKind.TITLE_CHANGED: Level.NOTE,
    DriftKind.ANNOTATION_CHANGED: Level.NOTE,
    DriftKind.ARGUMENT_ADDED: Level.NOTE,
    DriftKind.ENUM_WIDENED: Level.NOTE,
    DriftKind.SCHEMA_CHANGED: Level.NOTE,
    DriftKind.OUTPUT_SCHEMA_CHANGED: Level.NOTE,
}


@record
class Drift:
    """One change: its kind, the tool (as the new source names it, or the old where it is gone), in words, and
    where the new source holds it (the old one's place for a removal)."""

    kind: DriftKind
    tool: str
    detail: str
    path: str
    line: int

    @property
    def level(self) -> Level:
        return LEVELS[self.kind]


def destructive(tool: SurfaceTool) -> bool:
    """Whether a client reading the annotations as MCP defines them takes the tool for destructive: not read-only,
    and ``destructiveHint`` not false (its default is true)."""
    notes = tool.annotations
    return notes.get("readOnlyHint") is not True and notes.get("destructiveHint") is not False


_WORD_PAIRS = 4_000_000  # words of one text times words of the other, at most, for a word diff


# MCP's defaults for the hints a client reads when a server leaves them out.
_DEFAULTS: dict[str, JSONValue] = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


def _effective(notes: JSONObject, key: str) -> JSONValue:
    """What a client takes an annotation to say: its value, or MCP's default where it is absent."""
    return notes[key] if key in notes else _DEFAULTS.get(key)


def _hint(notes: JSONObject, key: str) -> str:
    """An annotation's value in words: absent ones read as MCP's defaults."""
    if key not in notes:
        return f"absent (MCP's default: {_json(_DEFAULTS[key])})" if key in _DEFAULTS else "absent"
    return _json(notes[key])


def _json(value: JSONValue, limit: int = 80) -> str:
    """A value as JSON, cut to ``limit`` characters."""
    text = canonical_bytes(value).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _words(old: str, new: str, limit: int = 12) -> str:
    """A word diff, its changes only: ``-removed +added``, at most ``limit`` of them."""
    import difflib  # noqa: PLC0415 - only a changed description needs it

    a, b = old.split(), new.split()
    if len(a) * len(b) > _WORD_PAIRS:  # a word diff's time grows with the product: past this, counts only
        return f"{len(a):,} words to {len(b):,} (too long to compare word by word)"
    parts: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag in ("delete", "replace"):
            parts.append("-" + " ".join(a[i1:i2]))
        if tag in ("insert", "replace"):
            parts.append("+" + " ".join(b[j1:j2]))
    shown = parts[:limit] + ([f"(and {len(parts) - limit} more)"] if len(parts) > limit else [])
    return " ".join(shown) or "whitespace only"


def _properties(schema: JSONObject) -> dict[str, JSONValue]:
    properties = schema.get("properties")
    return dict(properties) if isinstance(properties, dict) else {}


def _required(schema: JSONObject) -> set[str]:
    required = schema.get("required")
    return {name for name in required if isinstance(name, str)} if isinstance(required, list) else set()


def _type(schema: JSONValue) -> str:
    if not isinstance(schema, dict):
        return "any"
    kind = schema.get("type")
    return canonical_bytes(kind).decode() if kind is not None else "any"


def _schema_changes(old: SurfaceTool, new: SurfaceTool) -> list[tuple[DriftKind, str]]:
    before, after = old.input_schema, new.input_schema
    was, now = _properties(before), _properties(after)
    found = [
        (DriftKind.ARGUMENT_REQUIRED, f"'{name}' is required now: every recorded call without it breaks")
        for name in sorted(_required(after) - _required(before))
    ]
    found += [(DriftKind.ARGUMENT_REMOVED, f"'{name}' is gone") for name in sorted(was.keys() - now.keys())]
    found += [
        (DriftKind.ARGUMENT_ADDED, f"'{name}' (optional)")
        for name in sorted(now.keys() - was.keys() - _required(after))
    ]
    for name in sorted(was.keys() & now.keys()):
        a, b = was[name], now[name]
        if _type(a) != _type(b):
            found.append((DriftKind.ARGUMENT_TYPE_CHANGED, f"'{name}': {_type(a)} to {_type(b)}"))
        found += _enum_change(name, a, b)
    said = [] if canonical_bytes(before) == canonical_bytes(after) else _keywords(before, after, "", top=True)
    if said:
        found.append((DriftKind.SCHEMA_CHANGED, _said_keywords(said)))
    return found


_SHOWN_KEYWORDS = 8  # keyword changes said of one schema, at most


def _said_keywords(changes: list[tuple[str, str]]) -> str:
    """The keyword changes of a schema in words; one where only titles changed (a generator renaming its types)
    says so."""
    shown = [said for _, said in changes[:_SHOWN_KEYWORDS]]
    more = f"; and {len(changes) - _SHOWN_KEYWORDS} more" if len(changes) > _SHOWN_KEYWORDS else ""
    only = "the schema's titles only, nothing a call passes: " if all(k == "title" for k, _ in changes) else ""
    return only + "; ".join(shown) + more


def _keywords(
    before: JSONValue, after: JSONValue, where: str, top: bool = False, argument: bool = False
) -> list[tuple[str, str]]:
    """Every keyword whose value differs between two schemas, as (keyword, words), leaving out what the argument
    kinds already say: a top-level argument (``argument``) added, removed or newly required, its type and enum."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return [("", f"{where or 'the schema'}: {_json(before)} to {_json(after)}")]
    found: list[tuple[str, str]] = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        same = key in before and key in after and canonical_bytes(old) == canonical_bytes(new)
        if same or (argument and key in ("type", "enum")):
            continue
        if key == "properties" and isinstance(old, dict) and isinstance(new, dict):
            for name in sorted(old.keys() | new.keys()):
                place = f"{where}'{name}'"
                if name not in old or name not in new:
                    if not top:
                        found.append(("properties", f"{place} {'added' if name in new else 'gone'}"))
                    continue
                found += _keywords(old[name], new[name], place + ".", argument=top)
            continue
        if key == "required" and top:
            unrequired = sorted((_required(before) - _required(after)) & _properties(after).keys())
            found += [("required", f"'{name}' is no longer required") for name in unrequired]
            continue
        was = _json(old) if key in before else "absent"
        found.append((key, f"{where}{key}: {was} to {_json(new) if key in after else 'absent'}"))
    return found


def _enum_change(name: str, a: JSONValue, b: JSONValue) -> list[tuple[DriftKind, str]]:
    old_enum = a.get("enum") if isinstance(a, dict) else None
    new_enum = b.get("enum") if isinstance(b, dict) else None
    left = {canonical_bytes(v).decode() for v in old_enum} if isinstance(old_enum, list) else None
    right = {canonical_bytes(v).decode() for v in new_enum} if isinstance(new_enum, list) else None
    if left == right:
        return []
    if right is not None and (left is None or not left <= right):
        gone = sorted((left or set()) - right)
        return [
            (DriftKind.ENUM_NARROWED, f"'{name}' allows fewer values" + (f": {', '.join(gone)} gone" if gone else ""))
        ]
    added = sorted((right or set()) - (left or set()))
    return [(DriftKind.ENUM_WIDENED, f"'{name}' allows more values" + (f": {', '.join(added)}" if added else ""))]


def tool_changes(old: SurfaceTool, new: SurfaceTool) -> Iterator[tuple[DriftKind, str]]:
    """Every change from ``old`` to ``new`` of one tool, by kind."""
    if old.description != new.description:
        yield DriftKind.DESCRIPTION_CHANGED, _words(old.description, new.description)
    if old.title != new.title:
        yield DriftKind.TITLE_CHANGED, f"{canonical_bytes(old.title).decode()} to {canonical_bytes(new.title).decode()}"
    changed = sorted(  # what a client reads differently: a hint spelled out as its default is no change
        key
        for key in old.annotations.keys() | new.annotations.keys()
        if canonical_bytes(_effective(old.annotations, key)) != canonical_bytes(_effective(new.annotations, key))
    )
    if changed:
        said = ", ".join(f"{key} {_hint(old.annotations, key)} to {_hint(new.annotations, key)}" for key in changed)
        weakened = (destructive(old) and not destructive(new)) or (
            old.annotations.get("readOnlyHint") is not True and new.annotations.get("readOnlyHint") is True
        )
        if weakened:
            yield (
                DriftKind.ANNOTATION_WEAKENED,
                f"reads as less dangerous now ({said}); a replay still takes the more dangerous reading",
            )
        else:
            yield DriftKind.ANNOTATION_CHANGED, said
    yield from _schema_changes(old, new)
    if canonical_bytes(old.output_schema) != canonical_bytes(new.output_schema):
        yield DriftKind.OUTPUT_SCHEMA_CHANGED, "the output schema changed"


def diff_surfaces(old: Surface, new: Surface) -> list[Drift]:
    """Every change from ``old`` to ``new``, in report order (kind, then tool)."""
    before = {tool.key: tool for tool in old.tools}
    after = {tool.key: tool for tool in new.tools}
    gone = [before[key] for key in before if key not in after]
    came = [after[key] for key in after if key not in before]
    found: list[Drift] = []
    for tool in list(gone):
        twin = next(
            (
                candidate
                for candidate in came
                if candidate.server == tool.server
                and canonical_bytes(candidate.input_schema) == canonical_bytes(tool.input_schema)
            ),
            None,
        )
        if twin is not None:
            gone.remove(tool)
            came.remove(twin)
            found.append(Drift(DriftKind.RENAMED, twin.shown, f"was '{tool.name}'", twin.path, twin.line))
            found += [Drift(kind, twin.shown, said, twin.path, twin.line) for kind, said in tool_changes(tool, twin)]
    found += [Drift(DriftKind.REMOVED, tool.shown, "no longer listed", tool.path, tool.line) for tool in gone]
    found += [Drift(DriftKind.ADDED, tool.shown, "newly listed", tool.path, tool.line) for tool in came]
    for key, tool in after.items():
        if key in before:
            found += [
                Drift(kind, tool.shown, said, tool.path, tool.line) for kind, said in tool_changes(before[key], tool)
            ]
    old_said = {item.server: item for item in old.instructions}
    for item in new.instructions:
        if item.server in old_said and old_said[item.server].text != item.text:
            words = _words(old_said[item.server].text, item.text)
            found.append(Drift(DriftKind.INSTRUCTIONS_CHANGED, item.server or "(server)", words, item.path, item.line))
    found += _listing_changes(old, new)
    order = list(DriftKind)
    return sorted(found, key=lambda drift: (order.index(drift.kind), drift.tool))


def _listing_changes(old: Surface, new: Surface) -> Iterator[Drift]:
    """Each prompt, resource or template added, removed or changed, of a server and kind both sources listed: a
    source that never asked a server for its prompts says nothing of them."""
    both = {(item.server, item.kind) for item in old.listed} & {(item.server, item.kind) for item in new.listed}
    before = {item.key: item for item in old.listed if (item.server, item.kind) in both}
    after = {item.key: item for item in new.listed if (item.server, item.kind) in both}
    for key, item in after.items():
        was = before.get(key)
        if was is None:
            yield Drift(DriftKind.LISTING_CHANGED, item.shown, "newly listed", item.path, item.line)
        elif was.digest != item.digest:
            said = _words(str(was.raw.get("description", "")), str(item.raw.get("description", "")))
            changed = said if was.raw.get("description") != item.raw.get("description") else "its definition changed"
            yield Drift(DriftKind.LISTING_CHANGED, item.shown, changed, item.path, item.line)
    for key, item in before.items():
        if key not in after:
            yield Drift(DriftKind.LISTING_CHANGED, item.shown, "no longer listed", item.path, item.line)


def tools_given(recorded: Iterable[ToolDef], given: Iterable[ToolDef], source: str) -> list[Drift]:
    """How the tools a replay was given (``source``, its ``--tools`` file) differ from those the session recorded."""
    from toolreplay.formats.session.writer import tool_document  # noqa: PLC0415

    def surface(tools: Iterable[ToolDef]) -> Surface:
        return Surface(source, tuple(SurfaceTool("", tool_document(tool), source, 1) for tool in tools))

    return diff_surfaces(surface(recorded), surface(given))


def explained(changes: Iterable[Drift], involved: Iterable[str]) -> list[str]:
    """A replay's words for the tools' changes, errors and warnings first, each said to concern a behaviour the
    replay found where the behaviour's tool is the changed one (a deletion after ``destructiveHint`` was dropped)."""
    touched = set(involved)
    shown = [change for change in changes if change.level is not Level.NOTE] + [
        change for change in changes if change.level is Level.NOTE
    ]
    return [
        f"  {change.level.value:<8} {change.kind.value} {change.tool}: {change.detail}"
        + (" (a behaviour above calls it)" if change.tool in touched else "")
        for change in shown
    ]
