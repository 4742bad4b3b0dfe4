"""A scripted agent that makes one call of each kind, in a fixed order."""

from __future__ import annotations

from typing import Any

PLAN: list[tuple[str, dict[str, Any]]] = [
    ("get_ticket", {"id": "T-7"}),
    ("http_request", {"method": "GET", "url": "https://tickets.example/T-7"}),
    ("notify_channel", {"channel": "#support", "text": "Closing T-7"}),
    ("close_ticket", {"id": "T-7"}),
    ("http_request", {"method": "DELETE", "url": "https://tickets.example/T-7/attachments"}),
    ("purge_ticket", {"id": "T-7"}),
    ("run_shell", {"command": "rm -rf /tmp/T-7"}),
]


class Agent:
    def __init__(self, seed: int) -> None:
        self.seed = seed

    def respond(self, system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        step = (len(messages) - 1) // 2
        if step < len(PLAN):
            name, args = PLAN[step]
            return [{"type": "tool_use", "name": name, "input": args}]
        return [{"type": "text", "text": "Closed T-7 and cleaned up after it."}]
