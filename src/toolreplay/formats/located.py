"""Parsing a JSON document while remembering the line each object starts on.

Session files are pretty-printed JSON, and a finding about a call should point
at the line where that call's ``tool_use`` block begins. The standard parser
does not report positions, so this one runs the standard library's pure-Python
scanner with its object parser wrapped to note where each object opened. It is
slower than the C scanner, which is fine for session files (they are read
whole, once) and keeps the grammar exactly the standard one.
"""

from __future__ import annotations

import bisect
import json
import json.scanner
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolreplay.canonical import JSONValue
from toolreplay.errors import InputError
from toolreplay.formats.jsonl import reject_constant, unique_keys


class LocatedDocument:
    """A parsed JSON value and the 1-based line on which each of its objects begins."""

    def __init__(self, value: JSONValue, lines: dict[int, int]) -> None:
        self.value = value
        self._lines = lines  # id() of an object in ``value`` -> its line

    def line_of(self, obj: object, default: int = 1) -> int:
        """The line where ``obj`` (an object of this document) begins."""
        return self._lines.get(id(obj), default)


def parse_located(text: str, path: str | Path) -> LocatedDocument:
    """Parse ``text`` strictly (as :mod:`toolreplay.formats.jsonl` does), noting object positions."""
    starts: dict[int, int] = {}
    # The scanner's hooks are not part of the typed interface, hence Any.
    decoder: Any = json.JSONDecoder(parse_constant=reject_constant, object_pairs_hook=unique_keys)
    scanner: Any = json.scanner
    parse_object: Callable[..., tuple[Any, int]] = decoder.parse_object

    def located_object(s_and_end: tuple[str, int], *args: Any) -> tuple[Any, int]:
        value, end = parse_object(s_and_end, *args)
        starts[id(value)] = s_and_end[1] - 1
        return value, end

    decoder.parse_object = located_object
    decoder.scan_once = scanner.py_make_scanner(decoder)
    try:
        value: JSONValue = decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno})", path, exc.lineno) from None
    except ValueError as exc:
        raise InputError(f"not valid JSON: {exc}", path) from None
    except RecursionError:
        raise InputError("not valid JSON: nested too deeply", path) from None
    line_offsets = [0]
    line_offsets.extend(i + 1 for i, char in enumerate(text) if char == "\n")
    lines = {key: bisect.bisect_right(line_offsets, offset) for key, offset in starts.items()}
    return LocatedDocument(value, lines)
