"""The one interface every model provider offers a replay: a request in (system, messages, tools, the recorded
settings), a turn out (text, tool calls, how it ended, usage), blocking, concurrent or as a batch.

A turn is always in the Messages API's form, whichever provider answered it
(:class:`~toolreplay.agents.base.Turn`): the turn loop, the recorded answers
and every report read that one form, and each provider translates at its own
edge, once for what a replay shares (the system prompt and the tools) and once
per turn for the conversation. Blocks a provider needs back but no other reads
(an OpenAI reasoning item) ride in the turn as ``{"type": "provider_item"}``
and are sent back only to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from toolreplay.agents.base import Agent, AsyncAgent, Turn
from toolreplay.agents.loop import AgentFailure
from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import ToolreplayError
from toolreplay.core.model import ToolDef
from toolreplay.core.records import record
from toolreplay.settings import Api, ReplaySettings

PROVIDER_ITEM = "provider_item"  # a block of one provider's own, sent back to it and read by nothing else


class AgentError(ToolreplayError):
    """The model could not be asked: an API error that outlived the SDK's retries, or an answer that is none."""


@record
class Endpoint:
    """How a provider is reached beyond the model's id: where (None: its SDK's default, which reads the SDK's own
    environment variables), through which API (OpenAI's), each request's timeout, and the prompt cache's lifetime."""

    base_url: str | None = None
    api: Api = Api.CHAT
    timeout: float = 120.0
    lifetime: str = "5m"


def endpoint_of(settings: ReplaySettings, base_url: str | None) -> Endpoint:
    """How a model is reached under ``settings``, at ``base_url``."""
    return Endpoint(base_url, settings.api, settings.request_timeout, settings.prompt_cache)


Pending = Sequence[tuple[str, list[JSONObject]]]  # each waiting run's messages, by an id of the caller's


class Batcher(Protocol):
    """Asks a model for one turn of many runs at once, as one batch, and waits for it until ``deadline``."""

    def ask(
        self, system: JSONValue, tools: Sequence[ToolDef], pending: Pending, deadline: float
    ) -> dict[str, Turn | AgentFailure]: ...


class Concurrent(Protocol):
    """One async client, shared by the agents of runs that overlap; closed when they are done."""

    def agent(self, model: str, request: JSONObject) -> AsyncAgent: ...

    async def close(self) -> None: ...


class Provider(Protocol):
    """A family of models behind one SDK. ``request`` is the session's recorded request settings."""

    name: str

    def refused(self, model: str, request: JSONObject, endpoint: Endpoint, batch: bool) -> str | None:
        """Why this provider cannot run the replay as the recording asks (a setting it has no counterpart for),
        in one line; None when it can. Asked before any run."""

    def where(self, endpoint: Endpoint) -> str:
        """Where its models are asked, in words for a report: the API, and the address when one was given."""

    def blocking(self, model: str, request: JSONObject, endpoint: Endpoint) -> Agent: ...

    def concurrent(self, endpoint: Endpoint) -> Concurrent: ...

    def batched(self, model: str, request: JSONObject, endpoint: Endpoint) -> Batcher: ...


# The variables a provider's key or token is read from: their values never appear in anything toolreplay says.
KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "ANTHROPIC_VERTEX_ACCESS_TOKEN")  # fmt: skip


def without_keys(text: str) -> str:
    """``text`` (an API's error, which a server may have filled with what it was sent) with every key's value in
    the environment replaced by the name it was read from."""
    import os  # noqa: PLC0415

    for name in KEYS:
        value = os.environ.get(name, "")
        if len(value) >= 8:  # a key; a shorter value is no secret worth the false matches
            text = text.replace(value, f"[{name}]")
    return text


def failure(exc: Exception, api_error: type[Exception]) -> AgentError:
    """Why the model gave no turn, in one line that holds no key: an API error (after the SDK's retries), a
    request that could not be sent (a lone surrogate no UTF-8 can carry), or a response that is not one."""
    if isinstance(exc, AgentError):
        return AgentError(without_keys(exc.message))
    if isinstance(exc, api_error):
        return AgentError(without_keys(f"the model request failed: {exc}"))
    if isinstance(exc, UnicodeEncodeError):
        return AgentError(f"the model request could not be sent: it holds a character no request can carry ({exc})")
    return AgentError(without_keys(f"the model's response could not be read ({type(exc).__name__}: {str(exc)[:200]})"))


def shown_url(url: str) -> str:
    """A base URL as a report shows it: scheme, host, port and path; a query (which may hold a key) left out."""
    from urllib.parse import urlsplit  # noqa: PLC0415 - only a replay with a base URL

    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port is not None else ""
    return f"{parts.scheme}://{host}{port}{parts.path}" + ("?…" if parts.query else "")
