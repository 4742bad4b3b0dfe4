"""MCP's wire, once: JSON-RPC messages as lines, the strict decoder, error codes and ids, protocol versions.

Every part of toolreplay that speaks MCP (the replay server, the client of a
real server, the proxy) reads and writes messages through here, so a message
means the same to each: strict JSON over UTF-8 (no ``NaN``, no number too
large for a float; a lone surrogate escape is JSON, and kept), one message per
line. A transport (stdio today) only moves the lines.
"""

from __future__ import annotations

import json
import threading

from toolreplay.core.canonical import JSONObject, JSONValue, json_utf8
from toolreplay.formats.parsing.node import finite_float, reject_constant

# The protocol versions of the handshake era, newest first, and of the era without sessions.
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
MODERN_VERSIONS = ("2026-07-28",)
PROTOCOL_META = "io.modelcontextprotocol/protocolVersion"  # what a 2026-07-28 request stamps its version as
# JSON-RPC 2.0's own error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# Results a 2026-07-28 client may cache, which must then say for how long.
_CACHEABLE = frozenset({"server/discover", "tools/list", "resources/list", "resources/templates/list", "prompts/list"})

# Built once: json.loads and json.dumps with options build a new decoder or encoder on every call. A key given
# twice is left to the peer's own rules (last one wins), as a real server's parser would take it.
_DECODE = json.JSONDecoder(parse_constant=reject_constant, parse_float=finite_float).decode
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def decode(line: bytes) -> JSONValue:
    """One line as a message's JSON value; ``ValueError`` (or ``RecursionError``) when it is not strict JSON."""
    value: JSONValue = _DECODE(line.decode("utf-8"))
    return value


def encode(message: JSONObject) -> bytes:
    """A message as one line of UTF-8 JSON (a lone surrogate as its escape), newline included.

    One that cannot be written as JSON text (a value nested past the encoder's
    depth) becomes the error it is, for its request.
    """
    try:
        return json_utf8(_ENCODE(message)) + b"\n"
    except (ValueError, RecursionError) as exc:
        request_id = message.get("id")
        fallback = error(request_id if valid_id(request_id) else None, INTERNAL_ERROR, f"internal error: {exc}")
        return json.dumps(fallback, ensure_ascii=True).encode("ascii") + b"\n"


def valid_id(value: JSONValue) -> bool:
    """JSON-RPC ids are strings, whole numbers or null (MCP requests use strings and numbers)."""
    return value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def error(request_id: JSONValue, code: int, message: str) -> JSONObject:
    """A JSON-RPC error response."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


_twice = threading.local()  # per thread (the proxy reads both sides at once): whether a key came twice


def _pairs(pairs: list[tuple[str, JSONValue]]) -> JSONObject:
    made = dict(pairs)
    if len(made) < len(pairs):
        _twice.seen = True
    return made


_DECODE_PAIRS = json.JSONDecoder(parse_constant=reject_constant, parse_float=finite_float, object_pairs_hook=_pairs)


def messages(line: bytes) -> list[tuple[bytes, JSONObject]]:
    """The JSON-RPC messages on one line, each with its own bytes: one object, or each object of a batch encoded
    on its own; anything else (not UTF-8, not strict JSON, not an object) is none. A message that gives a key
    twice is the peer's to take as it does (it passes unchanged); its bytes here are those of the value it parses
    to (the last of the two), which every strict reader of a log takes."""
    raw = line.strip()
    if not raw:
        return []
    _twice.seen = False
    try:
        value = _DECODE_PAIRS.decode(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return []
    if isinstance(value, dict):
        return [(encode(value)[:-1] if _twice.seen else raw, value)]
    if isinstance(value, list):
        return [(encode(item)[:-1], item) for item in value if isinstance(item, dict)]
    return []


def params_of(message: JSONObject) -> JSONObject:
    """A message's parameters; none unless they are an object."""
    params = message.get("params")
    return params if isinstance(params, dict) else {}


def modern(params: JSONObject) -> bool:
    """Whether a request was sent on a 2026-07-28 connection, which stamps its version on every request."""
    meta = params.get("_meta")
    return isinstance(meta, dict) and meta.get(PROTOCOL_META) in MODERN_VERSIONS


def for_modern(method: str, result: JSONObject) -> JSONObject:
    """A result as the 2026-07-28 wire requires it: every result says its type, a cacheable one its lifetime
    (zero: a recording may be replaced). What a recorded result already says is kept."""
    extra: JSONObject = {"resultType": "complete"}
    if method in _CACHEABLE:
        extra.update(ttlMs=0, cacheScope="private")
    return {**extra, **result}


class LineSplitter:
    """Cuts a byte stream into lines, keeping the unfinished tail for the next chunk.

    The tail is kept as a list of pieces and joined once its line ends, so a
    message of any size costs time in proportion to its length.
    """

    def __init__(self) -> None:
        self._tail: list[bytes] = []

    def feed(self, chunk: bytes) -> list[bytes]:
        if b"\n" not in chunk:
            self._tail.append(chunk)
            return []
        lines = chunk.split(b"\n")
        if self._tail:
            lines[0] = b"".join([*self._tail, lines[0]])
        last = lines.pop()
        self._tail = [last] if last else []
        return lines

    def rest(self) -> bytes:
        """What is left at the end of the stream: a last message without its newline."""
        tail, self._tail = b"".join(self._tail), []
        return tail
