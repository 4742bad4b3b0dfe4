"""`toolreplay serve` under the real mcp SDK client."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, run_cli
from tests.fakes.mcp_raw import RawClient

pytest.importorskip("mcp", reason="the mcp extra is not installed")

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def _client(command: list[str], calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
    results: list[Any] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).model_dump(mode="json")
        for name, arguments in calls:
            try:
                results.append((await session.call_tool(name, arguments)).model_dump(mode="json"))
            except Exception as exc:  # the SDK raises on a JSON-RPC error response
                results.append({"error": str(exc)})
    return tools, results


def client(command: list[str], calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    return anyio.run(_client, command, calls)


SERVE = [sys.executable, "-m", "toolreplay", "serve", "samples/ops/session.json"]
USAGE = ("disk_usage", {"host": "build-04"})
DELETE = ("delete_path", {"host": "build-04", "path": "/var/log/ci/2026-07"})


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def test_serves_the_recorded_tools_and_answers_in_recorded_order() -> None:
    tools, results = client(SERVE, [USAGE, USAGE, USAGE, DELETE])
    listed = {tool["name"]: tool for tool in tools["tools"]}
    assert list(listed) == ["disk_usage", "list_dir", "archive_path", "delete_path"]
    assert listed["delete_path"]["annotations"]["destructive_hint"] is True
    assert [json.loads(text(r))["used_percent"] for r in results[:3]] == [97, 63, 63]
    assert results[3]["is_error"] is True
    assert "not in the recording" in text(results[3])


def test_unrecorded_policies_under_serve() -> None:
    _, stubbed = client([*SERVE, "--on-unrecorded", "stub", "--stubs", "samples/ops/stubs.json"], [DELETE])
    assert stubbed[0]["is_error"] is False
    assert json.loads(text(stubbed[0]))["freed_gb"] == 21.0
    _, stopped = client([*SERVE, "--on-unrecorded", "stop"], [DELETE])
    assert "was never recorded" in stopped[0]["error"]


def test_a_client_replayed_through_serve_and_record_mcp_compares_clean(tmp_path: Path) -> None:
    log = tmp_path / "replayed.mcp.jsonl"
    session = json.loads((ROOT / "samples" / "ops" / "session.json").read_text())
    recorded_calls = [
        (block["name"], block["input"])
        for message in session["messages"]
        if message["role"] == "assistant" and isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_use"
    ]
    proxy = [sys.executable, "-m", "toolreplay", "record-mcp", "-o", str(log), "--", *SERVE]
    client(proxy, recorded_calls)
    out = tmp_path / "replayed.json"
    assert run_cli("import", str(log), "--from", "mcp", "-o", str(out), cwd=ROOT).code == 0
    diff = run_cli("diff", "samples/ops/session.json", str(out), cwd=ROOT)
    assert diff.code == 0
    assert "same 6 · moved 0 · changed 0 · added 0 · removed 0" in diff.stdout


def test_serve_needs_a_session() -> None:
    result = run_cli("serve", "samples/session-dirty.jsonl", cwd=ROOT)
    assert result.code == 2
    assert "serving needs a session" in result.stderr


def test_serve_answers_every_malformed_message_and_stays_up() -> None:
    """JSON-RPC's own errors for what is not a request, line by line, and the next request still answered."""
    huge = "9" * 5000
    lines = [
        (b"{not json", -32700, None),
        (b"[1, 2]", -32600, None),
        (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600, None),
        (b"42", -32600, None),
        (b'"ping"', -32600, None),
        (b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}', -32700, None),
        (f'{{"jsonrpc": "2.0", "id": {huge}, "method": "ping"}}'.encode(), -32700, None),
        (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', -32600, None),
        (b'{"jsonrpc": "1.0", "id": 3, "method": "ping"}', -32600, 3),
        (b'{"jsonrpc": "2.0", "id": 4}', -32600, 4),
        (b'{"jsonrpc": "2.0", "id": 5, "method": "no/such"}', -32601, 5),
        (b'{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": [1]}', -32602, 6),
        (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": 3}}', -32602, 7),
    ]
    stdin = b"".join(line + b"\n" for line, _, _ in lines) + b'{"jsonrpc": "2.0", "id": "last", "method": "ping"}\n'
    proc = subprocess.run(SERVE, input=stdin, capture_output=True, cwd=ROOT, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    responses = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["error"]["code"], r["id"]) for r in responses[:-1]] == [(code, rid) for _, code, rid in lines]
    assert responses[-1] == {"jsonrpc": "2.0", "id": "last", "result": {}}


def _faulted(tmp_path: Path, faults: list[dict[str, Any]]) -> tuple[subprocess.Popen[bytes], RawClient]:
    file = tmp_path / "faults.json"
    file.write_text(json.dumps({"faults": faults}), encoding="utf-8")
    command = [*SERVE, "--faults", str(file)]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    client = RawClient(process)
    client.initialize()
    return process, client


def test_faults_are_injected_by_tool_and_argument(tmp_path: Path) -> None:
    faults: list[dict[str, Any]] = [
        {"tool": "delete_*", "fault": "error", "code": -32000, "message": "permission denied"},
        {"tool": "list_dir", "args": {"path": "/var/log/ci*"}, "fault": "is_error", "message": "I/O error", "times": 1},
        {"tool": "archive_path", "fault": "hang"},
    ]
    process, client = _faulted(tmp_path, faults)
    try:
        assert client.call(1, *DELETE)["error"] == {"code": -32000, "message": "permission denied"}
        failed = client.call(2, "list_dir", {"host": "build-04", "path": "/var/log/ci"})["result"]
        assert failed == {"content": [{"type": "text", "text": "I/O error"}], "isError": True}
        again = client.call(3, "list_dir", {"host": "build-04", "path": "/var/log/ci"})["result"]
        assert again["isError"] is False  # times: 1, so the recorded answer now
        assert "2026-07" in again["content"][0]["text"]
        other = client.call(4, "list_dir", {"host": "build-04", "path": "/var/log"})["result"]
        assert other["isError"] is False  # the argument glob does not match /var/log
        client.send(
            {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "archive_path", "arguments": {}}}
        )
        assert client.call(6, *USAGE)["id"] == 6  # the hung request gets nothing; the next is answered
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)
    assert process.stderr is not None
    assert "3 faults injected" in process.stderr.read().decode()


