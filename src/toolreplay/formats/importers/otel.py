"""OpenTelemetry traces of an agent, exported as OTLP JSON, read by the GenAI semantic conventions (v1.37 and later).

The file is what an OTLP/JSON exporter writes: ``{"resourceSpans": [{"scopeSpans":
[{"spans": [...]}]}]}`` (several such objects, one per line, are read in turn).
Of the spans, two kinds matter:

- ``chat`` spans (``gen_ai.operation.name`` = ``chat``): the conversation is read
  from ``gen_ai.input.messages`` and ``gen_ai.output.messages`` (messages of
  ``parts``: ``text``, ``tool_call`` with ``id``, ``name`` and ``arguments``,
  ``tool_call_response`` with ``id`` and ``response``), on the span or on its
  ``gen_ai.client.inference.operation.details`` event; the system prompt from
  ``gen_ai.system_instructions``, the tools from ``gen_ai.tool.definitions``,
  the model from ``gen_ai.request.model``. The chat span that saw the longest
  conversation (the last one, in an agent loop) holds all of it.
- ``execute_tool`` spans: when no chat span carries messages, each is one call
  (``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``,
  ``gen_ai.tool.call.result``), in the order they started.

A trace that holds neither is refused. The conventions are still marked
Development; the attributes read are those of v1.37 and later, which replaced
v1.36's per-message events.
"""

from __future__ import annotations

import json
from pathlib import Path

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import InputError
from toolreplay.core.files import read_text
from toolreplay.core.model import SessionContext, ToolDef
from toolreplay.core.wording import count
from toolreplay.formats.importers.builder import ConversationBuilder, Notes
from toolreplay.formats.parsing.json_text import parse_json
from toolreplay.formats.parsing.jsonl import decode_text
from toolreplay.formats.parsing.node import Node, describe

SEMCONV = "1.37"
DETAILS_EVENT = "gen_ai.client.inference.operation.details"


def import_otel(path: str | Path, model: str | None, notes: Notes) -> SessionContext:
    """The agent's conversation in an OTLP JSON trace file, as a session."""
    spans = list(_spans(path))
    chats = [(span, attrs) for span, attrs in spans if attrs.get("gen_ai.operation.name") == "chat"]
    with_messages = [(span, attrs) for span, attrs in chats if _structured(span, attrs, "gen_ai.input.messages")]
    builder = ConversationBuilder(notes)
    system: JSONValue = ""
    tools: tuple[ToolDef, ...] = ()
    found_model: str | None = None
    traces = {span.value.get("traceId") for span, _ in spans}
    if with_messages:
        span, attrs = max(with_messages, key=lambda pair: len(_messages(pair[0], pair[1], "gen_ai.input.messages")))
        others = len(traces - {span.value.get("traceId")})
        if others:
            notes.left_out.append(f"{count(others, 'other trace')} in the file: imported the longest conversation only")
        for message in _messages(span, attrs, "gen_ai.input.messages"):
            _message(span, message, builder)
        for message in _messages(span, attrs, "gen_ai.output.messages"):
            _message(span, message, builder)
        system = _instructions(span, attrs)
        tools = _tools(span, attrs)
        found_model = _string(attrs.get("gen_ai.request.model"))
    else:
        calls = [(span, attrs) for span, attrs in spans if attrs.get("gen_ai.operation.name") == "execute_tool"]
        if not calls:
            raise InputError(
                f"no GenAI chat span with gen_ai.input.messages and no execute_tool span (semantic conventions "
                f"v{SEMCONV})",
                path,
            )
        calls.sort(key=lambda pair: _start(pair[0]))
        for span, attrs in calls:
            _tool_span(span, attrs, builder)
        found_model = next(
            (_string(a.get("gen_ai.request.model")) for _, a in chats if "gen_ai.request.model" in a), None
        )
    if builder.empty:
        raise InputError("the GenAI spans hold no message and no call: nothing to import", path)
    messages, final = builder.finish()
    source: JSONObject = {"kind": "otel", "file": Path(path).as_posix(), "semconv": SEMCONV}
    return SessionContext(model or found_model or "unknown", source, system, tools, messages, final)


