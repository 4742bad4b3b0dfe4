"""A local stand-in for the Anthropic Messages API, for tests with the real SDK.

It listens on 127.0.0.1, answers ``POST /v1/messages`` with the responses a test
queued, in order, and keeps every request body so the test can check exactly
what the SDK sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def message(
    content: list[dict[str, Any]],
    stop_reason: str = "end_turn",
    model: str = "claude-test",
    cache_read: int = 0,
) -> dict[str, Any]:
    """A Messages API response body."""
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 7, "cache_read_input_tokens": cache_read},
    }


class FakeMessagesAPI:
    """Queued responses in, recorded requests out.

    ``respond``, when set, answers every request from its body instead of the
    queue, and ``latency`` delays every answer (seconds).
    """

    def __init__(self) -> None:
        self.respond: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        self.latency = 0.0
        # What the real API says on an error it expects a retry of (429, 5xx): when to try again. Short here, so
        # the SDK's own retries cost the suite milliseconds rather than its default backoff of seconds.
        self.retry_after_ms = 20
        self.in_flight = 0
        self.most_in_flight = 0
        self.responses: list[tuple[int, dict[str, Any] | bytes]] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.url = ""
        self._lock = threading.Lock()

    def queue(self, body: dict[str, Any] | bytes, status: int = 200) -> None:
        """Answer the next request with ``body``: JSON, or raw bytes sent as HTML (as a broken proxy might)."""
        self.responses.append((status, body))

    def _next(self, request: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any] | bytes]:
        with self._lock:
            self.requests.append(request)
            self.headers.append(headers)
            if self.respond is not None:
                return 200, self.respond(request)
            if not self.responses:
                return 500, {"type": "error", "error": {"type": "api_error", "message": "no response queued"}}
            return self.responses.pop(0)


@contextmanager
def serve() -> Iterator[FakeMessagesAPI]:
    api = FakeMessagesAPI()

    class Handler(BaseHTTPRequestHandler):
        # Buffer the response so headers and body leave in one write: two small
        # writes meet the client's delayed ACK and add tens of milliseconds.
        wbufsize = 1 << 16

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length))
            with api._lock:
                api.in_flight += 1
                api.most_in_flight = max(api.most_in_flight, api.in_flight)
            status, answer = api._next(body, {k.lower(): v for k, v in self.headers.items()})
            if api.latency:
                time.sleep(api.latency)
            with api._lock:
                api.in_flight -= 1
            data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("content-type", "text/html" if isinstance(answer, bytes) else "application/json")
            self.send_header("content-length", str(len(data)))
            if status == 429 or status >= 500:
                self.send_header("retry-after-ms", str(api.retry_after_ms))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
