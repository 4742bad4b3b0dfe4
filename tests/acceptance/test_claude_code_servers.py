"""Claude Code with two MCP servers, recorded live with ``toolreplay record`` and replayed with ``cmd:``: the model
is shown the same tools, under the same names, in the replay as live, whether the replayed servers are commands
or, as remote servers are, URLs (``"type": "http"`` in Claude Code's configuration).

Claude Code runs headless against the local stand-in of the Messages API (tests/fakes/ops_model.py, the sample's
build-host policy), with the sample's build-host server and a real third-party one (mcp-server-time), each named
in its configuration as a user would name them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.test_agents import CLAUDE, CLAUDE_ENV, needs_claude
from tests.conftest import ROOT, run_cli
from tests.fakes.anthropic_server import FakeMessagesAPI, api_vars, serve
from tests.fakes.ops_model import respond

pytestmark = [needs_claude, pytest.mark.xdist_group("claude-code")]

COMMAND = (
    f"cmd:{CLAUDE} -p {{task}} --mcp-config {{mcp_config}} --strict-mcp-config "
    "--allowedTools mcp__ops,mcp__time --max-turns 30 --output-format json"
)
TASK = "build-04 is almost out of disk space."


def _shown(api: FakeMessagesAPI) -> list[Any]:
    """The MCP tools the model was shown in its first request that offered any: names, words and schemas."""
    for request in api.requests:
        tools = [tool for tool in request.get("tools", []) if tool.get("name", "").startswith("mcp__")]
        if tools:
            return sorted(tools, key=lambda tool: str(tool["name"]))
    return []


def _tool_uses(api: FakeMessagesAPI) -> list[Any]:
    """The tool calls the model made, in order: Claude Code's last request carries the whole conversation."""
    uses: list[Any] = []
    last = api.requests[-1] if api.requests else {}
    for message in last.get("messages", []):
        if message.get("role") == "assistant" and isinstance(message.get("content"), list):
            uses.extend(block for block in message["content"] if block.get("type") == "tool_use")
    return uses


def test_claude_code_is_shown_the_same_two_servers_live_and_replayed_over_either_transport(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    with serve() as api:
        api.respond = respond
        recorded = run_cli(
            "record", "--agent", COMMAND,
            "--server", f"ops={sys.executable} samples/mcp/server.py",
            "--server", f"time={Path(sys.executable).parent / 'mcp-server-time'}",
            "-o", str(out), "--task", TASK,
            cwd=ROOT, env={**api_vars(api), **CLAUDE_ENV},
        )  # fmt: skip
        live = _shown(api)
    assert recorded.code == 0, recorded.stdout + recorded.stderr
    session = json.loads((out / "run-0001.json").read_text(encoding="utf-8"))
    assert sorted(server["name"] for server in session["servers"]) == ["ops", "time"]  # in the order they started
    called = [b["name"] for m in session["messages"] if m["role"] == "assistant" for b in m["content"] if "name" in b]
    assert called[0] == "disk_usage"  # by the tool's own name; the server it went to is the session's to say
    assert session["final_reply"]
    assert {tool["name"] for tool in live} >= {"mcp__ops__delete_path", "mcp__time__get_current_time"}
    made: dict[str, list[Any]] = {}
    for transport in ("stdio", "http"):
        with serve() as api:
            api.respond = respond
            replayed = run_cli(
                "replay", str(out / "run-0001.json"), "--agent", COMMAND, "--repeat", "1",
                "--mcp-transport", transport,
                cwd=ROOT, env={**api_vars(api), **CLAUDE_ENV},
            )  # fmt: skip
            again = _shown(api)
            made[transport] = [(block["name"], block["input"]) for block in _tool_uses(api)]
        assert replayed.code == 0, replayed.stdout + replayed.stderr
        assert again == live  # the same tools, names, descriptions and schemas, from the servers as they were
        assert "verdict: PASS" in replayed.stdout
    assert made["http"] == made["stdio"]  # the transport changes nothing the agent does
    assert made["stdio"][0][0] == "mcp__ops__disk_usage"
