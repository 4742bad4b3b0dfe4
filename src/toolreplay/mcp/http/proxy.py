"""``record-mcp --upstream URL``: a loopback reverse proxy in front of an MCP server over Streamable HTTP.

The agent is pointed at the proxy's URL instead of the server's. Every request
(POST, the standalone GET stream, DELETE) is forwarded once, with its headers
(credentials included) and body unchanged; every answer comes back unchanged,
a JSON body whole and an event stream event by event, as it arrives. The
JSON-RPC messages are logged as the stdio proxy logs them, in the same format:
a request with the response that answers it (found by its id among the
messages of that POST's answer), the server's notifications in their order
among the responses, the server's own requests with the client's answers (which
come in a later POST of the same session). Each exchange is logged before the
bytes that complete it reach the client, so a killed proxy keeps every answered
call. Headers are never logged; the upstream URL is logged without its query
and user information, where credentials go.

A request whose ``Origin`` names another host than the loopback is refused
(403), as the specification asks of local servers, and the proxy listens on
127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import select
import signal
import socket
import sys
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

from toolreplay.core.errors import UsageError
from toolreplay.formats.mcp_log.log import LogWriter
from toolreplay.mcp.http import sse
from toolreplay.mcp.http.urls import LOOPBACK, loopback_origin, parse_listen, parse_upstream, shown_url
from toolreplay.mcp.stdio.proxy import ExchangeLog
from toolreplay.redact import Redactor

_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
MAX_BODY = 64 << 20  # a request body past this is refused (413): nothing an MCP request needs
IDLE = 300.0  # seconds a client connection may send nothing (between requests, or within one) before it is closed
_SESSION = "mcp-session-id"


def _readable(sock: socket.socket) -> bool:
    """Whether an idle socket has something to read at once: for a kept-alive connection, that the peer closed."""
    ready, _, _ = select.select([sock], [], [], 0)
    return bool(ready)


def _cut(answer: http.client.HTTPResponse) -> bool:
    """Whether a response that reads as ended was cut short: a chunked body without its last chunk (a whole one
    leaves no chunk pending), or fewer bytes than its length said."""
    if answer.chunked:
        return answer.chunk_left is not None
    return bool(answer.length)


def _refusal(code: int, message: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}).encode() + b"\n"


class _Sessions:
    """The server's requests waiting for the client's answers, per MCP session (None: a server without them)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str | None, dict[bytes, deque[bytes]]] = {}

    def of(self, session: str | None) -> dict[bytes, deque[bytes]]:
        with self._lock:
            return self._waiting.setdefault(session, {})


class QuietServer(ThreadingHTTPServer):
    """A threading HTTP server that says nothing of a client that went away or timed out (the standard one prints
    a traceback to stderr, which is the agent's, or the user's terminal)."""

    daemon_threads = True
    request_queue_size = 128  # connections waiting to be accepted: a burst of clients is not reset at 5

    def handle_error(self, request: Any, client_address: Any) -> None:
        return None


