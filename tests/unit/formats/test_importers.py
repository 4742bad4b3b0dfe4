"""Each importer through the one table, on the shipped samples: the calls, the turns and what was left out."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT
from toolreplay.core.model import content_text
from toolreplay.formats.importers import IMPORTERS, read_transcript
from toolreplay.formats.importers.builder import ConversationBuilder, Notes
from toolreplay.formats.importers.claude_code import import_claude_code
from toolreplay.formats.importers.openai import import_openai
from toolreplay.formats.importers.otel import import_otel

SAMPLES = ROOT / "samples"


@pytest.mark.parametrize(
    ("kind", "path", "calls", "model"),
    [
        ("claude-code", SAMPLES / "claude-code" / "transcript.jsonl", 5, "claude-sonnet-4-5"),
        ("openai", SAMPLES / "openai" / "chat.json", 4, "gpt-4.1"),
        ("otel", SAMPLES / "otel" / "trace.json", 2, "claude-sonnet-4-5"),
    ],
)
def test_each_format_is_read_by_its_importer(kind: str, path: object, calls: int, model: str) -> None:
    notes = Notes()
    context = read_transcript(kind, str(path), None, notes)
    made = [
        block
        for message in context.messages
        if message["role"] == "assistant" and isinstance(message["content"], list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]
    assert (len(made), context.model) == (calls, model)
    assert IMPORTERS[kind].load() in (import_claude_code, import_openai, import_otel)


def test_a_call_with_no_result_is_left_out_and_said() -> None:
    notes = Notes()
    read_transcript("openai", str(SAMPLES / "openai" / "chat.json"), None, notes)
    assert notes.lines() == ["left out a call with no result: list_dir (call_9Sn4)"]


def test_the_builder_makes_turns_of_calls_and_their_results() -> None:
    notes = Notes()
    built = ConversationBuilder(notes)
    built.person("go")
    built.agent([{"type": "tool_use", "id": "a", "name": "read", "input": {}}, {"type": "text", "text": "reading"}])
    built.result("a", {"lines": 3})  # neither text nor blocks: kept as its JSON text
    built.agent([{"type": "tool_use", "id": "b", "name": "read", "input": []}])  # arguments not an object
    built.agent([{"type": "text", "text": "done"}])
    messages, final = built.finish()
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[2]["content"] == [{"type": "tool_result", "tool_use_id": "a", "content": '{"lines": 3}'}]
    last = messages[3]["content"]
    assert isinstance(last, list)
    assert (final, content_text(last, "")) == ("done", "done")
    assert notes.left_out == ["left out a call whose arguments are not an object: read (b)"]
