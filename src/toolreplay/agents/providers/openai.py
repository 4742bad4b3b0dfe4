"""OpenAI's models, and any server that speaks OpenAI's API (vLLM, Ollama, LiteLLM, llama.cpp), through the
``openai`` SDK (the ``openai`` extra): Chat Completions (``--api chat``, the default, which every such server
offers) or the Responses API (``--api responses``, OpenAI's own).

The client is the SDK's, configured from the environment as the SDK configures
it (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``), with ``--base-url`` for another
address. A replay's conversation is held in the Messages API's form; this module
translates it at the edge: the system prompt and the tools once per replay, the
messages each turn, the answer back into a turn. The recorded request settings
are mapped to what the API takes (``max_tokens`` to ``max_completion_tokens`` for
OpenAI itself, which its reasoning models require, and to ``max_tokens`` for
any other server, which they all take; ``stop_sequences`` to ``stop``;
``tool_choice`` to its counterpart); one with no counterpart is refused before
any run, in one line. OpenAI caches prompts on its own, so nothing is sent for
``prompt-cache``; the cached tokens come back in each turn's usage.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from typing import Any

from toolreplay.agents.base import AsyncAgent, Turn, Usage
from toolreplay.agents.loop import AgentFailure
from toolreplay.agents.providers.base import PROVIDER_ITEM, AgentError, Endpoint, Pending, shown_url, without_keys
from toolreplay.agents.providers.base import failure as base_failure
from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import UsageError
from toolreplay.core.model import ToolDef
from toolreplay.settings import Api

PATHS = {Api.CHAT: "/v1/chat/completions", Api.RESPONSES: "/v1/responses"}  # a batch's requests go to these
NAMES = {Api.CHAT: "OpenAI Chat Completions", Api.RESPONSES: "the OpenAI Responses API"}
BATCH_POLL = 15.0  # seconds between two looks at a batch that has not ended
_ENDED = ("completed", "failed", "expired", "cancelled")


def sdk() -> Any:
    try:
        import openai  # noqa: PLC0415 - the optional extra, loaded only when an openai/ model is used
    except ImportError:
        raise UsageError("an openai/ model needs the openai extra: pip install 'toolreplay[openai]'") from None
    return openai


def make_client(endpoint: Endpoint, asynchronous: bool = False) -> Any:
    """The SDK's client, from the environment and ``endpoint``; a missing key in one line."""
    openai = sdk()
    if not os.environ.get("OPENAI_API_KEY"):
        raise UsageError("set OPENAI_API_KEY to use an openai/ model (any value, for a local server that checks none)")
    make = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    try:
        return make(timeout=endpoint.timeout, base_url=endpoint.base_url)
    except openai.OpenAIError as exc:
        raise UsageError(
            f"set OPENAI_API_KEY to use an openai/ model (any value, for a local server that checks none): {exc}"
        ) from None


# --- the request ---


def refused_settings(request: JSONObject, api: Api) -> str | None:
    """The first recorded request setting the API has no counterpart for, said in one line; None when all map."""
    thinking = request.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") not in (None, "disabled"):
        return (
            "the recording asks for extended thinking (thinking: a Claude token budget), which OpenAI's API takes "
            "no counterpart of; replay it on a Claude model"
        )
    if "top_k" in request:
        return "the recording sets top_k, which OpenAI's API does not take"
    if request.get("server_tools"):
        return (
            "the recording offers server tools (run by Anthropic: web search, code execution), which OpenAI's API "
            "does not run"
        )
    if request.get("stop_sequences") and api is Api.RESPONSES:
        return "the recording sets stop_sequences, which the Responses API does not take; replay with --api chat"
    choice = request.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") not in ("auto", "any", "tool", "none"):
        return f"the recording's tool_choice {choice.get('type')!r} has no counterpart in OpenAI's API"
    return None


def system_text(system: JSONValue) -> str:
    """A Messages API system prompt (text, or text blocks) as the one text OpenAI's APIs take."""
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict) and b.get("type") == "text")
    return ""


