"""A plain Python agent on the MCP SDK's client: the kind of program `replay --agent cmd:...` replays.

It reads an MCP configuration (the `mcpServers` JSON Claude Code and the Agent
SDK read), starts the first server in it over stdio, lists its tools and runs
its own loop: ask the "model", call the tools it asks for, hand back the
results, until it answers in words, which it prints as its last line. The model
here is the build-host policy of `agent.py` (seeded, and reading the system
prompt as a model would), so the sample runs offline; a real agent would ask
Claude at that point.

    python samples/ops/mcp_agent.py --mcp-config mcp.json --system samples/ops/prompt.txt --seed 1 TASK

Needs the MCP SDK: pip install 'toolreplay[mcp]'.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent import Agent

MAX_TURNS = 20


def _server(config: Path) -> StdioServerParameters:
    servers = json.loads(config.read_text(encoding="utf-8"))["mcpServers"]
    spec = next(iter(servers.values()))
    return StdioServerParameters(command=spec["command"], args=spec.get("args", []), env=spec.get("env"))


def _schema(tool: Any) -> Any:
    """A listed tool's input schema, by the name the SDK in use gives it."""
    return getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None) or {"type": "object"}


async def run(config: Path, system: str, seed: int, task: str) -> str:
    policy = Agent(seed)
    async with stdio_client(_server(config)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        tools = [{"name": t.name, "description": t.description or "", "input_schema": _schema(t)} for t in listed.tools]
        messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
        for turn in range(MAX_TURNS):
            blocks = policy.respond(system, tools, messages)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mcp-config", type=Path, required=True)
    parser.add_argument("--system", type=Path, required=True, help="The system prompt's file.")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("task")
    args = parser.parse_args()
    system = args.system.read_text(encoding="utf-8").removesuffix("\n")
    print(asyncio.run(run(args.mcp_config, system, args.seed, args.task)))


if __name__ == "__main__":
    main()
