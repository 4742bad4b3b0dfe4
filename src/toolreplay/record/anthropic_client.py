"""Recording from your own code: a wrapper around the Anthropic SDK's client.

    import anthropic
    from toolreplay.record.anthropic_client import RecordingClient

    client = RecordingClient(anthropic.Anthropic(), "session.json")
    response = client.messages.create(model=..., system=..., tools=..., messages=...)

Every request goes to the real client unchanged and its response comes back
unchanged: ``messages.create`` (with or without ``stream=True``),
``messages.stream()``, ``messages.with_raw_response.create`` and the same under
``beta.messages``. A streamed response is assembled from its events by the
SDK's own accumulator, so it is recorded exactly as ``create`` would have
returned it. After each exchange the conversation so far is written to the
session file, atomically and with secrets redacted: the person's messages (all
of them: a session is a conversation), the model's turns with how each ended and
what it cost, server tool blocks verbatim, and the request settings a replay
reuses (``max_tokens``, ``temperature``, ``thinking``, ``tool_choice``,
``stop_sequences``, the server tools offered). While the model's latest turn
still waits for tool results, the file holds the conversation up to the
request, so it always loads as a complete session. Recording never breaks the
caller: anything it cannot record is one warning, and the file keeps its last
loadable state.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes, json_utf8
from toolreplay.core.errors import ToolreplayError
from toolreplay.core.files import write_atomic
from toolreplay.core.model import SessionContext, ToolDef, content_text
from toolreplay.formats.session.reader import parse_session
from toolreplay.formats.session.shape import REQUEST_FIELDS
from toolreplay.formats.session.writer import dump_session
from toolreplay.record.streams import PassThrough
from toolreplay.redact import Redactor

# The request settings a session keeps (the server tools are taken from ``tools``).
_SETTINGS = tuple(key for key in REQUEST_FIELDS if key != "server_tools")


def json_of(value: Any) -> JSONValue:
    """SDK objects (pydantic models) and containers as json_of JSON values."""
    if hasattr(value, "model_dump"):
        return json_of(value.model_dump(mode="json", exclude_none=True))
    if isinstance(value, Mapping):
        return {str(key): json_of(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_of(item) for item in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"{type(value).__name__} is not JSON data")


class SessionRecorder:
    """Turns each request and its response into the session file."""

    def __init__(
        self,
        path: str | Path,
        annotations: Mapping[str, JSONObject] | None = None,
        redactor: Redactor | None = None,
        source: JSONObject | None = None,
    ) -> None:
        self.path = Path(path)
        self.annotations = dict(annotations or {})
        self.redactor = Redactor.default() if redactor is None else redactor
        self.source: JSONObject = {"kind": "anthropic-sdk", **(source or {})}
        # Each model turn seen, by its content: how it ended and its usage, for when a later request repeats it.
        self.turns: dict[bytes, JSONObject] = {}

    def record(self, request: Mapping[str, Any], response: Any) -> None:
        try:
            self._write(request, response)
        except Exception as exc:
            self.warn(f"{type(exc).__name__}: {exc}" if not isinstance(exc, ToolreplayError) else str(exc))

    def warn(self, problem: str) -> None:
        warnings.warn(f"toolreplay could not record {self.path}: {problem}", RuntimeWarning, stacklevel=4)

    def _write(self, request: Mapping[str, Any], response: Any) -> None:
        message = json_of(response)
        raw = message.get("content") if isinstance(message, dict) else None
        if not isinstance(message, dict) or not isinstance(raw, list):
            raise TypeError("the response is not a message")
        content: list[JSONValue] = [block for block in raw if isinstance(block, dict)]
        turn: JSONObject = {"stop_reason": message.get("stop_reason")}
        if isinstance(message.get("usage"), dict):
            turn["usage"] = message["usage"]
        self.turns[canonical_bytes(content)] = turn
        tools, server_tools = self._tools(request)
        messages = [self._with_turn(m) for m in (json_of(m) for m in request["messages"]) if isinstance(m, dict)]
        final: str | None = None
        blocks = [block for block in content if isinstance(block, dict)]
        if not any(block.get("type") == "tool_use" for block in blocks):
            messages.append({"role": "assistant", "content": content, **turn})
            final = content_text(blocks, "")
        given = {**(request.get("extra_body") or {}), **request}  # a setting this SDK has no parameter for rides there
        settings: JSONObject = {key: json_of(given[key]) for key in _SETTINGS if given.get(key) is not None}
        if server_tools:
            settings["server_tools"] = server_tools
        system = json_of(request.get("system", ""))
        model = str(message.get("model") or request.get("model", "unknown"))
        context = SessionContext(model, self.source, system, tuple(tools), tuple(messages), final, settings or None)
        text = dump_session(context, self.redactor)
        parse_session(text, self.path)  # never write a file that would not load
        write_atomic(self.path, [json_utf8(text)])

    def _tools(self, request: Mapping[str, Any]) -> tuple[list[ToolDef], list[JSONValue]]:
        """The request's own tools (with a schema) as definitions; server tools (web search...) verbatim."""
        tools: list[ToolDef] = []
        server: list[JSONValue] = []
        for raw in request.get("tools") or []:
            tool = json_of(raw)
            schema = tool.get("input_schema") if isinstance(tool, dict) else None
            if not isinstance(tool, dict) or not isinstance(schema, dict):
                server.append(tool)
                continue
            name = str(tool["name"])
            tools.append(ToolDef(name, str(tool.get("description", "")), schema, self.annotations.get(name)))
        return tools, server

    def _with_turn(self, message: JSONObject) -> JSONObject:
        """An assistant message of the request, with how that turn ended and its usage when this recorder saw it."""
        if message.get("role") != "assistant":
            return message
        content = message.get("content")
        blocks: JSONValue = [{"type": "text", "text": content}] if isinstance(content, str) else content
        return {**message, **self.turns.get(canonical_bytes(blocks), {})}