def chat_tools(tools: Sequence[ToolDef]) -> list[JSONValue]:
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}}
        for t in tools
    ]


def responses_tools(tools: Sequence[ToolDef]) -> list[JSONValue]:
    return [
        {"type": "function", "name": t.name, "description": t.description, "parameters": t.input_schema} for t in tools
    ]


def settings_for(request: JSONObject, api: Api, official: bool) -> dict[str, Any]:
    """The recorded settings as the API's parameters (``official``: OpenAI's own API, not another server)."""
    chosen: dict[str, Any] = {}
    if "max_tokens" in request:
        key = "max_output_tokens" if api is Api.RESPONSES else "max_completion_tokens" if official else "max_tokens"
        chosen[key] = request["max_tokens"]
    for key in ("temperature", "top_p"):
        if key in request:
            chosen[key] = request[key]
    if request.get("stop_sequences"):
        chosen["stop"] = request["stop_sequences"]
    choice = request.get("tool_choice")
    if isinstance(choice, dict):
        kind = choice.get("type")
        if kind == "tool":
            named = choice.get("name")
            chosen["tool_choice"] = (
                {"type": "function", "name": named} if api is Api.RESPONSES else
                {"type": "function", "function": {"name": named}}
            )  # fmt: skip
        elif kind in ("auto", "any", "none"):
            chosen["tool_choice"] = {"auto": "auto", "any": "required", "none": "none"}[str(kind)]
        if choice.get("disable_parallel_tool_use") is True:
            chosen["parallel_tool_calls"] = False
    return chosen


def _result_text(content: JSONValue) -> str:
    """A tool result's content as the text OpenAI's APIs take for it: text blocks joined, others as JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", "")) if isinstance(block, dict) and block.get("type") == "text" else
            json.dumps(block, ensure_ascii=False)
            for block in content
        )  # fmt: skip
    return json.dumps(content, ensure_ascii=False)


def _parts(content: JSONValue, api: Api) -> str | list[JSONValue]:
    """What the person said, as a user message's content: text as text; text and image blocks as parts."""
    if isinstance(content, str):
        return content
    parts: list[JSONValue] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            text = block.get("text", "")
            parts.append(
                {"type": "input_text", "text": text} if api is Api.RESPONSES else {"type": "text", "text": text}
            )
        elif block.get("type") == "image" and isinstance(block.get("source"), dict):
            source: dict[str, Any] = block["source"]  # type: ignore[assignment]
            url = source.get("url") if source.get("type") == "url" else (
                f"data:{source.get('media_type')};base64,{source.get('data')}"
            )  # fmt: skip
            parts.append({"type": "input_image", "image_url": url} if api is Api.RESPONSES else
                         {"type": "image_url", "image_url": {"url": url}})  # fmt: skip
        else:
            text = json.dumps(block, ensure_ascii=False)
            parts.append(
                {"type": "input_text", "text": text} if api is Api.RESPONSES else {"type": "text", "text": text}
            )
    return parts


def _arguments(block: JSONObject) -> str:
    return json.dumps(block.get("input", {}), ensure_ascii=False)


def chat_messages(system: str, messages: Sequence[JSONObject]) -> list[JSONValue]:
    """The conversation as Chat Completions messages: each tool result its own ``tool`` message, after the
    assistant message that asked for it; the person's words after the results they came with."""
    out: list[JSONValue] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        content = message.get("content")
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        if message.get("role") == "assistant":
            said = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
            if isinstance(content, str):
                said = content
            calls = [
                {"id": b.get("id"), "type": "function", "function": {"name": b.get("name"), "arguments": _arguments(b)}}
                for b in blocks
                if b.get("type") == "tool_use"
            ]
            turn: JSONObject = {"role": "assistant", "content": said or None}
            if calls:
                turn["tool_calls"] = list(calls)
            out.append(turn)
            continue
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for result in results:
            out.append({"role": "tool", "tool_call_id": result.get("tool_use_id"),
                        "content": _result_text(result.get("content", ""))})  # fmt: skip
        rest: JSONValue = content if isinstance(content, str) else [b for b in blocks if b.get("type") != "tool_result"]
        if isinstance(rest, str) or rest:
            out.append({"role": "user", "content": _parts(rest, Api.CHAT)})
    return out