def _spans(path: str | Path) -> list[tuple[Node, dict[str, JSONValue]]]:
    """Every span of the file, with its attributes as plain values."""
    text = read_text(path)
    documents: list[Node] = []
    stripped = text.strip()
    if stripped.startswith("{") and "\n{" in stripped:  # one export per line (the file exporter's JSON Lines)
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                documents.append(parse_json(line, path, number))
    else:
        documents.append(parse_json(text, path))
    spans: list[tuple[Node, dict[str, JSONValue]]] = []
    for document in documents:
        document.object().require("resourceSpans")
        for resource in document.member("resourceSpans").array().elements():
            for scope in (
                resource.object().member("scopeSpans").array().elements() if "scopeSpans" in resource.value else ()
            ):
                for span in scope.object().member("spans").array().elements() if "spans" in scope.value else ():
                    span.object()
                    spans.append((span, _attributes(span.member("attributes")) if "attributes" in span.value else {}))
    return spans


def _start(span: Node) -> int:
    """When a span started, in nanoseconds (a string of digits, per the JSON mapping, or an integer)."""
    raw = span.value.get("startTimeUnixNano", 0)
    if type(raw) is int or (isinstance(raw, str) and raw.isdigit()):
        return int(raw)
    raise span.member("startTimeUnixNano").fail(f"must be an integer, found {json.dumps(raw)}")


def _list(node: Node, key: str) -> list[Node]:
    """The elements of an optional array member."""
    return list(node.object().member(key).array().elements()) if key in node.value else []


def _attributes(node: Node) -> dict[str, JSONValue]:
    """OTLP key-value attributes as plain values."""
    found: dict[str, JSONValue] = {}
    for item in node.array().elements():
        item.object().require("key", "value")
        found[item.member("key").string()] = _value(item.member("value"))
    return found


def _value(node: Node) -> JSONValue:
    """An OTLP AnyValue as a plain value (integers arrive as strings, per the JSON mapping)."""
    value = node.object().value
    if "stringValue" in value:
        return node.member("stringValue").string()
    if "boolValue" in value:
        return node.member("boolValue").boolean()
    if "intValue" in value:
        raw = value["intValue"]
        if type(raw) is int or (isinstance(raw, str) and raw.lstrip("-").isdigit()):
            return int(raw)
        raise node.member("intValue").fail(f"must be an integer, found {json.dumps(raw)}")
    if "doubleValue" in value:
        return node.member("doubleValue").number()
    if "arrayValue" in value:
        values = node.member("arrayValue").object()
        return [_value(item) for item in values.member("values").array().elements()] if "values" in values.value else []
    if "kvlistValue" in value:
        pairs = node.member("kvlistValue").object()
        return _attributes(pairs.member("values")) if "values" in pairs.value else {}
    return None


def _structured(span: Node, attrs: dict[str, JSONValue], key: str) -> JSONValue:
    """A structured attribute (JSON in a string, or already structured), from the span or its details event."""
    value = attrs.get(key)
    if value is None:
        for event in _list(span, "events"):
            if event.value.get("name") == DETAILS_EVENT and "attributes" in event.value:
                value = _attributes(event.member("attributes")).get(key)
                if value is not None:
                    break
    if isinstance(value, str):
        try:  # as strict as the file around it: no NaN, no key given twice
            return decode_text(value)
        except ValueError as exc:
            raise span.fail(f"attribute {key} is not JSON ({exc})") from None
    return value


def _messages(span: Node, attrs: dict[str, JSONValue], key: str) -> list[JSONObject]:
    value = _structured(span, attrs, key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(m, dict) and isinstance(m.get("parts"), list) for m in value):
        raise span.fail(f"attribute {key} must be an array of messages with parts (semantic conventions v{SEMCONV})")
    return value  # type: ignore[return-value]


