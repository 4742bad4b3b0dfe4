"""A session's calls, read as a stream: the memory of one message, not of the whole file.

The audit and the scope check need a session's tools and its calls, one at a
time. Reading the whole document with every value's line costs about five times
the file's size; this reader holds a window of the text and one message.

It walks the top-level object itself and hands each piece to the parsers the
whole reader uses, so both take exactly the same files:

- the fields before ``messages`` (which must include ``tools``, as toolreplay
  writes them) are parsed with their lines and checked by the session reader;
- each message is parsed by the standard scanner with the same strict hooks
  (no key twice, no ``NaN``), and an assistant turn that makes calls is parsed
  again with its lines, so each call keeps the line of its ``tool_use`` block;
- the turns are checked by the same :class:`~toolreplay.formats.session.Conversation`.

Anything it does not take (an error, or a file laid out another way) is handed
to the whole reader, which names the line of the error, or reads the file if it
is good after all; the calls already given are then skipped, so either way the
caller sees the calls the whole reader gives.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolreplay.errors import InputError
from toolreplay.formats.files import open_binary
from toolreplay.formats.jsonl import scan_value
from toolreplay.formats.located import JSON_DEPTH, Node, lone_surrogate, parse_json
from toolreplay.formats.positions import Pos
from toolreplay.formats.session import FIELDS, OPTIONAL, Conversation, SessionReader, read_session
from toolreplay.model import Call, ToolDef

_CHUNK = 1 << 20
_WHITESPACE = " \t\n\r"
_BEFORE_MESSAGES = tuple(name for name in FIELDS if name not in ("messages", "final_reply", *OPTIONAL))
# A message sits two levels down (the session's object, its messages array); the located parser counts a
# scalar as a level too, so a message may nest this deep before the whole reader refuses the file.
_MESSAGE_DEPTH = JSON_DEPTH - 2


class _NotStreamed(Exception):
    """The stream does not take this file: the whole reader decides."""


class _Window:
    """The file's text from the reader's position on, read in chunks, with the line of each offset."""

    def __init__(self, path: str | Path) -> None:
        self.handle = open_binary(path)
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.text = ""
        self.pos = 0
        self.eof = False
        self.line = 1  # the line of self.text[self.counted]
        self.counted = 0

    def close(self) -> None:
        self.handle.close()

    def more(self) -> bool:
        """Read on (as much again as is held, so a long value costs linear time); False at the end."""
        if self.eof:
            return False
        if self.pos > _CHUNK:
            self.line_at(self.pos)
            self.text, self.counted, self.pos = self.text[self.pos :], self.counted - self.pos, 0
        try:
            raw = self.handle.read(max(_CHUNK, len(self.text)))
            self.text += self.decoder.decode(raw, final=not raw)
        except (OSError, UnicodeDecodeError):
            raise _NotStreamed from None  # the whole reader says what is wrong
        self.eof = not raw
        return True

    def line_at(self, offset: int) -> int:
        """The line of ``offset``, at or after the last offset asked about."""
        self.line += self.text.count("\n", self.counted, offset)
        self.counted = offset
        return self.line

    def skip_space(self) -> str:
        """Skip JSON whitespace; the next character, or "" at the end."""
        while True:
            text, pos = self.text, self.pos
            while pos < len(text) and text[pos] in _WHITESPACE:
                pos += 1
            self.pos = pos
            if pos < len(text):
                return text[pos]
            if not self.more():
                return ""

    def expect(self, *chars: str) -> str:
        found = self.skip_space()
        if not found or found not in chars:
            raise _NotStreamed
        self.pos += 1
        return found

    def value(self) -> tuple[Any, str, int]:
        """The next JSON value, its text and its line (the scanner's strict hooks apply)."""
        self.skip_space()
        while True:  # reading on may move the window, so its position is read again each time
            try:
                value, end = scan_value(self.text, self.pos)
            except (ValueError, StopIteration, RecursionError):
                if self.more():
                    continue
                raise _NotStreamed from None
            if end == len(self.text) and self.more():
                continue  # a number may go on in the next chunk
            break
        start, self.pos = self.pos, end
        text = self.text[start:end]
        if ("\\ud" in text or "\\uD" in text) and lone_surrogate(value) is not None:
            raise _NotStreamed
        return value, text, self.line_at(start)

    def key(self) -> str:
        if self.skip_space() != '"':
            raise _NotStreamed
        key, _, _ = self.value()
        if type(key) is not str:
            raise _NotStreamed
        self.expect(":")
        return key


def _depth(value: Any, text: str) -> int:
    """How many levels ``value`` nests, counting a scalar as one (the bracket count bounds it, cheaply)."""
    if text.count("[") + text.count("{") < _MESSAGE_DEPTH:
        return 0
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            stack.extend((member, depth + 1) for member in item.values())
        elif isinstance(item, list):
            stack.extend((member, depth + 1) for member in item)
    return deepest


class _SessionStream:
    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.window = _Window(path)
        self.reader = SessionReader()
        self.conversation = Conversation(self.reader, keep=False)
        self.given = 0

    def header(self) -> tuple[ToolDef, ...]:
        """Read up to the conversation; the tools."""
        window = self.window
        window.expect("{")
        members: dict[str, Any] = {}
        positions: dict[str, Pos] = {}
        while True:
            key = window.key()
            if key in members:
                raise _NotStreamed
            if key == "messages":
                break
            _, text, line = window.value()
            node = parse_json(text, self.path, line, enclosing=1)
            members[key], positions[key] = node.value, node.pos
            if window.expect(",", "}") == "}":
                raise _NotStreamed
        if any(name not in members for name in _BEFORE_MESSAGES):
            raise _NotStreamed
        self.members = members
        top = Node(members, Pos(1, positions), self.path)
        tools = self.reader.header(top)[3]
        if "final_reply" in members:  # written before the conversation: checked here, as the whole reader does
            self.reader.final_reply(top.member("final_reply"))
        return tools

    def calls(self) -> Iterator[Call]:
        window = self.window
        window.expect("[")
        if window.skip_space() == "]":
            raise _NotStreamed
        while True:
            value, text, line = window.value()
            if _depth(value, text) > _MESSAGE_DEPTH:
                raise _NotStreamed
            where = f"messages[{self.conversation.count}]"
            if type(value) is not dict:
                raise _NotStreamed
            if value.get("role") == "assistant" and ('"tool_use"' in text or "\\u" in text):
                message = parse_json(text, self.path, line, enclosing=2).called(where)
            else:
                message = Node(value, Pos(line), self.path, where)
            for call in self.conversation.add(message):
                self.given += 1
                yield call
            if window.expect(",", "]") == "]":
                break
        self.conversation.finish(Node([], Pos(1), self.path, "messages"))
        while window.expect(",", "}") == ",":
            key = window.key()
            if key != "final_reply" or key in self.members:
                raise _NotStreamed
            value, text, line = window.value()
            self.members[key] = value
            self.reader.final_reply(Node(value, Pos(line), self.path, key))
        if "final_reply" not in self.members or window.skip_space():
            raise _NotStreamed


def stream_session(path: str | Path) -> tuple[tuple[ToolDef, ...], Iterator[Call]]:
    """A session's tools, and its calls as a stream; every error the whole reader would give, at the same line."""
    stream = _SessionStream(path)
    try:
        tools = stream.header()
    except (_NotStreamed, InputError):
        stream.window.close()
        session = read_session(path)  # names the line of what is wrong, or reads a file laid out otherwise
        return (session.context.tools if session.context else ()), iter(session.calls)
    return tools, _calls(stream)


def _calls(stream: _SessionStream) -> Iterator[Call]:
    try:
        yield from stream.calls()
    except (_NotStreamed, InputError):
        stream.window.close()
        yield from read_session(stream.path).calls[stream.given :]
    finally:
        stream.window.close()
