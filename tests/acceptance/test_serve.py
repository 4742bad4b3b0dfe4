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
# The tests of one_call_log (below) go to one worker, so that its log is recorded once.
ONE_CALL_LOG_GROUP = pytest.mark.xdist_group("one-call-log")
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
    assert text(results[3]) == "Error: no result."  # words a tool could say: nothing of a replay


def test_unrecorded_policies_under_serve() -> None:
    _, stubbed = client([*SERVE, "--on-unrecorded", "stub", "--stubs", "samples/ops/stubs.json"], [DELETE])
    assert stubbed[0]["is_error"] is False
    assert json.loads(text(stubbed[0]))["freed_gb"] == 21.0
    _, stopped = client([*SERVE, "--on-unrecorded", "stop"], [DELETE])
    assert stopped[0]["error"] == "no result"


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


def test_serve_logs_its_own_traffic_as_the_proxy_does(tmp_path: Path) -> None:
    """``serve --log`` writes what record-mcp in front of it writes: the same calls import, the same diff."""
    session = json.loads((ROOT / "samples" / "ops" / "session.json").read_text())
    calls = [
        (block["name"], block["input"])
        for message in session["messages"]
        if message["role"] == "assistant" and isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_use"
    ]
    proxied, direct = tmp_path / "proxied.log", tmp_path / "direct.log"
    client([sys.executable, "-m", "toolreplay", "record-mcp", "-o", str(proxied), "--", *SERVE], calls)
    client([*SERVE, "--log", str(direct)], calls)
    imported = []
    for log in (proxied, direct):
        out = tmp_path / f"{log.stem}.json"
        assert run_cli("import", str(log), "--from", "mcp", "-o", str(out), cwd=ROOT).code == 0
        imported.append(json.loads(out.read_text())["messages"])
    assert imported[0] == imported[1]
    refused = run_cli("serve", "samples/ops/session.json", "--log", "samples/ops/session.json", cwd=ROOT)
    assert refused.code == 2
    assert "--log" in refused.stderr


def test_serve_needs_a_session() -> None:
    result = run_cli("serve", "samples/session-dirty.jsonl", cwd=ROOT)
    assert result.code == 2
    assert "serving needs a session" in result.stderr


@ONE_CALL_LOG_GROUP
@pytest.mark.parametrize("recording", ["session", "log"])
def test_serve_answers_every_malformed_message_and_stays_up(
    tmp_path: Path, recording: str, one_call_log: bytes
) -> None:
    """JSON-RPC's own errors for what is not a request, line by line, and the next request still answered."""
    command = SERVE
    if recording == "log":
        log = tmp_path / "mcp.jsonl"
        log.write_bytes(one_call_log)
        command = [sys.executable, "-m", "toolreplay", "serve", str(log)]
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
        # a lone surrogate escape is JSON: the request is answered, its id kept as it came
        (b'{"jsonrpc": "2.0", "id": "\\ud800", "method": "no/such"}', -32601, "\ud800"),
        (b'{"jsonrpc": "2.0", "id": 8, "method": "no/such\\udc00"}', -32601, 8),
        (b'{"jsonrpc": "2.0", "id": 9, "method": "no/such\xed\xa0\x80"}', -32700, None),
        (b'{"jsonrpc": "2.0", "id": 10, "method": "ping", "params": {"x": 1e999}}', -32700, None),
        (b"{}", -32600, None),
        (b'{"jsonrpc": "2.0", "method": 7}', -32600, None),
        (
            b'{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "disk_usage", "arguments": []}}',
            -32602,
            11,
        ),
    ]
    unanswered = [
        b'{"jsonrpc": "2.0", "method": "notifications/anything"}',  # a notification
        b'{"jsonrpc": "2.0", "id": 12, "result": {}}',  # a response to a request the server never sent
    ]
    stdin = b"".join(line + b"\n" for line in [*(line for line, _, _ in lines), *unanswered])
    stdin += b'{"jsonrpc": "2.0", "id": "last", "method": "ping"}\n'
    proc = subprocess.run(command, input=stdin, capture_output=True, cwd=ROOT, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    responses = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["error"]["code"], r["id"]) for r in responses[:-1]] == [(code, rid) for _, code, rid in lines]
    assert responses[-1] == {"jsonrpc": "2.0", "id": "last", "result": {}}


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ({"jsonrpc": "2.0", "id": 1, "error": "boom"}, "a recorded error needs an integer 'code'"),
        ({"jsonrpc": "2.0", "id": 1, "result": [1]}, "a recorded result must be an object"),
        ({"jsonrpc": "2.0", "id": 1}, "a recorded response holds neither a 'result' nor an 'error'"),
    ],
)
def test_a_log_whose_response_json_rpc_cannot_carry_is_refused(
    tmp_path: Path, response: dict[str, Any], expected: str
) -> None:
    """A recorded failure must never be served as a success: the log is refused, naming the line."""
    log = tmp_path / "mcp.jsonl"
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
    lines = [
        {"command": ["s"], "event": "start", "v": 2},
        {"event": "request", "request": request, "response": response, "v": 2},
    ]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = run_cli("serve", str(log))
    assert result.code == 2
    assert f"mcp.jsonl:2: {expected}" in result.stderr


