"""Recording a program on the OpenAI SDK: the real SDK against the local stand-in, each API streamed and not, sync
and async; the session it writes is the one ``import --from openai`` makes of the same exchange."""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.conftest import run_cli
from tests.fakes.openai_server import FakeOpenAI, completion, response, serve
from toolreplay.formats.session.reader import parse_session
from toolreplay.record.openai_client import AsyncRecordingOpenAI, RecordingOpenAI

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}
TOOLS = [{"type": "function", "function": {"name": "read_file", "description": "Read a file.", "parameters": SCHEMA}}]
RESPONSE_TOOLS = [{"type": "function", "name": "read_file", "description": "Read a file.", "parameters": SCHEMA}]
SECRET = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"


@pytest.fixture
def api() -> Iterator[FakeOpenAI]:
    with serve() as fake:
        yield fake


def _client(api: FakeOpenAI, kind: type[Any] = openai.OpenAI) -> Any:
    return kind(api_key="sk-test", base_url=api.base_url, max_retries=0)


def _chat_exchange(client: Any, stream: bool) -> list[dict[str, Any]]:
    """A program's loop: ask, run the tool it asks for, ask again; the messages it sent in the end."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You read files."},
        {"role": "user", "content": "What is in notes.txt?"},
    ]
    for _ in range(2):
        if stream:
            chunks = list(client.chat.completions.create(model="gpt-4.1", messages=messages, tools=TOOLS, stream=True))
            text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
            calls = [tc for c in chunks if c.choices for tc in c.choices[0].delta.tool_calls or []]
            arguments = "".join(tc.function.arguments or "" for tc in calls)
            function = {"name": calls[0].function.name, "arguments": arguments} if calls else {}
            tool_calls = [{"id": calls[0].id, "type": "function", "function": function}] if calls else []
        else:
            answer = client.chat.completions.create(model="gpt-4.1", messages=messages, tools=TOOLS)
            message = answer.choices[0].message
            text = message.content or ""
            tool_calls = [tc.model_dump() for tc in message.tool_calls or []]
        if not tool_calls:
            messages.append({"role": "assistant", "content": text})
            break
        messages.append({"role": "assistant", "content": text or None, "tool_calls": tool_calls})
        messages.append({"role": "tool", "tool_call_id": tool_calls[0]["id"], "content": f"key={SECRET}"})
    return messages


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_chat_program_records_the_session_import_makes_of_the_same_exchange(
    api: FakeOpenAI, tmp_path: Path, stream: bool
) -> None:
    api.queue(completion("Reading it.", [("call_1", "read_file", {"path": "notes.txt"})]))
    api.queue(completion("It holds a key, which I will not repeat."))
    client = RecordingOpenAI(_client(api), tmp_path / "session.json")
    messages = _chat_exchange(client, stream)
    recorded = parse_session((tmp_path / "session.json").read_text(), tmp_path / "session.json")
    assert [(c.tool, c.args) for c in recorded.calls] == [("read_file", {"path": "notes.txt"})]
    assert recorded.context is not None
    assert recorded.context.final_reply == "It holds a key, which I will not repeat."
    assert recorded.context.model == "gpt-test"
    assert recorded.context.source == {"kind": "openai-sdk"}
    assert SECRET not in (tmp_path / "session.json").read_text()  # redacted as every recorder redacts
    (tmp_path / "exchange.json").write_text(json.dumps({"model": "gpt-test", "messages": messages, "tools": TOOLS}))
    imported = run_cli("import", "--from", "openai", str(tmp_path / "exchange.json"), "-o", str(tmp_path / "i.json"))
    assert imported.code == 0, imported.stderr
    other = parse_session((tmp_path / "i.json").read_text(), tmp_path / "i.json")
    assert other.context is not None
    for field in ("model", "system", "tools", "messages", "final_reply"):
        assert getattr(other.context, field) == getattr(recorded.context, field), field


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_responses_program_continued_by_previous_response_id_records_the_whole_conversation(
    api: FakeOpenAI, tmp_path: Path, stream: bool
) -> None:
    api.queue(response("Reading it.", [("call_1", "read_file", {"path": "notes.txt"})], reasoning=True))
    api.queue(response("It says hello."))
    client = RecordingOpenAI(_client(api), tmp_path / "session.json")

    def ask(**request: Any) -> Any:
        if not stream:
            return client.responses.create(**request)
        events = list(client.responses.create(stream=True, **request))
        return next(e.response for e in events if e.type == "response.completed")

    first = ask(model="gpt-4.1", instructions="You read files.", input="What is in notes.txt?", tools=RESPONSE_TOOLS)
    call = next(item for item in first.output if item.type == "function_call")
    ask(model="gpt-4.1", previous_response_id=first.id, tools=RESPONSE_TOOLS,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "hello"}])  # fmt: skip
    recorded = parse_session((tmp_path / "session.json").read_text(), tmp_path / "session.json")
    assert recorded.context is not None
    assert [(c.tool, c.args, c.result) for c in recorded.calls] == [("read_file", {"path": "notes.txt"}, "hello")]
    assert recorded.context.final_reply == "It says hello."
    assert recorded.context.messages[0] == {"role": "user", "content": "What is in notes.txt?"}
    assert recorded.context.tools[0].name == "read_file"


def test_the_async_client_records_as_the_blocking_one_does(api: FakeOpenAI, tmp_path: Path) -> None:
    api.queue(completion("Hello."))

    async def main() -> None:
        client = AsyncRecordingOpenAI(_client(api, openai.AsyncOpenAI), tmp_path / "session.json")
        await client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "Hi"}])
        stream = await client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "user", "content": "Hi"}], stream=True
        )
        async for _ in stream:
            pass

    api.queue(completion("Hello again."))
    asyncio.run(main())
    recorded = parse_session((tmp_path / "session.json").read_text(), tmp_path / "session.json")
    assert recorded.context is not None
    assert recorded.context.final_reply == "Hello again."


def test_a_recording_that_cannot_be_written_is_one_warning_and_the_caller_gets_its_answer(
    api: FakeOpenAI, tmp_path: Path
) -> None:
    api.queue(completion("Hello."))
    client = RecordingOpenAI(_client(api), tmp_path / "no-such-directory" / "session.json")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        answer = client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "Hi"}])
    assert answer.choices[0].message.content == "Hello."
    assert len(caught) == 1
    assert "toolreplay could not record" in str(caught[0].message)
    assert client.models is client._client.models  # everything else is the client's own
