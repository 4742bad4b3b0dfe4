"""The outline of a session: what ``show`` prints around its calls, the person's messages among them."""

from __future__ import annotations

from toolreplay.core.model import SessionContext, ToolDef
from toolreplay.formats.session.shape import FIELDS, OPTIONAL, READS, Outline, person_messages


def test_the_persons_messages_are_the_opening_and_each_new_turn_not_the_results() -> None:
    use = {"type": "tool_use", "id": "t", "name": "read", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t", "content": "x"}
    messages = (
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [result]},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        {"role": "user", "content": "second"},
    )
    assert [m["content"] for m in person_messages(messages)] == ["first", "second"]  # type: ignore[arg-type]
    context = SessionContext("m", {"kind": "run"}, "", (ToolDef("read", "", {}),), messages, "done")  # type: ignore[arg-type]
    outline = Outline.of(context)
    assert (outline.model, outline.final_reply, len(outline.said)) == ("m", "done", 2)


def test_the_format_knows_its_versions_and_fields() -> None:
    assert READS == (1, 2, 3)
    assert set(OPTIONAL) <= set(FIELDS)
