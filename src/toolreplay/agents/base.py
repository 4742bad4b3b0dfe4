"""The agent interface: one turn at a time."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Protocol

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.model import ToolDef, content_text
from toolreplay.core.records import record


@record
class Usage:
    """Tokens one request spent."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0  # what a program says it spent (Claude Code does); a model's runs leave it 0


@record
class Turn:
    """What the agent said in one turn: content blocks in Messages API form.

    ``stop_reason`` is the API's (``tool_use``, ``end_turn``, ``max_tokens``,
    ``refusal`` ...); a scripted agent says ``tool_use`` or ``end_turn``.
    """

    content: list[JSONObject]
    stop_reason: str
    usage: Usage = field(default_factory=Usage)

    @property
    def tool_uses(self) -> list[JSONObject]:
        return [block for block in self.content if block.get("type") == "tool_use"]

    @property
    def text(self) -> str:
        return content_text(self.content, "")


class Agent(Protocol):
    """Something that takes turns in a conversation with tools."""

    @property
    def model(self) -> str:
        """The model id a session records (``scripted:PATH`` for a scripted agent)."""

    def respond(self, system: JSONValue, tools: Sequence[ToolDef], messages: Sequence[JSONObject]) -> Turn:
        """The agent's next turn."""


def api_tool(tool: ToolDef) -> JSONObject:
    """A tool definition as the Messages API takes it: toolreplay's own fields stripped."""
    return {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}


class AsyncAgent(Protocol):
    """An agent whose turns are awaited (a model behind an async client)."""

    @property
    def model(self) -> str: ...

    async def respond(self, system: JSONValue, tools: Sequence[ToolDef], messages: Sequence[JSONObject]) -> Turn:
        """The agent's next turn."""
