"""A tool surface, read from what recorded it: every tool each server listed, as it listed it.

Four sources: a record-mcp log (each server's last ``tools/list``, pages joined, and the ``instructions`` of its
``initialize``), a session (the listings its servers' exchanges kept, else the tools it was shown), a tools file
(a JSON array of tool definitions, in the MCP shape ``inputSchema`` or the Messages API's ``input_schema``, or a
``tools/list`` result ``{"tools": [...]}``), and a lock (``tools pin``). A tool is kept as the raw object it was
sent as: its digest is of those bytes' canonical form, so a change to any field, shown to a person or not, is a
change of the surface.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes
from toolreplay.core.errors import InputError
from toolreplay.core.files import read_text
from toolreplay.core.model import Session
from toolreplay.core.records import record
from toolreplay.formats.located import Node, describe, parse_json


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


@record
class Instructions:
    """What a server told the client to tell the model, in its ``initialize`` result."""

    server: str
    text: str
    path: str
    line: int


@record
class Surface:
    """Every tool of every server of one source, and the servers' instructions."""

    source: str
    tools: tuple[SurfaceTool, ...]
    instructions: tuple[Instructions, ...] = ()


def checked(tools: Iterable[SurfaceTool], path: str) -> tuple[SurfaceTool, ...]:
    seen: dict[tuple[str, str], int] = {}
    kept: list[SurfaceTool] = []
    for tool in tools:
        if tool.key in seen:
            where = f"{tool.server} " if tool.server else ""
            raise InputError(
                f"{where}tool '{tool.name}' is listed twice (first at line {seen[tool.key]})", path, tool.line
            )
        seen[tool.key] = tool.line
        kept.append(tool)
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


def read_tools_file(path: str) -> Surface:
    """A tools file: a JSON array of tool definitions, or a ``tools/list`` result."""
    root = parse_json(read_text(path), path)
    node: Node = root
    if isinstance(root.value, dict):
        result = root.object().only(("tools", "nextCursor", "_meta"), "a tools/list result").require("tools")
        if result.value.get("nextCursor"):
            raise InputError("a page of a listing (it has a nextCursor): give the tools of every page", path, root.line)
        node = result.member("tools")
    items = list(node.array().elements())
    tools = (SurfaceTool("", named(item.value, path, item.line), path, item.line) for item in items)
    return Surface(path, checked(tools, path))


def read_log_surface(path: str) -> Surface:
    """A record-mcp log: each server's last listing, and its instructions."""
    from toolreplay.formats.mcp_log import read_log  # noqa: PLC0415 - logs cost imports

    tools: list[SurfaceTool] = []
    instructions: list[Instructions] = []
    latest: dict[str, tuple[list[SurfaceTool], Instructions | None]] = {}
    for run in read_log(path):
        server = run.name or ""
        listed: list[SurfaceTool] = []  # the listing being read, page by page
        whole: list[SurfaceTool] | None = None  # the last listing read to its last page
        said: Instructions | None = None
        for exchange in run.exchanges:
            result = exchange.response.get("result")
            if (
                exchange.event == "initialize"
                and isinstance(result, dict)
                and isinstance(result.get("instructions"), str)
            ):
                said = Instructions(server, str(result["instructions"]), path, exchange.line)
            page = result.get("tools") if isinstance(result, dict) else None
            if exchange.event != "tools/list" or not isinstance(page, list):
                continue
            params = exchange.request.get("params")
            if not (isinstance(params, dict) and params.get("cursor")):
                listed = []
            listed += [SurfaceTool(server, named(raw, path, exchange.line), path, exchange.line) for raw in page]
            if not (isinstance(result, dict) and result.get("nextCursor")):
                whole = listed  # a listing counts once its last page is read: a first page alone says too little
        if whole is None and listed:
            shown = f"server {server}'s" if server else "its"
            raise InputError(f"{shown} tools/list was never read to its last page (nextCursor not followed)", path)
        if whole is not None or said is not None:
            latest[server] = (whole or [], said)  # a later run of the same server says what it lists now
    for listed, said in latest.values():
        tools += listed
        instructions += [said] if said is not None else []
    return Surface(path, checked(tools, path), tuple(instructions))


def read_session_surface(path: str) -> Surface:
    """A session: its servers' listings where it kept them, else the tools it was shown."""
    from toolreplay.formats.recording import load_session  # noqa: PLC0415

    return session_surface(load_session(path), path)


def session_surface(session: Session, path: str) -> Surface:
    """The surface of a session already read (``path``: its file)."""
    from toolreplay.formats.session import tool_document  # noqa: PLC0415

    context = session.context
    if context is None:
        raise InputError("a transcript holds no tool definitions; give a session, a log or a tools file", path)
    tools: list[SurfaceTool] = []
    instructions: list[Instructions] = []
    for server in context.servers:
        tools += [SurfaceTool(server.name, named(raw, path, 1), path, 1) for raw in server.listing()]
        instructions += _server_instructions(server.name, server.exchanges, path)
    if not tools:
        tools = [SurfaceTool("", tool_document(tool), path, 1) for tool in context.tools]
    return Surface(path, checked(tools, path), tuple(instructions))


def _server_instructions(server: str, exchanges: Iterable[JSONObject], path: str) -> Iterator[Instructions]:
    for exchange in exchanges:
        request, said = exchange.get("request"), exchange.get("response")
        if isinstance(request, dict) and request.get("method") == "initialize" and isinstance(said, dict):
            result = said.get("result")
            if isinstance(result, dict) and isinstance(result.get("instructions"), str):
                yield Instructions(server, str(result["instructions"]), path, 1)


def read_surface(path: str) -> Surface:
    """Any source, told apart by what it holds."""
    from toolreplay.formats.jsonl import first_object  # noqa: PLC0415
    from toolreplay.formats.mcp_log import is_log_entry  # noqa: PLC0415

    if Path(path).suffix == ".lock":
        from toolreplay.surface.lock import read_lock  # noqa: PLC0415

        return read_lock(path).surface()
    found = first_object(path)
    if found is not None and found[1] is not None and is_log_entry(found[1]):
        return read_log_surface(path)
    head = read_text(path).lstrip()[:1]
    if head == "[":
        return read_tools_file(path)
    if head == "{":
        text = read_text(path)
        if '"toolreplay-session"' in text[:4096]:
            return read_session_surface(path)
        return read_tools_file(path)
    raise InputError("not a tool surface: give a session, a record-mcp log, a tools file or a tools.lock", path)
