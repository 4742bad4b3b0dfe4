"""toolreplay's own agent loop: the agent asks, the user's ``execute`` really runs the tool.

After every exchange the conversation so far is written as a session (redacted,
atomically), so an interrupted run leaves the last complete session on disk.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from toolreplay.agents.base import Agent
from toolreplay.agents.loop import Ending, ToolResult, converse
from toolreplay.agents.scripted import load_module
from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import UsageError
from toolreplay.core.model import SessionContext, ToolDef
from toolreplay.core.records import record
from toolreplay.formats.parsing.module_data import module_data
from toolreplay.formats.session.reader import parse_tools

Execute = Callable[[str, JSONObject], Any]
Writer = Callable[[SessionContext], None]


@record
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
    # held to the session reader's rules here, with the module's lines, before anything runs or is written
    return ToolBox(parse_tools(module_data(definitions, "TOOLS", path)), execute)


def run_tool(execute: Execute, name: str, args: JSONObject) -> ToolResult:
    """Run one call; the tool's failure is the agent's to see, as an error result."""
    try:
        value = execute(name, args)
    except SystemExit as exc:  # not the tool's failure but the process's end: the run cannot go on
        raise UsageError(f"tool {name}: execute() called exit({exc.code!r}) instead of returning a result") from None
    except Exception as exc:  # the user's tool: whatever it raises, the agent sees it
        return ToolResult(f"{type(exc).__name__}: {exc}", True)
    if isinstance(value, str):
        return ToolResult(value)
    try:
        return ToolResult(json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise UsageError(f"tool {name}: execute() returned a result that is not JSON ({exc})") from None


def run_agent(
    agent: Agent,
    system: JSONValue,
    toolbox: ToolBox,
    tasks: Sequence[str],
    source: JSONObject,
    write: Writer,
    max_turns: int = 50,
) -> SessionContext:
    """Drive the agent through the person's messages (each after its reply to the one before) until it stops
    calling tools (or the turn limit), writing after each exchange."""

    def context(messages: Sequence[JSONObject], final: str | None) -> SessionContext:
        return SessionContext(agent.model, source, system, toolbox.tools, tuple(messages), final)

    person: list[JSONObject] = [{"role": "user", "content": task} for task in tasks]
    conversation = converse(person, max_turns, lambda name, args, _: run_tool(toolbox.execute, name, args))
    messages = next(conversation)
    try:
        while True:
            turn = agent.respond(system, toolbox.tools, messages)
            messages = conversation.send(turn)
            write(context(messages, None))
    except StopIteration as stop:
        ended: Ending = stop.value
    if ended.error is not None:
        raise UsageError(ended.error)
    done = context(ended.messages, ended.final_reply)
    write(done)
    return done
