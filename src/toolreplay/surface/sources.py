"""A tool surface read from any source, told apart by what it holds: a session (its servers' listings, else the tools
it was shown), a record-mcp log (each server's last listing and its instructions), a tools file, or a lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import InputError
from toolreplay.core.files import read_text
from toolreplay.core.model import Session
from toolreplay.formats.parsing.json_text import parse_json
from toolreplay.formats.parsing.node import Node
from toolreplay.surface.model import Instructions, Listed, Surface, SurfaceTool, listed_once, listings, named


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
    return Surface(path, listed_once(tools, path))


def read_log_surface(path: str) -> Surface:
    """A record-mcp log: each server's last listing, its instructions, and its last prompts and resources listed."""
    from toolreplay.formats.mcp_log.log import read_log  # noqa: PLC0415 - logs cost imports

    tools: list[SurfaceTool] = []
    instructions: list[Instructions] = []
    latest: dict[str, tuple[list[SurfaceTool], Instructions | None]] = {}
    listed_of: dict[str, tuple[Listed, ...]] = {}
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
        pages = [(x.event, x.request.get("params"), x.response.get("result"), x.line) for x in run.exchanges]
        listed_of[server] = listings(pages, server, path) or listed_of.get(server, ())
    for whole_listing, said in latest.values():
        tools += whole_listing
        instructions += [said] if said is not None else []
    return Surface(
        path, listed_once(tools, path), tuple(instructions), tuple(x for xs in listed_of.values() for x in xs)
    )


def read_session_surface(path: str) -> Surface:
    """A session: its servers' listings where it kept them, else the tools it was shown."""
    from toolreplay.formats.recording import load_session  # noqa: PLC0415

    return session_surface(load_session(path), path)


def session_surface(session: Session, path: str) -> Surface:
    """The surface of a session already read (``path``: its file)."""
    from toolreplay.formats.session.writer import tool_document  # noqa: PLC0415

    context = session.context
    if context is None:
        raise InputError("a transcript holds no tool definitions; give a session, a log or a tools file", path)
    tools: list[SurfaceTool] = []
    instructions: list[Instructions] = []
    listed: list[Listed] = []
    for server in context.servers:
        tools += [SurfaceTool(server.name, named(raw, path, 1), path, 1) for raw in server.listing()]
        instructions += _server_instructions(server.name, server.exchanges, path)
        listed += listings(_pages(server.exchanges), server.name, path)
    if not tools:
        tools = [SurfaceTool("", tool_document(tool), path, 1) for tool in context.tools]
    return Surface(path, listed_once(tools, path), tuple(instructions), tuple(listed))


def _pages(exchanges: Iterable[JSONObject]) -> Iterator[tuple[str, JSONValue, JSONValue, int]]:
    """Each recorded exchange as a listing's page: its method, params and result."""
    for exchange in exchanges:
        request, said = exchange.get("request"), exchange.get("response")
        if isinstance(request, dict) and isinstance(said, dict):
            yield str(request.get("method")), request.get("params"), said.get("result"), 1


def _server_instructions(server: str, exchanges: Iterable[JSONObject], path: str) -> Iterator[Instructions]:
    for exchange in exchanges:
        request, said = exchange.get("request"), exchange.get("response")
        if isinstance(request, dict) and request.get("method") == "initialize" and isinstance(said, dict):
            result = said.get("result")
            if isinstance(result, dict) and isinstance(result.get("instructions"), str):
                yield Instructions(server, str(result["instructions"]), path, 1)


def read_surface(path: str) -> Surface:
    """Any source, told apart by what it holds."""
    from toolreplay.formats.kinds import is_log_entry  # noqa: PLC0415
    from toolreplay.formats.parsing.jsonl import first_object  # noqa: PLC0415

    if Path(path).suffix == ".lock":
        from toolreplay.surface.lock import read_lock  # noqa: PLC0415 - only a lock

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
