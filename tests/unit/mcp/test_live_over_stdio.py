"""The live client over stdio: the real sample server started on the first request, asked as an MCP client."""

from __future__ import annotations

import sys
import time
from typing import Any

from tests.conftest import ROOT
from toolreplay.core.canonical import JSONObject
from toolreplay.mcp.client import LiveServer
from toolreplay.mcp.stdio.client import StdioChannel
from toolreplay.surface.live import live_surface

SERVER = [sys.executable, str(ROOT / "samples" / "mcp" / "server.py")]


def test_a_live_server_over_stdio_answers_its_listing_and_a_call() -> None:
    live = LiveServer(SERVER)
    try:
        listed = live.ask("tools/list", {})
        assert live.handshake is not None
        listing: Any = listed.response["result"]
        names = [tool["name"] for tool in listing["tools"]]
    finally:
        live.close()
    assert names
    surface = live_surface(SERVER, None, "ops")
    assert [tool.name for tool in surface.tools] == names
    assert {tool.server for tool in surface.tools} == {"ops"}


def test_the_channel_speaks_one_message_a_line() -> None:
    channel = StdioChannel(SERVER)
    try:
        info: JSONObject = {"name": "t", "version": "0"}
        params: JSONObject = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info}
        request: JSONObject = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
        answer = next(channel.exchange(request, deadline=time.monotonic() + 30))  # the caller stops at its answer
        assert answer["id"] == 1
        assert "result" in answer
    finally:
        channel.close()
