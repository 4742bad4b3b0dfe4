"""RecordingClient with the real anthropic SDK against a local server."""

from __future__ import annotations

import asyncio
import json
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.fakes.anthropic_server import message, run_toolreplay, serve
from toolreplay.core.canonical import JSONObject
from toolreplay.formats.session.stream import read_session
from toolreplay.record import AsyncRecordingClient, RecordingClient

# Looked for when the tests are collected, imported where a test uses it: the SDK takes two seconds to import.
pytestmark = pytest.mark.skipif(find_spec("anthropic") is None, reason="the anthropic extra is not installed")


def sdk() -> ModuleType:
    """The anthropic SDK."""
    import anthropic  # noqa: PLC0415

    return anthropic


SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2
THINKING = {"type": "thinking", "thinking": "The disk is full; look first.", "signature": "c2lnbmF0dXJlLWJ5dGVz"}
TOOLS = [
    {
        "name": "disk_usage",
        "description": "Report how full a host's disk is.",
        "input_schema": {"type": "object", "properties": {"host": {"type": "string"}}, "required": ["host"]},
    }
]
ANNOTATIONS: dict[str, JSONObject] = {"disk_usage": {"readOnlyHint": True}}


def conversation(create: Any) -> list[Any]:
    """The usual agent loop, run by hand: ask, run the tool, ask again."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Free space on build-04."}]
    first = create(model="claude-test", max_tokens=256, system="Be careful.", tools=TOOLS, messages=messages)
    messages.append({"role": "assistant", "content": first.content})
    use = next(block for block in first.content if block.type == "tool_use")
    result = {"type": "tool_result", "tool_use_id": use.id, "content": f'{{"used_percent": 97, "token": "{SECRET}"}}'}
    messages.append({"role": "user", "content": [result]})
    second = create(model="claude-test", max_tokens=256, system="Be careful.", tools=TOOLS, messages=messages)
    return [first, second]


def queue_turns(api: Any) -> None:
    tool_use = {"type": "tool_use", "id": "toolu_01", "name": "disk_usage", "input": {"host": "build-04"}}
    api.queue(message([THINKING, tool_use], stop_reason="tool_use"))
    api.queue(message([{"type": "text", "text": "The disk is at 97%."}]))


def test_records_the_conversation_and_passes_everything_through(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    with serve() as api:
        queue_turns(api)
        client = RecordingClient(
            sdk().Anthropic(base_url=api.url, api_key="sk-ant-test-key-0000000000000000", max_retries=0),
            path,
            annotations=ANNOTATIONS,
        )
        first, second = conversation(client.messages.create)

    # The SDK's responses come back unchanged.
    assert first.content[0].type == "thinking"
    assert first.content[0].signature == THINKING["signature"]
    assert second.content[0].text == "The disk is at 97%."

    # The exact requests the SDK sent: the thinking block went back unchanged, no annotations.
    assert api.requests[0]["tools"] == TOOLS
    assert api.requests[0]["system"] == "Be careful."
    sent_back = api.requests[1]["messages"][1]["content"]
    assert sent_back[0] == THINKING
    assert "annotations" not in json.dumps(api.requests)

    session = read_session(path)
    assert session.context is not None
    assert session.context.model == "claude-test"
    assert session.context.final_reply == "The disk is at 97%."
    assert session.context.messages[1]["content"][0] == THINKING  # type: ignore[index]
    assert session.context.tools[0].annotations == {"readOnlyHint": True}
    assert [(c.tool, c.args) for c in session.calls] == [("disk_usage", {"host": "build-04"})]
    assert SECRET.encode() not in path.read_bytes()
    assert "[REDACTED:github-token:" in path.read_text()


def test_while_a_tool_call_is_pending_the_file_holds_the_last_complete_session(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    with serve() as api:
        queue_turns(api)
        client = RecordingClient(sdk().Anthropic(base_url=api.url, api_key="k", max_retries=0), path)
        messages = [{"role": "user", "content": "Free space on build-04."}]
        client.messages.create(model="claude-test", max_tokens=256, tools=TOOLS, messages=messages)
    session = read_session(path)
    assert session.calls == ()
    assert session.context is not None
    assert session.context.final_reply is None
    assert len(session.context.messages) == 1


def test_async_client_records_too(tmp_path: Path) -> None:
    path = tmp_path / "session.json"

    async def run(url: str) -> None:
        client = AsyncRecordingClient(sdk().AsyncAnthropic(base_url=url, api_key="k", max_retries=0), path)
        messages: list[dict[str, Any]] = [{"role": "user", "content": "Free space on build-04."}]
        first = await client.messages.create(model="claude-test", max_tokens=256, tools=TOOLS, messages=messages)
        messages.append({"role": "assistant", "content": first.content})
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "97%"}]}
        )
        await client.messages.create(model="claude-test", max_tokens=256, tools=TOOLS, messages=messages)

    with serve() as api:
        queue_turns(api)
        asyncio.run(run(api.url))
    session = read_session(path)
    assert [c.result for c in session.calls] == ["97%"]
    assert session.context is not None
    assert session.context.final_reply == "The disk is at 97%."


def test_a_recording_problem_warns_and_never_breaks_the_call(tmp_path: Path) -> None:
    path = tmp_path / "missing-dir" / "session.json"
    with serve() as api:
        api.queue(message([{"type": "text", "text": "hi"}]))
        client = RecordingClient(sdk().Anthropic(base_url=api.url, api_key="k", max_retries=0), path)
        with pytest.warns(RuntimeWarning, match="could not record"):
            response = client.messages.create(
                model="claude-test", max_tokens=16, messages=[{"role": "user", "content": "hello"}]
            )
    assert response.content[0].text == "hi"


def test_run_drives_a_claude_model_through_the_sdk(tmp_path: Path) -> None:
    """`toolreplay run --agent MODEL` against the local server: what is sent, and what is recorded."""
    out = tmp_path / "session.json"
    with serve() as api:
        use = {"type": "tool_use", "id": "toolu_01", "name": "disk_usage", "input": {"host": "build-04"}}
        api.queue(message([THINKING, use], stop_reason="tool_use"))
        api.queue(message([{"type": "text", "text": "It is at 97%."}]))
        proc = run_toolreplay(
            api,
            "run",
            "samples/ops/tools.py",
            "--agent",
            "claude-test",
            "--system",
            "samples/ops/prompt.txt",
            "--task-file",
            "samples/ops/task.txt",
            "-o",
            str(out),
            cwd=ROOT,
        )
    assert proc.code == 0, proc.stderr
    first, second = api.requests
    assert first["model"] == "claude-test"
    prompt = (ROOT / "samples" / "ops" / "prompt.txt").read_text().rstrip("\n")
    assert first["system"] == [{"type": "text", "text": prompt, "cache_control": {"type": "ephemeral"}}]
    assert [tool["name"] for tool in first["tools"]] == ["disk_usage", "list_dir", "archive_path", "delete_path"]
    assert all(set(tool) == {"name", "description", "input_schema"} for tool in first["tools"][:-1])
    assert first["tools"][-1]["cache_control"] == {"type": "ephemeral"}  # one breakpoint after the tools
    assert second["messages"][1]["content"][0] == THINKING
    assert json.loads(second["messages"][2]["content"][0]["content"])["used_percent"] == 97
    session = read_session(out)
    assert session.context is not None
    assert session.context.model == "claude-test"
    assert session.context.source == {"kind": "run", "tools": "samples/ops/tools.py"}
    assert session.context.messages[1]["content"][0] == THINKING  # type: ignore[index]
    assert session.context.final_reply == "It is at 97%."
