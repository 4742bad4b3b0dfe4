"""``record-mcp``: a stdio MCP proxy that logs every JSON-RPC message and changes nothing.

The proxy goes where an MCP client's server command was. It starts the real
server, copies bytes both ways unchanged, and watches the newline-delimited
JSON-RPC messages go by. Every request is paired with its response (errors
included), whichever side asked: the client's requests (``initialize``,
``server/discover``, ``tools/*``, ``resources/*``, ``prompts/*``, ...) and the
server's (sampling, elicitation, roots) with the client's answers. Notifications
are logged as they pass, so their order relative to the responses is kept. Each
line is appended with one ``os.write`` on a file opened for appending, so a
killed proxy loses nothing already answered: an exchange is logged before its
response is passed on.

Log lines (see docs/formats.md)::

    {"command": [...], "event": "start", "v": 2}
    {"event": "request", "request": {...}, "response": {...}, "v": 2}
    {"event": "notification", "from": "server", "message": {...}, "v": 2}
    {"event": "server-request", "request": {...}, "response": {...}, "v": 2}
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

from toolreplay.core.canonical import JSONObject, canonical_bytes
from toolreplay.core.errors import UsageError
from toolreplay.core.files import same_file
from toolreplay.formats.mcp_log.log import LOG_VERSION, LogWriter
from toolreplay.mcp.wire import LineSplitter, messages
from toolreplay.redact import Redactor

_CHUNK = 1 << 16


class ExchangeLog:
    """Pairs logged requests with their responses and appends each pair to the log.

    A logged line is assembled from the messages' own bytes (they are JSON
    already), so the proxy parses each message once and encodes nothing again.
    """

    def __init__(self, log: LogWriter, server_requests: dict[bytes, deque[bytes]] | None = None) -> None:
        """``server_requests``: the server's requests waiting for the client's answers, where they outlive this
        pairing (over HTTP, an answer comes in a later request of the same session)."""
        self._log = log
        # canonical id -> the requests sent with it and not answered yet, oldest first, for each side: a peer that
        # reuses an id gets its answers paired in order.
        self._client_requests: dict[bytes, deque[bytes]] = {}
        self._server_requests: dict[bytes, deque[bytes]] = server_requests if server_requests is not None else {}
        self._lock = threading.Lock()
        self._said_unlogged = False

    @property
    def failure(self) -> str | None:
        return self._log.failure

    def _append(self, text: str) -> None:
        self._log.append(text)

    def start(self, command: Sequence[str]) -> None:
        self._log.start(command)

    def close(self) -> None:
        self._log.close()

    def _read(self, line: bytes) -> list[tuple[bytes, JSONObject]]:
        """A line's messages; a line that holds none a strict reader takes (``NaN``, a number past a float, bytes
        that are not UTF-8) passes on all the same, unlogged, and the first such line is said on stderr."""
        found = messages(line)
        if not found and line.strip() and not self._said_unlogged:
            self._said_unlogged = True
            sys.stderr.write(
                "toolreplay record-mcp: a message that is not strict JSON (NaN, Infinity, a number past a float, "
                "bytes that are not UTF-8) passed through unchanged but is not in the log\n"
            )
            sys.stderr.flush()
        return found

    def from_client(self, line: bytes) -> None:
        """A line the client sent: its requests wait for their responses; its answers complete the server's."""
        for raw, message in self._read(line):
            if "method" in message:
                if "id" in message:
                    self._wait(self._client_requests, message, raw)
                else:
                    self._notification("client", raw)
            elif "id" in message:
                self._answered(self._server_requests, message, raw, "server-request")

    def from_server(self, line: bytes) -> None:
        """A line the server sent: responses complete the client's requests; its own requests wait."""
        for raw, message in self._read(line):
            if "method" in message:
                if "id" in message:
                    self._wait(self._server_requests, message, raw)
                else:
                    self._notification("server", raw)
            elif "id" in message:
                self._answered(self._client_requests, message, raw, "request")

    def _wait(self, pending: dict[bytes, deque[bytes]], message: JSONObject, raw: bytes) -> None:
        with self._lock:
            pending.setdefault(canonical_bytes(message["id"]), deque()).append(raw)

    def _answered(self, pending: dict[bytes, deque[bytes]], message: JSONObject, raw: bytes, event: str) -> None:
        key = canonical_bytes(message["id"])
        with self._lock:
            waiting = pending.get(key)
            request = waiting.popleft() if waiting else None
            if waiting is not None and not waiting:
                del pending[key]
        if request is not None:
            self._append(
                f'{{"event":"{event}","request":{request.decode("utf-8")},'
                f'"response":{raw.decode("utf-8")},"v":{LOG_VERSION}}}'
            )

    def _notification(self, side: str, raw: bytes) -> None:
        self._append(f'{{"event":"notification","from":"{side}","message":{raw.decode("utf-8")},"v":{LOG_VERSION}}}')


