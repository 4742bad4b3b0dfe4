"""The streamed session reader takes exactly the files the whole reader takes, with the same calls and errors.

The reference is the reader with every value's line, each message checked node by node; the stream (its calls,
and the whole session it reads) must give what it gives.
"""

from __future__ import annotations

import copy
import json
import tracemalloc
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import SAMPLES, THOROUGH
from toolreplay.commands.diff import read_recording
from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import InputError
from toolreplay.core.model import Call, Session
from toolreplay.formats.kinds import Kind, detect_kind
from toolreplay.formats.parsing.json_text import JSON_DEPTH
from toolreplay.formats.recording import load_session
from toolreplay.formats.session import stream as session_stream
from toolreplay.formats.session.reader import Conversation, read_located
from toolreplay.formats.session.sealed import session_parts, streamed_named_parts
from toolreplay.formats.session.stream import SessionStream, read_calls, read_session, stream_session
from toolreplay.integrity.chain import seal_parts, seal_records

SESSIONS = sorted(p for p in SAMPLES.rglob("*.json") if '"toolreplay-session"' in p.read_text())


def outcome(read: Callable[[], tuple[object, list[Call]]]) -> object:
    """What a reader gives: the tools and every call field, or the error's exact words."""
    try:
        tools, calls = read()
    except InputError as exc:
        return str(exc)
    return tools, [(c.index, c.tool, c.args, c.result, c.line, c.is_error) for c in calls]


def reference(path: Path) -> Session:
    """The session as the reader with positions reads it, no message taken on its values alone."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Conversation, "add_fast", lambda self, value, place: None)
        return read_located(path)


def both(path: Path) -> tuple[object, object]:
    """What the reference gives and what the stream gives; the stream's whole session is checked against it too."""

    read: list[Session] = []  # the reference, read once for what it gives and for the checks below

    def whole() -> tuple[object, list[Call]]:
        read.append(reference(path))
        session = read[0]
        return (session.context.tools if session.context else ()), list(session.calls)

    def streamed() -> tuple[object, list[Call]]:
        tools, calls = stream_session(path)
        return tools, list(calls)

    expected = outcome(whole)
    if isinstance(expected, str):
        for reader in (read_session, read_calls, messages_of, sealed):
            with pytest.raises(InputError) as info:
                reader(path)
            assert str(info.value) == expected, reader
    else:
        (session,) = read
        assert session.context is not None
        assert read_session(path) == session
        # diff's reading holds the same session but its messages; seal's reads every message and makes no call
        assert read_calls(path) == replace(session, context=replace(session.context, messages=()))
        assert messages_of(path) == list(session.context.messages)
        context = session.context
        assert attempt(lambda: sealed(path)) == attempt(lambda: list(seal_records(session_parts(context))))
    return expected, outcome(streamed)


def taken_by_the_stream(path: Path) -> bool:
    """Whether the stream read the file itself, without handing it to the whole reader."""
    stream = SessionStream(path)
    for _ in stream.calls():
        pass
    return stream.whole is None


def messages_of(path: Path) -> list[JSONObject]:
    return list(SessionStream(path).messages())


def sealed(path: Path) -> list[bytes]:
    """The links ``seal`` prints for a session file: its parts, named, read a message at a time."""
    return list(seal_parts(streamed_named_parts(path)))


def attempt(read: Callable[[], object]) -> object:
    """What ``read`` gives, or that it ran out of stack (sealing a header nested near the depth limit does, read
    whole or streamed: the writer's key ordering recurses)."""
    try:
        return read()
    except RecursionError:
        return RecursionError


