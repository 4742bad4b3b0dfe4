"""Real third-party MCP servers, recorded through record-mcp and served again from the log.

Python servers from PyPI (`mcp-server-time`, `mcp-server-git`, in the dev
extra) and the reference servers from npm (`server-everything`, which uses
every MCP feature, and `server-filesystem`; `.ci/run` installs them into
tests/servers). For each, the real `mcp` SDK client runs a workload through the
proxy, then the same workload against `toolreplay serve LOG`: everything the
client gets back must be identical.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

pytest.importorskip("mcp", reason="the mcp extra is not installed")

import anyio
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError

from tests.fixtures.mcp_clients import client_params

TOOLREPLAY = [sys.executable, "-m", "toolreplay"]
NODE_SERVERS = ROOT / "tests" / "servers" / "node_modules" / ".bin"
Step = tuple[str, Any]


async def workload_of(mode: str, server: list[str] | str, steps: list[Step], sse: bool = False) -> list[Any]:
    """What the client sees of ``steps``; ``server``: a stdio command, or a Streamable HTTP URL (``sse``: a legacy
    SSE stream's)."""
    seen: list[Any] = []
    steps_done: list[Any] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps_done.append([progress, total, message])

    async with Client(client_params(server, sse), mode=mode) as client:
        seen.append((await client.list_tools()).model_dump(mode="json"))
        for kind, argument in steps:
            try:
                if kind == "call":
                    name, arguments = argument
                    result: Any = await client.call_tool(name, arguments, progress_callback=on_progress)
                elif kind == "resources":
                    result = await client.list_resources()
                elif kind == "read":
                    result = await client.read_resource(argument)
                elif kind == "prompts":
                    result = await client.list_prompts()
                else:
                    name, arguments = argument
                    result = await client.get_prompt(name, arguments)
                seen.append(result.model_dump(mode="json"))
            except MCPError as exc:
                seen.append(exc.error.model_dump(mode="json"))
    return [*seen, steps_done]


def roundtrip(tmp_path: Path, server: list[str], steps: list[Step], mode: str = "legacy") -> tuple[list[Any], Path]:
    """The workload through the proxy, then against serve: both as the client saw them; the log."""
    log = tmp_path / "mcp.jsonl"
    recorded = anyio.run(workload_of, mode, [*TOOLREPLAY, "record-mcp", "-o", str(log), "--", *server], steps)
    served = anyio.run(workload_of, mode, [*TOOLREPLAY, "serve", str(log)], steps)
    assert served == recorded
    return recorded, log


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_time_server(tmp_path: Path, mode: str) -> None:
    server = [str(Path(sys.executable).parent / "mcp-server-time")]
    steps: list[Step] = [
        ("call", ("get_current_time", {"timezone": "Europe/London"})),
        ("call", ("convert_time", {"source_timezone": "Etc/UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"})),
        ("call", ("get_current_time", {"timezone": "Not/AZone"})),
    ]
    recorded, _ = roundtrip(tmp_path, server, steps, mode)
    assert '"Asia/Tokyo"' in recorded[2]["content"][0]["text"]
    assert recorded[3]["is_error"] is True


def test_git_server(tmp_path: Path) -> None:
    repository = tmp_path / "repository"
    repository.mkdir()
    git = ["git", "-C", str(repository), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    (repository / "notes.txt").write_text("first\n", encoding="utf-8")
    subprocess.run([*git, "add", "notes.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)
    (repository / "notes.txt").write_text("second\n", encoding="utf-8")
    server = [str(Path(sys.executable).parent / "mcp-server-git"), "--repository", str(repository)]
    where = {"repo_path": str(repository)}
    steps: list[Step] = [
        ("call", ("git_status", where)),
        ("call", ("git_diff_unstaged", where)),
        ("call", ("git_log", {**where, "max_count": 5})),
        ("call", ("git_show", {**where, "revision": "HEAD"})),
        ("call", ("git_show", {**where, "revision": "no-such-revision"})),
    ]
    recorded, _ = roundtrip(tmp_path, server, steps)
    assert "+second" in recorded[2]["content"][0]["text"]


def node_server(name: str) -> list[str]:
    binary = NODE_SERVERS / name
    if not binary.exists() or shutil.which("node") is None:
        pytest.skip(f"{name} is not installed: npm install --prefix tests/servers (as .ci/run does)")
    return [str(binary)]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_reference_server_with_every_feature(tmp_path: Path, mode: str) -> None:
    server = [*node_server("mcp-server-everything"), "stdio"]
    steps: list[Step] = [
        ("call", ("echo", {"message": "hello"})),
        ("call", ("get-sum", {"a": 2, "b": 3})),
        ("call", ("get-annotated-message", {"messageType": "error", "includeImage": True})),
        ("call", ("get-tiny-image", {})),
        ("call", ("get-resource-links", {"count": 2})),
        ("call", ("get-resource-reference", {"resourceType": "Text", "resourceId": 1})),
        ("call", ("get-structured-content", {"location": "Chicago"})),
        ("call", ("trigger-long-running-operation", {"duration": 0.3, "steps": 3})),
        ("call", ("no-such-tool", {})),
        ("resources", None),
        ("read", "demo://resource/static/document/architecture.md"),
        ("prompts", None),
        ("prompt", ("args-prompt", {"city": "Lisbon", "state": "Lisboa"})),
    ]
    recorded, log = roundtrip(tmp_path, server, steps, mode)
    kinds = {block["type"] for result in recorded[1:9] for block in result.get("content", [])}
    assert {"text", "image", "resource_link", "resource"} <= kinds
    assert recorded[7]["structured_content"] is not None
    assert len(recorded[-1]) == 3  # the long operation's progress, served again to the new token
    assert '"method":"notifications/progress"' in log.read_text().replace(" ", "")


def test_the_reference_filesystem_server(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "docs").mkdir(parents=True)
    (shared / "docs" / "a.md").write_text("# A\n", encoding="utf-8")
    server = [*node_server("mcp-server-filesystem"), str(shared)]
    steps: list[Step] = [
        ("call", ("list_directory", {"path": str(shared / "docs")})),
        ("call", ("read_text_file", {"path": str(shared / "docs" / "a.md")})),
        ("call", ("get_file_info", {"path": str(shared / "docs" / "a.md")})),
        ("call", ("read_text_file", {"path": "/etc/passwd"})),
    ]
    recorded, _ = roundtrip(tmp_path, server, steps)
    assert "a.md" in recorded[1]["content"][0]["text"]