def test_a_delay_answers_late_and_a_drop_closes_the_connection(tmp_path: Path) -> None:
    faults: list[dict[str, Any]] = [{"tool": "disk_usage", "fault": "delay", "seconds": 0.3}, {"tool": "delete_path", "fault": "drop"}]
    process, client = _faulted(tmp_path, faults)
    started = time.monotonic()
    assert "used_percent" in text(client.call(1, *USAGE)["result"])
    assert time.monotonic() - started >= 0.3
    client.send(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": DELETE[0], "arguments": DELETE[1]}}
    )
    with pytest.raises(EOFError):
        client.receive()
    assert process.wait(timeout=30) == 0


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        ({"tool": "x", "fault": "explode"}, "5: faults[0].fault: must be one of error, is_error, delay, hang, drop"),
        ({"tool": "x", "fault": "delay"}, "faults[0]: a delay needs 'seconds'"),
        ({"tool": "x", "fault": "delay", "seconds": -1}, "faults[0].seconds: must be between 0 and 3600"),
        ({"tool": "x", "fault": "error", "times": 0}, "faults[0].times: must be at least 1"),
        ({"tool": "", "fault": "hang"}, "faults[0].tool: must be a non-empty string"),
        ({"tool": "x", "fault": "hang", "extra": 1}, "unknown field 'extra' in a fault"),
    ],
)
def test_a_bad_faults_file_is_one_line_naming_the_line(tmp_path: Path, fault: dict[str, Any], expected: str) -> None:
    file = tmp_path / "faults.json"
    file.write_text(json.dumps({"faults": [fault]}, indent=1), encoding="utf-8")
    result = run_cli("serve", "samples/ops/session.json", "--faults", str(file))
    assert result.code == 2
    assert expected in result.stderr
    assert result.stderr.count("\n") == 1