def test_progress_is_rebound_whatever_the_token_and_however_deep_the_notification(tmp_path: Path) -> None:
    log = tmp_path / "mcp.jsonl"
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
    deep = json.loads("[" * 600 + "1" + "]" * 600)
    progress = {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": 1, "progress": 1, "x": deep},
    }
    response = {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": False}}
    entries = [
        {"command": ["s"], "event": "start", "v": 2},
        {"event": "notification", "from": "server", "message": progress, "v": 2},
        {"event": "request", "request": request, "response": response, "v": 2},
    ]
    log.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    params = {"name": "t", "arguments": {}, "_meta": {"progressToken": "mine"}}
    call = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}).encode()
    proc = subprocess.run(
        [sys.executable, "-m", "toolreplay", "serve", str(log)],
        input=call + b"\n",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    sent = [json.loads(line) for line in proc.stdout.splitlines()]
    assert sent[0]["params"]["progressToken"] == "mine"
    assert sent[1] == {"jsonrpc": "2.0", "id": 2, "result": {"content": [], "isError": False}}


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
    faults: list[dict[str, Any]] = [
        {"tool": "disk_usage", "fault": "delay", "seconds": 0.3},
        {"tool": "delete_path", "fault": "drop"},
    ]
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
        (
            {"tool": "x", "fault": "explode"},
            "5: faults[0].fault: must be one of error, is_error, delay, hang, drop, cut, http",
        ),
        ({"tool": "x", "fault": "delay"}, "faults[0]: a delay needs 'seconds'"),
        ({"tool": "x", "fault": "delay", "seconds": -1}, "faults[0].seconds: must be between 0 and 3600"),
        ({"tool": "x", "fault": "error", "times": 0}, "faults[0].times: must be at least 1"),
        ({"tool": "", "fault": "hang"}, "faults[0].tool: must be a non-empty string"),
        ({"tool": "x", "fault": "hang", "extra": 1}, "unknown field 'extra' in a fault"),
        ({"tool": "x", "fault": "hang", "seconds": 2}, "faults[0].seconds: is for delay faults, not hang"),
        ({"tool": "x", "fault": "is_error", "code": 1}, "faults[0].code: is for error or http faults, not is_error"),
        ({"tool": "x", "fault": "cut", "status": 503}, "faults[0].status: is for http faults, not cut"),
        ({"tool": "x", "fault": "http"}, "faults[0]: an http fault needs 'status', as in 429 or 503"),
        ({"tool": "x", "fault": "http", "status": 200}, "faults[0].status: must be an error status, 400 to 599"),
        ({"tool": "x", "fault": "http", "status": 401, "headers": {"Content-Length": "9"}}, "the server's own to set"),
        ({"tool": "x", "fault": "http", "status": 401, "headers": {"X": "a\r\nB: c"}}, "cannot hold a line break"),
        ({"tool": "x", "fault": "http", "status": 401, "headers": {"X Y": "a"}}, "'X Y' is not a header name"),
        ({"tool": "x", "fault": "http", "status": 429}, "an http fault is for serve --http (stdio has no status)"),
    ],
)
def test_a_bad_faults_file_is_one_line_naming_the_line(tmp_path: Path, fault: dict[str, Any], expected: str) -> None:
    file = tmp_path / "faults.json"
    file.write_text(json.dumps({"faults": [fault]}, indent=1), encoding="utf-8")
    result = run_cli("serve", "samples/ops/session.json", "--faults", str(file))
    assert result.code == 2
    assert expected in result.stderr
    assert result.stderr.count("\n") == 1


