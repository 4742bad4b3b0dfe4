"""A local stand-in for the Anthropic Messages API, for tests with the real SDK.

It listens on 127.0.0.1, answers ``POST /v1/messages`` (and the beta path, and
Bedrock's ``/model/MODEL/invoke`` and Vertex's ``...:rawPredict``, which carry
the same Messages API body) with
the responses a test queued, in order, and keeps every request body so the test
can check exactly what the SDK sent. A request with ``"stream": true`` gets the
same message as server-sent events, cut into the events the Messages API
documents: ``message_start``, then per content block ``content_block_start``,
its deltas (``text_delta``, ``input_json_delta`` in pieces, ``thinking_delta``
and ``signature_delta``) and ``content_block_stop``, with ``ping``s between,
then ``message_delta`` (stop reason, output tokens) and ``message_stop``.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.conftest import Completed


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
        self.paths: list[str] = []  # each request's path: Bedrock's and Vertex's name the model there
        self.url = ""
        self._lock = threading.Lock()
        # Message Batches: each batch's results by id, and how many times it is still "in progress" when asked
        self.batches: dict[str, list[dict[str, Any]]] = {}
        self.batch_polls = 0  # the in-progress answers a new batch gives (its creation's first) before it has ended
        self._polls: dict[str, int] = {}
        self.cancelled: list[str] = []

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

    def create_batch(self, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """A batch's requests answered as single requests are (each counted in ``requests``), kept until asked."""
        results = []
        for item in body["requests"]:
            status, answer = self._next(item["params"], headers)
            if status == 200 and isinstance(answer, dict):
                results.append({"custom_id": item["custom_id"], "result": {"type": "succeeded", "message": answer}})
            else:
                error = answer if isinstance(answer, dict) else {"type": "error", "error": {"type": "api_error"}}
                results.append({"custom_id": item["custom_id"], "result": {"type": "errored", "error": error}})
        with self._lock:
            batch = f"msgbatch_{len(self.batches) + 1:04d}"
            self.batches[batch] = results
            self._polls[batch] = self.batch_polls
        return self.batch(batch, asked=False)

    def batch(self, batch: str, asked: bool = True) -> dict[str, Any]:
        """A batch as the API describes it: in progress for ``batch_polls`` looks, then ended with its results."""
        with self._lock:
            if asked:
                self._polls[batch] -= 1
            ended = self._polls[batch] <= 0 or batch in self.cancelled
        done = len(self.batches[batch])
        return {
            "id": batch,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": {
                "processing": 0 if ended else done, "succeeded": done if ended else 0, "errored": 0, "canceled": 0,
                "expired": 0,
            },
            "created_at": "2026-12-01T00:00:00Z",
            "expires_at": "2026-12-02T00:00:00Z",
            "ended_at": "2026-12-01T00:00:01Z" if ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{self.url}/v1/messages/batches/{batch}/results" if ended else None,
        }  # fmt: skip


def _pieces(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def stream_events(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A whole message as the stream of events the Messages API sends for it."""
    usage = dict(body.get("usage", {}))
    start = {**body, "content": [], "stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    events.append(("ping", {"type": "ping"}))
    for index, block in enumerate(body["content"]):
        kind = block["type"]
        deltas: list[dict[str, Any]] = []
        if kind == "text":
            first = {**block, "text": ""}
            first.pop("citations", None)
            deltas = [{"type": "text_delta", "text": piece} for piece in _pieces(block["text"])]
        elif kind in ("tool_use", "server_tool_use"):
            first = {**block, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(json.dumps(block["input"]))]
        elif kind == "thinking":
            first = {**block, "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": piece} for piece in _pieces(block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        else:  # redacted thinking, a server tool's result: whole in the start event
            first = block
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": first}))
        for delta in deltas:
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    delta = {"stop_reason": body["stop_reason"], "stop_sequence": body.get("stop_sequence")}
    final_usage = {"output_tokens": usage.get("output_tokens", 0)}
    events.append(("message_delta", {"type": "message_delta", "delta": delta, "usage": final_usage}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def api_vars(api: FakeMessagesAPI) -> dict[str, str]:
    """The variables the SDK reads to reach ``api`` instead of the real API: its base URL and a key."""
    return {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "sk-ant-test-0000000000000000000000"}


def api_env(api: FakeMessagesAPI, **extra: str) -> dict[str, str]:
    """The environment a program needs to talk to ``api`` (the SDK reads the base URL and the key from it)."""
    return dict(os.environ, **api_vars(api), **extra)


def run_toolreplay(api: FakeMessagesAPI, *args: str, cwd: Path) -> Completed:
    """``toolreplay ARGS`` in this process (tests/conftest.py's run_cli), its model requests going to ``api``."""
    from tests.conftest import run_cli  # noqa: PLC0415 - the fakes are loaded by conftest's own users

    return run_cli(*args, cwd=cwd, env=dict(api_vars(api)))


@contextmanager
def serve() -> Iterator[FakeMessagesAPI]:
    api = FakeMessagesAPI()

    class Handler(BaseHTTPRequestHandler):
        # Buffer the response so headers and body leave in one write: two small
        # writes meet the client's delayed ACK and add tens of milliseconds.
        wbufsize = 1 << 16

        def _json(self, status: int, data: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            parts = self.path.split("?")[0].strip("/").split("/")  # v1 messages batches ID [results]
            if parts[:3] != ["v1", "messages", "batches"] or len(parts) < 4 or parts[3] not in api.batches:
                self._json(404, b'{"type": "error", "error": {"type": "not_found_error", "message": "no such"}}')
            elif len(parts) == 5 and parts[4] == "results":
                lines = b"".join(json.dumps(line).encode() + b"\n" for line in api.batches[parts[3]])
                self._json(200, lines, "application/binary")
            else:
                self._json(200, json.dumps(api.batch(parts[3])).encode())

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            data = self.rfile.read(length)
            body = json.loads(data) if data else {}  # a batch's cancel has no body
            headers = {k.lower(): v for k, v in self.headers.items()}
            path = self.path.split("?")[0].rstrip("/")
            if path == "/v1/messages/batches":
                self._json(200, json.dumps(api.create_batch(body, headers)).encode())
                return
            if path.startswith("/v1/messages/batches/") and path.endswith("/cancel"):
                batch = path.split("/")[4]
                api.cancelled.append(batch)
                self._json(200, json.dumps(api.batch(batch, asked=False)).encode())
                return
            with api._lock:
                api.paths.append(path)
                api.in_flight += 1
                api.most_in_flight = max(api.most_in_flight, api.in_flight)
            status, answer = api._next(body, headers)
            if api.latency:
                time.sleep(api.latency)
            with api._lock:
                api.in_flight -= 1
            if body.get("stream") and status == 200 and isinstance(answer, dict):
                self._stream(answer)
                return
            data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("content-type", "text/html" if isinstance(answer, bytes) else "application/json")
            self.send_header("content-length", str(len(data)))
            if status == 429 or status >= 500:
                self.send_header("retry-after-ms", str(api.retry_after_ms))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, answer: dict[str, Any]) -> None:
            data = b"".join(
                f"event: {name}\ndata: {json.dumps(event)}\n\n".encode() for name, event in stream_events(answer)
            )
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    # shutdown() waits for the serving loop to look at its flag, once per poll interval: 0.5 s by default, paid by
    # every test at its end; 20 ms here.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
