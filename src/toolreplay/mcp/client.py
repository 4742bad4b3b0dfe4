"""The real server behind a recording, for ``serve --on-unrecorded live``.

A request the recording cannot answer goes to the real server, started on the
first such request and spoken to as an MCP client (the ``initialize``
handshake, then one request at a time). Its answer goes back to the client and,
as record modes go (``--record``), into the log: ``new`` appends each new
exchange to the run being served, so the next replay answers it from the
recording; ``all`` forwards every request and records them all as a new run;
``none`` records nothing.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import select
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING
from urllib.parse import SplitResult, urlunsplit

from toolreplay import __version__
from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import UsageError
from toolreplay.core.records import record
from toolreplay.formats.mcp_log.log import LogWriter
from toolreplay.mcp.urls import shown_url
from toolreplay.mcp.wire import METHOD_NOT_FOUND, decode, encode, error

if TYPE_CHECKING:
    import http.client

LIVE_VERSION = "2025-11-25"  # the handshake toolreplay speaks to the real server
LIVE_FAILED = -32003  # JSON-RPC error code when the real server could not answer
LIVE_TIMEOUT = 30.0  # seconds the real server has to answer one request


class RecordMode(enum.Enum):
    """What a live answer does to the recording."""

    NONE = "none"
    NEW = "new"
    ALL = "all"


@record
class LiveAnswer:
    """The real server's response, and its notifications that came before it."""

    response: JSONObject
    notifications: tuple[JSONObject, ...]


