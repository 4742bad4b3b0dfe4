"""Session files: what an agent was told and every tool call it made.

A session is one pretty-printed JSON object (see ``docs/formats.md``): the model,
where it was recorded, the system prompt, the tool definitions with their MCP
annotations, the conversation in Anthropic Messages API form, and the agent's
final reply. The calls are read out of the conversation: each ``tool_use``
block with the ``tool_result`` that answered it.

Loading is strict about the session's own structure: unknown or missing fields,
wrong types, turns out of order, a ``tool_use`` without its ``tool_result``. Inside
a content block, only the fields toolreplay reads are checked; any others are the
Messages API's and are kept verbatim. Every error names the file, the line and
the place in the document (``messages[3].content[1]``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from toolreplay.canonical import JSONObject, JSONValue
from toolreplay.errors import InputError
from toolreplay.formats.files import read_text, write_atomic
from toolreplay.formats.jsonl import type_name
from toolreplay.formats.located import LocatedDocument, parse_located
from toolreplay.model import Call, Session, SessionContext, ToolDef
from toolreplay.redact import Redactor

FORMAT = "toolreplay-session"
VERSION = 1
FIELDS = ("format", "version", "model", "source", "system", "tools", "messages", "final_reply")
TOOL_FIELDS = ("name", "description", "input_schema", "annotations")
ANNOTATION_TYPES: dict[str, type] = {
    "title": str,
    "readOnlyHint": bool,
    "destructiveHint": bool,
    "idempotentHint": bool,
    "openWorldHint": bool,
}


class _Reader:
    """Validates one session document, producing errors that say where."""

    def __init__(self, doc: LocatedDocument, path: str) -> None:
        self.doc = doc
        self.path = path

    def fail(self, obj: object, where: str, problem: str) -> InputError:
        return InputError(f"{where}: {problem}" if where else problem, self.path, self.doc.line_of(obj))

    def need_object(self, value: JSONValue, where: str, parent: object) -> JSONObject:
        if not isinstance(value, dict):
            raise self.fail(parent, where, f"must be an object, found {type_name(value)}")
        return value

    def need_array(self, value: JSONValue, where: str, parent: object) -> list[JSONValue]:
        if not isinstance(value, list):
            raise self.fail(parent, where, f"must be an array, found {type_name(value)}")
        return value

    def need_string(self, value: JSONValue, where: str, parent: object) -> str:
        if not isinstance(value, str):
            raise self.fail(parent, where, f"must be a string, found {type_name(value)}")
        return value

    def session(self) -> Session:
        top = self.doc.value
        if not isinstance(top, dict):
            raise InputError(f"a session must be a JSON object, found {type_name(top)}", self.path, 1)
        for key in top:
            if key not in FIELDS:
                raise self.fail(top, "", f"unknown field '{key}'")
        for key in FIELDS:
            if key not in top:
                raise self.fail(top, "", f"missing field '{key}'")
        if top["format"] != FORMAT:
            raise self.fail(top, "format", f"must be {FORMAT!r}, found {json.dumps(top['format'])}")
        version = top["version"]
        if type(version) is not int or version != VERSION:
            raise self.fail(top, "version", f"this toolreplay reads version {VERSION}, found {json.dumps(version)}")
        model = self.need_string(top["model"], "model", top)
        source = self.need_object(top["source"], "source", top)
        final = top["final_reply"]
        if type(source.get("kind")) is not str:
            raise self.fail(source, "source", "must have a string field 'kind'")
        if final is not None and type(final) is not str:
            raise self.fail(top, "final_reply", f"must be a string or null, found {type_name(final)}")
        system = self.system(top["system"], top)
        tools = self.tools(top["tools"], top)
        messages = self.messages(top["messages"], top)
        calls = tuple(self.calls(messages))
        context = SessionContext(model, source, system, tools, messages, final if isinstance(final, str) else None)
        return Session(self.path, calls, context)

    def system(self, value: JSONValue, parent: object) -> JSONValue:
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            for i, block in enumerate(value):
                if not isinstance(block, dict) or block.get("type") != "text" or type(block.get("text")) is not str:
                    raise self.fail(
                        block if isinstance(block, dict) else parent, f"system[{i}]", "must be a text block"
                    )
            return value
        raise self.fail(parent, "system", f"must be a string or an array of text blocks, found {type_name(value)}")

    def tools(self, value: JSONValue, parent: object) -> tuple[ToolDef, ...]:
        tools: list[ToolDef] = []
        seen: set[str] = set()
        for i, item in enumerate(self.need_array(value, "tools", parent)):
            where = f"tools[{i}]"
            raw = self.need_object(item, where, parent)
            for key in raw:
                if key not in TOOL_FIELDS:
                    raise self.fail(raw, where, f"unknown field '{key}'")
            name, description, schema = raw.get("name"), raw.get("description", ""), raw.get("input_schema")
            if type(name) is not str or not name:
                raise self.fail(raw, f"{where}.name", "must be a non-empty string")
            if name in seen:
                raise self.fail(raw, f"{where}.name", f"tool '{name}' is defined twice")
            seen.add(name)
            if type(description) is not str:
                raise self.fail(raw, f"{where}.description", f"must be a string, found {type_name(description)}")
            if type(schema) is not dict:
                raise self.fail(raw, f"{where}.input_schema", f"must be an object, found {type_name(schema)}")
            annotations = raw.get("annotations")
            if annotations is not None:
                annotations = self.annotations(annotations, raw, f"{where}.annotations")
            tools.append(ToolDef(name, description, schema, annotations))
        return tuple(tools)

    def annotations(self, raw: JSONValue, parent: object, where: str) -> JSONObject:
        value = self.need_object(raw, where, parent)
        for key, item in value.items():
            expected = ANNOTATION_TYPES.get(key)
            if expected is None:
                raise self.fail(value, where, f"unknown annotation '{key}'")
            if type(item) is not expected:
                raise self.fail(value, f"{where}.{key}", f"must be a {expected.__name__}, found {type_name(item)}")
        return value

    def content(self, message: JSONObject, where: str) -> list[JSONObject]:
        """A message's content as a list of blocks (a plain string is one text block)."""
        content = message["content"]
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        if not isinstance(content, list):
            raise self.fail(message, f"{where}.content", f"must be a string or an array, found {type_name(content)}")
        blocks: list[JSONObject] = []
        for i, block in enumerate(content):
            if not isinstance(block, dict) or type(block.get("type")) is not str:
                raise self.fail(message, f"{where}.content[{i}]", "must be a content block with a string 'type'")
            blocks.append(block)
        return blocks

    def messages(self, value: JSONValue, parent: object) -> tuple[JSONObject, ...]:
        items = self.need_array(value, "messages", parent)
        if not items:
            raise self.fail(parent, "messages", "must hold at least the person's first message")
        messages: list[JSONObject] = []
        pending: dict[str, str] = {}  # tool_use id -> where, awaiting its result
        for i, item in enumerate(items):
            where = f"messages[{i}]"
            message = self.need_object(item, where, parent)
            for key in message:
                if key not in ("role", "content"):
                    raise self.fail(message, where, f"unknown field '{key}'")
            for key in ("role", "content"):
                if key not in message:
                    raise self.fail(message, where, f"missing field '{key}'")
            role = message["role"]
            expected_role = "user" if i % 2 == 0 else "assistant"
            if role != expected_role:
                raise self.fail(
                    message, f"{where}.role", f"expected '{expected_role}' (turns alternate), found {json.dumps(role)}"
                )
            blocks = self.content(message, where)
            if role == "assistant":
                pending = self.assistant_blocks(message, blocks, where)
            elif i == 0:
                for j, block in enumerate(blocks):
                    if block["type"] in ("tool_result", "tool_use"):
                        raise self.fail(
                            block, f"{where}.content[{j}]", "the person's first message cannot hold tool blocks"
                        )
            else:
                self.user_blocks(message, blocks, where, pending)
                pending = {}
            messages.append(message)
        if pending:
            tool_use_id, place = next(iter(pending.items()))
            raise self.fail(messages[-1], place, f"tool_use '{tool_use_id}' has no tool_result")
        return tuple(messages)

    def assistant_blocks(self, message: JSONObject, blocks: list[JSONObject], where: str) -> dict[str, str]:
        pending: dict[str, str] = {}
        for j, block in enumerate(blocks):
            place = f"{where}.content[{j}]"
            if block["type"] == "tool_result":
                raise self.fail(block, place, "an assistant turn cannot hold a tool_result")
            if block["type"] != "tool_use":
                continue
            block_id, name, arguments = block.get("id"), block.get("name"), block.get("input")
            if type(block_id) is not str or not block_id:
                raise self.fail(block, f"{place}.id", "must be a non-empty string")
            if block_id in pending:
                raise self.fail(block, f"{place}.id", f"tool_use id '{block_id}' is used twice")
            if type(name) is not str or not name:
                raise self.fail(block, f"{place}.name", "must be a non-empty string")
            if type(arguments) is not dict:
                raise self.fail(block, f"{place}.input", f"must be an object, found {type_name(arguments)}")
            pending[block_id] = place
        return pending

    def user_blocks(self, message: JSONObject, blocks: list[JSONObject], where: str, pending: dict[str, str]) -> None:
        answered: set[str] = set()
        for j, block in enumerate(blocks):
            place = f"{where}.content[{j}]"
            if block["type"] != "tool_result":
                raise self.fail(
                    block, place, f"the person speaks again after the agent's first turn ({block['type']} block)"
                )
            tool_use_id = block.get("tool_use_id")
            if type(tool_use_id) is not str or tool_use_id not in pending:
                raise self.fail(
                    block, f"{place}.tool_use_id", f"answers no tool_use of the turn before: {json.dumps(tool_use_id)}"
                )
            if tool_use_id in answered:
                raise self.fail(block, f"{place}.tool_use_id", f"tool_use '{tool_use_id}' is answered twice")
            answered.add(tool_use_id)
            content = block.get("content", "")
            if not isinstance(content, (str, list)):
                raise self.fail(block, f"{place}.content", f"must be a string or an array, found {type_name(content)}")
            if type(block.get("is_error", False)) is not bool:
                raise self.fail(block, f"{place}.is_error", "must be a boolean")
        for tool_use_id, place in pending.items():
            if tool_use_id not in answered:
                raise self.fail(message, place, f"tool_use '{tool_use_id}' has no tool_result in the next turn")

    def calls(self, messages: tuple[JSONObject, ...]) -> Iterator[Call]:
        index = 0
        for i in range(1, len(messages), 2):
            uses = [b for b in self.content(messages[i], "") if b["type"] == "tool_use"]
            if not uses:
                continue
            results = {b["tool_use_id"]: b for b in self.content(messages[i + 1], "")}
            for use in uses:
                result = results[str(use["id"])]
                arguments = self.need_object(use["input"], "input", use)
                is_error = result.get("is_error", False) is True
                yield Call(
                    index, str(use["name"]), arguments, result.get("content", ""), self.doc.line_of(use), is_error
                )
                index += 1


