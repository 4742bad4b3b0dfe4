"""TOML read with the line of every value: :mod:`tomllib` parses, and a scanner finds each value's line.

:mod:`tomllib` parses TOML into plain values but reports no positions, and a
finding about a TOML file (a rule set, a configuration) should point at the
line where the offending value is written. :func:`toml_positions` scans the
same text once more and returns a :class:`Pos` tree with exactly the shape of
the dict ``tomllib.loads(text)`` returns.

The scanner is not a validator: it is only ever given text that
:func:`tomllib.loads` has accepted, so it recognises just enough of the grammar
to keep its place (strings of every kind, comments, arrays, inline tables,
table headers) and leaves every check on the values to :mod:`tomllib`. It
still stops with :class:`ValueError` on text it cannot follow, rather than
looping or guessing.
"""

from __future__ import annotations

import re
from pathlib import Path

from toolreplay.core.errors import InputError
from toolreplay.formats.parsing.node import Node, nested_past
from toolreplay.formats.parsing.positions import Pos

# A carriage return is only valid as the first half of a CRLF, and lines are
# counted on the line feed, so it can be skipped as plain whitespace.
_SPACE = frozenset(" \t\r")
# Everything that can follow a bare key. Stopping at these rather than
# accepting only [A-Za-z0-9_-] keeps the scanner in step with any tomllib that
# allows more characters in bare keys.
_BARE_KEY_END = frozenset(" \t\r\n.=[]{},#\"'")
# Numbers, booleans and dates contain none of these (a date-time may contain
# a space, so whitespace does not end a scalar).
_SCALAR_END = frozenset(",]}#\n")


_TOML_DEPTH = 100  # a rules file has no reason to nest deeper


def parse_toml(text: str, path: str | Path) -> Node:
    """Parse a TOML document with the line of every value."""
    import tomllib  # noqa: PLC0415 - only a rules file is TOML, and a replay's reads none: 3 ms of start-up

    deep = nested_past(text, _TOML_DEPTH)
    if deep is not None:
        raise InputError(f"not valid TOML here: nested more than {_TOML_DEPTH} levels deep", path, deep)
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # Python 3.11's tomllib gives the position only in its message.
        match = re.search(r"line (\d+)", str(exc))
        raise InputError(f"not valid TOML: {exc}", path, int(match.group(1)) if match else None) from None
    return Node(value, toml_positions(text), str(path), "", "toml")


def toml_positions(text: str) -> Pos:
    """The 1-based line of every value in ``text``, shaped like ``tomllib.loads(text)``.

    Tables and inline tables have their members by key, arrays and arrays of
    tables their elements by index; scalars have no children. A table opened
    by a ``[header]`` is on the header's line, and so is every table the header
    creates implicitly (``a`` for ``[a.b]``) unless it was created earlier; an
    array of tables is on the line of its first ``[[header]]``, each of its
    elements on its own header's line. A table created implicitly and defined
    later by its own header moves to that header's line, since that is where
    its members are written.

    Raises :class:`ValueError` on text it cannot follow, which does not happen
    for text that :func:`tomllib.loads` accepts.
    """
    return _Scanner(text).document()


def _members(pos: Pos) -> dict[str, Pos]:
    children = pos.children
    if isinstance(children, list) and children:
        # A header or dotted key that runs through an array of tables
        # addresses the element most recently opened.
        children = children[-1].children
    if not isinstance(children, dict):
        raise ValueError("not TOML that tomllib accepts: a key runs through a value that is not a table")
    return children


def _descend(table: Pos, key: str, line: int) -> Pos:
    """The table ``key`` of ``table``, created on ``line`` if this is its first mention."""
    members = _members(table)
    child = members.get(key)
    if child is None:
        child = members[key] = Pos(line, {})
    return child