def responses_input(messages: Sequence[JSONObject]) -> list[JSONValue]:
    """The conversation as Responses API input items: a call as ``function_call``, its result as
    ``function_call_output``, and the provider's own items (reasoning) sent back as they came."""
    out: list[JSONValue] = []
    for message in messages:
        content = message.get("content")
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        if message.get("role") == "assistant":
            if isinstance(content, str):
                out.append({"role": "assistant", "content": content})
            for block in blocks:
                kind = block.get("type")
                if kind == "text" and block.get("text"):
                    out.append({"role": "assistant", "content": block["text"]})
                elif kind == "tool_use":
                    out.append({"type": "function_call", "call_id": block.get("id"), "name": block.get("name"),
                                "arguments": _arguments(block)})  # fmt: skip
                elif kind == PROVIDER_ITEM:
                    out.append(block.get("item"))
            continue
        for block in blocks:
            if block.get("type") == "tool_result":
                out.append({"type": "function_call_output", "call_id": block.get("tool_use_id"),
                            "output": _result_text(block.get("content", ""))})  # fmt: skip
        rest: JSONValue = content if isinstance(content, str) else [b for b in blocks if b.get("type") != "tool_result"]
        if isinstance(rest, str) or rest:
            out.append({"role": "user", "content": _parts(rest, Api.RESPONSES)})
    return out


# --- the answer ---


def _use(call_id: JSONValue, name: JSONValue, arguments: JSONValue) -> JSONObject:
    """A tool call as a ``tool_use`` block; arguments that are no JSON object stay text, which the turn loop
    reports as a malformed call (the run's error), never a guess."""
    parsed: JSONValue = arguments
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            parsed = arguments
    return {"type": "tool_use", "id": call_id, "name": name, "input": parsed}


def _usage(usage: Any, given: str, made: str, details: str) -> Usage:
    """Tokens a turn spent: the cached part of the input apart, as the Messages API counts it."""
    if not isinstance(usage, dict):
        return Usage()
    detail = usage.get(details)
    cached = detail.get("cached_tokens") if isinstance(detail, dict) else 0
    read = cached if isinstance(cached, int) else 0
    sent = usage.get(given)
    out = usage.get(made)
    return Usage(max(0, (sent if isinstance(sent, int) else 0) - read), out if isinstance(out, int) else 0, read)


_FINISHED = {"stop": "end_turn", "tool_calls": "tool_use", "function_call": "tool_use", "length": "max_tokens",
             "content_filter": "refusal"}  # fmt: skip


def chat_turn(response: dict[str, Any]) -> Turn:
    """A Chat Completions response as a turn."""
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise AgentError("the model's response holds no choice")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        raise AgentError("the model's response holds no message")
    usage = _usage(response.get("usage"), "prompt_tokens", "completion_tokens", "prompt_tokens_details")
    if message.get("refusal"):
        return Turn([{"type": "text", "text": str(message["refusal"])}], "refusal", usage)
    content: list[JSONObject] = [{"type": "text", "text": message["content"]}] if message.get("content") else []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            content.append(_use(call.get("id"), function.get("name"), function.get("arguments", "")))
    stop = _FINISHED.get(str(choice.get("finish_reason")), str(choice.get("finish_reason") or "end_turn"))
    if any(block["type"] == "tool_use" for block in content):
        stop = "tool_use"
    return Turn(content, stop, usage)


