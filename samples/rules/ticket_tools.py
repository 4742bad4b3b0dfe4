"""Tools for the classification sample: one of each kind of claim, and none.

Run with `toolreplay run` to re-record session.json (see samples/README.md).
"""

from __future__ import annotations

from typing import Any

TOOLS: list[dict[str, Any]] = [
    {
        "name": "http_request",
        "description": "Send an HTTP request to the ticket service.",
        "input_schema": {
            "type": "object",
            "properties": {"method": {"type": "string"}, "url": {"type": "string"}},
            "required": ["method", "url"],
        },
    },
    {
        "name": "get_ticket",
        "description": "Read a ticket.",
        "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "notify_channel",
        "description": "Look up a chat channel.",
        "input_schema": {"type": "object", "properties": {"channel": {"type": "string"}, "text": {"type": "string"}}},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "close_ticket",
        "description": "Close a ticket.",
        "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "annotations": {"readOnlyHint": False, "destructiveHint": False},
    },
    {
        "name": "purge_ticket",
        "description": "Remove a ticket and its history for good.",
        "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "annotations": {"title": "Purge"},
    },
    {
        "name": "run_shell",
        "description": "Run a shell command on the support box.",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    },
]


def execute(name: str, args: dict[str, Any]) -> Any:
    """Canned answers: this sample is about classes, not about what the tools do."""
    if name == "http_request":
        return {"status": 200 if args["method"] == "GET" else 204}
    if name == "run_shell":
        return {"exit": 0, "stdout": "ok"}
    return {"ok": True, "id": args.get("id")}
