"""A proxy never sees the person's message: a session imported without one says so, where it is made and where
it would be sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.formats.test_import_strict import READ, mcp_log, toolreplay, tools_call, tools_list
from toolreplay.formats.mcp_log.log import DEFAULT_TASK
from toolreplay.formats.session.stream import read_session


def opening(path: Path) -> object:
    context = read_session(path).context
    assert context is not None
    return context.messages[0]["content"]


def test_import_without_a_task_warns_that_replay_would_send_the_placeholder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = mcp_log(tmp_path, tools_list(READ), tools_call({"p": 1}))
    out = tmp_path / "s.json"
    code, said, warned = toolreplay(capsys, "import", str(log), "--from", "mcp", "-o", str(out))
    assert code == 0
    assert said.startswith(f"wrote {out}: ")
    assert warned.count("\n") == 1
    assert warned.startswith("toolreplay: warning: ")
    assert repr(DEFAULT_TASK) in warned
    assert "--task" in warned
    assert opening(out) == DEFAULT_TASK


def test_import_with_a_task_says_nothing_more(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = mcp_log(tmp_path, tools_list(READ), tools_call({"p": 1}))
    out = tmp_path / "s.json"
    code, _, warned = toolreplay(capsys, "import", str(log), "--from", "mcp", "-o", str(out), "--task", "Read p.")
    assert (code, warned) == (0, "")
    assert opening(out) == "Read p."


def test_replaying_a_session_without_its_task_says_what_the_runs_are_sent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = mcp_log(tmp_path, tools_list(READ), tools_call({"p": 1}))
    out = tmp_path / "s.json"
    toolreplay(capsys, "import", str(log), "--from", "mcp", "-o", str(out))
    agent = tmp_path / "agent.py"
    agent.write_text(
        "class Agent:\n"
        "    def __init__(self, seed):\n        pass\n"
        "    def respond(self, system, tools, messages):\n        return [{'type': 'text', 'text': 'done'}]\n",
        encoding="utf-8",
    )
    code, said, warned = toolreplay(capsys, "replay", str(out), "--agent", f"scripted:{agent}", "--repeat", "2")
    assert code == 0, warned
    assert said
    assert warned.startswith(f"toolreplay: warning: {out} holds {DEFAULT_TASK!r} where the person's message belongs")
    assert warned.count("\n") == 1
