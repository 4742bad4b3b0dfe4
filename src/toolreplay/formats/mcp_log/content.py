"""A tool result's content between MCP and the Messages API, both ways, in one place; and tool definitions as
MCP lists them.

Text is text and an image is an image either way; any other block (an audio
clip, a resource link, an embedded resource) becomes a text block holding its
JSON, since the other side has no such block.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.model import ToolDef


def to_mcp(content: JSONValue) -> list[JSONValue]:
    """A recorded tool result (Messages API form: a string, or content blocks) as MCP content."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks: list[JSONValue] = []
    for block in content if isinstance(content, list) else [content]:
        if isinstance(block, dict) and block.get("type") == "text":
            blocks.append({"type": "text", "text": block.get("text", "")})
        elif isinstance(block, dict) and block.get("type") == "image" and isinstance(block.get("source"), dict):
            source: JSONValue = block["source"]
            if not isinstance(source, dict):
                continue
            blocks.append({"type": "image", "data": source.get("data"), "mimeType": source.get("media_type")})
        else:
            blocks.append({"type": "text", "text": json.dumps(block, ensure_ascii=False, sort_keys=True)})
    return blocks


def from_mcp(content: JSONValue) -> list[JSONValue]:
    """MCP tool-result content as Messages API blocks."""
    blocks: list[JSONValue] = []
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "text":
            blocks.append({"type": "text", "text": item.get("text", "")})
        elif item.get("type") == "image":
            source: JSONObject = {"type": "base64", "media_type": item.get("mimeType"), "data": item.get("data")}
            blocks.append({"type": "image", "source": source})
        else:
            blocks.append({"type": "text", "text": json.dumps(item, sort_keys=True, ensure_ascii=False)})
    return blocks


def listed_tool(tool: ToolDef) -> JSONObject:
    """A tool definition as an MCP ``tools/list`` entry."""
    listed: JSONObject = {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}
    if tool.annotations is not None:
        listed["annotations"] = tool.annotations
    return listed


def relisted(
    listing: Sequence[JSONObject], recorded: Sequence[ToolDef], given: Sequence[ToolDef]
) -> tuple[JSONObject, ...]:
    """A server's recorded ``tools/list`` entries, for an agent given other tool definitions: a tool given as
    recorded keeps the server's own entry (its title, output schema, every field), an edited one the server's
    entry with the edit's description, schema and annotations, a new one its own entry; a tool not given is not
    listed. In the order given."""
    entries = {str(entry.get("name")): entry for entry in listing}
    before = {tool.name: tool for tool in recorded}
    out: list[JSONObject] = []
    for tool in given:
        entry = entries.get(tool.name)
        if entry is not None and before.get(tool.name) == tool:
            out.append(entry)
        elif entry is not None:
            edited = {**entry, "description": tool.description, "inputSchema": tool.input_schema}
            edited.pop("annotations", None)
            out.append({**edited, **({"annotations": tool.annotations} if tool.annotations is not None else {})})
        else:
            out.append(listed_tool(tool))
    return tuple(out)
