"""Claude through the Anthropic Messages API (the ``anthropic`` extra), and the request and turn every Claude
provider shares: Amazon Bedrock and Google Cloud Vertex AI are the same Messages API behind the SDK's own
Bedrock and Vertex clients (:mod:`~toolreplay.agents.providers.bedrock`, :mod:`~toolreplay.agents.providers.vertex`).

Requests carry prompt-caching breakpoints on the system prompt and the tool
definitions, so repeated runs of one replay pay for that shared prefix once; the
tokens read from the cache come back in each turn's usage. The cache lives five
minutes from its last use, or an hour (``prompt-cache: 1h``) for a replay whose
runs are further apart than that. toolreplay's own
fields (tool annotations) are never sent.
"""

from __future__ import annotations

import inspect
import os
import time
from collections.abc import Sequence
from typing import Any

from toolreplay.agents.base import AsyncAgent, Turn, Usage, api_tool
from toolreplay.agents.loop import AgentFailure
from toolreplay.agents.providers.base import AgentError, Endpoint, Pending, failure, shown_url, without_keys
from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import UsageError
from toolreplay.core.model import ToolDef

CACHE = {"type": "ephemeral"}
LIFETIMES = ("5m", "1h")  # the prompt cache's lifetimes the API offers; 5m is its default, sent as no ttl


def sdk() -> Any:
    """The ``anthropic`` module, or one line on how to install it."""
    try:
        import anthropic  # noqa: PLC0415 - the optional extra, loaded only when a model is used
    except ImportError:
        raise UsageError("talking to a model needs the anthropic extra: pip install 'toolreplay[anthropic]'") from None
    return anthropic


def make_client(timeout: float = 120.0, base_url: str | None = None) -> Any:
    """An ``anthropic.Anthropic`` client configured from the environment; each request gives up after ``timeout``."""
    return _keyed().Anthropic(timeout=timeout, base_url=base_url)


def make_async_client(timeout: float = 120.0, base_url: str | None = None) -> Any:
    """An ``anthropic.AsyncAnthropic`` client configured from the environment."""
    return _keyed().AsyncAnthropic(timeout=timeout, base_url=base_url)


def _keyed() -> Any:
    anthropic = sdk()
    if not os.environ.get("ANTHROPIC_API_KEY") and not os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        raise UsageError("set ANTHROPIC_API_KEY to use a model (or use a scripted agent: --agent scripted:FILE)")
    return anthropic


def block_document(block: Any) -> JSONObject:
    """A response content block as plain JSON, exactly as the API sent it (thinking blocks included)."""
    data: JSONObject = block.model_dump(mode="json", exclude_none=True)
    return data


def build_request(
    model: str,
    settings: JSONObject,
    system: JSONValue,
    tools: Sequence[ToolDef],
    messages: Sequence[JSONObject],
    lifetime: str = "5m",
) -> dict[str, Any]:
    """The Messages API request for one turn, with cache breakpoints after the system prompt and the tools, each
    for ``lifetime``.

    ``settings`` are a session's request settings (``max_tokens``, ``temperature``, ``thinking``,
    ``tool_choice``, ``stop_sequences``...), with the server tools it offered added to the tools.
    """
    cache = dict(CACHE) if lifetime == "5m" else {**CACHE, "ttl": lifetime}
    request: dict[str, Any] = {"model": model, "messages": list(messages)}
    request.update((key, value) for key, value in settings.items() if key != "server_tools")
    server_tools = settings.get("server_tools")
    definitions: list[JSONValue] = [api_tool(tool) for tool in tools]
    definitions += server_tools if isinstance(server_tools, list) else []
    if definitions:
        last = definitions[-1]
        if isinstance(last, dict):
            definitions[-1] = {**last, "cache_control": dict(cache)}
        request["tools"] = definitions
    if isinstance(system, str) and system:
        request["system"] = [{"type": "text", "text": system, "cache_control": dict(cache)}]
    elif isinstance(system, list) and system:
        blocks = list(system)
        last = blocks[-1]
        if isinstance(last, dict):
            blocks[-1] = {**last, "cache_control": dict(cache)}
        request["system"] = blocks
    return request


def to_turn(response: Any) -> Turn:
    usage = response.usage
    return Turn(
        [block_document(block) for block in response.content],
        response.stop_reason or "end_turn",
        Usage(
            usage.input_tokens,
            usage.output_tokens,
            getattr(usage, "cache_read_input_tokens", 0) or 0,
            getattr(usage, "cache_creation_input_tokens", 0) or 0,
        ),
    )


class _Claude:
    """What the blocking and the async agent share: the model, the request settings, the request."""

    def __init__(
        self, client: Any, model: str, settings: JSONObject | None = None, lifetime: str = "5m", provider: str = ""
    ) -> None:
        self.client = client
        self._model = model
        self._named = f"{provider}/{model}" if provider and provider != "anthropic" else model
        self.settings: JSONObject = {"max_tokens": 4096, **(settings or {})}
        self.lifetime = lifetime  # the prompt cache's

    @property
    def model(self) -> str:
        """The model as a session records it: Bedrock's and Vertex's with their provider (``bedrock/...``)."""
        return self._named

    def request(self, system: JSONValue, tools: Sequence[ToolDef], messages: Sequence[JSONObject]) -> dict[str, Any]:
        """The keyword arguments of ``messages.create``: a recorded setting this SDK has no parameter for (an
        older SDK's ``temperature``, say) goes in ``extra_body``, so the API still gets it."""
        request = build_request(self._model, self.settings, system, tools, messages, self.lifetime)
        known = _parameters(self.client.messages.create)
        extra = {key: request.pop(key) for key in list(request) if known is not None and key not in known}
        if extra:
            request["extra_body"] = extra
        return request


