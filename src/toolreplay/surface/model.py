"""A tool surface: every tool each server listed, as it listed it, the servers' instructions, and the prompts,
resources and resource templates they listed.

A tool is kept as the raw object it was sent as: its digest is of those bytes' canonical form, so a change to any
field, shown to a person or not, is a change of the surface. The sources a surface is read from (a log, a
session, a tools file, a lock) are :mod:`toolreplay.surface.sources`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Protocol, TypeVar

from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes
from toolreplay.core.errors import InputError
from toolreplay.core.records import record
from toolreplay.formats.parsing.node import describe


@record
class SurfaceTool:
    """One tool of one server, as the server sent it, and where the source holds it."""

    server: str  # "" where the source does not say (a tools file, a session without servers)
    raw: JSONObject
    path: str
    line: int

    @property
    def name(self) -> str:
        return str(self.raw["name"])

    @property
    def key(self) -> tuple[str, str]:
        return self.server, self.name

    @property
    def digest(self) -> str:
        from hashlib import sha256  # noqa: PLC0415

        return "sha256:" + sha256(canonical_bytes(self.raw)).hexdigest()

    @property
    def title(self) -> str:
        title = self.raw.get("title")
        annotations = self.annotations
        if not isinstance(title, str):
            title = annotations.get("title") if isinstance(annotations.get("title"), str) else ""
        return str(title)

    @property
    def description(self) -> str:
        text = self.raw.get("description")
        return text if isinstance(text, str) else ""

    @property
    def input_schema(self) -> JSONObject:
        schema = self.raw.get("inputSchema", self.raw.get("input_schema"))
        return schema if isinstance(schema, dict) else {}

    @property
    def output_schema(self) -> JSONObject | None:
        schema = self.raw.get("outputSchema")
        return schema if isinstance(schema, dict) else None

    @property
    def annotations(self) -> JSONObject:
        annotations = self.raw.get("annotations")
        return annotations if isinstance(annotations, dict) else {}

    @property
    def shown(self) -> str:
        return f"{self.server}/{self.name}" if self.server else self.name

    @property
    def called(self) -> str:
        """The tool as an error names it: ``fs tool 'read'``."""
        return f"{self.server} tool '{self.name}'" if self.server else f"tool '{self.name}'"


@record
class Instructions:
    """What a server told the client to tell the model, in its ``initialize`` result."""

    server: str
    text: str
    path: str
    line: int


LISTED = {"prompts/list": "prompt", "resources/list": "resource", "resources/templates/list": "resource-template"}
_ITEMS = {"prompt": "prompts", "resource": "resources", "resource-template": "resourceTemplates"}
_NAMED_BY = {"prompt": "name", "resource": "uri", "resource-template": "uriTemplate"}


@record
class Listed:
    """One prompt, resource or resource template a server listed (``kind``), as it sent it: texts a client shows
    the model beside the tools (their names, titles, descriptions and arguments' descriptions)."""

    server: str
    kind: str  # prompt, resource or resource-template
    raw: JSONObject
    path: str
    line: int

    @property
    def name(self) -> str:
        """What names it to a client: a prompt's name, a resource's URI, a template's URI template."""
        named = self.raw.get(_NAMED_BY[self.kind], self.raw.get("name"))
        return named if isinstance(named, str) else ""

    @property
    def key(self) -> tuple[str, str, str]:
        return self.server, self.kind, self.name

    @property
    def digest(self) -> str:
        from hashlib import sha256  # noqa: PLC0415

        return "sha256:" + sha256(canonical_bytes(self.raw)).hexdigest()

    @property
    def shown(self) -> str:
        return f"{self.kind} {self.server}/{self.name}" if self.server else f"{self.kind} {self.name}"

    @property
    def called(self) -> str:
        """The item as an error names it: ``fs prompt 'review'``."""
        return f"{self.server} {self.kind} '{self.name}'" if self.server else f"{self.kind} '{self.name}'"


def listed_items(kind: str, result: JSONValue, server: str, path: str, line: int) -> list[Listed]:
    """The items of one page of a ``prompts/list``, ``resources/list`` or ``resources/templates/list`` result,
    each held to MCP's shape: an object named by a non-empty string (a prompt's name, a resource's URI), since a
    lint or a pin that skipped a malformed item would never read the text it holds."""
    items = result.get(_ITEMS[kind]) if isinstance(result, dict) else None
    found: list[Listed] = []
    for raw in items if isinstance(items, list) else ():
        where = f"{server}: " if server else ""
        if not isinstance(raw, dict):
            raise InputError(f"{where}a listed {kind} must be an object, found {describe(raw)}", path, line)
        item = Listed(server, kind, raw, path, line)
        if not item.name:
            given = raw.get(_NAMED_BY[kind])
            shown = "none" if given is None else describe(given)
            raise InputError(
                f"{where}a {kind}'s {_NAMED_BY[kind]} must be a non-empty string, found {shown}", path, line
            )
        found.append(item)
    return found


def listings(pages: Iterable[tuple[str, JSONValue, JSONValue, int]], server: str, path: str) -> tuple[Listed, ...]:
    """Each kind's last listing of one server, pages joined, from its exchanges (method, params, result, line)."""
    latest: dict[str, list[Listed]] = {}
    reading: dict[str, list[Listed]] = {}
    for method, params, result, line in pages:
        kind = LISTED.get(method)
        if kind is None or not isinstance(result, dict):
            continue
        if not (isinstance(params, dict) and params.get("cursor")):
            reading[kind] = []
        reading[kind] = reading.get(kind, []) + listed_items(kind, result, server, path, line)
        if not result.get("nextCursor"):
            latest[kind] = reading[kind]
    return listed_once((item for items in latest.values() for item in items), path)


class _Keyed(Protocol):
    @property
    def key(self) -> Hashable: ...
    @property
    def line(self) -> int: ...
    @property
    def called(self) -> str: ...


K = TypeVar("K", bound=_Keyed)


@record
class Surface:
    """Every tool of every server of one source, the servers' instructions, and what else they listed."""

    source: str
    tools: tuple[SurfaceTool, ...]
    instructions: tuple[Instructions, ...] = ()
    listed: tuple[Listed, ...] = ()


def listed_once(items: Iterable[K], path: str) -> tuple[K, ...]:
    """The tools (or prompts, resources, templates) of a listing, each name once: a name listed twice is refused
    at its line, since a lint, a pin or a diff that kept one copy would never read the other's text."""
    seen: dict[Hashable, int] = {}
    kept: list[K] = []
    for item in items:
        if item.key in seen:
            raise InputError(f"{item.called} is listed twice (first at line {seen[item.key]})", path, item.line)
        seen[item.key] = item.line
        kept.append(item)
    return tuple(kept)


_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def named(raw: JSONValue, path: str, line: int) -> JSONObject:
    """A tool definition, held to MCP's shape: a diff or a lint of a tool misread would say nothing true."""
    if not isinstance(raw, dict):
        raise InputError(f"a tool must be an object, found {describe(raw)}", path, line)
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        found = "none" if name is None else describe(name)
        raise InputError(f"a tool's name must be a non-empty string, found {found}", path, line)

    def refused(what: str, expected: str, value: JSONValue) -> InputError:
        return InputError(f"tool '{name}': {what} must be {expected}, found {describe(value)}", path, line)

    if "inputSchema" in raw and "input_schema" in raw:
        raise InputError(f"tool '{name}' gives both inputSchema and input_schema: give one", path, line)
    for key in ("inputSchema", "input_schema", "outputSchema", "annotations"):
        if key in raw and not isinstance(raw[key], dict):
            raise refused(key, "an object", raw[key])
    for key in ("title", "description"):
        if raw.get(key) is not None and not isinstance(raw[key], str):
            raise refused(key, "a string", raw[key])
    annotations = raw.get("annotations")
    if isinstance(annotations, dict):
        for hint in _HINTS:
            if annotations.get(hint) is not None and not isinstance(annotations[hint], bool):
                raise refused(f"annotation '{hint}'", "true or false", annotations[hint])
        if annotations.get("title") is not None and not isinstance(annotations["title"], str):
            raise refused("annotation 'title'", "a string", annotations["title"])
    schema = raw.get("inputSchema", raw.get("input_schema"))
    if isinstance(schema, dict):
        if "properties" in schema and not isinstance(schema["properties"], dict):
            raise refused("the input schema's 'properties'", "an object", schema["properties"])
        required = schema.get("required")
        if required is not None and not (isinstance(required, list) and all(isinstance(r, str) for r in required)):
            raise refused("the input schema's 'required'", "an array of names", required)
        properties = schema.get("properties")
        for prop, inner in properties.items() if isinstance(properties, dict) else ():
            if isinstance(inner, dict) and "enum" in inner and not isinstance(inner["enum"], list):
                raise refused(f"argument '{prop}' 'enum'", "an array", inner["enum"])
    return raw
