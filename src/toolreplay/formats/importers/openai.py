"""OpenAI conversations: Chat Completions messages with ``tool_calls``, and Responses API items.

The file is JSON, one of:

- a Chat Completions message list, or a request holding one: ``{"model",
  "messages", "tools"}``. ``system`` (or ``developer``) messages are the system
  prompt; ``user`` messages are the person; an ``assistant`` message's
  ``content`` and each of its ``tool_calls`` (``id``, ``function.name``,
  ``function.arguments`` as a JSON string) are the agent; a ``tool`` message
  (``tool_call_id``, ``content``) is a result.
- a Responses API item list, or a request/response holding one: ``{"model",
  "instructions", "input", "output", "tools"}``. ``message`` items are the
  person (``user``) or the agent (``assistant``, its ``output_text`` parts);
  ``function_call`` (``call_id``, ``name``, ``arguments``) is a call and
  ``function_call_output`` (``call_id``, ``output``) its result. ``reasoning``
  and other items are kept verbatim in the agent's turn.

Tool definitions come from ``tools`` (``{"type": "function", ...}``). Errors
name the file, the line and the place (``messages[3].tool_calls[0]``).
"""

from __future__ import annotations

import json
from pathlib import Path

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.files import read_text
from toolreplay.core.model import SessionContext, ToolDef
from toolreplay.formats.importers.builder import ConversationBuilder, Notes
from toolreplay.formats.parsing.json_text import parse_json
from toolreplay.formats.parsing.jsonl import decode_text
from toolreplay.formats.parsing.node import Node, describe

_CHAT_ROLES = ("system", "developer", "user", "assistant", "tool")


def import_openai(path: str | Path, model: str | None, notes: Notes) -> SessionContext:
    """The conversation in an OpenAI file, as a session."""
    source: JSONObject = {"kind": "openai", "file": Path(path).as_posix()}
    return openai_session(parse_json(read_text(path), path), model, notes, source)


def openai_session(top: Node, model: str | None, notes: Notes, source: JSONObject) -> SessionContext:
    """The conversation in an OpenAI document (a file's, or what a program on the OpenAI SDK sent and got), as a
    session from ``source``."""
    items, tools, system, found_model, responses = _unwrap(top)
    builder = ConversationBuilder(notes)
    prompt: list[str] = [system] if system else []
    # Responses items say what they are (a message's type may be left out); chat messages never do
    if responses or any(isinstance(item.value, dict) and "type" in item.value for item in items):
        _responses(items, builder, prompt)
    else:
        _chat(items, builder, prompt)
    if builder.empty:
        raise top.fail("holds no message from the person or the agent: nothing to import")
    messages, final = builder.finish()
    return SessionContext(model or found_model or "unknown", source, "\n\n".join(prompt), tools, messages, final)


def _unwrap(top: Node) -> tuple[list[Node], tuple[ToolDef, ...], str, str | None, bool]:
    """The messages or items, the tools, the instructions, the model, and whether these are Responses items."""
    if isinstance(top.value, list):
        return list(top.elements()), (), "", None, False
    top.object()
    model = top.member("model").string() if "model" in top.value else None
    tools = _tools(top.member("tools")) if "tools" in top.value else ()
    if "messages" in top.value:
        return list(top.member("messages").array().elements()), tools, "", model, False
    if "input" in top.value or "output" in top.value:
        instructions = top.member("instructions").string() if top.value.get("instructions") is not None else ""
        items: list[Node] = []
        for key in ("input", "output"):  # a request's input, then its response's output
            if key not in top.value:
                continue
            given = top.member(key)
            if isinstance(given.value, str):  # a request's input may be just the person's text
                items.append(
                    Node(
                        {"type": "message", "role": "user", "content": given.value}, given.pos, given.path, given.where
                    )
                )
            else:
                items.extend(given.array().elements())
        return items, tools, instructions, model, True
    raise top.fail("expected a message list, or an object with 'messages' (Chat) or 'input'/'output' (Responses)")


