"""Real Claude Code, offline: run headless against the local Messages API, its MCP server behind record-mcp,
then its own transcript imported and compared with what the proxy logged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, run_cli
from tests.fakes.anthropic_server import api_env, message, serve
from toolreplay.formats.session.stream import read_session

CLAUDE = ROOT / "tests" / "servers" / "node_modules" / ".bin" / "claude"
TASK = "Archive the old CI logs on build-04."

pytestmark = pytest.mark.skipif(
    not CLAUDE.exists(), reason="Claude Code is not installed (scripts/check installs it with npm when Node is present)"
)


def model(request: dict[str, Any]) -> dict[str, Any]:
    """A scripted stand-in for the model: list the CI logs, archive July's, then say so."""
    used = [
        block.get("name", "")
        for m in request["messages"]
        if m["role"] == "assistant" and isinstance(m["content"], list)
        for block in m["content"]
        if block.get("type") == "tool_use"
    ]
    if not any(name.endswith("list_dir") for name in used):
        thinking = {"type": "thinking", "thinking": "Look before touching anything.", "signature": "c2lnbmF0dXJl"}
        call = {
            "type": "tool_use",
            "id": "toolu_01",
            "name": "mcp__ops__list_dir",
            "input": {"host": "build-04", "path": "/var/log/ci"},
        }
        return message([thinking, call], stop_reason="tool_use", model="claude-sonnet-4-5")
    if not any(name.endswith("archive_path") for name in used):
        call = {
            "type": "tool_use",
            "id": "toolu_02",
            "name": "mcp__ops__archive_path",
            "input": {"host": "build-04", "path": "/var/log/ci/2026-07"},
        }
        return message([call], stop_reason="tool_use", model="claude-sonnet-4-5")
    return message([{"type": "text", "text": "Archived the July CI logs."}], model="claude-sonnet-4-5")


def test_claude_code_transcript_imports_and_matches_the_proxy_log(tmp_path: Path) -> None:
    home, work, log = tmp_path / "home", tmp_path / "work", tmp_path / "ops.log"
    home.mkdir()
    work.mkdir()
    proxy = [
        sys.executable,
        "-m",
        "toolreplay",
        "record-mcp",
        "-o",
        str(log),
        "--",
        sys.executable,
        str(ROOT / "samples" / "mcp" / "server.py"),
    ]
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"ops": {"command": proxy[0], "args": proxy[1:]}}}), encoding="utf-8")
    with serve() as api:
        api.respond = model
        env = api_env(
            api,
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_AUTOUPDATER="1",
            ENABLE_TOOL_SEARCH="false",  # offer the MCP tools directly rather than behind a search
            HOME=str(home),
        )
        allowed = "mcp__ops__list_dir,mcp__ops__archive_path"
        done = subprocess.run(
            [
                str(CLAUDE),
                "-p",
                TASK,
                "--mcp-config",
                str(config),
                "--allowedTools",
                allowed,
                "--output-format",
                "json",
            ],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "Archived the July CI logs."
    (transcript,) = (home / ".claude" / "projects").glob("*/*.jsonl")

    imported = tmp_path / "claude.json"
    result = run_cli("import", str(transcript), "--from", "claude-code", "--mcp-log", str(log), "-o", str(imported))
    assert result.code == 0, result.stderr
    session = read_session(imported)
    assert [(c.tool, c.args) for c in session.calls] == [
        ("list_dir", {"host": "build-04", "path": "/var/log/ci"}),
        ("archive_path", {"host": "build-04", "path": "/var/log/ci/2026-07"}),
    ]
    assert session.context is not None
    assert session.context.final_reply == "Archived the July CI logs."
    assert session.context.tools[0].annotations is not None  # from the proxy log
    # what Claude Code wrote and what the proxy saw are the same calls
    proxied = tmp_path / "proxy.json"
    assert run_cli("import", str(log), "--from", "mcp", "--task", TASK, "-o", str(proxied)).code == 0
    same = run_cli("diff", str(proxied), str(imported))
    assert same.code == 0
    assert "same 2 · moved 0 · changed 0 · added 0 · removed 0" in same.stdout
    assert run_cli("audit", str(imported)).code == 0