def _message(span: Node, message: JSONObject, builder: ConversationBuilder) -> None:
    role = message.get("role")
    parts = [part for part in message["parts"] if isinstance(part, dict)]  # type: ignore[union-attr]
    if role == "system":
        return
    blocks: list[JSONValue] = []
    for part in parts:
        kind = part.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": str(part.get("content", ""))})
        elif kind == "tool_call":
            arguments = _arguments(span, part.get("arguments"), f"tool_call {json.dumps(part.get('name'))}")
            blocks.append({"type": "tool_use", "id": part.get("id"), "name": part.get("name"), "input": arguments})
        elif kind == "tool_call_response":
            response = part.get("response")
            builder.result(part.get("id"), response if isinstance(response, (str, list)) else json.dumps(response))
        else:
            blocks.append(part)  # a part of a kind this reader does not know: kept as it is
    if not blocks:
        return
    if role == "user":
        builder.person(blocks)
    elif role != "tool":
        builder.agent(blocks)


def _tool_span(span: Node, attrs: dict[str, JSONValue], builder: ConversationBuilder) -> None:
    name = _string(attrs.get("gen_ai.tool.name"))
    if not name:
        raise span.fail("an execute_tool span without gen_ai.tool.name")
    call_id = _string(attrs.get("gen_ai.tool.call.id")) or str(span.value.get("spanId", ""))
    arguments = _arguments(span, _structured(span, attrs, "gen_ai.tool.call.arguments"), "gen_ai.tool.call.arguments")
    builder.agent([{"type": "tool_use", "id": call_id, "name": name, "input": arguments}])
    if "gen_ai.tool.call.result" in attrs:
        result = attrs["gen_ai.tool.call.result"]  # the tool's answer as given: text stays text
        status = span.value.get("status")
        failed = isinstance(status, dict) and status.get("code") in (2, "STATUS_CODE_ERROR")
        builder.result(call_id, result if isinstance(result, (str, list)) else json.dumps(result), failed)


def _arguments(span: Node, given: JSONValue, what: str) -> JSONObject:
    """A call's arguments: an object, or JSON text holding one; none given is no arguments. Anything else is
    refused at the span's line, as a session refuses it: wrapping or dropping it would guess."""
    value = given
    if isinstance(given, str):
        try:
            value = decode_text(given)
        except ValueError as exc:
            raise span.fail(f"{what}: the arguments are not JSON ({exc})") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise span.fail(f"{what}: the arguments must be a JSON object, found {describe(value)}")
    return value


def _instructions(span: Node, attrs: dict[str, JSONValue]) -> JSONValue:
    value = _structured(span, attrs, "gen_ai.system_instructions")
    if isinstance(value, list):
        return "\n\n".join(str(p.get("content", "")) for p in value if isinstance(p, dict) and p.get("type") == "text")
    return value if isinstance(value, str) else ""


def _tools(span: Node, attrs: dict[str, JSONValue]) -> tuple[ToolDef, ...]:
    """The function tools defined, held to a session's rules (a name, once; a string description; an object
    schema), at the span's line; a tool of another type (a provider's built-in one) is not the agent's to call."""
    key = "gen_ai.tool.definitions"
    value = _structured(span, attrs, key)
    if value is None:
        return ()
    if not isinstance(value, list):
        raise span.fail(f"attribute {key} must be an array of tool definitions, found {describe(value)}")
    tools: dict[str, ToolDef] = {}
    for number, item in enumerate(value):
        where = f"attribute {key}[{number}]"
        if not isinstance(item, dict):
            raise span.fail(f"{where} must be an object, found {describe(item)}")
        if item.get("type", "function") != "function":
            continue
        definition = item.get("function", item)
        name = definition.get("name") if isinstance(definition, dict) else None
        if not isinstance(definition, dict) or not isinstance(name, str) or not name:
            raise span.fail(f"{where}: a tool definition needs a name")
        if name in tools:
            raise span.fail(f"{where}: tool '{name}' is defined twice")
        schema, description = definition.get("parameters"), definition.get("description")
        schema = {"type": "object"} if schema is None else schema
        if not isinstance(schema, dict):
            raise span.fail(f"{where}: tool '{name}' parameters must be an object, found {describe(schema)}")
        if description is not None and not isinstance(description, str):
            raise span.fail(f"{where}: tool '{name}' description must be a string, found {describe(description)}")
        tools[name] = ToolDef(name, description or "", schema)
    return tuple(tools.values())


def _string(value: JSONValue) -> str | None:
    return value if isinstance(value, str) else None
