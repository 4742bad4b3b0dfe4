"""The Messages API request for a turn, and a response read back as a turn: the parts of the Claude agent that
need no server."""

from __future__ import annotations

from toolreplay.agents.providers.anthropic import build_request, to_turn
from toolreplay.core.model import ToolDef


def test_the_request_caches_after_the_system_prompt_and_the_tools_and_keeps_the_recorded_settings() -> None:
    tool = ToolDef("read", "Read a file.", {"type": "object"})
    request = build_request(
        "claude-sonnet-4-5", {"max_tokens": 512, "temperature": 0}, "Be careful.", [tool],
        [{"role": "user", "content": "go"}], lifetime="1h",
    )  # fmt: skip
    assert (request["model"], request["max_tokens"], request["temperature"]) == ("claude-sonnet-4-5", 512, 0)
    assert request["system"] == [
        {"type": "text", "text": "Be careful.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    ]
    assert request["tools"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert "server_tools" not in build_request("m", {"server_tools": [{"type": "web_search"}]}, "", [], [])
    assert (
        build_request("m", {"server_tools": [{"type": "web_search"}]}, "", [], [])["tools"][0]["type"] == "web_search"
    )


def test_a_response_is_a_turn_with_its_usage() -> None:
    from anthropic.types import Message  # noqa: PLC0415 - the SDK's own response type, as the API's JSON makes it

    response = Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "done"}, {"type": "tool_use", "id": "t1", "name": "read", "input": {}}],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 3, "cache_creation_input_tokens": 7},
    })  # fmt: skip
    turn = to_turn(response)
    assert turn.stop_reason == "tool_use"
    assert turn.content == [
        {"type": "text", "text": "done"},
        {"type": "tool_use", "id": "t1", "name": "read", "input": {}},
    ]
    assert (turn.usage.input_tokens, turn.usage.cache_read_tokens, turn.usage.cache_write_tokens) == (10, 0, 7)