SAMPLE_SERVER = [sys.executable, "samples/mcp/server.py"]
LIST_VAR_LOG = ("list_dir", {"host": "build-04", "path": "/var/log"})


@pytest.fixture(scope="module")
def one_call_log(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A log of one run that made one call, disk_usage, recorded through record-mcp from a server that answers it
    (serve on the sample session: up in a quarter of a second, where the SDK's sample server takes two; what these
    tests serve from the log is the log's, whichever server wrote it): once per process, each test writing it
    where it wants it."""
    log = tmp_path_factory.mktemp("one-call") / "mcp.jsonl"
    proxy = [sys.executable, "-m", "toolreplay", "record-mcp", "-o", str(log), "--", *SERVE]
    process = subprocess.Popen(proxy, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    client = RawClient(process)
    client.initialize()
    client.call(1, *USAGE)
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(timeout=60) == 0
    return log.read_bytes()


def _serve(log: Path, *extra: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[dict[str, Any]], str]:
    command = [sys.executable, "-m", "toolreplay", "serve", str(log), *extra]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    client = RawClient(process)
    client.initialize()
    answers = [client.call(number, name, arguments) for number, (name, arguments) in enumerate(calls, start=1)]
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(timeout=60) == 0
    assert process.stderr is not None
    return answers, process.stderr.read().decode()


@ONE_CALL_LOG_GROUP
def test_live_answers_what_the_log_lacks_and_records_it_for_the_next_replay(
    tmp_path: Path, one_call_log: bytes
) -> None:
    log = tmp_path / "mcp.jsonl"
    log.write_bytes(one_call_log)
    before = log.read_text().splitlines()
    live = ["--on-unrecorded", "live", "--", *SAMPLE_SERVER]
    answers, stderr = _serve(log, *live, calls=[USAGE, LIST_VAR_LOG, LIST_VAR_LOG])
    assert "journal" in text(answers[1]["result"])
    assert answers[2]["result"] == answers[1]["result"]  # the second time, from what was just recorded
    assert "3 calls, 0 never recorded, 1 answered live" in stderr
    after = log.read_text().splitlines()
    assert after[: len(before)] == before  # nothing recorded was rewritten
    assert len(after) == len(before) + 1
    assert json.loads(after[-1])["request"]["params"]["name"] == "list_dir"
    replayed, stderr = _serve(log, calls=[LIST_VAR_LOG])  # no live server now: the log has it
    assert replayed[0]["result"] == answers[1]["result"]
    assert "0 never recorded" in stderr


@ONE_CALL_LOG_GROUP
def test_live_all_records_everything_as_a_new_run_and_none_records_nothing(tmp_path: Path, one_call_log: bytes) -> None:
    """What --record keeps of live answers, whichever server gives them: the live server here is serve on the
    sample session (up in a quarter of a second, where the SDK's sample server, live in the test above, takes
    two), which answers the same calls."""
    log = tmp_path / "mcp.jsonl"
    log.write_bytes(one_call_log)
    original = log.read_bytes()
    answers, _ = _serve(log, "--on-unrecorded", "live", "--record", "none", "--", *SERVE, calls=[LIST_VAR_LOG])
    assert "journal" in text(answers[0]["result"])
    assert log.read_bytes() == original
    _serve(log, "--on-unrecorded", "live", "--record", "all", "--", *SERVE, calls=[USAGE, LIST_VAR_LOG])
    runs = [json.loads(line) for line in log.read_bytes()[len(original) :].splitlines()]
    assert runs[0]["event"] == "start"
    assert [entry["request"]["params"]["name"] for entry in runs[1:]] == ["disk_usage", "list_dir"]


@ONE_CALL_LOG_GROUP
def test_a_live_server_that_cannot_start_costs_the_call_not_the_server(tmp_path: Path, one_call_log: bytes) -> None:
    log = tmp_path / "mcp.jsonl"
    log.write_bytes(one_call_log)
    answers, _ = _serve(
        log, "--on-unrecorded", "live", "--", str(tmp_path / "no-such-server"), calls=[LIST_VAR_LOG, USAGE]
    )
    assert answers[0]["error"]["code"] == -32003
    assert "live server failed" in answers[0]["error"]["message"]
    assert "used_percent" in text(answers[1]["result"])  # recorded calls are still answered


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["--on-unrecorded", "live"], "needs the real server's command after --"),
        (["--", "python", "server.py"], "a server command is for --on-unrecorded live"),
        (["--record", "all"], "--record is for --on-unrecorded live"),
    ],
)
def test_live_is_asked_for_whole(tmp_path: Path, arguments: list[str], expected: str) -> None:
    log = tmp_path / "mcp.jsonl"
    log.write_text('{"command": ["s"], "event": "start", "v": 2}\n', encoding="utf-8")
    result = run_cli("serve", str(log), *arguments)
    assert result.code == 2
    assert expected in result.stderr


def test_a_session_is_never_written_to_by_live() -> None:
    session = str(ROOT / "samples" / "ops" / "session.json")
    result = run_cli("serve", session, "--on-unrecorded", "live", "--record", "new", "--", "x")
    assert result.code == 2
    assert "a session is never written to" in result.stderr
    replay = run_cli(
        "replay", "samples/ops/session.json", "--agent", "scripted:samples/ops/agent.py", "--on-unrecorded", "live"
    )
    assert replay.code == 2
    assert "must be one of stop, error, stub" in replay.stderr


HANGING_SERVER = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "h", "version": "0"}}
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    # anything else: never answered
"""


@ONE_CALL_LOG_GROUP
def test_a_live_server_that_never_answers_costs_that_request_its_timeout(tmp_path: Path, one_call_log: bytes) -> None:
    log = tmp_path / "mcp.jsonl"
    log.write_bytes(one_call_log)
    # The test waits the timeout out twice. A quarter of a second is enough whatever the load: the server answers
    # initialize and never the call, and one that started too slowly to answer initialize in time fails the same.
    hanging = ["--on-unrecorded", "live", "--live-timeout", "0.25", "--", sys.executable, "-c", HANGING_SERVER]
    started = time.monotonic()
    answers, stderr = _serve(log, *hanging, calls=[LIST_VAR_LOG, USAGE, LIST_VAR_LOG])
    assert answers[0]["error"]["code"] == -32003
    assert "did not answer within 0.25 s" in answers[0]["error"]["message"]
    assert "used_percent" in text(answers[1]["result"])  # the recorded call, answered at once after it
    assert answers[2]["error"]["code"] == -32003  # a new server, asked again, with the same result
    assert time.monotonic() - started < 30
    assert "3 calls" in stderr


@ONE_CALL_LOG_GROUP
def test_two_recorders_never_write_one_log_at_once(tmp_path: Path, one_call_log: bytes) -> None:
    """A run written by one recorder while another writes its own would interleave: the second is refused."""
    log = tmp_path / "mcp.jsonl"
    log.write_bytes(one_call_log)
    # What the first recorder records does not matter, only that it is up: a server that answers initialize
    # and nothing else starts in milliseconds, where the SDK's sample server takes a second and more.
    first = subprocess.Popen(
        [sys.executable, "-m", "toolreplay", "record-mcp", "-o", str(log), "--", sys.executable, "-c", HANGING_SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
    )
    client = RawClient(first)
    client.initialize()  # the first recorder is up and holds the log
    try:
        second = run_cli("serve", str(log), "--on-unrecorded", "live", "--record", "all", "--", *SAMPLE_SERVER)
        assert second.code == 2
        assert "another recorder is writing to" in second.stderr
    finally:
        assert first.stdin is not None
        first.stdin.close()
        first.wait(timeout=60)
