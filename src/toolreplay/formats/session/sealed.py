"""Sealed sessions: a session cut into parts, each part one link of the hash chain.

The parts, in order: ``session`` (format, version, model, source), ``system``,
``tools[i]`` for each tool definition, ``servers[i]`` for each MCP server a version 3
session holds (its own messages, so a replay of the sealed file serves each server
as itself), ``messages[i]`` for each message, and ``final_reply``. A link is
``{"digest", "index", "part", "prev", "value"}`` in canonical form, so editing
anything in the session (a word of the prompt, a tool description, a thinking
block, the final reply) breaks the chain at the link of that part, and ``verify``
names it.

A sealed session reads back as the session it sealed: ``audit``, ``scope`` and
``show`` accept it, and its calls point at the lines of their message links.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import InputError
from toolreplay.core.model import Session, SessionContext
from toolreplay.core.records import record
from toolreplay.formats.parsing.node import Node, describe
from toolreplay.formats.parsing.positions import Pos
from toolreplay.formats.session.reader import validate_session
from toolreplay.formats.session.shape import TURN_FIELDS
from toolreplay.formats.session.stream import SessionStream
from toolreplay.formats.session.writer import header_document, ordered, server_document, tool_document

LINK_FIELDS = frozenset({"digest", "index", "part", "prev", "value"})
FINAL_PART = "final_reply"  # the last part of every sealed session
_HEX = "0123456789abcdef"
_MESSAGE_FIELDS = ("role", "content", *TURN_FIELDS)  # what message_document keeps of a message


def session_parts(context: SessionContext) -> Iterator[JSONObject]:
    """The records of a session's links, without ``prev`` and ``digest``."""
    messages = ({key: message[key] for key in _MESSAGE_FIELDS if key in message} for message in context.messages)
    return _records(_named_parts(context, messages, lambda: context.final_reply))


def streamed_parts(path: str | Path) -> Iterator[JSONObject]:
    """The records of a session file's links (as :func:`session_parts` gives them), read a message at a time."""
    return _records(streamed_named_parts(path))


def streamed_named_parts(path: str | Path) -> Iterator[tuple[str, JSONValue]]:
    """Each part of a session file, named, in order, read a message at a time: what :func:`streamed_parts` gives
    as records (a part's index is its position), for :func:`~toolreplay.integrity.chain.seal_parts`."""
    stream = SessionStream(path)
    return _named_parts(stream.head(), stream.messages(), stream.final_reply)  # a message read holds no other field


def _records(parts: Iterable[tuple[str, JSONValue]]) -> Iterator[JSONObject]:
    for index, (part, value) in enumerate(parts):
        yield {"index": index, "part": part, "value": value}


def _named_parts(
    head: SessionContext, messages: Iterable[JSONObject], final_reply: Callable[[], str | None]
) -> Iterator[tuple[str, JSONValue]]:
    """Each value is what the session file holds: a link is canonical JSON, whose keys are sorted whatever their
    order, so each message goes in as it is (with the fields :func:`message_document` keeps)."""
    parts: list[tuple[str, JSONValue]] = [("session", header_document(head)), ("system", ordered(head.system))]
    parts += [(f"tools[{i}]", tool_document(tool)) for i, tool in enumerate(head.tools)]
    parts += [(f"servers[{i}]", server_document(server)) for i, server in enumerate(head.servers)]
    yield from parts
    for i, message in enumerate(messages):
        yield f"messages[{i}]", message
    yield FINAL_PART, final_reply()


@record
class SealedPart:
    """One link of a sealed session as read from its file."""

    index: int
    part: str
    value: JSONValue
    prev: str
    digest: str
    line: int

    @property
    def label(self) -> str:
        return self.part

    def record(self) -> JSONObject:
        return {"index": self.index, "part": self.part, "prev": self.prev, "value": self.value}


def is_sealed_session_line(obj: JSONObject) -> bool:
    """Whether a parsed first line belongs to a sealed session."""
    return "part" in obj and "value" in obj


def sealed_parts(objects: Iterable[tuple[int, JSONObject]], path: str | Path) -> Iterator[SealedPart]:
    """Strictly read the links of a sealed session from ``(line, object)`` pairs."""
    for line, obj in objects:
        if obj.keys() != LINK_FIELDS:
            unknown = sorted(obj.keys() - LINK_FIELDS)
            missing = sorted(LINK_FIELDS - obj.keys())
            problem = f"unknown field '{unknown[0]}'" if unknown else f"missing field '{missing[0]}'"
            raise InputError(problem, path, line)
        index, part = obj["index"], obj["part"]
        if type(index) is not int:
            raise InputError(f"field 'index' must be an integer, found {describe(index)}", path, line)
        if type(part) is not str:
            raise InputError(f"field 'part' must be a string, found {describe(part)}", path, line)
        hexes = []
        for name in ("prev", "digest"):
            value = obj[name]
            if type(value) is not str or len(value) != 64 or value.strip(_HEX):
                raise InputError(f"field '{name}' must be 64 lowercase hex characters", path, line)
            hexes.append(value)
        yield SealedPart(index, part, obj["value"], hexes[0], hexes[1], line)


def _expected_parts(names: list[str]) -> list[str]:
    tools = sum(name.startswith("tools[") for name in names)
    servers = sum(name.startswith("servers[") for name in names)
    messages = sum(name.startswith("messages[") for name in names)
    return [
        "session",
        "system",
        *(f"tools[{i}]" for i in range(tools)),
        *(f"servers[{i}]" for i in range(servers)),
        *(f"messages[{i}]" for i in range(messages)),
        "final_reply",
    ]


def assemble_session(parts: Iterable[SealedPart], path: str | Path) -> Session:
    """Rebuild the session a sealed file holds (without checking the chain) and validate it."""
    links = list(parts)
    names = [link.part for link in links]
    for position, (link, expected) in enumerate(zip(links, _expected_parts(names), strict=False)):
        if link.index != position:
            raise InputError(f"index {link.index} is out of order: expected {position}", path, link.line)
        if link.part != expected:
            raise InputError(f"part '{link.part}' is out of place: expected '{expected}'", path, link.line)
    if len(links) < len(_expected_parts(names)):
        missing = _expected_parts(names)[len(links)]
        last = links[-1].line if links else 1
        raise InputError(f"the sealed session ends after this line, before its '{missing}' part", path, last)
    header = links[0].value
    if not isinstance(header, dict):
        raise InputError(f"part 'session' must be an object, found {describe(header)}", path, links[0].line)
    tools = [link for link in links if link.part.startswith("tools[")]
    servers = [link for link in links if link.part.startswith("servers[")]
    messages = [link for link in links if link.part.startswith("messages[")]
    doc: JSONObject = {
        **header,
        "system": links[1].value,
        "tools": [link.value for link in tools],
        **({"servers": [link.value for link in servers]} if servers else {}),
        "messages": [link.value for link in messages],
        "final_reply": links[-1].value,
    }
    # Everything inside one link's value is on that link's line.
    members = dict.fromkeys(header, Pos(links[0].line))
    members["system"] = Pos(links[1].line)
    members["tools"] = Pos(tools[0].line if tools else links[1].line, [Pos(link.line) for link in tools])
    if servers:
        members["servers"] = Pos(servers[0].line, [Pos(link.line) for link in servers])
    members["messages"] = Pos(messages[0].line if messages else links[-1].line, [Pos(link.line) for link in messages])
    members["final_reply"] = Pos(links[-1].line)
    return validate_session(Node(doc, Pos(links[0].line, members), str(path)))