def parse_tools(doc: LocatedDocument, path: str | Path) -> tuple[ToolDef, ...]:
    """Validate a list of tool definitions (as a session holds them) from any source."""
    return _Reader(doc, str(path)).tools(doc.value, doc.value)


def validate_session(doc: LocatedDocument, path: str) -> Session:
    """Validate a parsed session document and read its calls out."""
    return _Reader(doc, path).session()


def parse_session(text: str, path: str | Path) -> Session:
    """Parse and validate the text of a session file."""
    return validate_session(parse_located(text, path), str(path))


def read_session(path: str | Path) -> Session:
    """Read and validate a session file."""
    return parse_session(read_text(path), path)


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
    """A message as a session file holds it."""
    return {"role": message["role"], "content": ordered(message["content"])}


def header_document(context: SessionContext) -> JSONObject:
    """The fields that say what a session is and where it came from."""
    return {"format": FORMAT, "version": VERSION, "model": context.model, "source": ordered(context.source)}


def session_document(context: SessionContext) -> JSONObject:
    """The JSON object of a session file, in its stable key order."""
    return {
        **header_document(context),
        "system": ordered(context.system),
        "tools": [tool_document(tool) for tool in context.tools],
        "messages": [message_document(message) for message in context.messages],
        "final_reply": context.final_reply,
    }


def dump_session(context: SessionContext, redactor: Redactor | None = None) -> str:
    """The text of a session file: two-space indented, UTF-8, stable key order, final newline."""
    doc: JSONValue = session_document(context)
    if redactor is not None:
        doc = redactor.value(doc)
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def write_session(path: str | Path, context: SessionContext, redactor: Redactor | None = None) -> None:
    """Write a session file atomically (a crash leaves the previous file, never a torn one),
    with every string passed through ``redactor`` first."""
    write_atomic(path, [dump_session(context, redactor).encode("utf-8")])
