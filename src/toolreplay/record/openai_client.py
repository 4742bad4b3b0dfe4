"""Recording from your own code on the OpenAI SDK: a wrapper around its client, as ``RecordingClient`` is around
the Anthropic SDK's.

    import openai
    from toolreplay.record.openai_client import RecordingOpenAI

    client = RecordingOpenAI(openai.OpenAI(), "session.json")
    completion = client.chat.completions.create(model=..., messages=..., tools=...)
    response = client.responses.create(model=..., instructions=..., input=..., tools=...)

Every request goes to the real client unchanged and its answer comes back
unchanged: ``chat.completions.create`` and ``responses.create``, with or
without ``stream=True`` (a stream is passed through chunk by chunk and recorded
once it has been read to its end), on ``OpenAI`` or ``AsyncOpenAI``
(``AsyncRecordingOpenAI``). After each exchange the conversation so far is
written to the session file, atomically and with secrets redacted, as ``import
--from openai`` reads the same conversation (one builder makes both): the
system prompt, the person's messages, each call and its result, the tools, the
final reply. A Responses conversation carried on by ``previous_response_id``
is joined to the exchange it continues. While the model's latest turn still
waits for tool results, the file holds the conversation without those calls,
so it always loads as a complete session. Recording never breaks the caller:
anything it cannot record is one warning, and the file keeps its last loadable
state.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolreplay.core.canonical import JSONObject, JSONValue, json_utf8
from toolreplay.core.errors import ToolreplayError
from toolreplay.core.files import write_atomic
from toolreplay.core.model import ToolDef
from toolreplay.formats.importers.builder import Notes
from toolreplay.formats.importers.openai import openai_session
from toolreplay.formats.parsing.json_text import parse_json
from toolreplay.formats.session.reader import parse_session
from toolreplay.formats.session.writer import dump_session
from toolreplay.record.anthropic_client import json_of
from toolreplay.record.streams import PassThrough
from toolreplay.redact import Redactor


class OpenAIRecorder:
    """Turns each request and its answer into the session file."""

    def __init__(
        self,
        path: str | Path,
        annotations: Mapping[str, JSONObject] | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        self.path = Path(path)
        self.annotations = dict(annotations or {})
        self.redactor = Redactor.default() if redactor is None else redactor
        self.source: JSONObject = {"kind": "openai-sdk"}
        self.items: dict[str, list[JSONValue]] = {}  # each Responses answer's whole conversation, by its id

    def warn(self, problem: str) -> None:
        warnings.warn(f"toolreplay could not record {self.path}: {problem}", RuntimeWarning, stacklevel=4)

    def chat(self, request: Mapping[str, Any], completion: Any) -> None:
        def document() -> JSONObject:
            answer: Any = json_of(completion)
            choices = answer.get("choices") if isinstance(answer, dict) else None
            if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
                raise TypeError("the answer is not a chat completion")
            message = {k: v for k, v in dict(choices[0]["message"]).items() if k in ("role", "content", "tool_calls")}
            sent = json_of(list(request["messages"]))
            assert isinstance(sent, list)
            return {"model": _model(request, answer), "messages": [*sent, message], **self._tools(request)}

        self._write(document)

    def responses(self, request: Mapping[str, Any], response: Any) -> None:
        def document() -> JSONObject:
            answer: Any = json_of(response)
            if not isinstance(answer, dict) or not isinstance(answer.get("output"), list):
                raise TypeError("the answer is not a response")
            given = json_of(request.get("input", []))
            sent: list[JSONValue] = [{"role": "user", "content": given}] if isinstance(given, str) else list(
                given if isinstance(given, list) else []
            )  # fmt: skip
            earlier = self.items.get(str(request.get("previous_response_id")), [])
            items = [*earlier, *sent, *answer["output"]]
            if isinstance(answer.get("id"), str):
                self.items[answer["id"]] = items
            doc: JSONObject = {"model": _model(request, answer), "input": items, **self._tools(request)}
            instructions = request.get("instructions")
            if isinstance(instructions, str) and instructions:
                doc["instructions"] = instructions
            return doc

        self._write(document)

    def _tools(self, request: Mapping[str, Any]) -> JSONObject:
        tools = json_of(request.get("tools") or [])
        return {"tools": tools} if tools else {}

    def _write(self, document: Any) -> None:
        try:
            text = json.dumps(document(), ensure_ascii=False)
            context = openai_session(parse_json(text, self.path), None, Notes(), self.source)
            tools = tuple(ToolDef(t.name, t.description, t.input_schema, self.annotations.get(t.name)) for t in
                          context.tools)  # fmt: skip
            shown = dump_session(replace(context, tools=tools), self.redactor)
            parse_session(shown, self.path)  # never write a file that would not load
            write_atomic(self.path, [json_utf8(shown)])
        except Exception as exc:  # the caller's exchange went through; only the recording is lost
            self.warn(str(exc) if isinstance(exc, ToolreplayError) else f"{type(exc).__name__}: {exc}")


def _model(request: Mapping[str, Any], answer: Any) -> str:
    return str(answer.get("model") or request.get("model") or "unknown")


class _ChatStream(PassThrough):
    """A streamed chat completion, passed through chunk by chunk, assembled by the SDK's own state and recorded
    once the stream ends."""

    def __init__(self, stream: Any, request: Mapping[str, Any], recorder: OpenAIRecorder) -> None:
        super().__init__(stream)
        self._request = request
        self._recorder = recorder
        self._state: Any = None
        try:
            from openai.lib.streaming.chat import ChatCompletionStreamState  # noqa: PLC0415 - the optional SDK

            self._state = ChatCompletionStreamState()
        except ImportError as exc:
            recorder.warn(f"this openai SDK has no stream state ({exc})")

    def add(self, item: Any) -> None:
        if self._state is None:
            return
        try:
            self._state.handle_chunk(item)
        except Exception as exc:  # the caller's stream goes on; only the recording stops
            self._state = None
            self._recorder.warn(f"a stream chunk could not be assembled ({type(exc).__name__}: {exc})")

    def end(self) -> None:
        if self._state is None:
            return
        try:
            completion = self._state.get_final_completion()
        except Exception as exc:  # as above
            self._recorder.warn(f"the stream could not be assembled ({type(exc).__name__}: {exc})")
            return
        self._recorder.chat(self._request, completion)


class _ResponseStream(PassThrough):
    """A streamed response: its ``response.completed`` event holds the whole response, which is recorded."""

    def __init__(self, stream: Any, request: Mapping[str, Any], recorder: OpenAIRecorder) -> None:
        super().__init__(stream)
        self._request = request
        self._recorder = recorder
        self._done: Any = None

    def add(self, item: Any) -> None:
        if getattr(item, "type", None) in ("response.completed", "response.incomplete"):
            self._done = item.response

    def end(self) -> None:
        if self._done is not None:
            self._recorder.responses(self._request, self._done)


class _Completions:
    def __init__(self, completions: Any, recorder: OpenAIRecorder) -> None:
        self._completions = completions
        self._recorder = recorder

    def create(self, **request: Any) -> Any:
        answer = self._completions.create(**request)
        return self._recorded(request, answer)

    def _recorded(self, request: Mapping[str, Any], answer: Any) -> Any:
        if request.get("stream"):
            return _ChatStream(answer, request, self._recorder)
        self._recorder.chat(request, answer)
        return answer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._completions, name)


class _AsyncCompletions(_Completions):
    async def create(self, **request: Any) -> Any:
        return self._recorded(request, await self._completions.create(**request))


class _Responses:
    def __init__(self, responses: Any, recorder: OpenAIRecorder) -> None:
        self._responses = responses
        self._recorder = recorder

    def create(self, **request: Any) -> Any:
        return self._recorded(request, self._responses.create(**request))

    def _recorded(self, request: Mapping[str, Any], answer: Any) -> Any:
        if request.get("stream"):
            return _ResponseStream(answer, request, self._recorder)
        self._recorder.responses(request, answer)
        return answer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._responses, name)


class _AsyncResponses(_Responses):
    async def create(self, **request: Any) -> Any:
        return self._recorded(request, await self._responses.create(**request))


class _Chat:
    def __init__(self, chat: Any, completions: _Completions) -> None:
        self._chat = chat
        self.completions = completions

    def __getattr__(self, name: str) -> Any:
        return getattr(self._chat, name)


class RecordingOpenAI:
    """``openai.OpenAI`` with every chat completion and response recorded to a session file.

    ``annotations`` maps tool names to their MCP annotations, which the API has no field for.
    """

    _completions: type[_Completions] = _Completions
    _responses: type[_Responses] = _Responses

    def __init__(
        self,
        client: Any,
        path: str | Path,
        *,
        annotations: Mapping[str, JSONObject] | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        self._client = client
        self.recorder = OpenAIRecorder(path, annotations, redactor)
        self.chat = _Chat(client.chat, self._completions(client.chat.completions, self.recorder))
        self.responses = self._responses(client.responses, self.recorder)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


class AsyncRecordingOpenAI(RecordingOpenAI):
    """``openai.AsyncOpenAI`` with every chat completion and response recorded to a session file."""

    _completions = _AsyncCompletions
    _responses = _AsyncResponses
