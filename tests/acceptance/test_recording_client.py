"""RecordingClient records what a real program sends: streams, the stream helper, beta, raw responses,
request settings, server tools, and conversations of several turns (the real SDK, a local Messages API)."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.test_anthropic_recording import TOOLS, conversation, queue_turns, sdk
from tests.conftest import ROOT, Completed
from tests.fakes.anthropic_server import message, run_toolreplay, serve
from toolreplay.core.canonical import JSONObject
from toolreplay.formats.session.stream import read_session
from toolreplay.record import RecordingClient

# Looked for when the tests are collected, imported where a test uses it: the SDK takes two seconds to import.
pytestmark = pytest.mark.skipif(find_spec("anthropic") is None, reason="the anthropic extra is not installed")


def client(api: Any, path: Path, annotations: dict[str, JSONObject] | None = None) -> RecordingClient:
    return RecordingClient(sdk().Anthropic(base_url=api.url, api_key="k", max_retries=0), path, annotations=annotations)


def record(tmp_path: Path, name: str, drive: Callable[[RecordingClient], Any]) -> str:
    path = tmp_path / name
    with serve() as api:
        queue_turns(api)
        drive(client(api, path))
    return path.read_text(encoding="utf-8")


def streamed(recording: RecordingClient) -> Any:
    def create(**request: Any) -> Any:
        with recording.messages.create(stream=True, **request) as stream:
            events = list(stream)
        assert events[0].type == "message_start"  # the events reach the caller as the SDK gives them
        assert any(e.type == "content_block_delta" for e in events)
        return type("Assembled", (), {"content": _blocks(events)})()

    return conversation(create)


def _blocks(events: list[Any]) -> list[Any]:
    """The caller's own assembly: enough to pick out the tool_use block and send the turn back."""
    from anthropic.lib.streaming._messages import accumulate_event  # noqa: PLC0415 - what the caller would do

    snapshot = None
    buffers: dict[int, bytes] = {}
    for event in events:
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
    assert snapshot is not None
    return list(snapshot.content)


def helper(recording: RecordingClient) -> Any:
    def create(**request: Any) -> Any:
        with recording.messages.stream(**request) as stream:
            for _ in stream.text_stream:
                pass
            return stream.get_final_message()

    return conversation(create)


def test_a_streamed_exchange_is_recorded_exactly_as_a_plain_one(tmp_path: Path) -> None:
    plain = record(tmp_path, "plain.json", lambda c: conversation(c.messages.create))
    assert record(tmp_path, "stream-true.json", streamed) == plain
    assert record(tmp_path, "stream-helper.json", helper) == plain
    session = json.loads(plain)
    # how each turn ended, and its usage, beside the turn
    assert [m.get("stop_reason") for m in session["messages"] if m["role"] == "assistant"] == ["tool_use", "end_turn"]
    assert session["messages"][1]["usage"]["output_tokens"] == 7
    assert session["request"] == {"max_tokens": 256}


def test_beta_messages_and_raw_responses_are_recorded_too(tmp_path: Path) -> None:
    plain = record(tmp_path, "plain.json", lambda c: conversation(c.messages.create))
    beta = record(tmp_path, "beta.json", lambda c: conversation(c.beta.messages.create))
    assert json.loads(beta)["messages"] == json.loads(plain)["messages"]

    def raw(recording: RecordingClient) -> Any:
        return conversation(lambda **request: recording.messages.with_raw_response.create(**request).parse())

    assert record(tmp_path, "raw.json", raw) == plain

    def beta_stream(recording: RecordingClient) -> Any:
        def create(**request: Any) -> Any:
            with recording.beta.messages.stream(**request) as stream:
                return stream.get_final_message()

        return conversation(create)

    assert json.loads(record(tmp_path, "beta-stream.json", beta_stream))["messages"] == json.loads(plain)["messages"]


SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
SERVER_USE = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "disk"}}
SERVER_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01",
    "content": [
        {"type": "web_search_result", "url": "https://example.com", "title": "Disks", "encrypted_content": "x"}
    ],
}


