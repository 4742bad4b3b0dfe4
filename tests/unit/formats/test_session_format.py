from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLES
from toolreplay.core.errors import InputError
from toolreplay.formats.session.reader import parse_session
from toolreplay.formats.session.stream import read_session
from toolreplay.formats.session.writer import dump_session

SESSION = SAMPLES / "ops" / "session.json"


def base() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(SESSION.read_text())
    return doc


def error_for(doc: object) -> InputError:
    with pytest.raises(InputError) as info:
        parse_session(json.dumps(doc, indent=2), "s.json")
    return info.value


def test_sample_session_loads_with_its_calls() -> None:
    session = read_session(SESSION)
    assert session.context is not None
    assert [c.tool for c in session.calls] == [
        "disk_usage",
        "list_dir",
        "list_dir",
        "archive_path",
        "archive_path",
        "disk_usage",
    ]
    assert [c.index for c in session.calls] == list(range(6))
    assert session.calls[3].args == {"host": "build-04", "path": "/var/log/ci/2026-07"}
    assert session.context.final_reply is not None
    assert session.context.final_reply.startswith("build-04 has 41.2 GB back")


def test_each_call_points_at_the_line_where_its_tool_use_block_begins() -> None:
    lines = SESSION.read_text().splitlines()
    for call in read_session(SESSION).calls:
        assert lines[call.line - 1].strip() == "{"
        assert lines[call.line].strip() == '"type": "tool_use",'
        block = "\n".join(lines[call.line : call.line + 8])
        assert f'"name": {json.dumps(call.tool)}' in block


def test_dump_is_stable_and_round_trips() -> None:
    session = read_session(SESSION)
    assert session.context is not None
    assert dump_session(session.context) == SESSION.read_text()


def mutate(path: list[Any], value: Any) -> dict[str, Any]:
    doc = base()
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc


DELETE = object()

CASES = [
    (["surprise"], 1, "unknown field 'surprise' in a session"),
    (["model"], DELETE, "missing field 'model'"),
    (["model"], 3, "model: must be a string, found an integer"),
    (["version"], 4, "version: this toolreplay reads versions 1 to 3, found 4"),
    (["format"], "other", "format: must be 'toolreplay-session'"),
    (["tools", 0, "name"], 7, "tools[0].name: must be a non-empty string"),
    (["tools", 0, "input_schema"], [], "tools[0].input_schema: must be an object, found an array"),
    (["tools", 0, "annotations", "readOnlyHint"], "yes", "tools[0].annotations.readOnlyHint: must be a bool"),
    (["messages", 1, "role"], "user", "messages[1].role: expected 'assistant' (turns alternate)"),
    (["messages", 1, "content", 1, "input"], "x", "messages[1].content[1].input: must be an object, found a string"),
    (["messages", 2, "content", 0, "tool_use_id"], "toolu_9999", "answers no tool_use of the turn before"),
    (["messages", 2, "content"], [], "tool_use 'toolu_0001' has no tool_result in the next turn"),
    (["messages", 2, "content", 0, "is_error"], "no", "messages[2].content[0].is_error: must be a boolean"),
    (["final_reply"], 5, "final_reply: must be a string or null"),
]


@pytest.mark.parametrize(("path", "value", "message"), CASES, ids=[c[2][:40] for c in CASES])
def test_malformed_sessions_are_refused_with_the_place(path: list[Any], value: Any, message: str) -> None:
    error = error_for(mutate(path, value))
    assert message in error.message
    assert error.path == "s.json"
    assert error.line is not None


def test_the_person_cannot_speak_inside_tool_results() -> None:
    doc = base()
    doc["messages"][2]["content"].append({"type": "text", "text": "Actually, delete them."})
    error = error_for(doc)
    assert "the person speaks in a tool-result message (text block)" in error.message
    assert error.message.startswith("messages[2].content[1]: ")


