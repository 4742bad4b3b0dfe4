"""A local stand-in for OpenAI's API, for tests with the real ``openai`` SDK: Chat Completions and the Responses
API (streamed and not), files and batches.

It listens on 127.0.0.1 and keeps every request body. A test queues answers
(``queue``: a JSON body with a status, raw bytes as garbage, or ``HANG`` for a
request that is never answered in time), or sets ``respond(path, body)`` to
answer from each request. A streamed request gets its answer cut into the
events each API documents: Chat Completions chunks (``delta`` content, tool
call pieces by index, the finish reason, a usage chunk when asked) ending in
``data: [DONE]``; Responses events (``response.created``, output items added and
done, text deltas, ``response.completed`` holding the whole response). A 429 or
5xx carries ``retry-after-ms``, short, so the SDK's own retries cost the suite
milliseconds.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HANG = object()  # queued: the request is held until the client gives up


def completion(
    content: str | None = None,
    calls: list[tuple[str, str, dict[str, Any] | str]] = (),  # type: ignore[assignment]
    finish: str | None = None,
    model: str = "gpt-test",
    refusal: str | None = None,
    prompt: int = 12,
    cached: int = 0,
) -> dict[str, Any]:
    """A Chat Completions response: text, tool calls (id, name, arguments as an object or raw text), a refusal."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal}
    if calls:
        message["tool_calls"] = [
            {"id": id_, "type": "function",
             "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
            for id_, name, args in calls
        ]  # fmt: skip
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": finish or ("tool_calls" if calls else "stop"),
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": 7,
            "total_tokens": prompt + 7,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


def response(
    text: str | None = None,
    calls: list[tuple[str, str, dict[str, Any] | str]] = (),  # type: ignore[assignment]
    model: str = "gpt-test",
    refusal: str | None = None,
    reasoning: bool = False,
    incomplete: str | None = None,
    cached: int = 0,
) -> dict[str, Any]:
    """A Responses API response: a reasoning item, a message (text or a refusal), function calls."""
    output: list[dict[str, Any]] = []
    if reasoning:
        output.append({"id": "rs_test", "type": "reasoning", "summary": []})
    parts: list[dict[str, Any]] = []
    if text is not None:
        parts.append({"type": "output_text", "text": text, "annotations": []})
    if refusal is not None:
        parts.append({"type": "refusal", "refusal": refusal})
    if parts:
        output.append({"id": "msg_test", "type": "message", "role": "assistant", "status": "completed",
                       "content": parts})  # fmt: skip
    for id_, name, args in calls:
        output.append({"id": f"fc_{id_}", "type": "function_call", "call_id": id_, "name": name, "status": "completed",
                       "arguments": args if isinstance(args, str) else json.dumps(args)})  # fmt: skip
    return {
        "id": "resp_test",
        "object": "response",
        "created_at": 1_700_000_000,
        "model": model,
        "status": "incomplete" if incomplete else "completed",
        "incomplete_details": {"reason": incomplete} if incomplete else None,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {"input_tokens": 12, "output_tokens": 7, "total_tokens": 19,
                  "input_tokens_details": {"cached_tokens": cached}, "output_tokens_details": {"reasoning_tokens": 0}},
    }  # fmt: skip


def _pieces(text: str, size: int = 5) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def chat_chunks(body: dict[str, Any], usage: bool) -> list[dict[str, Any]]:
    """A Chat Completions response as the chunks its stream sends."""
    choice = body["choices"][0]
    message = choice["message"]
    base = {"id": body["id"], "object": "chat.completion.chunk", "created": body["created"], "model": body["model"]}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    for piece in _pieces(message["content"]) if message.get("content") else []:
        chunks.append(chunk({"content": piece}))
    if message.get("refusal"):
        chunks.append(chunk({"refusal": message["refusal"]}))
    for index, call in enumerate(message.get("tool_calls") or []):
        first = {"index": index, "id": call["id"], "type": "function",
                 "function": {"name": call["function"]["name"], "arguments": ""}}  # fmt: skip
        chunks.append(chunk({"tool_calls": [first]}))
        for piece in _pieces(call["function"]["arguments"]):
            chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    chunks.append(chunk({}, choice["finish_reason"]))
    if usage:
        chunks.append({**base, "choices": [], "usage": body["usage"]})
    return chunks


def response_events(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A Responses API response as the events its stream sends."""
    events: list[dict[str, Any]] = []

    def add(kind: str, **fields: Any) -> None:
        events.append({"type": kind, "sequence_number": len(events), **fields})

    add("response.created", response={**body, "status": "in_progress", "output": []})
    for index, item in enumerate(body["output"]):
        add("response.output_item.added", output_index=index, item={**item, "status": "in_progress"})
        for part_index, part in enumerate(item.get("content") or []):
            if part["type"] == "output_text":
                for piece in _pieces(part["text"]):
                    add("response.output_text.delta", output_index=index, content_index=part_index,
                        item_id=item["id"], delta=piece, logprobs=[])  # fmt: skip
        if item["type"] == "function_call":
            for piece in _pieces(item["arguments"]):
                add("response.function_call_arguments.delta", output_index=index, item_id=item["id"], delta=piece)
        add("response.output_item.done", output_index=index, item=item)
    add("response.completed" if body["status"] == "completed" else "response.incomplete", response=body)
    return events


class FakeOpenAI:
    """Queued answers in, recorded requests out; ``respond(path, body)``, when set, answers instead."""

    def __init__(self) -> None:
        self.respond: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None
        self.responses: list[tuple[int, Any]] = []
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.headers: list[dict[str, str]] = []
        self.url = ""
        self.retry_after_ms = 20
        self.hang = 5.0  # seconds a HANG holds its request
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_polls = 0  # in-progress answers a new batch gives before it completes
        self._polls: dict[str, int] = {}
        self.cancelled: list[str] = []
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def queue(self, body: Any, status: int = 200) -> None:
        self.responses.append((status, body))

    def answer(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any]:
        with self._lock:
            self.requests.append((path, body))
            self.headers.append(headers)
            if self.respond is not None:
                return 200, self.respond(path, body)
            if not self.responses:
                return 500, {"error": {"message": "no response queued", "type": "server_error"}}
            return self.responses.pop(0)

    def run_batch(self, body: dict[str, Any]) -> dict[str, Any]:
        """A batch's requests answered as single requests are, its output file kept until asked."""
        lines = self.files[body["input_file_id"]].decode().splitlines()
        out = []
        for line in lines:
            item = json.loads(line)
            status, answer = self.answer(item["url"].removeprefix("/v1"), item["body"], {})
            if status == 200 and isinstance(answer, dict):
                out.append(
                    {
                        "id": "br",
                        "custom_id": item["custom_id"],
                        "response": {"status_code": 200, "request_id": "r", "body": answer},
                        "error": None,
                    }
                )
            else:
                out.append(
                    {
                        "id": "br",
                        "custom_id": item["custom_id"],
                        "response": {
                            "status_code": status,
                            "request_id": "r",
                            "body": answer if isinstance(answer, dict) else {},
                        },
                        "error": None,
                    }
                )

        with self._lock:
            batch_id = f"batch_{len(self.batches) + 1:04d}"
            output = f"file-out-{batch_id}"
            self.files[output] = "".join(json.dumps(line) + "\n" for line in out).encode()
            self.batches[batch_id] = {"endpoint": body["endpoint"], "input_file_id": body["input_file_id"],
                                      "output_file_id": output}  # fmt: skip
            self._polls[batch_id] = self.batch_polls
        return self.batch(batch_id, asked=False)

    def batch(self, batch_id: str, asked: bool = True) -> dict[str, Any]:
        with self._lock:
            if asked:
                self._polls[batch_id] -= 1
            cancelled = batch_id in self.cancelled
            ended = self._polls[batch_id] <= 0
        kept = self.batches[batch_id]
        status = "cancelled" if cancelled else "completed" if ended else "in_progress"
        return {
            "id": batch_id, "object": "batch", "endpoint": kept["endpoint"], "input_file_id": kept["input_file_id"],
            "completion_window": "24h", "status": status, "created_at": 1_700_000_000,
            "output_file_id": kept["output_file_id"] if status == "completed" else None, "error_file_id": None,
            "request_counts": {"total": 1, "completed": 1 if ended else 0, "failed": 0},
        }  # fmt: skip


@contextmanager
def serve() -> Iterator[FakeOpenAI]:
    api = FakeOpenAI()

    class Handler(BaseHTTPRequestHandler):
        wbufsize = 1 << 16
        protocol_version = "HTTP/1.1"

        def _send(
            self, status: int, data: bytes, kind: str = "application/json", extra: dict[str, str] | None = None
        ) -> None:
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            parts = self.path.split("?")[0].strip("/").split("/")  # v1 files ID content | v1 batches ID
            if parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[2] in api.files:
                self._send(200, api.files[parts[2]], "application/octet-stream")
            elif parts[:2] == ["v1", "batches"] and len(parts) == 3 and parts[2] in api.batches:
                self._send(200, json.dumps(api.batch(parts[2])).encode())
            else:
                self._send(404, b'{"error": {"message": "no such thing", "type": "invalid_request_error"}}')

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            data = self.rfile.read(length)
            path = self.path.split("?")[0].rstrip("/").removeprefix("/v1")
            headers = {k.lower(): v for k, v in self.headers.items()}
            if path == "/files":
                self._file(data, headers.get("content-type", ""))
                return
            body = json.loads(data) if data else {}
            if path == "/batches":
                self._send(200, json.dumps(api.run_batch(body)).encode())
                return
            if path.startswith("/batches/") and path.endswith("/cancel"):
                batch_id = path.split("/")[2]
                api.cancelled.append(batch_id)
                self._send(200, json.dumps(api.batch(batch_id, asked=False)).encode())
                return
            status, answer = api.answer(path, body, headers)
            if answer is HANG:
                time.sleep(api.hang)
                return
            if isinstance(answer, bytes):
                self._send(status, answer, "text/html")
                return
            if status == 200 and body.get("stream"):
                self._stream(path, answer, bool((body.get("stream_options") or {}).get("include_usage")))
                return
            extra = {"retry-after-ms": str(api.retry_after_ms)} if status == 429 or status >= 500 else {}
            self._send(status, json.dumps(answer).encode(), extra=extra)

        def _file(self, data: bytes, kind: str) -> None:
            boundary = kind.split("boundary=", 1)[1].strip('"').encode()
            for part in data.split(b"--" + boundary):
                head, _, content = part.partition(b"\r\n\r\n")
                if b'name="file"' in head:
                    with api._lock:
                        file_id = f"file-{len(api.files) + 1:04d}"
                        api.files[file_id] = content.removesuffix(b"\r\n")
                    said = {"id": file_id, "object": "file", "bytes": len(content), "created_at": 1_700_000_000,
                            "filename": "batch.jsonl", "purpose": "batch", "status": "processed"}  # fmt: skip
                    self._send(200, json.dumps(said).encode())
                    return
            self._send(400, b'{"error": {"message": "no file", "type": "invalid_request_error"}}')

        def _stream(self, path: str, answer: dict[str, Any], usage: bool) -> None:
            if path == "/responses":
                events = response_events(answer)
                data = b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)
            else:
                data = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chat_chunks(answer, usage))
                data += b"data: [DONE]\n\n"
            self._send(200, data, "text/event-stream")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()


def openai_vars(api: FakeOpenAI) -> dict[str, str]:
    """What the SDK reads to reach ``api``: its base URL and a key."""
    return {"OPENAI_BASE_URL": api.base_url, "OPENAI_API_KEY": "sk-test-0000000000000000000000"}