def responses_turn(response: dict[str, Any]) -> Turn:
    """A Responses API response as a turn; items no other part reads (reasoning) kept to be sent back."""
    if response.get("status") == "failed" or response.get("error"):
        error = response.get("error")
        said = error.get("message") if isinstance(error, dict) else error
        raise AgentError(f"the model's response failed: {said}")
    usage = _usage(response.get("usage"), "input_tokens", "output_tokens", "input_tokens_details")
    content: list[JSONObject] = []
    refused = False
    for item in response.get("output") or []:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "message":
            for part in item.get("content") or []:
                if isinstance(part, dict) and part.get("type") == "output_text":
                    content.append({"type": "text", "text": str(part.get("text", ""))})
                elif isinstance(part, dict) and part.get("type") == "refusal":
                    content.append({"type": "text", "text": str(part.get("refusal", ""))})
                    refused = True
        elif item.get("type") == "function_call":
            content.append(_use(item.get("call_id"), item.get("name"), item.get("arguments", "")))
        else:
            content.append({"type": PROVIDER_ITEM, "item": item})
    incomplete = response.get("incomplete_details")
    reason = incomplete.get("reason") if isinstance(incomplete, dict) else None
    if refused or reason == "content_filter":
        stop = "refusal"
    elif any(block["type"] == "tool_use" for block in content):
        stop = "tool_use"
    elif reason == "max_output_tokens":
        stop = "max_tokens"
    else:
        stop = "end_turn"
    return Turn(content, stop, usage)


# --- the agents ---


def dumped(response: Any) -> dict[str, Any]:
    """An SDK response as plain JSON, as the API sent it."""
    if isinstance(response, dict):
        return response
    data: dict[str, Any] = response.model_dump(mode="json", exclude_none=True)
    return data


class _Asking:
    """What the blocking, async and batch askers share: the model, the settings, the request of a turn; the
    system prompt and the tools translated once per replay (they are the same object for every turn)."""

    def __init__(self, client: Any, model: str, request: JSONObject, endpoint: Endpoint) -> None:
        self.client = client
        self._model = model
        self.api = endpoint.api
        self.settings = settings_for(request, endpoint.api, official=endpoint.base_url is None and _official(client))
        self._shared: tuple[int, int, str, list[JSONValue]] | None = None

    @property
    def model(self) -> str:
        """The model as a session records it, with its provider."""
        return f"openai/{self._model}"

    def _translated(self, system: JSONValue, tools: Sequence[ToolDef]) -> tuple[str, list[JSONValue]]:
        if self._shared is None or self._shared[:2] != (id(system), id(tools)):
            made = responses_tools(tools) if self.api is Api.RESPONSES else chat_tools(tools)
            self._shared = (id(system), id(tools), system_text(system), made)
        return self._shared[2], self._shared[3]

    def body(self, system: JSONValue, tools: Sequence[ToolDef], messages: Sequence[JSONObject]) -> dict[str, Any]:
        """The keyword arguments of ``create`` (and a batch request's body) for one turn."""
        prompt, definitions = self._translated(system, tools)
        body: dict[str, Any] = {"model": self._model, **self.settings}
        if self.api is Api.RESPONSES:
            body["input"] = responses_input(messages)
            if prompt:
                body["instructions"] = prompt
        else:
            body["messages"] = chat_messages(prompt, messages)
        if definitions:
            body["tools"] = definitions
        else:
            body.pop("tool_choice", None)
            body.pop("parallel_tool_calls", None)
        return body

    def turn(self, response: Any) -> Turn:
        data = dumped(response)
        return responses_turn(data) if self.api is Api.RESPONSES else chat_turn(data)

    def create(self) -> Any:
        return self.client.responses.create if self.api is Api.RESPONSES else self.client.chat.completions.create


def _official(client: Any) -> bool:
    """Whether ``client`` talks to OpenAI's own API (the address the SDK took from the environment, else its
    default)."""
    return str(getattr(client, "base_url", "")).startswith("https://api.openai.com/")


def failure(exc: Exception) -> AgentError:
    """Why an OpenAI model gave no turn (see :func:`toolreplay.agents.providers.base.failure`)."""
    return base_failure(exc, sdk().APIError)


class OpenAIAgent(_Asking):
    """Asks an OpenAI model for each turn, blocking."""

    def respond(self, system: JSONValue, tools: Sequence[ToolDef], messages: Sequence[JSONObject]) -> Turn:
        try:
            return self.turn(self.create()(**self.body(system, tools, messages)))
        except Exception as exc:  # whatever the SDK or the response does, it ends this run, not the command
            raise failure(exc) from None