def _pump(source: int, target: int, on_line: Callable[[bytes], None]) -> None:
    """Copy ``source`` to ``target`` until end of file, showing each complete line to ``on_line`` first.

    A chunk is passed on only once its lines were seen: a request is registered
    before the server can answer it, and an exchange is on disk before the
    client can act on its answer. A last line without a newline is seen at the
    end of the stream.
    """
    splitter = LineSplitter()
    while True:
        try:
            chunk = os.read(source, _CHUNK)
        except OSError:
            chunk = b""
        if not chunk:
            tail = splitter.rest()
            if tail:
                on_line(tail)
            return
        for line in splitter.feed(chunk):
            on_line(line)
        _write_all(target, chunk)


def _copy_stderr(source: int, copy: str) -> None:
    """The server's stderr to ours and to the file ``copy`` as it comes, until the server closes it."""
    with open(copy, "ab") as kept:
        while chunk := os.read(source, 65536):
            with contextlib.suppress(OSError):
                _write_all(2, chunk)
            kept.write(chunk)
            kept.flush()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def run_proxy(
    command: Sequence[str],
    log_path: str | Path,
    redactor: Redactor,
    stdin: int = 0,
    stdout: int = 1,
    name: str | None = None,
    cwd: str | None = None,
    stderr_copy: str | None = None,
) -> int:
    """Run ``command`` as the MCP server behind this proxy (``name``: what the agent's configuration calls it);
    return its exit code. ``stderr_copy``: a file the server's stderr is also appended to."""
    if not command:
        raise UsageError("record-mcp needs the server command after --")
    for argument in command:
        if same_file(argument, log_path):
            raise UsageError(f"refusing to append the log to {argument}, which the server command uses")
    log = ExchangeLog(LogWriter(log_path, redactor, "toolreplay record-mcp", server=name))
    try:
        try:
            errors = subprocess.PIPE if stderr_copy is not None else None
            server = subprocess.Popen(
                list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, bufsize=0, cwd=cwd
            )
        except OSError as exc:
            failure = f"cannot start the server {command[0]!r}: {exc.strerror}"
            if stderr_copy is not None:  # said where record looks for a server's last words
                with contextlib.suppress(OSError), open(stderr_copy, "a", encoding="utf-8") as kept:
                    kept.write(f"toolreplay record-mcp: error: {failure}\n")
            raise UsageError(failure) from None
        log.start(command)
        copier = None
        if stderr_copy is not None and server.stderr is not None:
            copier = threading.Thread(target=_copy_stderr, args=(server.stderr.fileno(), stderr_copy), daemon=True)
            copier.start()
        server_in, server_out = server.stdin, server.stdout
        if server_in is None or server_out is None:  # both were asked for; kept for the type checker
            raise UsageError("cannot talk to the server over stdio")

        def client_to_server() -> None:
            try:
                _pump(stdin, server_in.fileno(), log.from_client)
            except BrokenPipeError:
                pass  # the server is gone; its exit ends the proxy
            finally:
                server_in.close()

        threading.Thread(target=client_to_server, name="client-to-server", daemon=True).start()
        try:
            _pump(server_out.fileno(), stdout, log.from_server)
        except BrokenPipeError:
            server.terminate()  # the client is gone
        except KeyboardInterrupt:
            server.terminate()
            server.wait()
            return 130
        code = server.wait()
        if copier is not None:
            copier.join(5)  # what it said last, kept before the proxy ends
        return code
    finally:
        log.close()