def _accumulator(beta: bool) -> Any:
    """The SDK's own function that builds a message from its stream events."""
    if beta:
        from anthropic.lib.streaming import _beta_messages  # noqa: PLC0415 - the optional SDK

        return _beta_messages.accumulate_event
    from anthropic.lib.streaming import _messages  # noqa: PLC0415

    return _messages.accumulate_event


class _Assembly:
    """A streamed response, assembled event by event as the SDK does, then recorded once it is complete."""

    def __init__(self, request: Mapping[str, Any], recorder: SessionRecorder, stream: Any, beta: bool) -> None:
        self.request = request
        self.recorder = recorder
        self.snapshot: Any = None
        self.buffers: dict[int, bytes] = {}
        self.failed = False
        self.extra: dict[str, Any] = {}
        if beta:  # the beta accumulator reads the request's beta headers
            self.extra["request_headers"] = stream.response.request.headers
        try:
            self.accumulate = _accumulator(beta)
        except ImportError as exc:
            self.fail(f"this anthropic SDK has no stream accumulator ({exc})")

    def fail(self, problem: str) -> None:
        if not self.failed:
            self.failed = True
            self.recorder.warn(problem)

    def add(self, event: Any) -> None:
        if self.failed:
            return
        try:
            self.snapshot = self.accumulate(
                event=event, current_snapshot=self.snapshot, json_bufs=self.buffers, **self.extra
            )
        except Exception as exc:  # the caller's stream goes on; only the recording stops
            self.fail(f"a stream event could not be assembled ({type(exc).__name__}: {exc})")
            return
        if getattr(event, "type", None) == "message_stop":
            self.recorder.record(self.request, self.snapshot)


class _RecordedStream(PassThrough):
    """The SDK's stream of events for ``create(stream=True)``, passed through and recorded at its end."""

    def __init__(self, stream: Any, assembly: _Assembly) -> None:
        super().__init__(stream)
        self._assembly = assembly

    def add(self, item: Any) -> None:
        self._assembly.add(item)


