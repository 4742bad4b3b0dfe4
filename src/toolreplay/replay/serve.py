"""``serve``: a recorded session's answers, served as an MCP stdio server.

An agent that is an MCP client (an IDE agent, Claude Code) can be replayed too:
put ``toolreplay serve SESSION`` where its server was (with ``record-mcp`` in
front to log what it does) and compare. ``tools/list`` answers with the
recorded tools (annotations included: they are MCP's own field); ``tools/call``
is answered from the recording, matched as in a replay, with the same
unrecorded-call policies. Nothing is executed.

The server speaks newline-delimited JSON-RPC directly, with no framework under
it: a replay server should cost the client nothing it can measure.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import BinaryIO, NoReturn

from toolreplay import __version__
from toolreplay.canonical import JSONObject, JSONValue
from toolreplay.formats.stubs import Stub
from toolreplay.matching import Matcher
from toolreplay.model import Call, Session
from toolreplay.replay.answers import RecordedAnswers, answer_call
from toolreplay.settings import Unrecorded

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
STOPPED = -32001  # JSON-RPC error code for a call refused under --on-unrecorded stop
# JSON-RPC 2.0's own error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


@dataclass
class ServeLog:
    """What the server answered, for the summary it prints when the client leaves."""

    answered: int = 0
    unrecorded: list[tuple[Call, str]] = field(default_factory=list)


def mcp_content(content: JSONValue) -> list[JSONValue]:
    """A recorded tool result (Messages API form) as MCP content."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks: list[JSONValue] = []
    for block in content if isinstance(content, list) else [content]:
        if isinstance(block, dict) and block.get("type") == "text":
            blocks.append({"type": "text", "text": block.get("text", "")})
        elif isinstance(block, dict) and block.get("type") == "image" and isinstance(block.get("source"), dict):
            source: JSONValue = block["source"]
            if not isinstance(source, dict):
                continue
            blocks.append({"type": "image", "data": source.get("data"), "mimeType": source.get("media_type")})
        else:
            blocks.append({"type": "text", "text": json.dumps(block, ensure_ascii=False, sort_keys=True)})
    return blocks


class ReplayServer:
    """Answers one MCP client from one recording."""

    def __init__(self, session: Session, matcher: Matcher, on_unrecorded: Unrecorded, stubs: tuple[Stub, ...]) -> None:
        self.session = session
        self.answers = RecordedAnswers(session.calls, matcher)
        self.on_unrecorded = on_unrecorded
        self.stubs = stubs
        self.log = ServeLog()
        tools = session.context.tools if session.context is not None else ()
        self.tools: list[JSONValue] = []
        for tool in tools:
            listed: JSONObject = {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}
            if tool.annotations is not None:
                listed["annotations"] = tool.annotations
            self.tools.append(listed)

    def handle(self, message: JSONObject) -> JSONObject | None:
        """The response to one message, or None for a notification."""
        if "id" not in message:
            return None
        request_id, method = message["id"], message.get("method")
        if message.get("jsonrpc") != "2.0" or not isinstance(method, str) or not _valid_id(request_id):
            return _error(request_id if _valid_id(request_id) else None, INVALID_REQUEST, "invalid request")
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            return _error(request_id, INVALID_PARAMS, "params must be an object")
        params = params or {}
        if method == "initialize":
            asked = params.get("protocolVersion")
            version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
            return _result(
                request_id,
                {
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": False}},
                    "serverInfo": {"name": "toolreplay", "version": __version__},
                    "instructions": f"Recorded answers from {self.session.path}; nothing is executed.",
                },
            )
        if method == "ping":
            return _result(request_id, {})
        if method == "tools/list":
            return _result(request_id, {"tools": self.tools})
        if method == "tools/call":
            return self._call(request_id, params)
        return _error(request_id, METHOD_NOT_FOUND, f"method not found: {method[:200]}")

    def _call(self, request_id: JSONValue, params: JSONObject) -> JSONObject:
        name, arguments = params.get("name"), params.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return _error(request_id, INVALID_PARAMS, "tools/call needs a name and an arguments object")
        call = Call(self.log.answered, name, arguments, None, 0)
        self.log.answered += 1
        answer = answer_call(self.answers, call, self.on_unrecorded, self.stubs)
        if answer is None:
            self.log.unrecorded.append((call, "refused"))
            error: JSONObject = {
                "code": STOPPED,
                "message": f"toolreplay: {name} was never recorded (--on-unrecorded stop)",
            }
            return {"jsonrpc": "2.0", "id": request_id, "error": error}
        if answer.origin != "recorded":
            self.log.unrecorded.append((call, answer.origin))
        return _result(request_id, {"content": mcp_content(answer.content), "isError": answer.is_error})

    def serve(self, lines: Iterable[bytes], out: BinaryIO) -> None:
        """Answer each line until the client closes its end; no message, however malformed, stops the server."""
        for line in lines:
            if not line.strip():
                continue
            response = self.answer_line(line)
            if response is not None:
                out.write(json.dumps(response, ensure_ascii=False, allow_nan=False).encode("utf-8") + b"\n")
                out.flush()

    def answer_line(self, line: bytes) -> JSONObject | None:
        """The response to one line of the transport: JSON-RPC's own errors for what is not a request."""
        try:
            message = _strict_json(line)
        except (ValueError, RecursionError):
            return _error(None, PARSE_ERROR, "parse error")
        if not isinstance(message, dict):  # a batch (which MCP does not use) or a bare value
            return _error(None, INVALID_REQUEST, "invalid request: expected one JSON-RPC object")
        try:
            return self.handle(message)
        except Exception as exc:  # a bug here must cost one request, not the client's whole session
            request_id = message.get("id")
            return _error(request_id if _valid_id(request_id) else None, INTERNAL_ERROR, f"internal error: {exc}")


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _strict_json(line: bytes) -> JSONValue:
    value: JSONValue = json.loads(line, parse_constant=_reject_constant)
    return value


def _valid_id(value: JSONValue) -> bool:
    """JSON-RPC ids are strings, whole numbers or null (MCP requests use strings and numbers)."""
    return value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _error(request_id: JSONValue, code: int, message: str) -> JSONObject:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _result(request_id: JSONValue, result: JSONObject) -> JSONObject:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}
