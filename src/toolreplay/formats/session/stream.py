"""A session read as a stream: the memory of one message, not of the whole file, and no positions.

Every command reads a session file here: the audit and the scope check its
calls one at a time, ``show`` its calls, ``seal`` its messages (making no calls),
``diff`` its calls and what it says around them (:func:`read_calls`), and the
others the whole session (:func:`read_streamed`). Reading the document with every
value's line costs about five times the file's size and several times the
time; this reader holds a window of the text and one message, and notes the
line of nothing but each call's ``tool_use`` block.

It walks the top-level object itself and hands each piece to the parsers the
whole reader uses, so both take exactly the same files:

- the fields before ``messages`` (which must include ``tools``, as toolreplay
  writes them) are parsed by the standard scanner with the same strict hooks
  (no key twice, no ``NaN``) and checked by the session reader;
- so is each message; for one that makes calls, the scanner finds where each
  content block starts, so each call keeps the line of its ``tool_use`` block;
- the turns are checked by the same :class:`~toolreplay.formats.session.reader.Conversation`,
  on their values alone where they are in the shape toolreplay writes.

Anything it does not take (an error, or a file laid out another way) is handed
to the whole reader with positions, which names the line of the error, or
reads the file if it is good after all; what was already given is then
skipped, so either way the caller sees what the whole reader gives.
"""

from __future__ import annotations

import codecs
import gc
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import InputError
from toolreplay.core.files import open_binary
from toolreplay.core.model import Call, Session, SessionContext, ToolDef
from toolreplay.formats.parsing.json_text import JSON_DEPTH
from toolreplay.formats.parsing.jsonl import scan_value
from toolreplay.formats.parsing.node import Node
from toolreplay.formats.parsing.positions import Pos
from toolreplay.formats.session.reader import Conversation, SessionReader, read_located
from toolreplay.formats.session.shape import FIELDS, OPTIONAL, Outline

_CHUNK = 1 << 20
# JSON whitespace from an offset on; it always matches (perhaps nothing), so its match is never None.
_space = cast("Callable[[str, int], re.Match[str]]", re.compile(r"[ \t\n\r]*").match)
_CONTENT = re.compile(r'"content"[ \t\n\r]*:[ \t\n\r]*\[[ \t\n\r]*')
# An agent's message as toolreplay writes it, up to its first content block: role first, then content.
_ROLE_THEN_CONTENT = re.compile(
    r'\{[ \t\n\r]*"role"[ \t\n\r]*:[ \t\n\r]*"assistant"[ \t\n\r]*,'
    r'[ \t\n\r]*"content"[ \t\n\r]*:[ \t\n\r]*\[[ \t\n\r]*'
)
# Between two elements of an array: the comma and the space around it (the next element starts at its end).
_between = cast("Callable[[str, int], re.Match[str] | None]", re.compile(r"[ \t\n\r]*,[ \t\n\r]*").match)
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
        self.placing = True  # False for good once no line is wanted any more (each is then 0)
        self.start = self.end = 0  # where the last element given lies in text

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
        if not self.placing:
            return 0
        self.line += self.text.count("\n", self.counted, offset)
        self.counted = offset
        return self.line

    def skip_space(self) -> str:
        """Skip JSON whitespace; the next character, or "" at the end."""
        while True:
            text = self.text
            self.pos = pos = _space(text, self.pos).end()
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
        return value, text, self.line_at(start)

    def elements(self) -> Iterator[Any]:
        """The values of the array being read (from its first value on), each with where its text starts and
        ends in ``text`` (``start``, ``end``) until the next is asked for; the array's closing bracket is read
        after the last.
        """
        between = _between
        text, pos = self.text, self.skip()
        while True:
            if len(text) - pos < _CHUNK >> 4 and self.more():
                text, pos = self.text, self.skip()  # reading on may move the window
                continue  # a value is seldom cut short at the window's end, where the scanner's error costs a pass
            try:
                value, end = scan_value(text, pos)
            except (ValueError, StopIteration, RecursionError):
                if self.more():
                    text, pos = self.text, self.skip()
                    continue
                raise _NotStreamed from None
            if end == len(text) and self.more():
                text, pos = self.text, self.skip()
                continue  # a number may go on in the next chunk
            self.start, self.end = pos, end
            found = between(text, end)
            if found is not None:  # the comma, and the next value (or the window's end: read on above)
                pos = self.pos = found.end()
                yield value
                continue
            self.pos = end
            yield value
            if self.expect(",", "]") == "]":
                return
            text, pos = self.text, self.skip()

    def skip(self) -> int:
        """Skip JSON whitespace in the text held; the position reached."""
        self.pos = _space(self.text, self.pos).end()
        return self.pos

    def key(self) -> str:
        if self.skip_space() != '"':
            raise _NotStreamed
        key, _, _ = self.value()
        if type(key) is not str:
            raise _NotStreamed
        self.expect(":")
        return key


