"""A tool surface asked of a server now (``tools diff|lint|pin --live``), as the recorded ones are read."""

from __future__ import annotations

from toolreplay.core.canonical import JSONValue
from toolreplay.core.errors import InputError
from toolreplay.mcp.client import LiveServer
from toolreplay.mcp.http.urls import parse_upstream, shown_url
from toolreplay.surface.model import Instructions, Surface, SurfaceTool, listed_once, named

_MAX_PAGES = 1_000  # a server whose listing never ends is refused, not followed forever


def live_surface(command: list[str], url: str | None = None, server: str = "") -> Surface:
    """Ask a server now: ``command`` over stdio, or ``url`` over Streamable HTTP; every page of its ``tools/list``
    and the instructions of its handshake, its tools named as ``server``'s."""
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
    finally:
        live.close()
    said = handshake.get("instructions")
    instructions = (Instructions(server, said, where, 1),) if isinstance(said, str) else ()
    return Surface(where, listed_once(tools, where), instructions)
