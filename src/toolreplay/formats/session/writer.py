"""Writing a session file: every object in a stable key order, two-space indented, UTF-8, atomically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.core.canonical import JSONObject, JSONValue, json_utf8
from toolreplay.core.files import write_atomic
from toolreplay.core.model import McpServer, SessionContext, ToolDef
from toolreplay.formats.session.shape import FORMAT, SERVERS_VERSION, TURN_FIELDS, VERSION

if TYPE_CHECKING:
    from toolreplay.redact import Redactor


def ordered(value: JSONValue) -> JSONValue:
    """``value`` with every object's keys sorted, and a content block's ``type`` first."""
    if isinstance(value, dict):
        keys = sorted(value)
        if "type" in value:
            keys.remove("type")
            keys.insert(0, "type")
        return {key: ordered(value[key]) for key in keys}
    if isinstance(value, list):
        return [ordered(item) for item in value]
    return value


def tool_document(tool: ToolDef) -> JSONObject:
    """A tool definition as a session file holds it."""
    doc: JSONObject = {"name": tool.name, "description": tool.description, "input_schema": ordered(tool.input_schema)}
    if tool.annotations is not None:
        doc["annotations"] = ordered(tool.annotations)
    return doc


def message_document(message: JSONObject) -> JSONObject:
    """A message as a session file holds it (an assistant turn with how it ended and its usage, when recorded)."""
    doc: JSONObject = {"role": message["role"], "content": ordered(message["content"])}
    for key in TURN_FIELDS:
        if key in message:
            doc[key] = ordered(message[key])
    return doc


def server_document(server: McpServer) -> JSONObject:
    """An MCP server as a session holds it: its messages as it sent them (in its own key order, so a replay
    serves them as they came)."""
    exchanges: list[JSONValue] = list(server.exchanges)
    return {"name": server.name, "exchanges": exchanges, "results": dict(server.results)}


def header_document(context: SessionContext) -> JSONObject:
    """The fields that say what a session is, where it came from, and how the model was asked."""
    version = SERVERS_VERSION if context.servers else VERSION
    doc: JSONObject = {"format": FORMAT, "version": version, "model": context.model, "source": ordered(context.source)}
    if context.request:
        doc["request"] = ordered(context.request)
    return doc


def session_document(context: SessionContext) -> JSONObject:
    """The JSON object of a session file, in its stable key order."""
    return {
        **header_document(context),
        "system": ordered(context.system),
        "tools": [tool_document(tool) for tool in context.tools],
        **({"servers": [server_document(server) for server in context.servers]} if context.servers else {}),
        "messages": [message_document(message) for message in context.messages],
        "final_reply": context.final_reply,
    }


def dump_session(context: SessionContext, redactor: Redactor | None = None) -> str:
    """The text of a session file: two-space indented, UTF-8 (through :func:`json_utf8`), stable key order,
    final newline."""
    doc: JSONValue = session_document(context)
    if redactor is not None:
        doc = redactor.value(doc)
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def write_session(path: str | Path, context: SessionContext, redactor: Redactor | None = None) -> None:
    """Write a session file atomically (a crash leaves the previous file, never a torn one),
    with every string passed through ``redactor`` first."""
    write_atomic(path, [json_utf8(dump_session(context, redactor))])
