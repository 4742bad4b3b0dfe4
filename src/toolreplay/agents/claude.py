"""A Claude model as the agent, through the Anthropic Messages API (the ``anthropic`` extra)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from toolreplay.agents.base import Turn, Usage, api_tool
from toolreplay.canonical import JSONObject, JSONValue
from toolreplay.errors import ToolreplayError, UsageError
from toolreplay.model import ToolDef


class AgentError(ToolreplayError):
    """The model could not be asked: an API error that outlived the SDK's retries."""


def make_client() -> Any:
    """An ``anthropic.Anthropic`` client configured from the environment."""
    try:
        import anthropic  # noqa: PLC0415 - the optional extra, loaded only when a model is used
    except ImportError:
        raise UsageError("talking to a model needs the anthropic extra: pip install 'toolreplay[anthropic]'") from None
    if not os.environ.get("ANTHROPIC_API_KEY") and not os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        raise UsageError("set ANTHROPIC_API_KEY to use a model (or use a scripted agent: --agent scripted:FILE)")
    return anthropic.Anthropic()


def block_document(block: Any) -> JSONObject:
    """A response content block as plain JSON, exactly as the API sent it (thinking blocks included)."""
    data: JSONObject = block.model_dump(mode="json", exclude_none=True)
    return data


class ClaudeAgent:
    """Asks a Claude model for each turn."""

    def __init__(self, client: Any, model: str, max_tokens: int = 4096) -> None:
        self.client = client
        self._model = model
        self.max_tokens = max_tokens

    @property
    def model(self) -> str:
        return self._model

    def respond(self, system: JSONValue, tools: Sequence[ToolDef], messages: Sequence[JSONObject]) -> Turn:
        import anthropic  # noqa: PLC0415

        request: dict[str, Any] = {
            "model": self._model,
            "max_tokens": self.max_tokens,
            "messages": list(messages),
            "tools": [api_tool(tool) for tool in tools],
        }
        if system:
            request["system"] = system
        try:
            response = self.client.messages.create(**request)
        except anthropic.APIError as exc:
            raise AgentError(f"the model request failed: {exc}") from None
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
