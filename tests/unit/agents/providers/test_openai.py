"""The OpenAI provider: a conversation held in the Messages API's form sent as Chat Completions or Responses input,
the recorded settings mapped (or refused), and each answer read back as a turn; then the real SDK against the
local stand-in, for what only a real client shows (its retries, its errors, its batches)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.openai_server import HANG, FakeOpenAI, completion, response, serve
from toolreplay.agent_spec import ModelSpec
from toolreplay.agents.loop import AgentFailure
from toolreplay.agents.providers import MODULES, provider, refusal
from toolreplay.agents.providers.base import PROVIDER_ITEM, AgentError, Endpoint
from toolreplay.agents.providers.openai import (
    BatchedOpenAI,
    OpenAIAgent,
    chat_messages,
    chat_turn,
    make_client,
    refused_settings,
    responses_input,
    responses_turn,
    settings_for,
    system_text,
)
from toolreplay.core.canonical import JSONValue
from toolreplay.core.errors import UsageError
from toolreplay.core.model import ToolDef
from toolreplay.settings import Api

TOOLS = (ToolDef("read", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}}),)
CONVERSATION: list[dict[str, Any]] = [
    {"role": "user", "content": "Read a and b."},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Reading both."},
            {"type": "tool_use", "id": "c1", "name": "read", "input": {"path": "a"}},
            {"type": "tool_use", "id": "c2", "name": "read", "input": {"path": "b"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "A"},
            {"type": "tool_result", "tool_use_id": "c2", "content": [{"type": "text", "text": "B"}], "is_error": True},
            {"type": "text", "text": "And now?"},
        ],
    },
]


def test_the_registry_names_a_module_for_every_provider_an_agent_can_name() -> None:
    from toolreplay.agent_spec import PROVIDERS  # noqa: PLC0415

    assert set(MODULES) == set(PROVIDERS)
    assert {provider(name).name for name in MODULES} == set(MODULES)


def test_parallel_calls_and_their_results_become_chat_messages_in_order() -> None:
    sent = chat_messages("Be careful.", CONVERSATION)
    assert sent == [
        {"role": "system", "content": "Be careful."},
        {"role": "user", "content": "Read a and b."},
        {
            "role": "assistant",
            "content": "Reading both.",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path": "a"}'}},
                {"id": "c2", "type": "function", "function": {"name": "read", "arguments": '{"path": "b"}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "A"},
        {"role": "tool", "tool_call_id": "c2", "content": "B"},
        {"role": "user", "content": [{"type": "text", "text": "And now?"}]},
    ]


def test_the_same_conversation_becomes_responses_items_with_the_providers_own_items_sent_back() -> None:
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": []}
    turn = {**CONVERSATION[1], "content": [{"type": PROVIDER_ITEM, "item": reasoning}, *CONVERSATION[1]["content"]]}
    items = responses_input([CONVERSATION[0], turn, CONVERSATION[2]])
    assert items == [
        {"role": "user", "content": "Read a and b."},
        reasoning,
        {"role": "assistant", "content": "Reading both."},
        {"type": "function_call", "call_id": "c1", "name": "read", "arguments": '{"path": "a"}'},
        {"type": "function_call", "call_id": "c2", "name": "read", "arguments": '{"path": "b"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "A"},
        {"type": "function_call_output", "call_id": "c2", "output": "B"},
        {"role": "user", "content": [{"type": "input_text", "text": "And now?"}]},
    ]


def test_a_system_prompt_of_blocks_is_one_text() -> None:
    blocks: list[JSONValue] = [
        {"type": "text", "text": "One.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "Two."},
    ]
    assert system_text(blocks) == "One.\n\nTwo."
    assert system_text("Plain.") == "Plain."


@pytest.mark.parametrize(
    ("request_settings", "api", "official", "expected"),
    [
        ({"max_tokens": 100}, Api.CHAT, True, {"max_completion_tokens": 100}),
        ({"max_tokens": 100}, Api.CHAT, False, {"max_tokens": 100}),
        ({"max_tokens": 100, "temperature": 0.2}, Api.RESPONSES, True, {"max_output_tokens": 100, "temperature": 0.2}),
        ({"stop_sequences": ["END"]}, Api.CHAT, True, {"stop": ["END"]}),
        ({"tool_choice": {"type": "any"}}, Api.CHAT, True, {"tool_choice": "required"}),
        ({"tool_choice": {"type": "tool", "name": "read"}}, Api.CHAT, True,
         {"tool_choice": {"type": "function", "function": {"name": "read"}}}),
        ({"tool_choice": {"type": "tool", "name": "read"}}, Api.RESPONSES, True,
         {"tool_choice": {"type": "function", "name": "read"}}),
        ({"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}}, Api.CHAT, True,
         {"tool_choice": "auto", "parallel_tool_calls": False}),
    ],
)  # fmt: skip
def test_the_recorded_settings_map_to_what_each_api_takes(
    request_settings: dict[str, Any], api: Api, official: bool, expected: dict[str, Any]
) -> None:
    assert settings_for(request_settings, api, official) == expected


@pytest.mark.parametrize(
    ("request_settings", "api", "said"),
    [
        ({"thinking": {"type": "enabled", "budget_tokens": 2000}}, Api.CHAT, "extended thinking"),
        ({"top_k": 5}, Api.CHAT, "top_k"),
        ({"server_tools": [{"type": "web_search_20250305", "name": "web_search"}]}, Api.CHAT, "server tools"),
        ({"stop_sequences": ["END"]}, Api.RESPONSES, "--api chat"),
        ({"tool_choice": {"type": "something_new"}}, Api.CHAT, "something_new"),
    ],
)
def test_a_setting_with_no_counterpart_is_refused_in_one_line(
    request_settings: dict[str, Any], api: Api, said: str
) -> None:
    refused = refused_settings(request_settings, api)
    assert refused is not None
    assert said in refused
    assert "\n" not in refused
    assert refusal(ModelSpec("gpt-4.1", "openai"), request_settings, Endpoint(api=api), False) == refused
    assert refused_settings({"thinking": {"type": "disabled"}, "max_tokens": 10}, api) is None


def test_a_chat_answer_is_a_turn_with_its_calls_refusal_and_cached_tokens() -> None:
    turn = chat_turn(completion("Both.", [("c1", "read", {"path": "a"}), ("c2", "read", '{"path": "b"}')], cached=4))
    assert turn.stop_reason == "tool_use"
    assert [b.get("input") for b in turn.tool_uses] == [{"path": "a"}, {"path": "b"}]
    assert turn.text == "Both."
    assert (turn.usage.input_tokens, turn.usage.cache_read_tokens, turn.usage.output_tokens) == (8, 4, 7)
    refused = chat_turn(completion(refusal="I can't help with that."))
    assert (refused.stop_reason, refused.text) == ("refusal", "I can't help with that.")
    assert chat_turn(completion("cut", finish="length")).stop_reason == "max_tokens"
    malformed = chat_turn(completion(None, [("c1", "read", '{"path": ')]))
    assert malformed.tool_uses[0]["input"] == '{"path": '  # kept as text: the turn loop calls it malformed


def test_a_responses_answer_is_a_turn_keeping_its_reasoning_to_send_back() -> None:
    turn = responses_turn(response("Reading.", [("c1", "read", {"path": "a"})], reasoning=True, cached=2))
    assert [b["type"] for b in turn.content] == [PROVIDER_ITEM, "text", "tool_use"]
    assert (turn.stop_reason, turn.usage.cache_read_tokens) == ("tool_use", 2)
    assert responses_turn(response(refusal="No.")).stop_reason == "refusal"
    assert responses_turn(response("cut", incomplete="max_output_tokens")).stop_reason == "max_tokens"
    with pytest.raises(AgentError, match="failed: boom"):
        responses_turn({"status": "failed", "error": {"message": "boom"}, "output": []})
    with pytest.raises(AgentError, match="no choice"):
        chat_turn({"choices": []})


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with serve() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000")
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        yield fake


def test_the_real_sdk_sends_the_translated_request_and_reads_the_answer(api: FakeOpenAI) -> None:
    api.queue(completion("Reading.", [("c9", "read", {"path": "a"})]))
    agent = OpenAIAgent(make_client(Endpoint(api.base_url)), "gpt-4.1", {"max_tokens": 50}, Endpoint(api.base_url))
    turn = agent.respond("Be careful.", TOOLS, CONVERSATION[:1])
    assert turn.tool_uses == [{"type": "tool_use", "id": "c9", "name": "read", "input": {"path": "a"}}]
    path, body = api.requests[0]
    assert path == "/chat/completions"
    assert body["max_tokens"] == 50  # another server than OpenAI's own: the key every server takes
    assert body["tools"][0] == {"type": "function", "function": {"name": "read", "description": "Read a file.",
                                                                 "parameters": TOOLS[0].input_schema}}  # fmt: skip
    assert api.headers[0]["authorization"] == "Bearer sk-test-0000"


def test_a_429_is_retried_as_the_sdk_retries_and_a_fault_that_outlives_the_retries_is_one_error(
    api: FakeOpenAI,
) -> None:
    endpoint = Endpoint(api.base_url, timeout=0.3)
    agent = OpenAIAgent(make_client(endpoint), "gpt-4.1", {}, endpoint)
    api.queue({"error": {"message": "slow down", "type": "rate_limit_error"}}, 429)
    api.queue(completion("Done."))
    assert agent.respond("", TOOLS, CONVERSATION[:1]).text == "Done."
    assert len(api.requests) == 2
    for _ in range(3):
        api.queue({"error": {"message": "it broke", "type": "server_error"}}, 500)
    with pytest.raises(AgentError, match=r"the model request failed: .*it broke"):
        agent.respond("", TOOLS, CONVERSATION[:1])
    api.queue(b"<html>not json</html>", 200)
    with pytest.raises(AgentError) as garbage:
        agent.respond("", TOOLS, CONVERSATION[:1])
    assert "\n" not in garbage.value.message
    api.hang = 1.0
    for _ in range(3):
        api.queue(HANG)
    with pytest.raises(AgentError, match="timed out"):
        agent.respond("", TOOLS, CONVERSATION[:1])


def test_a_missing_key_is_one_line_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UsageError, match="set OPENAI_API_KEY"):
        make_client(Endpoint("http://127.0.0.1:9/v1"))


def test_a_batch_is_a_jsonl_file_of_requests_and_its_output_file_read_back(
    api: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolreplay.agents.providers.openai as module  # noqa: PLC0415

    monkeypatch.setattr(module, "BATCH_POLL", 0.01)
    api.batch_polls = 2
    api.queue(completion("One."))
    api.queue({"error": {"message": "bad request", "type": "invalid_request_error"}}, 400)
    endpoint = Endpoint(api.base_url, Api.RESPONSES)
    batched = BatchedOpenAI(make_client(endpoint), "gpt-4.1", {}, endpoint)
    import time  # noqa: PLC0415

    answers = batched.ask("", TOOLS, [("run-1", CONVERSATION[:1]), ("run-2", CONVERSATION[:1])], time.monotonic() + 30)
    sent = [json.loads(line) for line in api.files["file-0001"].decode().splitlines()]
    assert [(line["custom_id"], line["url"]) for line in sent] == [
        ("run-1", "/v1/responses"),
        ("run-2", "/v1/responses"),
    ]
    assert "input" in sent[0]["body"]
    assert isinstance(answers["run-2"], AgentFailure)
    assert "bad request" in answers["run-2"].message
    first = answers["run-1"]
    assert not isinstance(first, AgentFailure)
    assert first.stop_reason == "end_turn"  # a chat body read as a response: no output, so no text


def test_a_batch_that_has_not_ended_by_the_deadline_is_cancelled(
    api: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time  # noqa: PLC0415

    import toolreplay.agents.providers.openai as module  # noqa: PLC0415

    monkeypatch.setattr(module, "BATCH_POLL", 0.01)
    api.batch_polls = 10_000
    api.queue(completion("One."))
    endpoint = Endpoint(api.base_url)
    batched = BatchedOpenAI(make_client(endpoint), "gpt-4.1", {}, endpoint)
    with pytest.raises(AgentError, match="had not ended by the run timeout; it was cancelled"):
        batched.ask("", TOOLS, [("run-1", CONVERSATION[:1])], time.monotonic() + 0.2)
    assert api.cancelled == ["batch_0001"]
