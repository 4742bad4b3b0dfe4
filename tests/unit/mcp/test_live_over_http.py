"""The MCP pieces over HTTP, in process: a served recording, the reverse proxy in front of it logging what passed,
and the live client asking through both, as ``serve --http``, ``record-mcp --upstream`` and a live fallback do."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.conftest import ROOT
from toolreplay.analysis.classify import Policy
from toolreplay.core.canonical import JSONObject
from toolreplay.formats.mcp_log.log import LogWriter, read_log
from toolreplay.formats.recording import load_session
from toolreplay.mcp.client import LiveServer
from toolreplay.mcp.http.client import HttpChannel
from toolreplay.mcp.http.proxy import HttpProxy
from toolreplay.mcp.http.serve import HttpReplay
from toolreplay.mcp.http.urls import parse_upstream
from toolreplay.mcp.server import ReplayServer, session_server
from toolreplay.redact import Redactor
from toolreplay.settings import Unrecorded
from toolreplay.surface.live import live_surface

SESSION = ROOT / "samples" / "ops" / "session.json"


@contextmanager
def _serving(server: HttpReplay | HttpProxy) -> Iterator[str]:
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_the_live_client_asks_a_served_recording_through_the_logging_proxy(tmp_path: Path) -> None:
    session = load_session(str(SESSION))

    def fresh(number: int | None) -> ReplayServer:
        return session_server(session, Policy(), Unrecorded.ERROR, None)

    log = tmp_path / "run.mcp.jsonl"
    with _serving(HttpReplay(("127.0.0.1", 0), fresh)) as served:
        writer = LogWriter(log, Redactor.default(), "test")
        with _serving(HttpProxy(("127.0.0.1", 0), parse_upstream(served), writer)) as proxied:
            live = LiveServer(url=parse_upstream(proxied))
            try:
                listed = live.ask("tools/list", {})
                called = live.ask("tools/call", {"name": "disk_usage", "arguments": {"host": "build-04"}})
            finally:
                live.close()
            surface = live_surface([], proxied, "ops")
            channel = HttpChannel(parse_upstream(served), {})  # the channel alone, straight to the served recording
            request: JSONObject = {"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {}}
            pong = next(channel.exchange(request, time.monotonic() + 30))
            channel.close()
        writer.close()
    listing: Any = listed.response["result"]
    answer: Any = called.response["result"]
    tools = listing["tools"]
    assert (pong["id"], pong.get("result")) == (7, {})
    assert session.context is not None
    assert sorted(tool["name"] for tool in tools) == sorted(t.name for t in session.context.tools)
    assert answer["content"][0]["text"] == session.calls[0].result
    assert sorted(tool.name for tool in surface.tools) == sorted(tool["name"] for tool in tools)
    (run,) = read_log(log)
    events = [exchange.event for exchange in run.exchanges]
    assert events[:3] == ["initialize", "tools/list", "tools/call"]  # what passed, logged as it passed
    assert events.count("tools/list") == 2  # the live surface's own listing passed too