class _Stdio:
    """The real server as a child process, spoken to over its stdin and stdout."""

    def __init__(self, command: Sequence[str]) -> None:
        self.command = list(command)
        self._pending = b""  # what the server wrote past the last whole line
        try:
            self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except OSError as exc:
            raise OSError(f"cannot start {self.command[0]!r}: {exc.strerror}") from None

    def alive(self) -> None:
        if self.process.poll() is not None:
            raise EOFError("it has exited")

    def close(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        elif self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def send(self, message: JSONObject) -> None:
        stdin = self.process.stdin
        if stdin is None:
            raise EOFError("it is not running")
        stdin.write(encode(message))
        stdin.flush()

    def exchange(self, request: JSONObject, deadline: float) -> Iterator[JSONObject]:
        self.send(request)
        stdout = self.process.stdout
        if stdout is None:
            raise EOFError("it is not running")
        while True:
            message = decode(self._line(stdout, deadline))
            if isinstance(message, dict):
                yield message

    def _line(self, stdout: IO[bytes], deadline: float) -> bytes:
        """The server's next whole line, or TimeoutError once the deadline passes."""
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([stdout], [], [], left)[0]:
                raise TimeoutError("it did not answer in time")
            chunk = os.read(stdout.fileno(), 1 << 16)
            if not chunk:
                raise EOFError("it closed its output")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line


class _Http:
    """The real server at a Streamable HTTP URL: each message one POST, its answer a JSON body or an event stream;
    the session id and protocol version it gives are sent with every later request."""

    def __init__(self, url: SplitResult, headers: Mapping[str, str]) -> None:
        self.url = url
        self.headers = dict(headers)
        self.session: str | None = None
        self.version: str | None = None

    def alive(self) -> None:
        return None

    def close(self, kill: bool = False) -> None:
        if self.session is not None and not kill:
            import http.client  # noqa: PLC0415 - only a live server over HTTP needs it

            with contextlib.suppress(OSError, http.client.HTTPException):
                connection = self._connection(5.0)
                connection.request("DELETE", self._target(), headers=self._headers())
                connection.getresponse().read()
                connection.close()

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        import http.client  # noqa: PLC0415 - only a live server over HTTP needs it

        host, port = self.url.hostname or "", self.url.port
        if self.url.scheme == "https":
            return http.client.HTTPSConnection(host, port, timeout=timeout)
        return http.client.HTTPConnection(host, port, timeout=timeout)

    def _target(self) -> str:
        return urlunsplit(("", "", self.url.path or "/", self.url.query, ""))

    def _headers(self) -> dict[str, str]:
        headers = {**self.headers, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.session is not None:
            headers["Mcp-Session-Id"] = self.session
        if self.version is not None:
            headers["MCP-Protocol-Version"] = self.version
        return headers

    def _post(self, message: JSONObject, timeout: float) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        import http.client  # noqa: PLC0415 - only a live server over HTTP needs it

        connection = self._connection(max(timeout, 0.001))
        try:
            connection.request("POST", self._target(), encode(message), self._headers())
            answer = connection.getresponse()
        except TimeoutError:
            connection.close()
            raise TimeoutError("it did not answer in time") from None
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            raise OSError(f"{shown_url(self.url)}: {exc}") from None
        if answer.status >= 400:
            connection.close()
            raise OSError(f"{shown_url(self.url)} answered HTTP {answer.status} {answer.reason}")
        return connection, answer

    def send(self, message: JSONObject) -> None:
        connection, answer = self._post(message, LIVE_TIMEOUT)
        with contextlib.closing(connection):
            answer.read()

    def exchange(self, request: JSONObject, deadline: float) -> Iterator[JSONObject]:
        import http.client  # noqa: PLC0415 - only a live server over HTTP needs it

        connection, answer = self._post(request, deadline - time.monotonic())
        with contextlib.closing(connection):
            self.session = answer.getheader("Mcp-Session-Id") or self.session
            kind = (answer.getheader("Content-Type") or "").split(";")[0].strip().lower()
            try:
                if kind == "text/event-stream":
                    for data in _event_data(answer, deadline):
                        message = decode(data)
                        if isinstance(message, dict):
                            yield message
                    raise EOFError("its event stream ended before the answer")
                message = decode(answer.read())
            except TimeoutError:
                raise TimeoutError("it did not answer in time") from None
            except (OSError, http.client.HTTPException) as exc:
                raise EOFError(f"its answer was cut: {exc}") from None
            if isinstance(message, dict):
                yield message
            raise EOFError("it gave no answer to the request")


def _event_data(answer: http.client.HTTPResponse, deadline: float) -> Iterator[bytes]:
    """The data of each event of a message stream, as the events come."""
    data: list[bytes] = []
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError
        line = answer.readline()
        if not line:
            return
        if line in (b"\n", b"\r\n"):
            if data:
                yield b"\n".join(data)
            data = []
        elif line.startswith(b"data:"):
            data.append(line[5:].removeprefix(b" ").rstrip(b"\r\n"))


class LiveServer:
    """One connection to the real server (a command over stdio, or a URL over Streamable HTTP), opened on first use."""

    def __init__(
        self,
        command: Sequence[str] = (),
        log: LogWriter | None = None,
        timeout: float = LIVE_TIMEOUT,
        url: SplitResult | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if not command and url is None:
            raise UsageError("--on-unrecorded live needs the real server's command after --, or --upstream URL")
        self.command = list(command)
        self.url = url
        self.headers = dict(headers or {})
        self.log = log
        self.timeout = timeout
        self.channel: _Stdio | _Http | None = None
        self.handshake: JSONObject | None = None
        self.next_id = 0
        self.forwarded = 0

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
        if self.log is not None:
            self.log.close()

    def ask(self, method: str, params: JSONObject) -> LiveAnswer:
        """Send one request to the real server and wait for its response; a server that fails is an error."""
        try:
            channel = self._connect()
            return self._request(channel, method, _forwarded(params), record=True)
        except (OSError, ValueError, EOFError) as exc:
            if isinstance(exc, TimeoutError):
                self._stop()  # a server that stopped answering is not asked again: the next request starts a new one
                exc = TimeoutError(f"it did not answer within {self.timeout:g} s")
            error: JSONObject = {"code": LIVE_FAILED, "message": f"toolreplay: the live server failed: {exc}"}
            return LiveAnswer({"jsonrpc": "2.0", "id": None, "error": error}, ())

    def _stop(self) -> None:
        if self.channel is not None:
            self.channel.close(kill=True)
            self.channel = None

    def _connect(self) -> _Stdio | _Http:
        if self.channel is not None:
            self.channel.alive()
            return self.channel
        channel: _Stdio | _Http = _Http(self.url, self.headers) if self.url is not None else _Stdio(self.command)
        self.channel = channel
        client_info: JSONObject = {"name": "toolreplay", "version": __version__}
        params: JSONObject = {"protocolVersion": LIVE_VERSION, "capabilities": {}, "clientInfo": client_info}
        answer = self._request(channel, "initialize", params, record=False)
        result = answer.response.get("result")
        if not isinstance(result, dict):
            self._stop()
            raise ValueError(f"it refused the handshake: {json.dumps(answer.response.get('error'))[:200]}")
        self.handshake = result
        if isinstance(channel, _Http) and isinstance(result.get("protocolVersion"), str):
            channel.version = str(result["protocolVersion"])
        channel.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return channel

    def _request(self, channel: _Stdio | _Http, method: str, params: JSONObject, record: bool) -> LiveAnswer:
        self.next_id += 1
        request: JSONObject = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        heard: list[JSONObject] = []
        response: JSONObject | None = None
        for message in channel.exchange(request, time.monotonic() + self.timeout):
            if "method" in message and "id" in message:  # the server asks the client (sampling, roots): not here
                refused = "toolreplay serve answers no requests of a server's"
                channel.send(error(message["id"], METHOD_NOT_FOUND, refused))
            elif "method" in message:
                heard.append(message)
            elif message.get("id") == self.next_id:
                response = message
                break
        if response is None:  # a channel ends its messages by raising; kept for the type checker
            raise EOFError("it gave no answer")
        if record and self.log is not None:
            for notification in heard:
                self.log.notification("server", notification)
            self.log.exchange(request, response)
            self.forwarded += 1
        return LiveAnswer(response, tuple(heard))


def _forwarded(params: JSONObject) -> JSONObject:
    """A client's parameters for the real server: its own ``_meta`` stamps stay behind, its progress token goes."""
    meta = params.get("_meta")
    kept = {key: value for key, value in params.items() if key != "_meta"}
    if isinstance(meta, dict) and "progressToken" in meta:
        kept["_meta"] = {"progressToken": meta["progressToken"]}
    return kept
