"""A client's whole workload, recorded through record-mcp and served back from the log, in every protocol mode.

The real `mcp` SDK client runs one workload (listing tools, resources,
templates and prompts, reading a resource, getting a prompt, completing an
argument, calling tools with structured content, images, resource links,
embedded resources, progress and log messages, a tool error and an unknown
tool) against the sample server built with the SDK, three ways: directly,
through the proxy, and against `toolreplay serve LOG`. Everything the client
returns must be identical.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, SAMPLES
from tests.fakes.mcp_raw import RawClient

pytest.importorskip("mcp", reason="the mcp extra is not installed")

import anyio
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import PromptReference

from tests.fixtures.mcp_clients import client_params

# One worker runs this module: each mode's recording (a fixture of the module) is then made once, not once on
# every worker that runs one of its tests.
pytestmark = pytest.mark.xdist_group("serve-fidelity")

FEATURES = [sys.executable, "-W", "ignore", str(SAMPLES / "mcp" / "features.py")]
TOOLREPLAY = [sys.executable, "-m", "toolreplay"]
MODES = ["legacy", "auto", "2026-07-28"]


async def _workload(mode: str, server: list[str] | str, sse: bool = False) -> list[Any]:
    """Everything the client sees, as plain JSON, in order; ``server``: a stdio command, or a Streamable HTTP URL
    (``sse``: the URL of a legacy SSE stream)."""
    seen: list[Any] = []
    steps: list[Any] = []
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params.model_dump(mode="json"))

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append([progress, total, message])

    async with Client(client_params(server, sse), mode=mode, logging_callback=on_log, log_level="debug") as client:
        seen.append(client.session.protocol_version if client.session else None)
        seen.append((await client.list_tools()).model_dump(mode="json"))
        seen.append((await client.list_resources()).model_dump(mode="json"))
        seen.append((await client.list_resource_templates()).model_dump(mode="json"))
        seen.append((await client.list_prompts()).model_dump(mode="json"))
        seen.append((await client.read_resource("host://build-04/status")).model_dump(mode="json"))
        seen.append((await client.get_prompt("free_space", {"host": "build-04"})).model_dump(mode="json"))
        completed = await client.complete(PromptReference(name="free_space"), {"name": "host", "value": "build"})
        seen.append(completed.model_dump(mode="json"))
        for name, arguments in [
            ("disk_report", {"host": "build-04"}),
            ("show_dir", {"host": "build-04", "path": "/var/log"}),
            ("disk_report", {"host": "no-such-host"}),
        ]:
            seen.append((await client.call_tool(name, arguments)).model_dump(mode="json"))
        archived = await client.call_tool(
            "archive_path", {"host": "build-04", "path": "/var/log/ci/2026-07"}, progress_callback=on_progress
        )
        seen.append(archived.model_dump(mode="json"))
        seen.append((await client.call_tool("no_such_tool", {})).model_dump(mode="json"))
        try:
            seen.append((await client.read_resource("host://build-04/status/none")).model_dump(mode="json"))
        except MCPError as exc:  # a request the server refuses: a JSON-RPC error, code and words
            seen.append(exc.error.model_dump(mode="json"))
    return [*seen, steps, logs]


def workload(mode: str, server: list[str] | str, sse: bool = False) -> list[Any]:
    return anyio.run(_workload, mode, server, sse)


@pytest.fixture(scope="module", params=MODES)
def recorded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, list[Any]]:
    mode = str(request.param)
    log = tmp_path_factory.mktemp("log") / "mcp.jsonl"
    seen = workload(mode, [*TOOLREPLAY, "record-mcp", "-o", str(log), "--", *FEATURES])
    return mode, log, seen


def test_the_proxy_changes_nothing_the_client_sees(recorded: tuple[str, Path, list[Any]]) -> None:
    mode, _, seen = recorded
    assert workload(mode, FEATURES) == seen
    progress, logs = seen[-2], seen[-1]
    assert [step[0] for step in progress] == [1.0, 2.0, 3.0]
    assert logs[0]["data"] == "archiving /var/log/ci/2026-07"


def test_serving_the_log_gives_the_client_everything_again(recorded: tuple[str, Path, list[Any]]) -> None:
    mode, log, seen = recorded
    served = workload(mode, [*TOOLREPLAY, "serve", str(log)])
    assert served == seen
    # What a session could not carry is all there: structured content, an output schema, a title, _meta ...
    tools = {tool["name"]: tool for tool in seen[1]["tools"]}
    assert tools["disk_report"]["output_schema"]["title"] == "DiskReport"
    assert tools["disk_report"]["title"] == "Disk report"
    assert tools["disk_report"]["meta"] == {"example.com/cost": "free"}
    shown = seen[9]
    assert [block["type"] for block in shown["content"]] == ["text", "image", "resource_link", "resource"]
    assert shown["content"][0]["annotations"]["priority"] == 0.5
    assert shown["structured_content"] == {"entries": 4}
    # ... errors as the server gave them: a tool's as an error result, a refused request's as a JSON-RPC error
    assert seen[10]["is_error"] is True
    assert seen[12]["is_error"] is True
    assert seen[13]["code"] < 0
    assert seen[13]["message"]


def test_the_log_holds_every_exchange_in_order(recorded: tuple[str, Path, list[Any]]) -> None:
    mode, log, _ = recorded
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    methods = [entry["request"]["method"] for entry in entries if entry["event"] == "request"]
    handshake = ["initialize"] if mode == "legacy" else ["server/discover"] if mode == "auto" else []
    assert methods[: len(handshake)] == handshake
    for method in ("tools/list", "resources/list", "resources/templates/list", "prompts/list", "resources/read"):
        assert method in methods
    assert {"prompts/get", "completion/complete", "tools/call"} <= set(methods)
    # the server's progress and log messages are logged before the response they came with
    archive = next(
        i for i, entry in enumerate(entries) if entry.get("request", {}).get("params", {}).get("name") == "archive_path"
    )
    before = [entry["message"]["method"] for entry in entries[:archive] if entry["event"] == "notification"]
    assert before.count("notifications/progress") == 3


@pytest.mark.parametrize("recorded", ["legacy"], indirect=True)
def test_a_log_recorded_before_2026_serves_a_client_pinned_to_it(recorded: tuple[str, Path, list[Any]]) -> None:
    """A legacy recording, served to a 2026-07-28 client: every request answers, with the recorded content."""
    _, log, seen = recorded
    served = workload("2026-07-28", [*TOOLREPLAY, "serve", str(log)])
    assert served[0] == "2026-07-28"
    for index in (8, 9, 10, 11):  # the tool results: same content and structured content as recorded
        assert served[index]["content"] == seen[index]["content"]
        assert served[index]["structured_content"] == seen[index]["structured_content"]
    assert served[-2] == seen[-2]  # progress, rebound to the new client's token


@pytest.mark.parametrize("mode", MODES)
def test_a_session_serves_every_protocol_mode(mode: str) -> None:
    async def session_calls() -> Any:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "toolreplay", "serve", "samples/ops/session.json"], cwd=str(ROOT)
        )
        async with Client(params, mode=mode) as client:
            tools = await client.list_tools()
            result = await client.call_tool("disk_usage", {"host": "build-04"})
            return [tool.name for tool in tools.tools], result.content[0].model_dump(mode="json")

    names, first = anyio.run(session_calls)
    assert names == ["disk_usage", "list_dir", "archive_path", "delete_path"]
    assert '"used_percent": 97' in first["text"]


@pytest.mark.parametrize("recorded", ["legacy"], indirect=True)
def test_progress_is_left_out_for_a_client_that_asked_for_none(recorded: tuple[str, Path, list[Any]]) -> None:
    _, log, _ = recorded  # the legacy workload, recorded through record-mcp
    serve = subprocess.Popen([*TOOLREPLAY, "serve", str(log)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    client = RawClient(serve)
    try:
        client.initialize()
        arguments = {"host": "build-04", "path": "/var/log/ci/2026-07"}
        client.send(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "archive_path", "arguments": arguments},
            }
        )
        first = client.receive()  # the recorded log message comes first; no progress without a token
        assert first["method"] == "notifications/message"
        answer = client.receive()
        assert answer["id"] == 7
        assert "result" in answer
        token = {"name": "archive_path", "arguments": arguments, "_meta": {"progressToken": "mine"}}
        client.send({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": token})
        received = [client.receive() for _ in range(5)]
        progress = [m for m in received if m.get("method") == "notifications/progress"]
        assert [m["params"]["progressToken"] for m in progress] == ["mine"] * 3
        assert received[-1]["id"] == 8
    finally:
        assert serve.stdin is not None
        serve.stdin.close()
        serve.wait(timeout=30)


@pytest.mark.parametrize("recorded", ["legacy"], indirect=True)
def test_a_cut_answer_sends_what_came_before_it_and_ends_the_connection(
    recorded: tuple[str, Path, list[Any]], tmp_path: Path
) -> None:
    """A ``cut`` fault over stdio: the archive's log message and progress reach the client, then the server ends
    its output, as a server that died mid-answer; the response never comes."""
    _, log, _ = recorded
    faults = tmp_path / "faults.json"
    faults.write_text(json.dumps({"faults": [{"tool": "archive_path", "fault": "cut"}]}), encoding="utf-8")
    serve = subprocess.Popen(
        [*TOOLREPLAY, "serve", str(log), "--faults", str(faults)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    client = RawClient(serve)
    client.initialize()
    arguments = {"host": "build-04", "path": "/var/log/ci/2026-07"}
    params = {"name": "archive_path", "arguments": arguments, "_meta": {"progressToken": 1}}
    client.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
    received = [client.receive() for _ in range(4)]
    assert [m["method"] for m in received] == ["notifications/message"] + ["notifications/progress"] * 3
    with pytest.raises(EOFError):
        client.receive()
    assert serve.wait(timeout=30) == 0


V1_LOG = """\
{"v": 1, "event": "start", "command": ["server"]}
{"v": 1, "event": "tools/list", "request": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, \
"response": {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "disk_usage", \
"inputSchema": {"type": "object"}}]}}}
{"v": 1, "event": "tools/call", "request": {"jsonrpc": "2.0", "id": 2, "method": "tools/call", \
"params": {"name": "disk_usage", "arguments": {"host": "build-04"}}}, \
"response": {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "97%"}], "isError": false}}}
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_version_1_log_with_no_handshake_serves_every_mode(tmp_path: Path, mode: str) -> None:
    log = tmp_path / "v1.jsonl"
    log.write_text(V1_LOG, encoding="utf-8")

    async def calls() -> Any:
        params = StdioServerParameters(command=sys.executable, args=["-m", "toolreplay", "serve", str(log)])
        async with Client(params, mode=mode) as client:
            tools = await client.list_tools()
            result = await client.call_tool("disk_usage", {"host": "build-04"})
            return [tool.name for tool in tools.tools], result.model_dump(mode="json")

    names, result = anyio.run(calls)
    assert names == ["disk_usage"]
    assert result["content"][0]["text"] == "97%"
    assert result["is_error"] is False