class HttpProxy(QuietServer):
    """The listening proxy: one thread per connection, one log for all of them."""

    daemon_threads = True

    def __init__(self, listen: tuple[str, int], upstream: SplitResult, log: LogWriter) -> None:
        self.upstream = upstream
        self.log = log
        self.sessions = _Sessions()
        # the legacy SSE transport's message endpoints (path and query), each with the pairing of the stream its
        # server announced it on: a request POSTed there is answered on that stream
        self.endpoints: dict[str, ExchangeLog] = {}
        self.endpoints_lock = threading.Lock()
        super().__init__(listen, _Handler)

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), int(self.server_address[1])
        shown = f"[{host}]" if ":" in host else host
        return urlunsplit(("http", f"{shown}:{port}", self.upstream.path or "/", "", ""))

    def url_for(self, target: str) -> str:
        """The proxy's own URL for a path and query of the upstream's."""
        host, port = str(self.server_address[0]), int(self.server_address[1])
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}{target}"

    def connect(self) -> http.client.HTTPConnection:
        host, port = self.upstream.hostname or "", self.upstream.port
        if self.upstream.scheme == "https":
            return http.client.HTTPSConnection(host, port)
        return http.client.HTTPConnection(host, port)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go as written: no delayed-ACK wait between them
    timeout = IDLE  # a client that sends nothing for this long loses its connection (and its thread)
    server: HttpProxy
    _upstream: http.client.HTTPConnection | None = None  # this client connection's, kept alive between requests

    def log_message(self, format: str, *args: Any) -> None:
        return None  # the proxy's stderr is the agent's: no access log there

    def do_POST(self) -> None:
        self._forward("POST")

    def do_GET(self) -> None:
        self._forward("GET")

    def do_DELETE(self) -> None:
        self._forward("DELETE")

    def _refuse(self, status: int, code: int, message: str) -> None:
        body = _refusal(code, message)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _forward(self, method: str) -> None:
        origin = self.headers.get("Origin")
        if origin is not None and not loopback_origin(origin):
            self._refuse(403, -32600, f"Origin {origin!r} is not allowed: the proxy serves the loopback only")
            return
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self._refuse(411, -32600, "a request body needs a Content-Length")
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self._refuse(400, -32600, "Content-Length is not a number")
            return
        if not 0 <= length <= MAX_BODY:
            self._refuse(413, -32600, f"a request body is at most {MAX_BODY} bytes")
            return
        body = self.rfile.read(length) if length else b""
        session = self.headers.get(_SESSION)
        with self.server.endpoints_lock:
            announced = self.server.endpoints.get(self.path)
        pairing = announced or ExchangeLog(self.server.log, self.server.sessions.of(session))
        if method == "POST":
            pairing.from_client(body)
        headers = {name: value for name, value in self.headers.items() if name.lower() not in _HOP_BY_HOP}
        upstream = self._connection()
        try:
            upstream.request(method, self.path, body if method == "POST" else None, headers)
            answer = upstream.getresponse()
        except OSError as exc:
            self._drop(upstream)
            self._refuse(502, -32603, f"the upstream server did not answer: {exc}")
            return
        kept = False
        try:
            self._answer(answer, pairing)
            kept = not answer.will_close and answer.isclosed()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client left mid-answer; the upstream's side goes with it
        finally:
            if not kept:
                self._drop(upstream)

    def _connection(self) -> http.client.HTTPConnection:
        """The upstream connection of this client connection, kept alive between its requests; a new one when the
        upstream closed it while idle (seen before sending, so no request is ever sent twice)."""
        kept = self._upstream
        if kept is not None and (kept.sock is None or _readable(kept.sock)):
            kept.close()  # an idle connection with something to read: the upstream closed it
            kept = None
        if kept is None:
            kept = self.server.connect()
            self._upstream = kept
        return kept

    def _drop(self, upstream: http.client.HTTPConnection) -> None:
        upstream.close()
        self._upstream = None

    def finish(self) -> None:
        if self._upstream is not None:
            self._upstream.close()
        super().finish()

    def _answer(self, answer: http.client.HTTPResponse, pairing: ExchangeLog) -> None:
        kind = answer.getheader("Content-Type", "").split(";")[0].strip().lower()
        headers = [(name, value) for name, value in answer.getheaders() if name.lower() not in _HOP_BY_HOP]
        if kind == "text/event-stream":
            self.send_response_only(answer.status, answer.reason)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self._stream(answer, pairing)
            return
        try:
            body = answer.read()
        except (http.client.IncompleteRead, OSError) as exc:
            body = getattr(exc, "partial", b"")
            self.close_connection = True
        if kind == "application/json":
            pairing.from_server(body)  # logged before the client has it
        # the head and the body in one write: on the loopback a second one costs as much as logging the call
        head = [f"{self.protocol_version} {answer.status} {answer.reason}", *(f"{n}: {v}" for n, v in headers)]
        head.append(f"Content-Length: {len(body)}")
        self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1", "replace") + body)

    def _stream(self, answer: http.client.HTTPResponse, pairing: ExchangeLog) -> None:
        """Pass an event stream on event by event, each logged before it is passed on. A stream the upstream cuts
        is cut for the client too (its connection closed without the stream's last chunk), never ended as if whole."""
        event: list[bytes] = []
        announced: list[str] = []
        try:
            while True:
                try:
                    line = answer.readline()
                except (http.client.IncompleteRead, OSError):  # the upstream reset or cut the stream
                    self.close_connection = True
                    return
                if not line:
                    if _cut(answer):  # the end of what came, not of the stream: a reading stops without a word
                        self.close_connection = True
                        return
                    break
                event.append(line)
                if line in (b"\n", b"\r\n"):
                    self._event(event, pairing, announced)
                    event = []
            if event:
                self._event(event, pairing, announced)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        finally:
            with self.server.endpoints_lock:
                for endpoint in announced:
                    self.server.endpoints.pop(endpoint, None)

    def _event(self, lines: list[bytes], pairing: ExchangeLog, announced: list[str]) -> None:
        """One event: a message (the default type) logged, then passed on; a legacy SSE server's ``endpoint``,
        where the client is to POST its messages, noted (and pointed at the proxy when it names the upstream)."""
        kind, data = sse.fields(lines)
        if kind == b"endpoint" and data is not None:
            lines = self._endpoint(data, pairing, announced) or lines
        elif kind == sse.MESSAGE and data is not None:
            pairing.from_server(data)
        chunk = b"".join(lines)
        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.flush()

    def _endpoint(self, data: bytes, pairing: ExchangeLog, announced: list[str]) -> list[bytes] | None:
        """Note the endpoint a legacy SSE stream announced, so what is POSTed there pairs with this stream; the event
        pointed at the proxy when it names the upstream by its whole URL (None: the event passes as it came)."""
        text = data.decode("utf-8", "replace")
        upstream = self.server.upstream
        target = urlsplit(urljoin(urlunsplit((upstream.scheme, upstream.netloc, self.path, "", "")), text))
        if (target.hostname, target.port) != (upstream.hostname, upstream.port):
            return None  # another host's: not the proxy's to follow
        endpoint = urlunsplit(("", "", target.path, target.query, ""))
        with self.server.endpoints_lock:
            self.server.endpoints[endpoint] = pairing
        announced.append(endpoint)
        if not urlsplit(text).netloc:
            return None  # relative: the client resolves it against the proxy already
        return [b"event: endpoint\n", b"data: " + self.server.url_for(endpoint).encode() + b"\n", b"\n"]


