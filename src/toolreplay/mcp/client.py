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

import enum
import json
import os
import select
import subprocess
import time
from collections.abc import Sequence
from typing import IO

from toolreplay import __version__
from toolreplay.canonical import JSONObject
from toolreplay.errors import UsageError
from toolreplay.formats.mcp_log import LogWriter
from toolreplay.mcp.wire import METHOD_NOT_FOUND, decode, encode, error
from toolreplay.records import record

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


class LiveServer:
    """One connection to the real server, opened on first use."""

    def __init__(self, command: Sequence[str], log: LogWriter | None, timeout: float = LIVE_TIMEOUT) -> None:
        if not command:
            raise UsageError("--on-unrecorded live needs the real server's command after --")
        self.command = list(command)
        self.log = log
        self.timeout = timeout
        self._pending = b""  # what the server wrote past the last whole line
        self.process: subprocess.Popen[bytes] | None = None
        self.handshake: JSONObject | None = None
        self.next_id = 0
        self.forwarded = 0

    def close(self) -> None:
        if self.process is not None:
            if self.process.stdin is not None:
                self.process.stdin.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.log is not None:
            self.log.close()

    def ask(self, method: str, params: JSONObject) -> LiveAnswer:
        """Send one request to the real server and wait for its response; a server that fails is an error."""
        try:
            self._connect()
            return self._request(method, _forwarded(params), record=True)
        except (OSError, ValueError, EOFError) as exc:
            if isinstance(exc, TimeoutError):
                self._stop()  # a server that stopped answering is not asked again: the next request starts a new one
            error: JSONObject = {"code": LIVE_FAILED, "message": f"toolreplay: the live server failed: {exc}"}
            return LiveAnswer({"jsonrpc": "2.0", "id": None, "error": error}, ())

    def _stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None
            self._pending = b""

    def _connect(self) -> None:
        if self.process is not None:
            if self.process.poll() is not None:
                raise EOFError("it has exited")
            return
        try:
            self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except OSError as exc:
            raise OSError(f"cannot start {self.command[0]!r}: {exc.strerror}") from None
        client_info: JSONObject = {"name": "toolreplay", "version": __version__}
        params: JSONObject = {"protocolVersion": LIVE_VERSION, "capabilities": {}, "clientInfo": client_info}
        answer = self._request("initialize", params, record=False)
        result = answer.response.get("result")
        if not isinstance(result, dict):
            raise ValueError(f"it refused the handshake: {json.dumps(answer.response.get('error'))[:200]}")
        self.handshake = result
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        if self.process is None or self.process.stdin is None or self.process.stdout is None:
            raise EOFError("it is not running")
        return self.process.stdin, self.process.stdout

    def _send(self, message: JSONObject) -> None:
        stdin, _ = self._pipes()
        stdin.write(encode(message))
        stdin.flush()

    def _request(self, method: str, params: JSONObject, record: bool) -> LiveAnswer:
        _, stdout = self._pipes()
        self.next_id += 1
        request: JSONObject = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self._send(request)
        heard: list[JSONObject] = []
        deadline = time.monotonic() + self.timeout
        while True:
            message = decode(self._line(stdout, deadline))
            if not isinstance(message, dict):
                continue
            if "method" in message and "id" in message:  # the server asks the client (sampling, roots): not here
                self._send(error(message["id"], METHOD_NOT_FOUND, "toolreplay serve answers no requests of a server's"))
            elif "method" in message:
                heard.append(message)
            elif message.get("id") == self.next_id:
                break
        if record and self.log is not None:
            for notification in heard:
                self.log.notification("server", notification)
            self.log.exchange(request, message)
            self.forwarded += 1
        return LiveAnswer(message, tuple(heard))

    def _line(self, stdout: IO[bytes], deadline: float) -> bytes:
        """The server's next whole line, or TimeoutError once the deadline passes."""
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([stdout], [], [], left)[0]:
                raise TimeoutError(f"it did not answer within {self.timeout:g} s")
            chunk = os.read(stdout.fileno(), 1 << 16)
            if not chunk:
                raise EOFError("it closed its output")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line


def _forwarded(params: JSONObject) -> JSONObject:
    """A client's parameters for the real server: its own ``_meta`` stamps stay behind, its progress token goes."""
    meta = params.get("_meta")
    kept = {key: value for key, value in params.items() if key != "_meta"}
    if isinstance(meta, dict) and "progressToken" in meta:
        kept["_meta"] = {"progressToken": meta["progressToken"]}
    return kept