class AsyncOpenAIAgent(_Asking):
    """Asks an OpenAI model for each turn through the async client, so runs can overlap."""

    async def respond(self, system: JSONValue, tools: Sequence[ToolDef], messages: Sequence[JSONObject]) -> Turn:
        try:
            return self.turn(await self.create()(**self.body(system, tools, messages)))
        except Exception as exc:  # as above
            raise failure(exc) from None


class BatchedOpenAI(_Asking):
    """One turn of many runs as one OpenAI batch (a JSONL file of requests, half the price, answered within a
    day), waited for until ``deadline``, looking every :data:`BATCH_POLL` seconds."""

    def ask(
        self, system: JSONValue, tools: Sequence[ToolDef], pending: Pending, deadline: float
    ) -> dict[str, Turn | AgentFailure]:
        path = PATHS[self.api]
        lines = [
            json.dumps({"custom_id": name, "method": "POST", "url": path, "body": self.body(system, tools, sent)})
            for name, sent in pending
        ]
        try:
            sent_file = self.client.files.create(
                file=("toolreplay-batch.jsonl", "".join(line + "\n" for line in lines).encode()), purpose="batch"
            )
            batches = self.client.batches
            batch = batches.create(input_file_id=sent_file.id, endpoint=path, completion_window="24h")
            while batch.status not in _ENDED:
                if time.monotonic() > deadline:
                    batches.cancel(batch.id)
                    raise AgentError(f"the batch {batch.id} had not ended by the run timeout; it was cancelled")
                time.sleep(BATCH_POLL)
                batch = batches.retrieve(batch.id)
            if batch.status != "completed":
                said = "; ".join(str(getattr(e, "message", e)) for e in getattr(batch.errors, "data", None) or [])
                raise AgentError(f"the batch {batch.id} {batch.status}" + (f": {said}" if said else ""))
            return self._answers(batch)
        except Exception as exc:  # whatever the SDK or the batch does, it ends these runs, not the command
            raise failure(exc) from None

    def _answers(self, batch: Any) -> dict[str, Turn | AgentFailure]:
        answers: dict[str, Turn | AgentFailure] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            for line in self.client.files.content(file_id).text.splitlines():
                if not line.strip():
                    continue
                entry = json.loads(line)
                name = str(entry.get("custom_id"))
                response = entry.get("response") or {}
                if entry.get("error") or response.get("status_code") != 200:
                    error = entry.get("error") or (response.get("body") or {}).get("error") or {}
                    said = error.get("message", "") if isinstance(error, dict) else str(error)
                    answers[name] = AgentFailure(without_keys(f"the batch's request failed: {said}")[:300])
                    continue
                try:
                    answers[name] = self.turn(response["body"])
                except AgentError as exc:
                    answers[name] = AgentFailure(without_keys(exc.message))
        return answers


class _Clients:
    def __init__(self, client: Any, endpoint: Endpoint) -> None:
        self.client = client
        self.endpoint = endpoint

    def agent(self, model: str, request: JSONObject) -> AsyncAgent:
        return AsyncOpenAIAgent(self.client, model, request, self.endpoint)

    async def close(self) -> None:
        await self.client.close()


class OpenAIProvider:
    name = "openai"

    def refused(self, model: str, request: JSONObject, endpoint: Endpoint, batch: bool) -> str | None:
        return refused_settings(request, endpoint.api)

    def where(self, endpoint: Endpoint) -> str:
        return NAMES[endpoint.api] + (f" at {shown_url(endpoint.base_url)}" if endpoint.base_url else "")

    def blocking(self, model: str, request: JSONObject, endpoint: Endpoint) -> OpenAIAgent:
        return OpenAIAgent(make_client(endpoint), model, request, endpoint)

    def concurrent(self, endpoint: Endpoint) -> _Clients:
        return _Clients(make_client(endpoint, asynchronous=True), endpoint)

    def batched(self, model: str, request: JSONObject, endpoint: Endpoint) -> BatchedOpenAI:
        return BatchedOpenAI(make_client(endpoint), model, request, endpoint)


PROVIDER = OpenAIProvider()
