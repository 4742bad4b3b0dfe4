"""toolreplay's own agent loop: the agent asks, the user's ``execute`` really runs the tool.

After every exchange the conversation so far is written as a session (redacted,
atomically), so an interrupted run leaves the last complete session on disk.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolreplay.agents.base import Agent
from toolreplay.agents.scripted import load_module
from toolreplay.canonical import JSONObject, JSONValue
from toolreplay.errors import UsageError
from toolreplay.formats.located import LocatedDocument
from toolreplay.formats.session import parse_tools
from toolreplay.model import SessionContext, ToolDef

Execute = Callable[[str, JSONObject], Any]
Writer = Callable[[SessionContext], None]


@dataclass(frozen=True, slots=True)
class ToolBox:
    """The tools a run offers, and the function that really runs them."""

    tools: tuple[ToolDef, ...]
    execute: Execute


def load_toolbox(path: str) -> ToolBox:
    """Import a tools module: ``TOOLS`` (definitions, with annotations) and ``execute(name, args)``."""
    module = load_module(path, "tools module")
    definitions = getattr(module, "TOOLS", None)
    execute = getattr(module, "execute", None)
    if not isinstance(definitions, list):
        raise UsageError(f"tools module {path} must define TOOLS, a list of tool definitions")
    if not callable(execute):
        raise UsageError(f"tools module {path} must define execute(name, args)")
    try:
        plain: JSONValue = json.loads(json.dumps(definitions))
    except (TypeError, ValueError) as exc:
        raise UsageError(f"tools module {path}: TOOLS is not plain JSON data: {exc}") from None
    return ToolBox(parse_tools(LocatedDocument(plain, {}), path), execute)


def result_block(tool_use_id: str, execute: Execute, name: str, args: JSONObject) -> JSONObject:
    """Run one call and wrap its outcome as a ``tool_result`` block."""
    try:
        value = execute(name, args)
    except Exception as exc:  # the tool's failure is the agent's to see, as an error result
        return {
            "type": "tool_result",
            "tool_use_id": tool_use_id,
            "content": f"{type(exc).__name__}: {exc}",
            "is_error": True,
        }
    content = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}


def run_agent(
    agent: Agent,
    system: JSONValue,
    toolbox: ToolBox,
    task: str,
    source: JSONObject,
    write: Writer,
    max_turns: int = 50,
) -> SessionContext:
    """Drive the agent until it stops calling tools (or the turn limit), writing after each exchange."""
    messages: list[JSONObject] = [{"role": "user", "content": task}]

    def context(final: str | None) -> SessionContext:
        return SessionContext(agent.model, source, system, toolbox.tools, tuple(messages), final)

    for _ in range(max_turns):
        turn = agent.respond(system, toolbox.tools, messages)
        content: list[JSONValue] = list(turn.content)
        messages.append({"role": "assistant", "content": content})
        uses = turn.tool_uses
        if not uses:
            done = context(turn.text)
            write(done)
            return done
        results: list[JSONValue] = []
        for use in uses:
            name, args, tool_use_id = use["name"], use["input"], use["id"]
            if not isinstance(name, str) or not isinstance(args, dict) or not isinstance(tool_use_id, str):
                raise UsageError(f"the agent asked for a malformed tool call: {use!r}")
            results.append(result_block(tool_use_id, toolbox.execute, name, args))
        messages.append({"role": "user", "content": results})
        write(context(None))
    return context(None)
