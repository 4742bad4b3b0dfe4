"""The recorder behind RecordingClient, given the SDK's own response objects: what the program asked and what the
model said become a session that reads back, its secrets redacted; what cannot be recorded warns, never raises."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolreplay.formats.recording import load_session
from toolreplay.record.anthropic_client import SessionRecorder, json_of


def _message(content: list[dict[str, Any]], stop: str) -> object:
    from anthropic.types import Message  # noqa: PLC0415 - the SDK's own response type

    return Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": content,
        "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 2},
    })  # fmt: skip


def test_a_recorded_exchange_reads_back_as_a_session(tmp_path: Path) -> None:
    recorder = SessionRecorder(tmp_path / "session.json")
    tools: list[dict[str, Any]] = [{"name": "read", "description": "Read.", "input_schema": {"type": "object"}}]
    asked: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 100, "system": "Be careful.", "tools": tools,
             "messages": [{"role": "user", "content": "read it; the key is sk-ant-api03-" + "a" * 40}]}  # fmt: skip
    use: dict[str, Any] = {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "/etc/hosts"}}
    recorder.record(asked, _message([use], "tool_use"))
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": "t1", "content": "127.0.0.1"}
    turns = [*asked["messages"], {"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]
    answered = {**asked, "messages": turns}
    recorder.record(answered, _message([{"type": "text", "text": "done"}], "end_turn"))
    session = load_session(str(tmp_path / "session.json"))
    assert [(call.tool, call.args, call.result) for call in session.calls] == [
        ("read", {"path": "/etc/hosts"}, "127.0.0.1")
    ]
    assert session.context is not None
    assert session.context.final_reply == "done"
    assert "sk-ant-api03-" not in (tmp_path / "session.json").read_text(encoding="utf-8")


def test_what_is_not_a_message_warns_and_writes_nothing(tmp_path: Path) -> None:
    recorder = SessionRecorder(tmp_path / "session.json")
    with pytest.warns(RuntimeWarning, match="could not record"):
        recorder.record({"model": "m", "messages": []}, {"not": "a message"})
    assert not (tmp_path / "session.json").exists()
    assert json_of({"a": (1, 2)}) == {"a": [1, 2]}
