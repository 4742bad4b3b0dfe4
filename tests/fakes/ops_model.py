"""A scripted stand-in for Claude behind the local Messages API: the build-host policy of samples/ops/agent.py.

Claude Code (or any program on the Messages API) sends it its requests. It
answers as the sample's policy would: under the original instructions it
archives the old CI logs; when the instructions say old CI logs "can go" it
deletes them instead, at the policy's seeded rate. The seed is the run's: its
working directory (``edited-0007/work``, which the program's system prompt
names) gives the side and the run's number. MCP tools arrive as
``mcp__SERVER__TOOL`` (from any of the program's servers) and are answered under the same names.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from tests.fakes.anthropic_server import message

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples" / "ops"))
from agent import Agent

PERMISSIVE = "CI logs older than 30 days can go."
_RUN = re.compile(r"(edited|unchanged)-([0-9]{4})")


def _seed(system: str) -> int:
    found = _RUN.search(system)
    if found is None:
        return 1
    return int(found.group(2)) + (10_000 if found.group(1) == "unchanged" else 0)


def respond(request: dict[str, Any]) -> dict[str, Any]:
    """One turn of the policy, in the Messages API's form."""
    system = json.dumps(request.get("system", ""))
    tools = [tool for tool in request.get("tools", []) if tool.get("name", "").startswith("mcp__")]
    if not tools:  # a request of the program's own (a title, a summary): answer in words
        return message([{"type": "text", "text": "ok"}])
    # each tool by its own name (mcp__SERVER__TOOL -> TOOL), whichever of the program's servers lists it
    named = {tool["name"].split("__", 2)[2]: tool["name"] for tool in tools if tool["name"].count("__") >= 2}
    messages = []
    for turn in request["messages"]:
        content = turn["content"]
        if isinstance(content, list):
            content = [
                dict(block, name=block["name"].split("__", 2)[-1]) if block.get("type") == "tool_use" else block
                for block in content
            ]
        messages.append({"role": turn["role"], "content": content})
    policy = Agent(_seed(system))
    blocks = policy.respond(PERMISSIVE if PERMISSIVE in system else "", tools, messages)
    made = sum(  # calls so far: ids must be new (a program may merge turns, and keys its calls by id)
        1
        for m in messages
        if isinstance(m["content"], list)
        for block in m["content"]
        if block.get("type") == "tool_use"
    )
    answer = []
    for block in blocks:
        if block["type"] == "tool_use":
            answer.append(dict(block, id=f"toolu_{made:04d}", name=named.get(block["name"], block["name"])))
            made += 1
        else:
            answer.append(block)
    stop = "tool_use" if any(block["type"] == "tool_use" for block in answer) else "end_turn"
    return message(answer, stop_reason=stop, model="claude-sonnet-4-5")