def serve_until_stopped(server: ThreadingHTTPServer) -> None:
    """Serve until an interrupt or a SIGTERM (what a service manager, or a script's ``kill``, sends), either of
    which ends the serving cleanly; a script's ``&`` leaves SIGINT ignored, so SIGTERM must do it too."""

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever(poll_interval=0.2)
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_http_proxy(
    upstream_text: str, listen_text: str, log_path: str, redactor: Redactor, name: str | None = None
) -> int:
    """Listen on ``listen_text`` in front of ``upstream_text`` until interrupted; say the URL to use on stderr."""
    upstream = parse_upstream(upstream_text)
    listen = parse_listen(listen_text)
    log = LogWriter(log_path, redactor, "toolreplay record-mcp", server=name)
    try:
        try:
            proxy = HttpProxy(listen, upstream, log)
        except OSError as exc:
            raise UsageError(f"--listen {listen_text}: {exc.strerror or exc}") from None
        if listen[0] not in LOOPBACK:
            sys.stderr.write(f"toolreplay record-mcp: listening on {listen[0]}, not the loopback: any host may call\n")
        log.start([shown_url(upstream)])
        sys.stderr.write(f"toolreplay record-mcp: {proxy.url} -> {shown_url(upstream)}\n")
        sys.stderr.flush()
        with proxy:
            serve_until_stopped(proxy)
        return 0
    finally:
        log.close()
