"""What a session file is made of: its name, versions and fields, and the outline of one."""

from __future__ import annotations

from typing import Any, TypeAlias

from toolreplay.core.canonical import JSONObject
from toolreplay.core.model import SessionContext, ToolDef
from toolreplay.core.records import record

FORMAT = "toolreplay-session"
VERSION = 2  # what is written; version 1 (one message from the person) still reads
SERVERS_VERSION = 3  # written for a session that holds its MCP servers' own messages (version 2 otherwise)
READS = (1, 2, 3)
FIELDS = ("format", "version", "model", "source", "request", "system", "tools", "servers", "messages", "final_reply")
OPTIONAL = ("request", "servers")  # request: version 2 on; servers: version 3
SERVER_FIELDS = ("name", "exchanges", "results")
EXCHANGE_FIELDS = ("request", "response", "notifications")
# The request settings a session may hold, each with the JSON type it must have.
REQUEST_FIELDS: dict[str, tuple[type, ...]] = {
    "max_tokens": (int,),  # the first type names the setting's kind in an error
    "temperature": (int, float),
    "top_p": (int, float),
    "top_k": (int,),
    "thinking": (dict,),
    "tool_choice": (dict,),
    "stop_sequences": (list,),
    "server_tools": (list,),
}
# What an assistant message may carry beside its content (version 2): how the turn ended and what it cost.
TURN_FIELDS = ("stop_reason", "usage")
# A call awaiting its result: its tool_use block, the block's line, and where it is (message, block).
Use: TypeAlias = "tuple[dict[str, Any], int, int, int]"
TOOL_FIELDS = ("name", "description", "input_schema", "annotations")
ANNOTATION_TYPES: dict[str, type] = {
    "title": str,
    "readOnlyHint": bool,
    "destructiveHint": bool,
    "idempotentHint": bool,
    "openWorldHint": bool,
}


def person_messages(messages: tuple[JSONObject, ...]) -> tuple[JSONObject, ...]:
    """The person's messages of a valid conversation, in order: the opening and each new turn after it."""
    found: list[JSONObject] = []
    called_tools = False
    for message in messages:
        if message["role"] == "assistant":
            content = message["content"]
            called_tools = isinstance(content, list) and any(
                isinstance(block, dict) and block.get("type") == "tool_use" for block in content
            )
        elif not found or not called_tools:
            found.append(message)
    return tuple(found)


@record
class Outline:
    """What a session says around its calls, which a stream of them keeps: what ``show`` prints beside them."""

    model: str
    source: JSONObject
    tools: tuple[ToolDef, ...]
    said: tuple[JSONObject, ...]  # the person's messages: the opening and each new turn
    final_reply: str | None

    @classmethod
    def of(cls, context: SessionContext) -> Outline:
        return cls(context.model, context.source, context.tools, person_messages(context.messages), context.final_reply)
