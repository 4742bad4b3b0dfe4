"""A tool result's content between MCP and the Messages API, both ways, in one place.

Text is text and an image is an image either way; any other block (an audio
clip, a resource link, an embedded resource) becomes a text block holding its
JSON, since the other side has no such block.
"""

from __future__ import annotations

import json

from toolreplay.canonical import JSONObject, JSONValue


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