class _RecordedStreamManager:
    """What ``messages.stream()`` returns, recording the message once the stream has been read to its end."""

    def __init__(self, manager: Any, request: Mapping[str, Any], recorder: SessionRecorder) -> None:
        self._manager = manager
        self._request = request
        self._recorder = recorder
        self._stream: Any = None

    def _finish(self) -> None:
        try:
            message = self._stream.current_message_snapshot
        except AssertionError:  # no message_start yet: nothing was said
            return
        if getattr(message, "stop_reason", None) is not None:  # read to its end
            self._recorder.record(self._request, message)

    def __enter__(self) -> Any:
        self._stream = self._manager.__enter__()
        return self._stream

    def __exit__(self, *exc: object) -> Any:
        if self._stream is not None and exc[0] is None:
            self._finish()
        return self._manager.__exit__(*exc)

    async def __aenter__(self) -> Any:
        self._stream = await self._manager.__aenter__()
        return self._stream

    async def __aexit__(self, *exc: object) -> Any:
        if self._stream is not None and exc[0] is None:
            self._finish()
        return await self._manager.__aexit__(*exc)


class _RawMessages:
    """``messages.with_raw_response``: the raw response comes back; its parsed message is recorded."""

    def __init__(self, raw: Any, recorder: SessionRecorder) -> None:
        self._raw = raw
        self._recorder = recorder

    def create(self, **request: Any) -> Any:
        response = self._raw.create(**request)
        if not request.get("stream"):
            self._recorder.record(request, response.parse())
        else:
            self._recorder.warn("a raw streamed response is passed through unrecorded")
        return response

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class _AsyncRawMessages(_RawMessages):
    async def create(self, **request: Any) -> Any:
        response = await self._raw.create(**request)
        if not request.get("stream"):
            self._recorder.record(request, await response.parse())
        else:
            self._recorder.warn("a raw streamed response is passed through unrecorded")
        return response


class _Messages:
    def __init__(self, messages: Any, recorder: SessionRecorder, beta: bool = False) -> None:
        self._messages = messages
        self._recorder = recorder
        self._beta = beta

    def create(self, **request: Any) -> Any:
        response = self._messages.create(**request)
        if request.get("stream"):
            return _RecordedStream(response, _Assembly(request, self._recorder, response, self._beta))
        self._recorder.record(request, response)
        return response

    def stream(self, **request: Any) -> Any:
        return _RecordedStreamManager(self._messages.stream(**request), request, self._recorder)

    @property
    def with_raw_response(self) -> Any:
        return _RawMessages(self._messages.with_raw_response, self._recorder)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._messages, name)


class _AsyncMessages(_Messages):
    async def create(self, **request: Any) -> Any:
        response = await self._messages.create(**request)
        if request.get("stream"):
            return _RecordedStream(response, _Assembly(request, self._recorder, response, self._beta))
        self._recorder.record(request, response)
        return response

    @property
    def with_raw_response(self) -> Any:
        return _AsyncRawMessages(self._messages.with_raw_response, self._recorder)


class _Beta:
    """``client.beta``, with its ``messages`` recorded."""

    def __init__(self, beta: Any, messages: _Messages) -> None:
        self._beta = beta
        self.messages = messages

    def __getattr__(self, name: str) -> Any:
        return getattr(self._beta, name)


class RecordingClient:
    """``anthropic.Anthropic`` with every message request recorded to a session file.

    ``annotations`` maps tool names to their MCP annotations, which the API has
    no field for.
    """

    _messages_type: type[_Messages] = _Messages

    def __init__(
        self,
        client: Any,
        path: str | Path,
        *,
        annotations: Mapping[str, JSONObject] | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        self._client = client
        self.recorder = SessionRecorder(path, annotations, redactor)
        self.messages = self._messages_type(client.messages, self.recorder)
        self.beta = _Beta(client.beta, self._messages_type(client.beta.messages, self.recorder, beta=True))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


class AsyncRecordingClient(RecordingClient):
    """``anthropic.AsyncAnthropic`` with every message request recorded to a session file."""

    _messages_type = _AsyncMessages
