"""The build-host policy of samples/ops/agent.py behind the local OpenAI stand-in, over Chat Completions or the
Responses API: a model that archives old CI logs under the original prompt and deletes them, at the policy's
seeded rate, under the prompt that says they "can go".

Each new conversation (a request with no call of the model's yet) takes the
next seed of its system prompt's side, as a replay numbers its runs: the
edited side's runs 1, 2, ... and the unchanged side's 10001, 10002, ... (the
prompt that says the logs can go is the edited one); the seed rides in the ids
of the calls it makes, so its later turns keep it however runs overlap. A
replay with ``--concurrency 1`` meets the same policy, run for run, as the
sample's ``cmd:`` agent given ``--seed {seed}``.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

from tests.fakes.openai_server import completion, response

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "samples" / "ops"))
from agent import Agent

PERMISSIVE = "CI logs older than 30 days can go."


def _messages_of_chat(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    system = ""
    messages: list[dict[str, Any]] = []
    for message in body["messages"]:
        role = message["role"]
        if role == "system":
            system = message["content"]
        elif role == "assistant":
            blocks = [{"type": "text", "text": message["content"]}] if message.get("content") else []
            for call in message.get("tool_calls") or []:
                blocks.append({"type": "tool_use", "id": call["id"], "name": call["function"]["name"],
                               "input": json.loads(call["function"]["arguments"])})  # fmt: skip
            messages.append({"role": "assistant", "content": blocks})
        elif role == "tool":
            block = {"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": message["content"]}
            if messages and messages[-1]["role"] == "user" and isinstance(messages[-1]["content"], list):
                messages[-1]["content"].append(block)
            else:
                messages.append({"role": "user", "content": [block]})
        else:
            messages.append({"role": "user", "content": message["content"]})
    return system, messages


def _messages_of_responses(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    messages: list[dict[str, Any]] = []
    items = body["input"] if isinstance(body["input"], list) else [{"role": "user", "content": body["input"]}]
    for item in items:
        kind = item.get("type", "message")
        if kind == "function_call":
            use = {"type": "tool_use", "id": item["call_id"], "name": item["name"],
                   "input": json.loads(item["arguments"])}  # fmt: skip
            if messages and messages[-1]["role"] == "assistant":
                messages[-1]["content"].append(use)
            else:
                messages.append({"role": "assistant", "content": [use]})
        elif kind == "function_call_output":
            block = {"type": "tool_result", "tool_use_id": item["call_id"], "content": item["output"]}
            if messages and messages[-1]["role"] == "user" and isinstance(messages[-1]["content"], list):
                messages[-1]["content"].append(block)
            else:
                messages.append({"role": "user", "content": [block]})
        elif item.get("role") == "assistant":
            messages.append({"role": "assistant", "content": [{"type": "text", "text": item["content"]}]})
        else:
            messages.append({"role": "user", "content": item["content"]})
    return body.get("instructions") or "", messages


def _seed_of(call_id: str) -> int | None:
    parts = call_id.split("_")
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


class OpsModel:
    """The policy as a model: ``respond`` answers the stand-in's requests."""

    def __init__(self) -> None:
        self.runs = {"edited": 0, "unchanged": 0}
        self._lock = threading.Lock()

    def respond(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        chat = path == "/chat/completions"
        system, messages = _messages_of_chat(body) if chat else _messages_of_responses(body)
        side = "edited" if PERMISSIVE in system else "unchanged"
        seed = next((_seed_of(b["id"]) for m in messages if m["role"] == "assistant" and isinstance(m["content"], list)
                     for b in m["content"] if b.get("type") == "tool_use"), None)  # fmt: skip
        if seed is None:  # a new conversation: its side's next seed, carried in the ids of the calls it makes
            with self._lock:
                self.runs[side] += 1
                seed = self.runs[side] + (10_000 if side == "unchanged" else 0)
        made = sum(1 for m in messages if isinstance(m["content"], list) for b in m["content"]
                   if b.get("type") == "tool_use")  # fmt: skip
        blocks = Agent(seed).respond(PERMISSIVE if side == "edited" else "", [], messages)
        text = " ".join(block["text"] for block in blocks if block["type"] == "text") or None
        calls = [(f"call_{seed}_{made + n:04d}", block["name"], block["input"])
                 for n, block in enumerate(b for b in blocks if b["type"] == "tool_use")]  # fmt: skip
        model = body["model"]
        return completion(text, calls, model=model) if chat else response(text, calls, model=model)
