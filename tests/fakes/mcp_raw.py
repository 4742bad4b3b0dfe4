"""A minimal JSON-RPC client over pipes, for tests that must control timing byte by byte.

The SDK-level tests use the real ``mcp`` client; this one exists for what that
client cannot do on purpose, such as stopping halfway so the proxy can be killed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "0"}},
}


class RawClient:
    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise EOFError("the server closed its output")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def initialize(self) -> None:
        self.send(INITIALIZE)
        self.receive()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        return self.receive()


def record_one_call(log: Path, name: str | None = None) -> None:
    """The sample server behind ``record-mcp -o LOG`` (with ``--name``, where given): the handshake, its listing and
    one ``disk_report`` call, logged."""
    features = [sys.executable, "-W", "ignore", str(Path(__file__).resolve().parents[2] / "samples/mcp/features.py")]
    named = ["--name", name] if name is not None else []
    proxy = subprocess.Popen(
        [sys.executable, "-m", "toolreplay", "record-mcp", "-o", str(log), *named, "--", *features],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        client = RawClient(proxy)
        client.initialize()
        client.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        client.receive()
        client.call(3, "disk_report", {"host": "build-04"})
    finally:
        assert proxy.stdin is not None
        proxy.stdin.close()
        proxy.wait(timeout=30)
