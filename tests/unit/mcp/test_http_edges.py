"""What the HTTP pieces did before they were cut apart, held: a stream cut before its last blank line is no answer,
and serve --http routes a session by what Python's json reads, as it always has."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from toolreplay.core.canonical import JSONObject
from toolreplay.mcp.http.client import HttpChannel
from toolreplay.mcp.http.serve import _is_initialize, _opened_a_session
from toolreplay.mcp.http.urls import parse_upstream


class _Cut(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        body = b'event: message\ndata: {"jsonrpc": "2.0", "id": 1, "result": {}}'  # no blank line: cut
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return None


def test_an_event_the_stream_cut_off_is_never_read_as_the_answer() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Cut)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        channel = HttpChannel(parse_upstream(f"http://127.0.0.1:{server.server_address[1]}/mcp"), {})
        request: JSONObject = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}
        with pytest.raises(EOFError, match="event stream ended before the answer"):
            next(channel.exchange(request, time.monotonic() + 30))
    finally:
        server.shutdown()
        server.server_close()


def test_a_session_opens_on_what_json_reads() -> None:
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"x": NaN}}'
    assert _is_initialize(body)
    assert _opened_a_session(body, {"result": {}})
    assert not _opened_a_session(body, {"error": {"code": -1, "message": "no"}})
    assert not _is_initialize(b"not json")
