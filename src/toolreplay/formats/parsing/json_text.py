"""JSON read with the line of every value.

The standard library's own pure-Python scanner runs with its object and array
parsers wrapped, so the grammar is exactly :mod:`json`'s (strict: no ``NaN``,
no key given twice) and each value's start is noted as it is read.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolreplay.core.errors import InputError
from toolreplay.formats.parsing.node import Node, finite_float, reject_constant
from toolreplay.formats.parsing.positions import Pos


class _Frame:
    """The positions of one container's members, collected while it is parsed."""

    __slots__ = ("kids", "members")

    def __init__(self) -> None:
        self.kids: list[Pos] = []
        self.members: dict[str, Pos] | None = None


JSON_DEPTH = 500  # nesting a document may have: deeper is refused at the line where it goes past


class _TooDeep(ValueError):
    def __init__(self, line: int) -> None:
        super().__init__("too deep")
        self.line = line


class _DuplicateKey(ValueError):
    """A key given twice, with the line of its second value."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


# The standard library's pure-Python parsers; their hooks are not part of the typed interface, hence Any.
_json_decoder: Any = json.decoder
_json_scanner: Any = json.scanner


class _LocatingParser:
    """The standard JSON scanner, with every value's start noted as a :class:`Pos` while it is read."""

    def __init__(self, text: str, first_line: int = 1, enclosing: int = 0, depth: int = JSON_DEPTH) -> None:
        self.text = text
        self.first_line = first_line
        self.enclosing = enclosing  # levels of a larger document around this text
        self.depth = depth
        self.counted = (0, first_line)  # (offset, line) of the last value started: values start in document order
        self.scalars: dict[int, Pos] = {}  # one shared Pos per line for values with no members
        self.stack: list[_Frame] = [_Frame()]
        self.opened: list[int] = []  # offsets of the values being read, innermost last
        decoder: Any = json.JSONDecoder(
            parse_constant=reject_constant, parse_float=finite_float, object_pairs_hook=lambda pairs: pairs
        )
        decoder.parse_object = self.parse_object
        decoder.parse_array = self.parse_array
        decoder.memo = {}
        scanner = _json_scanner.py_make_scanner(decoder)
        decoder.scan_once = lambda s, i: self.record(scanner, s, i)
        self.decoder = decoder

    def line_at(self, offset: int) -> int:
        """The line of ``offset``, counting on from the last value's (a list of every line's start would cost
        more memory than the document's values)."""
        last_offset, last_line = self.counted
        if offset < last_offset:
            return self.text.count("\n", 0, offset) + self.first_line
        line = last_line + self.text.count("\n", last_offset, offset)
        self.counted = (offset, line)
        return line

    def failed_at(self) -> int:
        """The line of the innermost value being read when the parser gave up."""
        return self.line_at(self.opened[-1]) if self.opened else 1

    def record(self, scan: Callable[[str, int], tuple[Any, int]], string: str, idx: int) -> tuple[Any, int]:
        line = self.line_at(idx)  # on the way in, so offsets come in document order
        if len(self.opened) + self.enclosing >= self.depth:
            raise _TooDeep(line)
        frame = _Frame()
        self.stack.append(frame)
        self.opened.append(idx)
        value, end = scan(string, idx)
        self.opened.pop()
        self.stack.pop()
        if type(value) is dict:
            pos = Pos(line, frame.members)
        elif type(value) is list:
            pos = Pos(line, frame.kids)
        else:
            pos = self.scalars.get(line) or self.scalars.setdefault(line, Pos(line))
        self.stack[-1].kids.append(pos)
        return value, end

    def parse_object(self, s_and_end: tuple[str, int], strict: bool, scan: Any, *rest: Any) -> tuple[Any, int]:
        pairs, end = _json_decoder.JSONObject(s_and_end, strict, lambda s, i: self.record(scan, s, i), *rest)
        frame = self.stack[-1]
        obj: dict[str, Any] = {}
        members: dict[str, Pos] = {}
        for (key, value), pos in zip(pairs, frame.kids, strict=True):
            if key in obj:
                raise _DuplicateKey(f"key {json.dumps(key, ensure_ascii=False)} appears twice in one object", pos.line)
            obj[key] = value
            members[key] = pos
        frame.members = members
        return obj, end

    def parse_array(self, s_and_end: tuple[str, int], scan: Any) -> tuple[Any, int]:
        result: tuple[Any, int] = _json_decoder.JSONArray(s_and_end, lambda s, i: self.record(scan, s, i))
        return result

    def parse(self, text: str, path: str | Path) -> Node:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, self.depth * 6 + 500))  # each level is about six Python frames
        try:
            value = self.decoder.decode(text)
        except json.JSONDecodeError as exc:
            line = exc.lineno + self.first_line - 1
            raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno})", path, line) from None
        except _DuplicateKey as exc:
            raise InputError(f"not valid JSON: {exc}", path, exc.line) from None
        except _TooDeep as exc:
            raise InputError(f"not read: nested more than {self.depth} levels deep", path, exc.line) from None
        except ValueError as exc:
            raise InputError(f"not valid JSON: {exc}", path, self.failed_at()) from None
        except RecursionError:
            raise InputError("not valid JSON: nested too deeply", path, self.failed_at()) from None
        finally:
            sys.setrecursionlimit(limit)
        return Node(value, self.stack[0].kids[0], str(path), "", "json")


def parse_json(text: str, path: str | Path, first_line: int = 1, enclosing: int = 0, depth: int = JSON_DEPTH) -> Node:
    """Parse one JSON document strictly, noting the line of every value; errors name their line.

    For a piece of a larger file: ``first_line`` is the line ``text`` starts on,
    ``enclosing`` the number of values it sits in (which count towards the ``depth`` limit).
    """
    if text.startswith("\ufeff"):
        raise InputError("starts with a byte-order mark; save the file as UTF-8 without one", path, first_line)
    return _LocatingParser(text, first_line, enclosing, depth).parse(text, path)