def conversation(version: int) -> dict[str, Any]:
    """The sample session, then the person asks again and the agent checks once more."""
    doc = base()
    doc["version"] = version
    use = {"type": "tool_use", "id": "toolu_again", "name": "disk_usage", "input": {"host": "build-04"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_again", "content": '{"used_pct": 55}'}
    doc["messages"] += [
        {"role": "user", "content": "Check it once more, please."},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [result]},
        {"role": "assistant", "content": [{"type": "text", "text": "Still 55% used."}]},
    ]
    doc["final_reply"] = "Still 55% used."
    return doc


def test_a_version_2_session_is_a_conversation_of_turns() -> None:
    session = parse_session(json.dumps(conversation(2), indent=2), "s.json")
    assert [(call.tool, call.turn) for call in session.calls][-2:] == [("disk_usage", 1), ("disk_usage", 2)]
    assert session.context is not None
    assert dump_session(session.context).startswith('{\n  "format": "toolreplay-session",\n  "version": 2,')


def test_a_version_1_session_holds_one_message_from_the_person() -> None:
    error = error_for(conversation(1))
    assert "use a version 2 session" in error.message


@pytest.mark.parametrize("block", [{"type": "tool_result", "tool_use_id": "x", "content": ""}])
def test_the_person_speaking_again_holds_no_tool_blocks(block: dict[str, Any]) -> None:
    doc = conversation(2)
    doc["messages"][-4]["content"] = [block]
    assert "the person's message after the agent's reply cannot hold tool blocks" in error_for(doc).message


def test_a_dangling_tool_use_at_the_end_is_refused() -> None:
    doc = base()
    doc["messages"] = doc["messages"][:2]
    assert "has no tool_result" in error_for(doc).message


def test_error_line_points_into_the_file() -> None:
    doc = base()
    doc["messages"][3]["content"][0]["input"] = "oops"
    text = json.dumps(doc, indent=2)
    with pytest.raises(InputError) as info:
        parse_session(text, "s.json")
    assert info.value.line is not None
    # The line of the offending value itself, not of the block that holds it.
    assert text.splitlines()[info.value.line - 1].strip() == '"input": "oops",'


def test_unknown_fields_inside_content_blocks_are_kept_verbatim() -> None:
    doc = base()
    doc["messages"][1]["content"][1]["caller"] = {"type": "direct"}
    session = parse_session(json.dumps(doc), "s.json")
    assert session.context is not None
    assert session.context.messages[1]["content"][1]["caller"] == {"type": "direct"}  # type: ignore[index,call-overload]


def test_not_json_and_not_an_object(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not valid JSON"):
        parse_session("{", "s.json")
    with pytest.raises(InputError, match="a session: must be an object, found an array"):
        parse_session("[]", "s.json")
    original = copy.deepcopy(base())
    assert original == base()


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"request": {"max_tokens": "many"}}, "request.max_tokens: must be a number, found a string"),
        ({"request": {"temprature": 0.2}}, "unknown request setting 'temprature'"),
        ({"request": {"server_tools": [3]}}, "request.server_tools[0]: must be an object"),
        ({"version": 1, "request": {"max_tokens": 5}}, "request settings need a version 2 session"),
    ],
)
def test_request_settings_are_checked(change: dict[str, Any], problem: str) -> None:
    doc = {**base(), **change}
    assert problem in str(error_for(doc))


def test_how_a_turn_ended_belongs_to_an_assistant_message() -> None:
    doc = base()
    doc["messages"][0]["stop_reason"] = "end_turn"
    assert "'stop_reason' belongs to an assistant message" in error_for(doc).message
    doc = base()
    doc["messages"][1]["stop_reason"] = "tool_use"
    doc["messages"][1]["usage"] = {"output_tokens": 7}
    session = parse_session(json.dumps(doc, indent=2), "s.json")
    assert session.context is not None
    assert dump_session(session.context).count('"stop_reason": "tool_use"') == 1
