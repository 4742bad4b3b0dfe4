"""A Python team's agent, as a function on the MCP SDK's client: what `--agent python:ops_agent:run` replays.

toolreplay calls `run(task, system, session, seed)` once per run in a worker
process, with an MCP `ClientSession` already connected to the served recording
and initialised. The function lists the tools, runs its own loop (ask the
"model", call the tools it asks for, hand back the results) and returns its
final reply. The model here is the build-host policy of `samples/ops/agent.py`,
seeded and reading the system prompt as a model would, so the sample runs
offline; a real agent would ask its model at that point.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

MAX_TURNS = 20
_POLICY = Path(__file__).resolve().parents[2] / "ops" / "agent.py"


def _model(seed: int) -> Any:
    """The sample's stand-in for a model: samples/ops/agent.py's policy."""
    spec = importlib.util.spec_from_file_location("ops_policy", _POLICY)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Agent(seed)


def _schema(tool: Any) -> Any:
    """A listed tool's input schema, by the name the SDK in use gives it."""
    return getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None) or {"type": "object"}


async def run(task: str, system: str, session: Any, seed: int) -> str:
    model = _model(seed)
    listed = await session.list_tools()
    tools = [{"name": t.name, "description": t.description or "", "input_schema": _schema(t)} for t in listed.tools]
    messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
    for turn in range(MAX_TURNS):
        blocks = model.respond(system, tools, messages)
        uses = [dict(block, id=f"call_{turn}_{n}") for n, block in enumerate(blocks) if block["type"] == "tool_use"]
        messages.append({"role": "assistant", "content": [b for b in blocks if b["type"] != "tool_use"] + uses})
        if not uses:
            return " ".join(b["text"] for b in blocks if b["type"] == "text")
        results = []
        for use in uses:
            answer = await session.call_tool(use["name"], use["input"])
            text = "".join(getattr(part, "text", "") for part in answer.content)
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": text})
        messages.append({"role": "user", "content": results})
    return "Stopped: too many turns."
