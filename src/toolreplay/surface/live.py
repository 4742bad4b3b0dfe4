"""A tool surface asked of a server now (``tools diff|lint|pin --live``), as the recorded ones are read."""

from __future__ import annotations

from toolreplay.core.canonical import JSONValue
from toolreplay.core.errors import InputError
from toolreplay.mcp.client import LiveServer
from toolreplay.mcp.http.urls import parse_upstream, shown_url
from toolreplay.surface.model import (
    LISTED,
    Instructions,
    Listed,
    Surface,
    SurfaceTool,
    listed_items,
    listed_once,
    named,
)

_MAX_PAGES = 1_000  # a server whose listing never ends is refused, not followed forever


def live_surface(command: list[str], url: str | None = None, server: str = "") -> Surface:
    """Ask a server now: ``command`` over stdio, or ``url`` over Streamable HTTP; every page of its ``tools/list``
    and the instructions of its handshake, its tools named as ``server``'s; and its prompts, resources and
    resource templates, where its handshake says it has them."""
    where = shown_url(parse_upstream(url)) if url is not None else " ".join(command)
    live = LiveServer(command, url=parse_upstream(url) if url is not None else None)
    tools: list[SurfaceTool] = []
    try:
        cursor: JSONValue = None
        for _ in range(_MAX_PAGES):
            answer = live.ask("tools/list", {"cursor": cursor} if cursor else {})
            result = answer.response.get("result")
            if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
                said = answer.response.get("error")
                message = str(said.get("message")) if isinstance(said, dict) else "no tools/list result"
                message = message.removeprefix("toolreplay: the live server failed: ")
                raise InputError(f"the server did not list its tools: {message}", where)
            page = result["tools"]
            assert isinstance(page, list)
            tools += [SurfaceTool(server, named(raw, where, 1), where, 1) for raw in page]
            cursor = result.get("nextCursor")
            if not cursor:
                break
        else:
            raise InputError(f"the server's tools/list did not end in {_MAX_PAGES} pages", where)
        handshake = live.handshake or {}
        listed = _listed(live, handshake, server, where)
    finally:
        live.close()
    said = handshake.get("instructions")
    instructions = (Instructions(server, said, where, 1),) if isinstance(said, str) else ()
    return Surface(where, listed_once(tools, where), instructions, listed)


def _listed(live: LiveServer, handshake: JSONValue, server: str, where: str) -> tuple[Listed, ...]:
    """Every page of each listing the server's capabilities offer: a listing it answers with an error is read as
    holding nothing (a server may advertise what it cannot list), never as a failure of the surface's tools."""
    capabilities = handshake.get("capabilities") if isinstance(handshake, dict) else None
    offered = capabilities if isinstance(capabilities, dict) else {}
    found: list[Listed] = []
    for method, kind in LISTED.items():
        if kind.split("-")[0] + "s" not in offered:
            continue
        cursor: JSONValue = None
        for _ in range(_MAX_PAGES):
            result = live.ask(method, {"cursor": cursor} if cursor else {}).response.get("result")
            found += listed_items(kind, result, server, where, 1)
            cursor = result.get("nextCursor") if isinstance(result, dict) else None
            if not cursor:
                break
    return listed_once(found, where)
