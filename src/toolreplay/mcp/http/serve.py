"""``serve --http``: a recording's answers as a Streamable HTTP MCP server on the loopback.

Each POST's messages are answered by a :class:`~toolreplay.mcp.server.ReplayServer`
as over stdio. Each MCP session has one of its own, made fresh at its
``initialize``: a world of its own, as if the recording were served to it
alone, logged (``--log``) as a run of its own; sessions are answered at once,
each one message at a time. (Where a live server answers what was never
recorded, all share one server, since the live server is one.) A request's
answer is a JSON body, or an event stream when notifications come before the
response (progress, log messages), so the client gets them in their recorded
order; notifications and responses get 202. An ``initialize`` answer opens a
session with a fresh ``Mcp-Session-Id``, which later requests must carry (an
unknown one is 404, as the specification says); DELETE ends it. A request
that carries none is answered by the session opened last. The
server never sends on its own, so GET is 405. A request whose ``Origin`` is not
the loopback is refused (403).

The legacy SSE transport is served beside it, at ``/sse``: a GET opens a
session's event stream, whose first event says where to POST (``/messages/``
with the session's id); each message POSTed there gets 202, and its answer goes
on the stream.
"""

from __future__ import annotations

import contextlib
import json
import queue
import secrets
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from toolreplay.core.canonical import JSONObject
from toolreplay.mcp.http import sse
from toolreplay.mcp.http.proxy import IDLE, MAX_BODY, QuietServer, serve_until_stopped
from toolreplay.mcp.http.urls import loopback_origin
from toolreplay.mcp.server import Dropped, HttpFault, ReplayServer
from toolreplay.mcp.wire import encode

_SESSION = "Mcp-Session-Id"
_SSE, _MESSAGES = "/sse", "/messages/"  # the legacy SSE transport's endpoints, as the SDK names them
_KEEP_ALIVE = 15.0  # seconds between comments on an idle legacy stream, which find a client that left
_HANG = 3600.0  # seconds a hung request's connection is held, at most


@dataclass
class _Served:
    """One session's server, and the lock that answers its messages one at a time."""

    replay: ReplayServer
    lock: threading.Lock


