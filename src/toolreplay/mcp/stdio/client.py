"""The real server as a child process, as the live client speaks to it: one JSON-RPC message a line each way."""

from __future__ import annotations

import os
import select
import subprocess
import time
from collections.abc import Iterator, Sequence
from typing import IO

from toolreplay.core.canonical import JSONObject
from toolreplay.mcp.wire import decode, encode


class StdioChannel:
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
