"""One rule for the text of a message or a prompt, wherever toolreplay takes it."""

from __future__ import annotations

from toolreplay.agents.base import Turn
from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.model import content_text
from toolreplay.report.text import person_texts
from toolreplay.results.locate import prompt_text

BLOCKS: list[JSONObject] = [
    {"type": "text", "text": "Free space"},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}},
    {"type": "text", "text": "on build-04."},
    {"type": "tool_result", "tool_use_id": "t1", "content": "ignored"},
    {"type": "text", "text": 5},  # not text
]


def test_only_text_blocks_give_text_and_a_string_is_its_own() -> None:
    assert content_text(BLOCKS, "\n") == "Free space\non build-04."
    assert content_text(BLOCKS, "") == "Free spaceon build-04."
    assert content_text("as written", "\n") == "as written"
    assert content_text(None, "\n") == content_text({"type": "text"}, "\n") == ""


def test_every_reader_of_text_agrees_with_it() -> None:
    as_value: list[JSONValue] = list(BLOCKS)
    assert prompt_text(as_value) == content_text(BLOCKS, "\n")  # the line a check points at in a prompt...
    assert Turn(BLOCKS, "end_turn").text == content_text(BLOCKS, "")  # ...and a reply's text
    assert person_texts([{"role": "user", "content": as_value}]) == ["Free space on build-04."]
    assert person_texts([{"role": "user", "content": [as_value[1]]}]) == ["(no text)"]
