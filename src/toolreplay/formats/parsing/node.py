"""A parsed value with its position: one way for every reader to say where a value is, and what it should be.

JSON, YAML and TOML files are each parsed into plain values with a
:class:`~toolreplay.formats.parsing.positions.Pos` tree beside them, and handed to the
reader as a :class:`Node`: a value, the line it is written on, and its place in
the document (``messages[3].content[1]``). Every reader checks types through
the same methods, so every error names the file, the line of the offending
value and its place, in one vocabulary of type names. The parsers are
:mod:`~toolreplay.formats.parsing.json_text`, :mod:`~toolreplay.formats.parsing.yaml_text`
and :mod:`~toolreplay.formats.parsing.toml_text`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NoReturn

from toolreplay.core.errors import InputError
from toolreplay.formats.parsing.positions import Pos

Syntax = Literal["json", "yaml", "toml"]

# The one vocabulary of type names. Containers are named as each syntax names them.
_CONTAINER_NAMES: dict[str, dict[Syntax, str]] = {
    "object": {"json": "an object", "yaml": "a mapping", "toml": "a table"},
    "array": {"json": "an array", "yaml": "a list", "toml": "an array"},
}


def describe(value: object, syntax: Syntax = "json") -> str:
    """What a parsed value is, for an error message: ``a string``, ``an integer``, ``an object`` ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return _CONTAINER_NAMES["array"][syntax]
    if isinstance(value, dict):
        return _CONTAINER_NAMES["object"][syntax]
    if isinstance(value, bytes):
        return "binary data"
    return f"a {type(value).__name__}"  # YAML dates and the like


# What a member of an object is called.
_MEMBER_NAMES: dict[Syntax, str] = {"json": "field", "yaml": "key", "toml": "key"}


def container_name(kind: Literal["object", "array"], syntax: Syntax) -> str:
    return _CONTAINER_NAMES[kind][syntax]


@dataclass(slots=True)
class Node:
    """A value of a document, where it is written, and what it is called there.

    Never changed once made, but not frozen: a reader makes several per message of a session, and a frozen
    dataclass takes several times as long to build.
    """

    value: Any
    pos: Pos
    path: str
    where: str = ""
    syntax: Syntax = "json"

    @property
    def line(self) -> int:
        return self.pos.line

    def fail(self, problem: str) -> InputError:
        """An error about this value: ``file:line: place: problem``."""
        return InputError(f"{self.where}: {problem}" if self.where else problem, self.path, self.line)

    def describe(self) -> str:
        return describe(self.value, self.syntax)

    @property
    def text(self) -> str | None:
        """A scalar as the file wrote it, where the syntax keeps it (YAML); None otherwise."""
        return self.pos.text

    @property
    def quoted(self) -> bool:
        """Whether a YAML scalar was written in quotes, so it is a string whatever it spells."""
        return self.pos.quoted

    def called(self, where: str) -> Node:
        """This value under another name in messages (``'repeat'``, ``the config``)."""
        return Node(self.value, self.pos, self.path, where, self.syntax)

    def _place(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.where}[{key}]"
        return f"{self.where}.{key}" if self.where else key

    def member(self, key: str) -> Node:
        """A member of this object (which must hold it)."""
        return Node(self.value[key], self.pos.member(key), self.path, self._place(key), self.syntax)

    def get(self, key: str) -> Node | None:
        """A member of this object, or None when it has none of that name."""
        return self.member(key) if key in self.value else None

    def element(self, index: int) -> Node:
        return Node(self.value[index], self.pos.member(index), self.path, self._place(index), self.syntax)

    def members(self) -> Iterator[tuple[str, Node]]:
        for key in self.value:
            yield key, self.member(key)

    def elements(self) -> Iterator[Node]:
        for index in range(len(self.value)):
            yield self.element(index)

    # Type checks: each returns the node (or value) when it is of the type, else fails here.
    def object(self) -> Node:
        if not isinstance(self.value, dict):
            raise self.fail(f"must be {container_name('object', self.syntax)}, found {self.describe()}")
        return self

    def array(self) -> Node:
        if not isinstance(self.value, list):
            raise self.fail(f"must be {container_name('array', self.syntax)}, found {self.describe()}")
        return self

    def string(self, non_empty: bool = False) -> str:
        value = self.value
        if not isinstance(value, str):
            raise self.fail(f"must be a{' non-empty' if non_empty else ''} string, found {self.describe()}")
        if non_empty and not value:
            raise self.fail("must be a non-empty string, found an empty one")
        return value

    def integer(self) -> int:
        value = self.value
        if type(value) is not int:
            raise self.fail(f"must be an integer, found {self.describe()}")
        return value

    def number(self) -> float:
        """A number (not a boolean); whether it may be infinite or NaN is the caller's range check."""
        value = self.value
        if type(value) not in (int, float):
            raise self.fail(f"must be a number, found {self.describe()}")
        return float(value)

    def boolean(self) -> bool:
        value = self.value
        if type(value) is not bool:
            raise self.fail(f"must be a boolean (true or false), found {self.describe()}")
        return value

    def only(self, allowed: tuple[str, ...], what: str = "") -> Node:
        """This object, once every key is one of ``allowed``; an unknown key fails at its own line."""
        unknown = self.unknown(allowed, what)
        if unknown:
            raise unknown[0]
        return self

    def unknown(self, allowed: tuple[str, ...], what: str = "") -> list[InputError]:
        """An error for each key of this object that is not one of ``allowed``, at its own line."""
        found: list[InputError] = []
        for key, member in self.object().members():
            if key not in allowed:
                expected = ", ".join(allowed)
                place = f" in {what}" if what else ""
                where = self.where + ": " if self.where else ""
                found.append(
                    InputError(
                        f"{where}unknown {_MEMBER_NAMES[self.syntax]} '{key}'{place}; expected one of: {expected}",
                        self.path,
                        member.line,
                    )
                )
        return found

    def require(self, *keys: str) -> Node:
        """This object, once it holds every key; a missing one fails at the object's line."""
        for key in keys:
            if key not in self.object().value:
                raise self.fail(f"missing {_MEMBER_NAMES[self.syntax]} '{key}'")
        return self


def reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def finite_float(text: str) -> float:
    """A JSON number with a fraction or exponent; one too large for a float (``1e999``) is refused."""
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


def lone_surrogate(value: Any) -> str | None:
    """The first string in ``value`` holding a lone surrogate (``"\\ud800"``, which no UTF-8 can carry), if any."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def nested_past(text: str, limit: int) -> int | None:
    """The line where brackets or braces first nest deeper than ``limit`` (quoted text skipped), if they do.

    For the parsers that give no position when they run out of stack.
    """
    depth, line, quote, escaped = 0, 1, "", False
    for char in text:
        if char == "\n":
            line += 1
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
            if depth > limit:
                return line
        elif char in "]}":
            depth = max(depth - 1, 0)
    return None


def plain_node(value: Any, path: str | Path, line: int = 1) -> Node:
    """A value that was not read from a file (a Python module's data): every part on ``line``."""
    return Node(value, Pos(line), str(path), "", "json")
