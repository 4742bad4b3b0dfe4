"""Every importer refuses what the session reader refuses, at the file and line to fix, and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolreplay.cli import main
from toolreplay.core.errors import InputError
from toolreplay.formats.session.reader import parse_session
from toolreplay.formats.session.stream import read_session

KEPT = "the user's own file\n"


def toolreplay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def refused(capsys: pytest.CaptureFixture[str], source: Path, kind: str, says: str, line: int) -> None:
    """The import fails with one line naming ``source`` at ``line``, and the output already there is untouched."""
    out = source.parent / "out.json"
    out.write_text(KEPT, encoding="utf-8")
    code, stdout, stderr = toolreplay(capsys, "import", str(source), "--from", kind, "-o", str(out))
    assert (code, stdout) == (2, "")
    assert stderr.count("\n") == 1
    assert stderr.startswith(f"toolreplay: error: {source}:{line}: "), stderr
    assert says in stderr
    assert out.read_text(encoding="utf-8") == KEPT


def mcp_log(tmp_path: Path, *exchanges: tuple[str, dict[str, object], dict[str, object]]) -> Path:
    lines = [{"command": ["server"], "event": "start", "v": 2}]
    for number, (method, params, result) in enumerate(exchanges, start=1):
        request = {"id": number, "jsonrpc": "2.0", "method": method, "params": params}
        response = {"id": number, "jsonrpc": "2.0", "result": result}
        lines.append({"event": "request", "request": request, "response": response, "v": 2})
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return log


def tools_list(
    *tools: dict[str, object], cursor: str | None = None
) -> tuple[str, dict[str, object], dict[str, object]]:
    return "tools/list", {"cursor": cursor} if cursor else {}, {"tools": list(tools)}


def tools_call(arguments: object) -> tuple[str, dict[str, object], dict[str, object]]:
    return "tools/call", {"name": "read", "arguments": arguments}, {"content": [{"type": "text", "text": "ok"}]}


READ: dict[str, Any] = {"name": "read", "inputSchema": {"type": "object"}}


@pytest.mark.parametrize(
    ("arguments", "found"),
    [([], "an array"), ([1, 2], "an array"), (None, "null"), ("a=1", "a string"), (3, "an integer")],
)
def test_mcp_call_arguments_that_are_not_an_object(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, arguments: object, found: str
) -> None:
    log = mcp_log(tmp_path, tools_list(READ), tools_call({}), tools_call(arguments))
    refused(capsys, log, "mcp", f"tools/call: the arguments must be an object, found {found}", 4)


def test_the_session_reader_refuses_the_same_arguments() -> None:
    """What the importer now refuses is what a session file may not hold: an input that is not an object."""
    doc = {
        "format": "toolreplay-session",
        "version": 2,
        "model": "m",
        "source": {"kind": "mcp"},
        "system": "",
        "tools": [],
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read", "input": []}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
        ],
        "final_reply": None,
    }
    with pytest.raises(InputError, match="input: must be an object, found an array"):
        parse_session(json.dumps(doc, indent=2), "s.json")
    doc["tools"] = [{"name": "read", "input_schema": {}}, {"name": "read", "input_schema": {}}]
    with pytest.raises(InputError, match="tool 'read' is defined twice"):
        parse_session(json.dumps(doc, indent=2), "s.json")


def test_mcp_calls_without_arguments_still_import(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = mcp_log(tmp_path, tools_list(READ), ("tools/call", {"name": "read"}, {"content": []}))
    code, said, error = toolreplay(capsys, "import", str(log), "--from", "mcp", "-o", str(tmp_path / "s.json"))
    assert code == 0, error
    assert "1 tool call from" in said
    (call,) = read_session(tmp_path / "s.json").calls
    assert call.args == {}


@pytest.mark.parametrize(
    ("listings", "line", "says"),
    [
        ([tools_list(READ, READ)], 2, "tools/list: tool 'read' is listed twice"),
        ([tools_list(READ), tools_list(READ, cursor="2")], 3, "tools/list: tool 'read' is listed twice"),  # pages
        ([tools_list({**READ, "inputSchema": []})], 2, "tool 'read' inputSchema must be an object, found an array"),
        ([tools_list({**READ, "description": 7})], 2, "tool 'read' description must be a string, found an integer"),
        ([tools_list({**READ, "annotations": ["readOnlyHint"]})], 2, "tool 'read' annotations must be an object"),
    ],
)
def test_mcp_tool_listings_the_session_reader_would_refuse(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    listings: list[tuple[str, dict[str, object], dict[str, object]]],
    line: int,
    says: str,
) -> None:
    log = mcp_log(tmp_path, *listings, tools_call({"path": "/"}))
    refused(capsys, log, "mcp", says, line)


def test_a_new_listing_replaces_the_last_and_names_may_repeat_across_listings(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = mcp_log(tmp_path, tools_list(READ), tools_list({**READ, "description": "again"}), tools_call({}))
    code, _, error = toolreplay(capsys, "import", str(log), "--from", "mcp", "-o", str(tmp_path / "s.json"))
    assert code == 0, error
    (tool,) = read_session(tmp_path / "s.json").context.tools  # type: ignore[union-attr]
    assert tool.description == "again"


def otel_trace(tmp_path: Path, attributes: dict[str, Any]) -> Path:
    listed = [
        {"key": key, "value": {"stringValue": value if isinstance(value, str) else json.dumps(value)}}
        for key, value in attributes.items()
    ]
    span = {"traceId": "t", "spanId": "s", "startTimeUnixNano": "1", "attributes": listed}
    path = tmp_path / "trace.json"
    # one line per span, so the span's line is the line the error names
    path.write_text(
        '{"resourceSpans": [{"scopeSpans": [{"spans": [\n  ' + json.dumps(span) + "\n]}]}]}\n", encoding="utf-8"
    )
    return path


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ("not json", "gen_ai.tool.call.arguments is not JSON"),
        ('["a"]', "gen_ai.tool.call.arguments: the arguments must be a JSON object, found an array"),
        ('{"n": NaN}', "NaN is not valid JSON"),
        ('{"a": 1, "a": 2}', 'key "a" appears twice in one object'),
    ],
)
def test_otel_tool_span_arguments_that_are_not_an_object(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, arguments: str, says: str
) -> None:
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "read",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.call.arguments": arguments,
        "gen_ai.tool.call.result": "ok",
    }
    refused(capsys, otel_trace(tmp_path, attributes), "otel", says, 2)


def chat_span(tmp_path: Path, call: dict[str, object], tools: list[object] | None = None) -> Path:
    messages = [
        {"role": "user", "parts": [{"type": "text", "content": "go"}]},
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "read", **call}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "ok"}]},
    ]
    attributes: dict[str, object] = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": messages}
    if tools is not None:
        attributes["gen_ai.tool.definitions"] = tools
    return otel_trace(tmp_path, attributes)


@pytest.mark.parametrize(
    ("call", "says"),
    [
        ({"arguments": ["a"]}, 'tool_call "read": the arguments must be a JSON object, found an array'),
        ({"arguments": "plain text"}, 'tool_call "read": the arguments are not JSON'),
        ({"arguments": 3}, "the arguments must be a JSON object, found an integer"),
    ],
)
def test_otel_chat_tool_call_arguments_are_never_wrapped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, call: dict[str, object], says: str
) -> None:
    refused(capsys, chat_span(tmp_path, call), "otel", says, 2)


def test_otel_tool_definitions_are_held_to_a_sessions_rules(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tool = {"type": "function", "name": "read", "parameters": {"type": "object"}}
    refused(capsys, chat_span(tmp_path, {"arguments": {}}, [tool, tool]), "otel", "tool 'read' is defined twice", 2)
    refused(capsys, chat_span(tmp_path, {"arguments": {}}, [{"type": "function"}]), "otel", "needs a name", 2)
    refused(
        capsys,
        chat_span(tmp_path, {"arguments": {}}, [{**tool, "parameters": "x"}]),
        "otel",
        "tool 'read' parameters must be an object, found a string",
        2,
    )
    # a provider's own tool (not a function) is not the agent's to call: left out, as the OpenAI importer does
    path = chat_span(tmp_path, {"arguments": {"p": 1}}, [tool, {"type": "web_search"}])
    code, _, error = toolreplay(capsys, "import", str(path), "--from", "otel", "-o", str(tmp_path / "s.json"))
    assert code == 0, error
    session = read_session(tmp_path / "s.json")
    assert [t.name for t in session.context.tools] == ["read"]  # type: ignore[union-attr]
    assert [c.args for c in session.calls] == [{"p": 1}]


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ('{"n": NaN}', "the arguments are not JSON (NaN is not valid JSON)"),
        ('{"a": 1, "a": 2}', 'key "a" appears twice in one object'),
        ("[1]", "the arguments must be a JSON object, found an array"),
    ],
)
def test_openai_arguments_are_read_as_strictly_as_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, arguments: str, says: str
) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": arguments}}
    chat = [{"role": "user", "content": "go"}, {"role": "assistant", "content": None, "tool_calls": [call]}]
    path = tmp_path / "chat.json"
    text = json.dumps(chat, indent=2)
    path.write_text(text, encoding="utf-8")
    line = next(n for n, written in enumerate(text.splitlines(), 1) if '"arguments"' in written)
    refused(capsys, path, "openai", says, line)


def test_claude_code_tool_use_input_that_is_not_an_object(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    entries = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "go"}},
        {
            "type": "assistant",
            "uuid": "u2",
            "parentUuid": "u1",
            "message": {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": []}],
            },
        },
    ]
    path = tmp_path / "transcript.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    refused(capsys, path, "claude-code", "message.content[0].input: must be an object, found an array", 2)