class _Scanner:
    """One forward pass over the text; ``line`` is the line of the character at ``i``."""

    __slots__ = ("end", "i", "line", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.end = len(text)
        self.i = 0
        self.line = 1

    def fail(self, what: str) -> ValueError:
        return ValueError(f"not TOML that tomllib accepts: {what} (line {self.line})")

    def peek(self) -> str:
        return self.text[self.i] if self.i < self.end else ""

    def document(self) -> Pos:
        root = Pos(1, {})
        table = root
        while True:
            self.skip_trivia()
            char = self.peek()
            if not char:
                return root
            if char == "[":
                table = self.header(root)
            else:
                self.key_value(table)

    def skip_space(self) -> None:
        text, end, i = self.text, self.end, self.i
        while i < end and text[i] in _SPACE:
            i += 1
        self.i = i

    def skip_trivia(self) -> None:
        """Skip whitespace, line breaks and comments, counting the line breaks."""
        text, end = self.text, self.end
        while self.i < end:
            char = text[self.i]
            if char in _SPACE:
                self.i += 1
            elif char == "\n":
                self.i += 1
                self.line += 1
            elif char == "#":
                newline = text.find("\n", self.i)
                # The line break itself is left for the next round, which counts it.
                self.i = end if newline < 0 else newline
            else:
                return

    def header(self, root: Pos) -> Pos:
        """Read a ``[table]`` or ``[[array of tables]]`` header; return the table it opens."""
        line = self.line
        is_array = self.text.startswith("[[", self.i)
        self.i += 2 if is_array else 1
        keys = self.key()
        self.skip_space()
        close = "]]" if is_array else "]"
        if not self.text.startswith(close, self.i):
            raise self.fail(f"a header without its closing {close!r}")
        self.i += len(close)
        parent = root
        for key in keys[:-1]:
            parent = _descend(parent, key, line)
        members = _members(parent)
        last = keys[-1]
        existing = members.get(last)
        if is_array:
            if existing is None:
                existing = members[last] = Pos(line, [])
            if not isinstance(existing.children, list):
                raise self.fail(f"[[{last}]] names a value that is not an array of tables")
            element = Pos(line, {})
            existing.children.append(element)
            return element
        if existing is None:
            existing = members[last] = Pos(line, {})
        else:
            # Only a table created implicitly by an earlier header can be
            # defined now; its members are written under this header.
            existing.line = line
        return existing

    def key(self) -> list[str]:
        """Read a key, dotted or not, with whitespace allowed around the dots."""
        keys: list[str] = []
        while True:
            self.skip_space()
            keys.append(self.simple_key())
            self.skip_space()
            if self.peek() != ".":
                return keys
            self.i += 1

    def simple_key(self) -> str:
        text, start = self.text, self.i
        char = self.peek()
        if char == '"':
            self.basic_string()
            raw = text[start : self.i]
            if "\\" not in raw:
                return raw[1:-1]
            # tomllib decodes the escapes itself, so the key is spelt exactly
            # as it is in the dict tomllib returns, whichever escapes it knows.
            import tomllib  # noqa: PLC0415 - loaded by parse_toml already, which alone calls this

            decoded: str = tomllib.loads(f"k = {raw}")["k"]
            return decoded
        if char == "'":
            self.literal_string()
            return text[start + 1 : self.i - 1]
        end, i = self.end, start
        while i < end and text[i] not in _BARE_KEY_END:
            i += 1
        if i == start:
            raise self.fail("a key was expected")
        self.i = i
        return text[start:i]

    def key_value(self, table: Pos) -> None:
        """Read ``key = value`` into ``table``; the tables of a dotted key start on its line."""
        line = self.line
        keys = self.key()
        self.skip_space()
        if self.peek() != "=":
            raise self.fail("'=' was expected after a key")
        self.i += 1
        self.skip_space()
        for key in keys[:-1]:
            table = _descend(table, key, line)
        _members(table)[keys[-1]] = self.value()

    def value(self) -> Pos:
        line = self.line
        char = self.peek()
        if char == '"':
            self.basic_string()
        elif char == "'":
            self.literal_string()
        elif char == "[":
            return self.array()
        elif char == "{":
            return self.inline_table()
        else:
            text, end, start = self.text, self.end, self.i
            i = start
            while i < end and text[i] not in _SCALAR_END:
                i += 1
            if i == start:
                raise self.fail("a value was expected")
            self.i = i
        return Pos(line)

    def array(self) -> Pos:
        items: list[Pos] = []
        pos = Pos(self.line, items)
        self.i += 1
        while True:
            self.skip_trivia()
            if self.peek() == "]":
                self.i += 1
                return pos
            items.append(self.value())
            self.skip_trivia()
            char = self.peek()
            if char == ",":
                self.i += 1
            elif char != "]":
                raise self.fail("',' or ']' was expected in an array")

    def inline_table(self) -> Pos:
        table = Pos(self.line, {})
        self.i += 1
        while True:
            # Line breaks and comments are skipped too: TOML 1.0 allows them
            # only inside the values, but a later tomllib may allow them
            # between the members as well.
            self.skip_trivia()
            if self.peek() == "}":
                self.i += 1
                return table
            self.key_value(table)
            self.skip_trivia()
            char = self.peek()
            if char == ",":
                self.i += 1
            elif char != "}":
                raise self.fail("',' or '}' was expected in an inline table")

    def basic_string(self) -> None:
        """Skip a basic string, one-line or multi-line, counting the line breaks inside it."""
        text, end = self.text, self.end
        multiline = text.startswith('"""', self.i)
        i = self.i + (3 if multiline else 1)
        line = self.line
        while i < end:
            char = text[i]
            if char == "\\":
                # An escape is at least two characters; the second may be the
                # line break of a line-ending backslash, which still counts.
                if i + 1 < end and text[i + 1] == "\n":
                    line += 1
                i += 2
            elif char == '"':
                if not multiline:
                    self.i, self.line = i + 1, line
                    return
                run = i
                while i < end and text[i] == '"':
                    i += 1
                # Up to two quotes before the closing three belong to the
                # string, so the whole run ends it.
                if i - run >= 3:
                    self.i, self.line = i, line
                    return
            else:
                if char == "\n":
                    line += 1
                i += 1
        raise self.fail("a string is not closed")

    def literal_string(self) -> None:
        """Skip a literal string, one-line or multi-line, counting the line breaks inside it."""
        text, start = self.text, self.i
        if text.startswith("'''", start):
            close = text.find("'''", start + 3)
            if close < 0:
                raise self.fail("a string is not closed")
            end = close + 3
            # As for basic strings, quotes just before the closing three are content.
            while end < self.end and text[end] == "'":
                end += 1
        else:
            close = text.find("'", start + 1)
            if close < 0:
                raise self.fail("a string is not closed")
            end = close + 1
        self.line += text.count("\n", start, end)
        self.i = end
