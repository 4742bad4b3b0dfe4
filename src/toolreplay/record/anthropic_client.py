"""Recording from your own code: a wrapper around the Anthropic SDK's client.

    import anthropic
    from toolreplay.record.anthropic_client import RecordingClient

    client = RecordingClient(anthropic.Anthropic(), "session.json")
    response = client.messages.create(model=..., system=..., tools=..., messages=...)

Every ``messages.create`` goes to the real client unchanged and its response
comes back unchanged. After each call the conversation so far is written to the
session file, atomically and with secrets redacted. While the model's latest
turn still waits for tool results, the file holds the conversation up to the
request, so it always loads as a complete session. Recording problems never
break the caller: they become a warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolreplay.agents.claude import block_document
from toolreplay.canonical import JSONObject, JSONValue
from toolreplay.errors import ToolreplayError
from toolreplay.formats.files import write_atomic
from toolreplay.formats.session import dump_session, parse_session
from toolreplay.model import SessionContext, ToolDef
from toolreplay.redact import Redactor


def plain(value: Any) -> JSONValue:
    """SDK objects (pydantic models) and containers as plain JSON values."""
    if hasattr(value, "model_dump"):
        return plain(value.model_dump(mode="json", exclude_none=True))
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"{type(value).__name__} is not JSON data")


class SessionRecorder:
    """Turns one request and its response into the session file."""

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

    def record(self, request: Mapping[str, Any], response: Any) -> None:
        try:
            self._write(request, response)
        except (ToolreplayError, TypeError, KeyError, ValueError) as exc:
            warnings.warn(f"toolreplay could not record {self.path}: {exc}", RuntimeWarning, stacklevel=3)

    def _write(self, request: Mapping[str, Any], response: Any) -> None:
        tools: list[ToolDef] = []
        for raw in request.get("tools") or []:
            tool = plain(raw)
            schema = tool.get("input_schema") if isinstance(tool, dict) else None
            if not isinstance(tool, dict) or not isinstance(schema, dict):
                continue  # a server tool (web search and the like) has no schema and is not ours to replay
            name = str(tool["name"])
            tools.append(ToolDef(name, str(tool.get("description", "")), schema, self.annotations.get(name)))
        messages = [m for m in (plain(m) for m in request["messages"]) if isinstance(m, dict)]
        content = [block_document(block) for block in response.content]
        final: str | None = None
        if not any(block.get("type") == "tool_use" for block in content):
            messages.append({"role": "assistant", "content": list(content)})
            final = "".join(str(b.get("text", "")) for b in content if b.get("type") == "text")
        system = plain(request.get("system", ""))
        model = str(getattr(response, "model", None) or request.get("model", "unknown"))
        context = SessionContext(model, self.source, system, tuple(tools), tuple(messages), final)
        text = dump_session(context, self.redactor)
        parse_session(text, self.path)  # never write a file that would not load
        write_atomic(self.path, [text.encode("utf-8")])


class _Messages:
    def __init__(self, messages: Any, recorder: SessionRecorder) -> None:
        self._messages = messages
        self._recorder = recorder

    def create(self, **request: Any) -> Any:
        response = self._messages.create(**request)
        if not request.get("stream"):
            self._recorder.record(request, response)
        return response

    def __getattr__(self, name: str) -> Any:
        return getattr(self._messages, name)


class _AsyncMessages(_Messages):
    async def create(self, **request: Any) -> Any:
        response = await self._messages.create(**request)
        if not request.get("stream"):
            self._recorder.record(request, response)
        return response


class RecordingClient:
    """``anthropic.Anthropic`` with every ``messages.create`` recorded to a session file.

    ``annotations`` maps tool names to their MCP annotations, which the API has
    no field for. Streaming calls pass through unrecorded.
    """

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
        self.messages = self._wrap(client.messages)

    def _wrap(self, messages: Any) -> _Messages:
        return _Messages(messages, self.recorder)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


class AsyncRecordingClient(RecordingClient):
    """``anthropic.AsyncAnthropic`` with every ``messages.create`` recorded to a session file."""

    def _wrap(self, messages: Any) -> _Messages:
        return _AsyncMessages(messages, self.recorder)