class HttpReplay(QuietServer):
    """The listening server: a replay server for each session, made by ``fresh`` (given the session's number)."""

    daemon_threads = True

    def __init__(
        self,
        listen: tuple[str, int],
        fresh: Callable[[int | None], ReplayServer],
        path: str = "/mcp",
        shared: bool = False,
        lock: threading.Lock | None = None,
    ) -> None:
        self.fresh = fresh
        self.session_lock = lock  # what answers each session's messages one at a time (None: a lock of its own)
        self.path = path
        self.shared = shared  # one server for every session (a live server answers what was never recorded)
        self.sessions: dict[str, _Served] = {}
        self.streams: dict[str, tuple[queue.SimpleQueue[bytes | None], _Served]] = {}  # legacy SSE: its events
        self.made: list[ReplayServer] = []  # every server made, in order: what the summary counts
        self.lock = threading.Lock()  # guards the tables above, and numbers the sessions
        self._last: _Served | None = None
        super().__init__(listen, _Handler)

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), int(self.server_address[1])
        return f"http://{f'[{host}]' if ':' in host else host}:{port}{self.path}"

    def new_session(self) -> _Served:
        """A server for a session opening now (the one server, when they share it)."""
        with self.lock:
            if self.shared and self._last is not None:
                return self._last
            number = len(self.made) + 1
        replay = self.fresh(None if self.shared else number)
        served = _Served(replay, self.session_lock or threading.Lock())
        with self.lock:
            self.made.append(replay)
            self._last = served
        return served

    def latest(self) -> _Served:
        """The session opened last: what answers a request that names none (a new one, before any opened)."""
        with self.lock:
            last = self._last
        return last if last is not None else self.new_session()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go as written: no delayed-ACK wait between them
    timeout = IDLE  # a client that sends nothing for this long loses its connection (and its thread)
    server: HttpReplay

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def _send(
        self, status: int, body: bytes = b"", kind: str = "application/json", headers: Iterable[tuple[str, str]] = ()
    ) -> None:
        self.send_response(status)
        if body:
            self.send_header("Content-Type", kind)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _refuse(self, status: int, message: str) -> None:
        error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
        self._send(status, json.dumps(error).encode() + b"\n")

    def _route(self) -> str | None:
        """The endpoint asked for, from the loopback's pages (else None, refused): the Streamable HTTP one, or the
        legacy SSE transport's stream and message endpoints."""
        origin = self.headers.get("Origin")
        if origin is not None and not loopback_origin(origin):
            self._refuse(403, f"Origin {origin!r} is not allowed")
            return None
        path = self.path.split("?", 1)[0]
        if path not in (self.server.path, _SSE, _MESSAGES):
            self._refuse(404, f"the MCP endpoint is {self.server.path} (legacy SSE: {_SSE})")
            return None
        return path

    def _in_session(self) -> bool:
        session = self.headers.get(_SESSION)
        if session is not None and session not in self.server.sessions:
            self._refuse(404, "no such session (it ended, or this server never opened it)")
            return False
        return True

    def do_GET(self) -> None:
        route = self._route()
        if route == _SSE:
            self._sse_stream()
        elif route == self.server.path and self._in_session():
            self._send(405, headers=[("Allow", "POST, DELETE")])
        elif route is not None and route != self.server.path:
            self._send(405, headers=[("Allow", "POST")])

    def do_DELETE(self) -> None:
        route = self._route()
        if route is not None and route != self.server.path:
            self._send(405, headers=[("Allow", "GET" if route == _SSE else "POST")])
        elif route is not None and self._in_session():
            session = self.headers.get(_SESSION)
            if session is not None:
                with self.server.lock:
                    self.server.sessions.pop(session, None)
            self._send(200)

    def do_POST(self) -> None:
        route = self._route()
        if route is None:
            return
        if route == _SSE:
            self._send(405, headers=[("Allow", "GET")])
            return
        events = None
        if route == _MESSAGES:
            stream = self.server.streams.get(parse_qs(urlsplit(self.path).query).get("session_id", [""])[0])
            if stream is None:
                self._refuse(404, "no such session: open the event stream at /sse first")
                return
            events, served = stream
        elif not self._in_session():
            return
        body = self._body()
        if body is None:
            return
        if events is None:
            named = self.headers.get(_SESSION)
            if named is not None:
                found = self.server.sessions.get(named)
                if found is None:  # ended since its header was looked at
                    self._refuse(404, "no such session (it ended, or this server never opened it)")
                    return
                served = found
            else:  # an initialize opens a session with a world of its own; else the session opened last
                served = self.server.new_session() if _is_initialize(body) else self.server.latest()
        try:
            with served.lock:
                answer = served.replay.answer_line(body)
                delay = served.replay.take_delay()
        except Dropped as dropped:  # a fault: the connection drops, a cut stream's first events sent
            if events is None:
                self._cut(dropped.sent, dropped.cut)
                return
            for message in dropped.sent:
                events.put(_event(message))
            events.put(None)  # over legacy SSE, the answer's stream is cut
            self._send(202)
            return
        except HttpFault as fault:  # a fault: an error status instead of any answer
            self._send(fault.status, encode(fault.body), headers=fault.headers)
            return
        if delay:  # a delay fault: this answer waits, the other sessions' do not
            time.sleep(delay)
        if events is not None:  # legacy SSE: every answer goes on the session's stream
            for message in answer:
                events.put(_event(message))
            self._send(202)
            return
        if not answer and _is_request(body):  # a hang fault: no answer to it, ever; the connection stays
            self._hang()
            return
        self._answer(body, answer, served)

    def _hang(self) -> None:
        """Answer nothing, and hold the connection until the client gives up on it (or an hour passes)."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.settimeout(_HANG)
            self.connection.recv(1)

    def _body(self) -> bytes | None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self._refuse(400, "Content-Length is not a number")
            return None
        if length > MAX_BODY:
            self._refuse(413, f"a request body is at most {MAX_BODY} bytes")
            return None
        if length <= 0:
            self._refuse(400, "a request needs a JSON-RPC body, with its Content-Length")
            return None
        return self.rfile.read(length)

    def _answer(self, body: bytes, answer: list[JSONObject], served: _Served) -> None:
        """A Streamable HTTP answer: 202 for none, JSON for a response alone, else an event stream."""
        if not answer:
            self._send(202)
            return
        headers: list[tuple[str, str]] = []
        response = answer[-1]
        if _opened_a_session(body, response):
            session = secrets.token_hex(16)
            with self.server.lock:
                self.server.sessions[session] = served
            headers.append((_SESSION, session))
        if len(answer) == 1:
            self._send(200, encode(response), headers=headers)
            return
        self._send(200, b"".join(_event(message) for message in answer), kind="text/event-stream", headers=headers)

    def _sse_stream(self) -> None:
        """The legacy SSE transport's stream: first where to POST, then every answer of the session as it comes,
        until the client leaves (seen when a keep-alive comment cannot be written) or a fault cuts it."""
        session = secrets.token_hex(16)
        events: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.server.streams[session] = (events, self.server.new_session())
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self._chunk(sse.frame(f"{_MESSAGES}?session_id={session}".encode(), b"endpoint"))
            while True:
                try:
                    event = events.get(timeout=_KEEP_ALIVE)
                except queue.Empty:
                    event = b": keep-alive\n\n"
                if event is None:  # cut: the connection ends without the stream's last chunk
                    with contextlib.suppress(OSError):
                        self.connection.shutdown(2)
                    return
                self._chunk(event)
        except OSError:
            return  # the client left
        finally:
            self.server.streams.pop(session, None)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _cut(self, sent: list[JSONObject], cut: bool = False) -> None:
        """End the connection mid-answer: nothing, for a drop; for a cut, an event stream of what came before the
        response, which the connection then ends without its last chunk, as a server that died would."""
        self.close_connection = True
        if sent or cut:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for message in sent:
                self._chunk(_event(message))
        with contextlib.suppress(OSError):
            self.connection.shutdown(2)


def _event(message: JSONObject) -> bytes:
    return sse.frame(encode(message).rstrip(b"\n"))


def _is_request(body: bytes) -> bool:
    """Whether ``body`` is one JSON-RPC request (with an id), which must be answered unless a fault hangs it."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(message, dict) and "id" in message and "method" in message


def _is_initialize(body: bytes) -> bool:
    """Whether ``body`` is an ``initialize`` request (a session opens with its answer)."""
    try:
        request = json.loads(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(request, dict) and request.get("method") == "initialize"


def _opened_a_session(body: bytes, response: JSONObject) -> bool:
    """Whether ``body`` was an ``initialize`` that succeeded (a session opens with it)."""
    if "result" not in response:
        return False
    try:
        request = json.loads(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(request, dict) and request.get("method") == "initialize"


def serve_http(
    fresh: Callable[[int | None], ReplayServer], listen: tuple[str, int], shared: bool = False
) -> list[ReplayServer]:
    """Serve on ``listen`` until interrupted, each session from a server ``fresh`` makes (one for all, ``shared``);
    say the URL to give the client on stderr. The servers that answered."""
    with HttpReplay(listen, fresh, shared=shared) as server:
        sys.stderr.write(f"toolreplay serve: {server.url}\n")
        sys.stderr.flush()
        serve_until_stopped(server)
        return list(server.made)