def _parameters(create: Any) -> frozenset[str] | None:
    """The names ``create`` takes, or None when it takes any (a ``**kwargs``) or cannot be inspected."""
    try:
        parameters = inspect.signature(create).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return frozenset(p.name for p in parameters)


def _failure(exc: Exception) -> AgentError:
    """Why a Claude model gave no turn (see :func:`failure`)."""
    return failure(exc, sdk().APIError)


class ClaudeAgent(_Claude):
    """Asks a Claude model for each turn, blocking."""

    def respond(self, system: JSONValue, tools: Sequence[ToolDef], messages: Sequence[JSONObject]) -> Turn:
        try:
            return to_turn(self.client.messages.create(**self.request(system, tools, messages)))
        except Exception as exc:  # whatever the SDK or the response does, it ends this run, not the command
            raise _failure(exc) from None


class AsyncClaudeAgent(_Claude):
    """Asks a Claude model for each turn through the async client, so runs can overlap."""

    async def respond(self, system: JSONValue, tools: Sequence[ToolDef], messages: Sequence[JSONObject]) -> Turn:
        try:
            return to_turn(await self.client.messages.create(**self.request(system, tools, messages)))
        except Exception as exc:  # whatever the SDK or the response does, it ends this run, not the command
            raise _failure(exc) from None


BATCH_POLL = 15.0  # seconds between two looks at a Message Batch that has not ended


class BatchedClaude(_Claude):
    """Asks a Claude model for one turn of many runs at once, as a Message Batch (half the price, answered
    within hours, not seconds), and waits for it, looking every :data:`BATCH_POLL` seconds until ``deadline``."""

    def ask(
        self, system: JSONValue, tools: Sequence[ToolDef], pending: Pending, deadline: float
    ) -> dict[str, Turn | AgentFailure]:
        requests = [
            {"custom_id": name, "params": build_request(self._model, self.settings, system, tools, sent, self.lifetime)}
            for name, sent in pending
        ]
        batches = self.client.messages.batches
        try:
            batch = batches.create(requests=requests)
            while batch.processing_status != "ended":
                if time.monotonic() > deadline:
                    batches.cancel(batch.id)
                    raise AgentError(f"the batch {batch.id} had not ended by the run timeout; it was cancelled")
                time.sleep(BATCH_POLL)
                batch = batches.retrieve(batch.id)
            answers: dict[str, Turn | AgentFailure] = {}
            for entry in batches.results(batch.id):
                result = entry.result
                if result.type == "succeeded":
                    answers[entry.custom_id] = to_turn(result.message)
                else:
                    said = getattr(getattr(getattr(result, "error", None), "error", None), "message", "")
                    answers[entry.custom_id] = AgentFailure(
                        without_keys(f"the batch's request {result.type}: {said}")[:300]
                    )
            return answers
        except AgentError:
            raise
        except Exception as exc:  # whatever the SDK or the batch does, it ends these runs, not the command
            raise _failure(exc) from None


class _Clients:
    """An async client shared by overlapping runs' agents."""

    def __init__(self, client: Any, lifetime: str, provider: str) -> None:
        self.client = client
        self.lifetime = lifetime
        self.provider = provider

    def agent(self, model: str, request: JSONObject) -> AsyncAgent:
        return AsyncClaudeAgent(self.client, model, request, self.lifetime, self.provider)

    async def close(self) -> None:
        await self.client.close()


class ClaudeProvider:
    """Claude through the Anthropic API; Bedrock and Vertex differ only in their clients and what they offer."""

    name = "anthropic"
    api = "the Anthropic Messages API"
    batches = True  # Message Batches

    def client(self, endpoint: Endpoint) -> Any:
        return make_client(endpoint.timeout, endpoint.base_url)

    def async_client(self, endpoint: Endpoint) -> Any:
        return make_async_client(endpoint.timeout, endpoint.base_url)

    def refused(self, model: str, request: JSONObject, endpoint: Endpoint, batch: bool) -> str | None:
        if batch and not self.batches:
            return f"batch: {self.api} has no Message Batches toolreplay can send; replay without --batch"
        return None

    def where(self, endpoint: Endpoint) -> str:
        return self.api + (f" at {shown_url(endpoint.base_url)}" if endpoint.base_url else "")

    def blocking(self, model: str, request: JSONObject, endpoint: Endpoint) -> ClaudeAgent:
        return ClaudeAgent(self.client(endpoint), model, request, endpoint.lifetime, self.name)

    def concurrent(self, endpoint: Endpoint) -> _Clients:
        return _Clients(self.async_client(endpoint), endpoint.lifetime, self.name)

    def batched(self, model: str, request: JSONObject, endpoint: Endpoint) -> BatchedClaude:
        return BatchedClaude(self.client(endpoint), model, request, endpoint.lifetime, self.name)


def built(make: Any, **options: Any) -> Any:
    """A client of the SDK's, its refusal of the environment (no region, say) as one line."""
    try:
        return make(**options)
    except ValueError as exc:  # the SDK's own word for a missing region or project
        raise UsageError(f"the model's client could not be made: {exc}") from None
    except Exception as exc:  # an SDK error that names what the environment lacks
        if isinstance(exc, sdk().AnthropicError):
            raise UsageError(f"the model's client could not be made: {exc}") from None
        raise


PROVIDER = ClaudeProvider()