def _tools(node: Node) -> tuple[ToolDef, ...]:
    tools: list[ToolDef] = []
    seen: set[str] = set()
    for item in node.array().elements():
        item.object()
        definition = item.member("function").object() if "function" in item.value else item
        if item.value.get("type", "function") != "function":
            continue  # a built-in tool (web search, file search): the provider runs it
        name = definition.member("name").string(non_empty=True)
        if name in seen:
            raise definition.member("name").fail(f"tool '{name}' is defined twice")
        seen.add(name)
        description = definition.member("description").string() if definition.value.get("description") else ""
        schema = definition.member("parameters").object().value if "parameters" in definition.value else {}
        tools.append(ToolDef(name, description, schema or {"type": "object"}))
    return tuple(tools)


def _text(node: Node) -> str | list[JSONValue]:
    """A message's content as a session holds it: text, or blocks (text parts as text; others kept verbatim)."""
    if node.value is None:
        return ""
    if isinstance(node.value, str):
        return node.value
    blocks: list[JSONValue] = []
    for part in node.array().elements():
        part.object().require("type")
        kind = part.member("type").string()
        if kind in ("text", "input_text", "output_text"):
            blocks.append({"type": "text", "text": part.member("text").string()})
        else:
            blocks.append(part.value)
    return blocks


def _arguments(node: Node) -> JSONObject:
    """A call's arguments: a JSON string holding an object (or, from some tools, the object itself)."""
    if isinstance(node.value, dict):
        return node.value
    text = node.string()
    try:  # as strict as the file around it: no NaN, no key given twice
        value = decode_text(text) if text.strip() else {}
    except ValueError as exc:
        raise node.fail(f"the arguments are not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise node.fail(f"the arguments must be a JSON object, found {describe(value)}")
    return value


def _output(node: Node) -> JSONValue:
    if isinstance(node.value, (str, list)):
        return node.value
    return json.dumps(node.value, ensure_ascii=False)


def _chat(messages: list[Node], builder: ConversationBuilder, prompt: list[str]) -> None:
    for message in messages:
        message.object().require("role")
        role = message.member("role").string()
        if role not in _CHAT_ROLES:
            raise message.member("role").fail(f"unknown role {role!r}; expected one of: {', '.join(_CHAT_ROLES)}")
        if role in ("system", "developer"):
            text = _text(message.member("content"))
            prompt.append(text if isinstance(text, str) else " ".join(json.dumps(b) for b in text))
        elif role == "user":
            builder.person(_text(message.member("content")))
        elif role == "assistant":
            blocks: list[JSONValue] = []
            if message.value.get("content"):
                said = _text(message.member("content"))
                blocks += [{"type": "text", "text": said}] if isinstance(said, str) else said
            for call in message.member("tool_calls").array().elements() if message.value.get("tool_calls") else ():
                call.object().require("id", "function")
                function = call.member("function").object().require("name")
                arguments = _arguments(function.member("arguments")) if "arguments" in function.value else {}
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call.member("id").string(non_empty=True),
                        "name": function.member("name").string(non_empty=True),
                        "input": arguments,
                    }
                )
            builder.agent(blocks)
        else:
            message.require("tool_call_id")
            builder.result(message.member("tool_call_id").string(), _output(message.member("content")))


def _responses(items: list[Node], builder: ConversationBuilder, prompt: list[str]) -> None:
    for item in items:
        item.object()
        kind = item.member("type").string() if "type" in item.value else "message"
        if kind == "message":
            item.require("role", "content")
            role = item.member("role").string()
            if role in ("system", "developer"):
                text = _text(item.member("content"))
                prompt.append(text if isinstance(text, str) else json.dumps(text))
            elif role == "user":
                builder.person(_text(item.member("content")))
            else:
                said = _text(item.member("content"))
                builder.agent([{"type": "text", "text": said}] if isinstance(said, str) else said)
        elif kind == "function_call":
            item.require("call_id", "name")
            arguments = _arguments(item.member("arguments")) if "arguments" in item.value else {}
            use: JSONObject = {
                "type": "tool_use",
                "id": item.member("call_id").string(non_empty=True),
                "name": item.member("name").string(non_empty=True),
                "input": arguments,
            }
            builder.agent([use])
        elif kind == "function_call_output":
            item.require("call_id", "output")
            builder.result(item.member("call_id").string(), _output(item.member("output")))
        else:  # reasoning, a built-in tool's call, anything newer: the agent's, kept as it is
            builder.agent([item.value])