@pytest.fixture(params=[1 << 20, 7], ids=["chunk-1MiB", "chunk-7"])
def chunk(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A window of 7 characters moves on inside every key, string and number."""
    monkeypatch.setattr(session_stream, "_CHUNK", request.param)


@pytest.mark.usefixtures("chunk")
@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_the_samples_stream_as_they_read(path: Path) -> None:
    whole, streamed = both(path)
    assert not isinstance(whole, str)
    assert streamed == whole
    assert taken_by_the_stream(path)


def _base() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((SAMPLES / "ops" / "session.json").read_text())
    return doc


def _without(name: str) -> dict[str, Any]:
    return {key: value for key, value in _base().items() if key != name}


def _edit(change: Callable[[dict[str, Any]], object]) -> str:
    doc = copy.deepcopy(_base())
    change(doc)
    return json.dumps(doc, indent=2)


def _deep_value(levels: int) -> Any:
    """A value nesting ``levels`` deep counting its innermost scalar, built without recursion."""
    return json.loads("[" * (levels - 1) + "1" + "]" * (levels - 1))


def _beside_a_result(member: str) -> Callable[[str], str]:
    """A new member in the first tool_result block (five levels down: session, messages, message, content, block)."""
    return lambda t: t.replace('"tool_use_id": "toolu_0001"', f'"tool_use_id": "toolu_0001", "x": {member}', 1)


def _deep(levels: int) -> str:
    """A value that nests ``levels`` deep, counting its innermost scalar."""
    return "[" * (levels - 1) + "1" + "]" * (levels - 1)


# Each is a file the stream must hand to the whole reader: for its error, or for a layout it does not walk.
VARIANTS: dict[str, str] = {
    "good": _edit(lambda d: None),
    "compact": json.dumps(_base(), separators=(",", ":")),
    "one message": _edit(lambda d: d.update(messages=d["messages"][:1])),
    "no messages": _edit(lambda d: d.update(messages=[])),
    "messages not an array": _edit(lambda d: d.update(messages={})),
    "a message not an object": _edit(lambda d: d["messages"].insert(1, 3)),
    "turns out of order": _edit(lambda d: d["messages"].insert(1, {"role": "user", "content": "again"})),
    "unknown field in a message": _edit(lambda d: d["messages"][1].update(extra=1)),
    "result missing": _edit(lambda d: d.update(messages=d["messages"][:2])),
    "final_reply missing": _edit(lambda d: d.pop("final_reply")),
    "final_reply not text": _edit(lambda d: d.update(final_reply=3)),
    "final_reply first": json.dumps({"final_reply": "x", **_without("final_reply")}),
    "final_reply first, not text": json.dumps({"final_reply": 5, **_without("final_reply")}),
    "a header field at the depth limit": _edit(lambda d: d["source"].update(x=_deep_value(JSON_DEPTH - 2))),
    "a header field past it": _edit(lambda d: d["source"].update(x=_deep_value(JSON_DEPTH - 1))),
    "a tool's schema past it": _edit(lambda d: d["tools"][0]["input_schema"].update(x=_deep_value(JSON_DEPTH - 3))),
    "tools after messages": json.dumps(
        {**{k: v for k, v in _base().items() if k != "tools"}, "tools": _base()["tools"]}
    ),
    "unknown field after messages": _edit(lambda d: d.update(zzz=1)),
    "a wrong version": _edit(lambda d: d.update(version=2)),
    "a tool defined twice": _edit(lambda d: d["tools"].append(d["tools"][0])),
}
TEXT_VARIANTS: dict[str, Callable[[str], str]] = {
    "a key twice in a message": lambda t: t.replace(
        '"role": "assistant",', '"role": "assistant", "role": "assistant",', 1
    ),
    "a key twice at the top": lambda t: t.replace('"model": ', '"model": "x", "model": ', 1),
    "NaN in a result": _beside_a_result("NaN"),
    "a float too large": _beside_a_result("1e999"),
    "a huge integer": _beside_a_result("7" * 5000),
    "a deep result, at the limit": _beside_a_result(_deep(JSON_DEPTH - 5)),
    "a deep result, past it": _beside_a_result(_deep(JSON_DEPTH - 4)),
    "a very deep result": _beside_a_result(_deep(100_000)),
    "a lone surrogate": lambda t: t.replace('"path": "', '"path": "\\ud800', 1),
    "a surrogate pair": lambda t: t.replace('"path": "', '"path": "\\ud83d\\ude00', 1),
    "an escaped tool_use": lambda t: t.replace('"type": "tool_use"', '"type": "tool\\u005fuse"'),
    "trailing text": lambda t: t + "x",
    "trailing space": lambda t: t + " \n\n",
    "a byte-order mark": lambda t: "\ufeff" + t,
    "cut short": lambda t: t[: len(t) // 2],
    "control character in a string": lambda t: t.replace('"path": "', '"path": "\x01', 1),
}


@pytest.mark.usefixtures("chunk")
@pytest.mark.parametrize("name", [*VARIANTS, *TEXT_VARIANTS])
def test_every_variant_streams_or_fails_as_it_reads(tmp_path: Path, name: str) -> None:
    text = VARIANTS[name] if name in VARIANTS else TEXT_VARIANTS[name](VARIANTS["good"])
    path = tmp_path / "s.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    whole, streamed = both(path)
    assert streamed == whole


@pytest.mark.usefixtures("chunk")
def test_bytes_that_are_not_utf8_fail_as_they_read(tmp_path: Path) -> None:
    raw = VARIANTS["good"].encode()
    path = tmp_path / "s.json"
    path.write_bytes(raw[:4000] + b"\xff" + raw[4000:])
    whole, streamed = both(path)
    assert isinstance(whole, str)
    assert streamed == whole


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


_deep_or_not = st.recursive(
    st.none() | st.integers() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
    max_leaves=12,
)
_blocks_of_any_shape = st.lists(st.dictionaries(st.sampled_from(["type", "text", "input", "x"]), _deep_or_not))


# 150 examples (200 under HYPOTHESIS_PROFILE=thorough): on each of ten seeds tried, 150 reach every branch of the
# depth and string counts that 200 reach.
@settings(max_examples=200 if THOROUGH else 150)
@given(
    message=st.fixed_dictionaries({"role": st.just("user"), "content": _blocks_of_any_shape | _deep_or_not}),
    nesting=st.integers(0, 12),
    indent=st.sampled_from([None, 0, 2]),
    ascii_only=st.booleans(),
)
def test_what_strings_hold_of_a_message_leaves_room_for_its_depth(
    message: dict[str, Any], nesting: int, indent: int | None, ascii_only: bool
) -> None:
    """The depth check counts brackets only where a message's text, less what its blocks' strings take, could
    nest past the limit: that rest always holds two brackets a level, and one character more below the strings."""
    blocks = message["content"] if isinstance(message["content"], list) else []
    for block in blocks[:1]:
        if isinstance(block, dict):
            block["x"] = _deep_value(nesting + 1)  # some depth below the blocks
    text = json.dumps(message, indent=indent, ensure_ascii=ascii_only)
    rest = len(text) - session_stream._in_strings(message)
    depth = session_stream._depth(message)
    assert rest >= 2 * (depth - 1)
    if depth > 5:  # deeper than the strings counted: the innermost value is in the rest
        assert rest >= 2 * depth - 1


_spaces = st.text(st.sampled_from(" \t\n\r"), max_size=3)
_MISTAKES = {"none": "", "a trailing comma": ",", "no comma": " 7", "unclosed": None}


# 100 examples (150 under HYPOTHESIS_PROFILE=thorough): on each of ten seeds tried, 100 reach every branch of the
# window and the scanner that 150 reach.
@settings(max_examples=150 if THOROUGH else 100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    values=st.lists(json_values, min_size=1, max_size=6),
    indent=st.sampled_from([None, 0, 2]),
    mistake=st.sampled_from(list(_MISTAKES)),
    chunk_size=st.integers(1, 40),
    data=st.data(),
)
def test_the_window_reads_any_array_as_the_parser_does(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    values: list[Any],
    indent: int | None,
    mistake: str,
    chunk_size: int,
    data: st.DataObject,
) -> None:
    """Each element and the text it spans, from the first to the closing bracket, with any space between and a
    window that moves on anywhere; an array that is not one is refused."""
    monkeypatch.setattr(session_stream, "_CHUNK", chunk_size)
    texts = [json.dumps(value, indent=indent) for value in values]
    text = "[" + data.draw(_spaces)
    for number, item in enumerate(texts):
        text += item + data.draw(_spaces) + ("," + data.draw(_spaces) if number < len(texts) - 1 else "")
    ending = _MISTAKES[mistake]
    text += "" if ending is None else ending + data.draw(_spaces) + '] , "after": 1}'
    path = tmp_path / "a.json"
    path.write_text(text, encoding="utf-8")
    window = session_stream._Window(path)
    try:
        window.expect("[")
        read: list[tuple[Any, Any]] = []
        if mistake != "none":
            with pytest.raises(session_stream._NotStreamed):
                read.extend((value, None) for value in window.elements())
            return
        for value in window.elements():
            read.append((value, json.loads(window.text[window.start : window.end])))
        assert read == [(value, value) for value in values]
        assert window.skip_space() == ","  # just past the closing bracket
    finally:
        window.close()


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    results=st.lists(json_values, min_size=1, max_size=4),
    indent=st.sampled_from([None, 0, 1, 4]),
    chunk_size=st.integers(1, 40),
)
def test_any_layout_streams_as_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, results: list[Any], indent: int | None, chunk_size: int
) -> None:
    monkeypatch.setattr(session_stream, "_CHUNK", chunk_size)
    doc = _base()
    messages: list[Any] = [{"role": "user", "content": "go"}]
    for number, result in enumerate(results):
        use = {"type": "tool_use", "id": f"t{number}", "name": "list_dir", "input": {"n": result}}
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}, use]})
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{number}", "content": json.dumps(result)}],
            }
        )
    messages.append({"role": "assistant", "content": "done"})
    doc["messages"] = messages
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc, indent=indent), encoding="utf-8")
    whole, streamed = both(path)
    assert not isinstance(whole, str)
    assert streamed == whole
    assert taken_by_the_stream(path)


_turn_keys = st.permutations(["role", "content", "stop_reason", "usage"])
_blocks = st.lists(st.sampled_from(["text", "tool_use", "thinking"]), min_size=1, max_size=4)
_awkward = st.sampled_from(["plain", '"content": [', "{[", '\\"content\\": ['])


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    turns=st.lists(st.tuples(_turn_keys, _blocks, _awkward, st.booleans()), min_size=1, max_size=4),
    indent=st.sampled_from([None, 0, 2, 3]),
    chunk_size=st.integers(1, 60),
)
def test_any_turn_layout_gives_each_call_its_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    turns: list[tuple[tuple[str, ...], list[str], str, bool]],
    indent: int | None,
    chunk_size: int,
) -> None:
    """Members in any order, blocks of every kind, and text that looks like a content key before the real one."""
    monkeypatch.setattr(session_stream, "_CHUNK", chunk_size)
    doc = _base()
    messages: list[Any] = [{"role": "user", "content": "go"}]
    for number, (keys, kinds, awkward, person) in enumerate(turns):
        blocks: list[Any] = []
        for place, kind in enumerate(kinds):
            if kind == "tool_use":
                blocks.append({"type": kind, "id": f"t{number}.{place}", "name": "list_dir", "input": {"p": awkward}})
            else:
                blocks.append({"type": kind, kind: awkward})
        usage = {"content": [awkward], "input_tokens": 3} if awkward != "plain" else {"input_tokens": 3}
        parts = {"role": "assistant", "content": blocks, "stop_reason": awkward, "usage": usage}
        messages.append({key: parts[key] for key in keys})
        uses = [block["id"] for block in blocks if block["type"] == "tool_use"]
        if uses:
            results = [{"type": "tool_result", "tool_use_id": use, "content": awkward} for use in uses]
            messages.append({"content": results, "role": "user"} if person else {"role": "user", "content": results})
        else:
            messages.append({"role": "user", "content": [{"type": "text", "text": awkward}]})
    messages.append({"role": "assistant", "content": "done"})
    doc["messages"] = messages
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc, indent=indent), encoding="utf-8")
    whole, streamed = both(path)
    assert not isinstance(whole, str)
    assert streamed == whole
    assert taken_by_the_stream(path)


def _session_of(calls: int) -> str:
    doc = _base()
    messages: list[Any] = [{"role": "user", "content": "go"}]
    for number in range(calls):
        use = {
            "type": "tool_use",
            "id": f"t{number}",
            "name": "list_dir",
            "input": {"host": "h", "path": f"/p/{number}"},
        }
        messages.append({"role": "assistant", "content": [use]})
        result = {"type": "tool_result", "tool_use_id": f"t{number}", "content": "x" * 1000}
        messages.append({"role": "user", "content": [result]})
    messages.append({"role": "assistant", "content": "done"})
    doc["messages"] = messages
    return json.dumps(doc, indent=2)


def test_memory_does_not_grow_with_the_session(tmp_path: Path) -> None:
    """A session three times longer costs no more memory to stream: one message and a window of text."""
    peaks = []
    for calls in (1_500, 4_500):  # both past the window of text it reads at a time (the peak is flat from 1,500)
        path = tmp_path / f"s{calls}.json"
        path.write_text(_session_of(calls), encoding="utf-8")
        tracemalloc.start()
        _, stream = stream_session(path)
        assert sum(1 for _ in stream) == calls
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    small, large = peaks
    assert large < small * 1.5, peaks  # read whole, the larger session would cost three times as much
    assert large < 8 << 20, peaks  # the larger file is 6 MB, and read whole costs several times its size


def test_diff_reads_each_kind_of_recording_as_it_reads_whole(tmp_path: Path) -> None:
    """A session for its calls, tools and final reply (its messages let go); any other recording whole."""
    sealed_session = tmp_path / "s.sealed.jsonl"
    sealed_session.write_bytes(b"".join(line + b"\n" for line in sealed(SAMPLES / "ops" / "session.json")))
    recordings = [*SESSIONS, SAMPLES / "session-dirty.jsonl", SAMPLES / "sealed" / "clean.sealed.jsonl", sealed_session]
    for path in recordings:
        whole = load_session(path)
        if detect_kind(path) is Kind.SESSION:
            assert whole.context is not None
            whole = replace(whole, context=replace(whole.context, messages=()))
        assert read_recording(str(path)) == whole, path