def _depth(value: Any) -> int:
    """How many levels ``value`` nests, counting a scalar as one (asked only where the brackets could nest so
    deep)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            stack.extend((member, depth + 1) for member in item.values())
        elif isinstance(item, list):
            stack.extend((member, depth + 1) for member in item)
    return deepest


def _in_strings(message: dict[str, Any]) -> int:
    """How much of a message's text its blocks' strings take at least: the length of each string member of a
    content block or of a block's input (a string's text holds at least its characters, and no bracket there
    nests). Deeper than those, a message nests only in the rest of its text, two brackets a level."""
    held = 0
    content = message.get("content")
    if type(content) is list:
        for block in content:
            if type(block) is dict:
                for member in block.values():
                    if type(member) is str:
                        held += len(member)
                    elif type(member) is dict:
                        for inner in member.values():
                            if type(inner) is str:
                                held += len(inner)
    return held


def _first_block(text: str, start: int) -> int:
    """Where the first block of the content array of the message at ``start`` starts, found by walking its members
    with the scanner."""
    space = _space
    at = space(text, start + 1).end()
    while True:
        key, at = scan_value(text, at)
        at = space(text, space(text, at).end() + 1).end()  # past the colon
        if key == "content":
            return space(text, at + 1).end()
        _, at = scan_value(text, at)
        at = space(text, space(text, at).end() + 1).end()  # past the comma


def _unplaced(blocks: int) -> list[int]:
    """No lines, for a reader that makes no calls."""
    return [0] * blocks


def _blocks_making_calls(message: dict[str, Any]) -> int:
    """The number of content blocks of a message that makes calls (to the last that does), else 0."""
    content = message.get("content")
    if type(content) is list:
        for number in range(len(content), 0, -1):
            block = content[number - 1]
            if type(block) is dict and block.get("type") == "tool_use":
                return number
    return 0


class SessionStream:
    """A session read a message at a time: its tools, then its calls, then what it says around them.

    ``keep`` holds on to every message, for a whole session. Anything the stream
    does not take is read by :func:`~toolreplay.formats.session.reader.read_located`,
    and the rest comes from there.
    """

    def __init__(self, path: str | Path, keep: bool = False) -> None:
        self.path = str(path)
        self.window = _Window(path)
        self.reader = SessionReader()
        self.conversation = Conversation(self.reader, self.path, keep=keep)
        self.given = 0
        self.whole: Session | None = None  # the whole reader's, once the stream has given up
        try:
            self.tools = self._header()
            self.servers = self.reader.servers  # written before the conversation, as the tools are
        except (_NotStreamed, InputError):
            self.window.close()
            self.whole = read_located(path)  # names the line of what is wrong, or reads a file laid out otherwise
            self.tools = self.whole.context.tools if self.whole.context else ()
            self.servers = self.whole.context.servers if self.whole.context else ()

    def _header(self) -> tuple[ToolDef, ...]:
        """Read up to the conversation; the tools."""
        window = self.window
        window.expect("{")
        members: dict[str, Any] = {}
        while True:
            key = window.key()
            if key in members:
                raise _NotStreamed
            if key == "messages":
                break
            value, text, _ = window.value()
            deep = text.count("[") + text.count("{") >= JSON_DEPTH - 1
            if deep and _depth(value) > JSON_DEPTH - 1:  # the session's object is a level
                raise _NotStreamed
            members[key] = value
            if window.expect(",", "}") == "}":
                raise _NotStreamed
        if any(name not in members for name in _BEFORE_MESSAGES):
            raise _NotStreamed
        self.members = members
        top = Node(members, Pos(1), self.path)
        self.model, self.source, self.system, tools = self.reader.header(top)
        if "final_reply" in members:  # written before the conversation: checked here, as the whole reader does
            self.reader.final_reply(top.member("final_reply"))
        return tools

    def calls(self) -> Iterator[Call]:
        """The calls, once: the stream's, then (if it gives up) the rest of the whole reader's."""
        for _, calls in self._read():
            for call in calls:
                self.given += 1
                yield call
        if self.whole is not None:
            yield from self.whole.calls[self.given :]

    def messages(self) -> Iterator[JSONObject]:
        """The messages, once, each as soon as it is checked against the turns before it (the calls it completes
        are given by :meth:`calls`; read one or the other)."""
        self.conversation.make_calls = self.window.placing = False  # every check, but no call nor line is made
        for message, _ in self._read():
            self.given += 1
            yield message
        if self.whole is not None and self.whole.context is not None:
            yield from self.whole.context.messages[self.given :]

    def _read(self) -> Iterator[tuple[JSONObject, list[Call]]]:
        """Each message with the calls it completes, until the end or until the stream gives up (``whole`` is
        then the whole reader's session)."""
        if self.whole is not None:
            return
        try:
            yield from self._messages()
        except (_NotStreamed, InputError):
            self.whole = read_located(self.path)
        finally:
            self.window.close()

    def _messages(self) -> Iterator[tuple[JSONObject, list[Call]]]:
        window = self.window
        window.expect("[")
        if window.skip_space() == "]":
            raise _NotStreamed
        add_fast = self.conversation.add_fast
        place = self._place if self.conversation.make_calls else _unplaced
        for value in window.elements():
            text, start, end = window.text, window.start, window.end
            if type(value) is not dict or (
                end - start > 2 * _MESSAGE_DEPTH  # shorter text cannot nest so deep; nor can what its strings leave
                and end - start - _in_strings(value) > 2 * _MESSAGE_DEPTH
                and text.count("[", start, end) + text.count("{", start, end) >= _MESSAGE_DEPTH
                and _depth(value) > _MESSAGE_DEPTH
            ):
                raise _NotStreamed
            calls = add_fast(value, place)
            if calls is None:  # checked node by node; anything wrong is named again by the whole reader
                blocks = [Pos(line) for line in place(_blocks_making_calls(value))]
                where = f"messages[{self.conversation.count}]"
                calls = self.conversation.add(Node(value, Pos(0, {"content": Pos(0, blocks)}), self.path, where))
            yield value, calls
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

    def _place(self, blocks: int) -> list[int]:
        """The lines of the first ``blocks`` content blocks of the message just read, each block found by the
        scanner from the one before (a call's line is its block's, and nothing else is placed on the way)."""
        window = self.window
        text, start, end = window.text, window.start, window.end
        if not blocks:
            return []
        # A message that opens with its role and then its content is its own proof: its content array is found at
        # once. So is one where the first "content" key has no bracket before it (inside a string every quote is
        # escaped, so nothing there can be taken for it). Else the members are walked.
        opening = _ROLE_THEN_CONTENT.match(text, start, end)
        if opening is not None:
            at = opening.end()
        elif (found := _CONTENT.search(text, start, end)) and (
            text.find("{", start + 1, found.start()) < 0 and text.find("[", start, found.start()) < 0
        ):
            at = found.end()
        else:
            at = _first_block(text, start)
        lines = [window.line_at(at)]
        space = _space
        for _ in range(blocks - 1):
            _, at = scan_value(text, at)
            at = space(text, space(text, at).end() + 1).end()  # past the comma
            lines.append(window.line_at(at))
        return lines

    def head(self) -> SessionContext:
        """What the session says before its conversation (model, source, request, system prompt, tools), as a
        context that holds no messages nor final reply yet."""
        if self.whole is not None:
            return replace(self.context(), messages=(), final_reply=None)
        request = self.members.get("request")
        return SessionContext(self.model, self.source, self.system, self.tools, (), None, request, self.reader.servers)

    def final_reply(self) -> str | None:
        """The final reply, once the messages are all read."""
        return self.context().final_reply if self.whole is not None else self.members["final_reply"]

    def outline(self) -> Outline:
        """What the session says around its calls, once they are all read."""
        if self.whole is not None:
            return Outline.of(self.context())
        said = tuple(self.conversation.said)
        return Outline(self.model, self.source, self.tools, said, self.members["final_reply"])

    def context(self) -> SessionContext:
        """The session's context, once its calls are all read (with ``keep``, for its messages)."""
        if self.whole is not None:
            if self.whole.context is None:  # a session file always has one; for the type checker
                raise InputError("not a session", self.path)
            return self.whole.context
        request = self.members.get("request")
        messages = self.conversation.messages
        return SessionContext(
            self.model,
            self.source,
            self.system,
            self.tools,
            messages,
            self.members["final_reply"],
            request,
            self.reader.servers,
        )


def stream_session(path: str | Path) -> tuple[tuple[ToolDef, ...], Iterator[Call]]:
    """A session's tools, and its calls as a stream; every error the whole reader would give, at the same line."""
    stream = SessionStream(path)
    return stream.tools, stream.calls()


def read_streamed(path: str | Path) -> Session:
    """A whole session, read a message at a time: the session, calls and errors :func:`read_located` gives."""
    stream = SessionStream(path, keep=True)
    calls = tuple(stream.calls())
    return stream.whole or Session(stream.path, calls, stream.context())


def read_session(path: str | Path) -> Session:
    """Read and validate a session file (a message at a time, without positions; the errors and calls of
    :func:`~toolreplay.formats.session.reader.read_located`)."""
    return read_streamed(path)


def read_calls(path: str | Path) -> Session:
    """A session for its calls, read a message at a time and each message let go once read: the session
    :func:`read_streamed` gives (its calls, tools, final reply and every error), but that its context holds no
    messages. For a command that needs nothing else of them (``diff``).

    The cyclic garbage collector is paused meanwhile, as :func:`~toolreplay.formats.recording.load_session`
    pauses it for a whole recording: what is kept (the calls) would be walked again and again for nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        stream = SessionStream(path)
        calls = tuple(stream.calls())
        return Session(stream.path, calls, replace(stream.context(), messages=()))
    finally:
        if was_enabled:
            if not gc.get_freeze_count():  # what was made joins the oldest generation at once (as load_session)
                gc.freeze()
                gc.unfreeze()
            gc.enable()