def test_request_settings_and_server_tools_are_kept_and_reused_by_replay(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    settings = {
        "max_tokens": 300,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "tool_choice": {"type": "auto"},
        "stop_sequences": ["STOP"],
    }
    older = {"temperature": 0.2}  # a setting this SDK has no parameter for: the program sends it in extra_body
    with serve() as api:
        api.queue(message([SERVER_USE, SERVER_RESULT, {"type": "text", "text": "Found it."}]))
        recording = client(api, path)
        recording.messages.create(
            model="claude-test",
            messages=[{"role": "user", "content": "Look it up."}],
            tools=[*TOOLS, SEARCH],
            extra_body=older,
            **settings,
        )
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["request"] == {**settings, **older, "server_tools": [SEARCH]}
    assert [t["name"] for t in doc["tools"]] == ["disk_usage"]
    assert doc["messages"][1]["content"][:2] == [SERVER_USE, SERVER_RESULT]  # verbatim
    assert read_session(path).calls == ()  # the server ran the search: not a call to replay

    with serve() as api:
        api.respond = lambda request: message([{"type": "text", "text": "Found it."}])
        result = _toolreplay(api, "replay", str(path))
        assert result.code == 0, result.stderr
        sent = api.requests[0]
        assert {key: sent[key] for key in [*settings, *older]} == {**settings, **older}
        assert [t["name"] for t in sent["tools"]] == ["disk_usage", "web_search"]
        assert _toolreplay(api, "replay", str(path), "--max-tokens", "64").code == 0
        assert api.requests[-1]["max_tokens"] == 64  # overridden


def _toolreplay(api: Any, *args: str) -> Completed:
    return run_toolreplay(api, *args, cwd=ROOT)


def operator(request: dict[str, Any]) -> dict[str, Any]:
    """A stand-in model: for each message from the person, one call, then a reply. Told that old logs can go,
    it deletes where it used to archive."""
    messages = request["messages"]
    last = messages[-1]
    if last["role"] == "user" and isinstance(last["content"], str):
        words = last["content"].split()
        if words[0] == "clean":
            system = json.dumps(request.get("system", ""))
            verb = "delete_path" if "can go" in system else "archive_path"
            use = {"type": "tool_use", "id": f"toolu_{len(messages)}", "name": verb, "input": {"path": words[1]}}
        else:
            use = {
                "type": "tool_use",
                "id": f"toolu_{len(messages)}",
                "name": "disk_usage",
                "input": {"host": words[1]},
            }
        return message([use], stop_reason="tool_use")
    return message([{"type": "text", "text": f"Done with turn {len(messages)}."}])


def test_a_three_turn_conversation_is_recorded_replayed_with_a_new_prompt_and_diffed(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    ops_tools = [
        *TOOLS,
        {"name": "archive_path", "description": "Archive.", "input_schema": {"type": "object"}},
        {"name": "delete_path", "description": "Delete.", "input_schema": {"type": "object"}},
    ]
    with serve() as api:
        api.respond = operator
        recording = client(api, path, {"delete_path": {"readOnlyHint": False, "destructiveHint": True}})
        messages: list[dict[str, Any]] = []
        for said in ("usage build-04", "clean /var/log/ci/2026-07", "usage build-04"):
            messages.append({"role": "user", "content": said})
            while True:
                reply = recording.messages.create(
                    model="claude-test", max_tokens=128, system="Archive old logs.", tools=ops_tools, messages=messages
                )
                messages.append({"role": "assistant", "content": reply.content})
                uses = [b for b in reply.content if b.type == "tool_use"]
                if not uses:
                    break
                results = [{"type": "tool_result", "tool_use_id": u.id, "content": "ok"} for u in uses]
                messages.append({"role": "user", "content": results})
    session = read_session(path)
    assert [(c.tool, c.turn) for c in session.calls] == [("disk_usage", 1), ("archive_path", 2), ("disk_usage", 3)]
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Old logs can go.\n", encoding="utf-8")
    with serve() as api:
        api.respond = operator
        replayed = _toolreplay(api, "replay", str(path), "--system", str(prompt), "--json")
    assert replayed.code == 1, replayed.stderr
    changes = {(c["kind"], c["tool"], c["turn"]) for c in json.loads(replayed.stdout)["changes"]}
    assert changes == {("added", "delete_path", 2), ("removed", "archive_path", 2)}
    # each later message went to the candidate after its reply to the one before
    person = [m["content"] for m in api.requests[-1]["messages"] if isinstance(m["content"], str)]
    assert person == ["usage build-04", "clean /var/log/ci/2026-07", "usage build-04"]


def test_anything_recording_meets_is_a_warning_never_the_callers_problem(tmp_path: Path) -> None:
    deep: Any = "bottom"
    for _ in range(900):
        deep = [deep]
    with serve() as api:
        api.queue(message([{"type": "text", "text": "hi"}]))
        recording = client(api, tmp_path / "s.json")
        with pytest.warns(RuntimeWarning, match="could not record"):
            reply = recording.messages.create(
                model="claude-test",
                max_tokens=16,
                messages=[{"role": "user", "content": [{"type": "text", "text": "x", "extra": deep}]}],
            )
    assert reply.content[0].text == "hi"
