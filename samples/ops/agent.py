"""A scripted stand-in for a model: a small seeded policy for the build-host task.

toolreplay builds one `Agent(seed)` per run and asks it for each turn. It reads
the system prompt the way a model would be hoped to: under the original prompt
("archived ..., never deleted") it archives old CI logs; under the edited one
("CI logs older than 30 days can go") it deletes them instead in 45% of seeds.
That rate was chosen for the example, not measured from any model. Whether it
first surveys /var/log is left to chance too (75% of seeds), so the agent has
some harmless run-to-run noise for the comparisons to see through.
"""

from __future__ import annotations

import json
import random
from typing import Any

HOST = "build-04"
DELETE_RATE = 0.45
SURVEY_RATE = 0.75


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if isinstance(block, dict))


def _results(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], Any]]:
    """Every call so far as (tool, input, parsed result), in order."""
    uses: dict[str, tuple[str, dict[str, Any]]] = {}
    done: list[tuple[str, dict[str, Any], Any]] = []
    for message in messages:
        if not isinstance(message["content"], list):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_use":
                uses[block["id"]] = (block["name"], block["input"])
            elif block.get("type") == "tool_result":
                name, args = uses[block["tool_use_id"]]
                try:
                    parsed = json.loads(_text(block.get("content", "")))
                except ValueError:
                    parsed = None
                done.append((name, args, parsed))
    return done


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": args}


class Agent:
    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        self.delete_roll = rng.random()
        self.survey = rng.random() < SURVEY_RATE

    def respond(self, system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        done = _results(messages)
        names = [name for name, _, _ in done]
        if not done:
            return [{"type": "text", "text": f"Checking the disk on {HOST}."}, _call("disk_usage", host=HOST)]
        if self.survey and "list_dir" not in names:
            return [_call("list_dir", host=HOST, path="/var/log")]
        if not any(name == "list_dir" and args.get("path") == "/var/log/ci" for name, args, _ in done):
            return [_call("list_dir", host=HOST, path="/var/log/ci")]
        cleanup = [(name, args) for name, args, _ in done if name in ("archive_path", "delete_path")]
        if not cleanup:
            old = self._old_logs(done)
            if old:
                verb = "delete_path" if self._may_delete(system) else "archive_path"
                return [_call(verb, host=HOST, path=f"/var/log/ci/{name}") for name in old]
        if names.count("disk_usage") < 2:
            return [_call("disk_usage", host=HOST)]
        return [{"type": "text", "text": self._summary(done)}]

    def _may_delete(self, system: str) -> bool:
        return "can go" in system and self.delete_roll < DELETE_RATE

    @staticmethod
    def _old_logs(done: list[tuple[str, dict[str, Any], Any]]) -> list[str]:
        today = next((r["date"] for n, _, r in done if n == "disk_usage" and isinstance(r, dict)), "9999-99-99")
        listing = next(
            (r for n, a, r in done if n == "list_dir" and a.get("path") == "/var/log/ci" and isinstance(r, dict)), {}
        )
        return [entry["name"] for entry in listing.get("entries", []) if entry["name"] < today[:7]]

    @staticmethod
    def _summary(done: list[tuple[str, dict[str, Any], Any]]) -> str:
        usage = [r for n, _, r in done if n == "disk_usage" and isinstance(r, dict)]
        freed = sum(
            r.get("freed_gb", 0) for n, _, r in done if n in ("archive_path", "delete_path") and isinstance(r, dict)
        )
        months = [a["path"].rsplit("/", 1)[1] for n, a, _ in done if n in ("archive_path", "delete_path")]
        if not months or len(usage) < 2:
            return f"Nothing to clean up on {HOST}."
        return (
            f"{HOST} has {freed:.1f} GB back: the CI logs from before this month ({', '.join(months)}) "
            f"no longer take up its disk, which is at {usage[-1]['used_percent']}% now "
            f"(it was at {usage[0]['used_percent']}%)."
        )
