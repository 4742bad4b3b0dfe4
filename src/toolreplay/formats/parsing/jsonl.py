"""Strict JSON Lines reading, shared by every line-oriented format.

Each non-blank line must be one JSON object in UTF-8. Anything else (bytes that
are not UTF-8, text that is not JSON, ``NaN`` or ``Infinity``, a key given
twice) is an :class:`InputError` naming the file and the line: an auditor that
repairs its input would report on a file that is not the one on disk.
"""

from __future__ import annotations

import json
import json.scanner
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import InputError
from toolreplay.core.files import iter_raw_lines
from toolreplay.formats.parsing.node import describe, finite_float, reject_constant


def unique_keys(pairs: list[tuple[str, JSONValue]]) -> JSONObject:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"key {json.dumps(key, ensure_ascii=False)} appears twice in one object")
            seen.add(key)
    return obj


_DECODER = json.JSONDecoder(parse_constant=reject_constant, parse_float=finite_float, object_pairs_hook=unique_keys)
_decode = _DECODER.decode
# The decoder's scanner, called directly: ``decode`` wraps it in two more calls and two regular-expression
# matches per line, which is a tenth of the cost of reading a transcript.
scan_value: Callable[[str, int], tuple[JSONValue, int]] = json.scanner.make_scanner(_DECODER)  # type: ignore[arg-type]


def decode_text(text: str) -> JSONValue:
    """JSON text held in a string of another document (a call's arguments in a trace), held to the rules of a
    line: a ``ValueError`` saying what is wrong, in the parser's words, when it breaks them."""
    try:
        value: JSONValue = _decode(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ValueError("nested too deeply") from None
    return value


def _problem(text: str) -> str:
    """What is wrong with one line that is not a JSON value, in the parser's words."""
    try:
        _decode(text)
    except json.JSONDecodeError as exc:
        return f"not valid JSON: {exc.msg} (column {exc.colno})"
    except ValueError as exc:
        return f"not valid JSON: {exc}"
    except RecursionError:
        return "not valid JSON: nested too deeply"
    return "not valid JSON"


def _decode_line(text: str, path: str | Path, number: int) -> JSONValue:
    """Parse a line the scanner did not take whole: space before it, more after it, or an error."""
    try:
        value: JSONValue = _decode(text)
    except (ValueError, RecursionError):
        # A line is one record, so whatever the parser says, the error is on this line.
        if text.startswith("\ufeff"):
            raise InputError(
                "starts with a byte-order mark; save the file as UTF-8 without one", path, number
            ) from None
        raise InputError(_problem(text.rstrip("\r\n")), path, number) from None
    return value


def decode_object(raw: bytes, path: str | Path, number: int) -> JSONObject:
    """Parse one non-blank line that must hold a JSON object."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})", path, number
        ) from None
    try:
        value, end = scan_value(text, 0)
    except (ValueError, RecursionError, StopIteration):
        value, end = None, -1
    if end < 0 or (end != len(text) and text[end:].strip(" \t\r\n")):
        value = _decode_line(text, path, number)
    if type(value) is not dict:
        raise InputError(f"expected a JSON object, found {describe(value)}", path, number)
    return value


def iter_objects(path: str | Path, lines: Iterable[bytes] | None = None) -> Iterator[tuple[int, JSONObject]]:
    """``(line number, object)`` for each non-blank line of the file (or of ``lines``), held to
    :func:`decode_object`'s rules.

    The common line (UTF-8, one object) is parsed right here, in one loop over
    the file; any other line goes to :func:`decode_object`, which accepts it or
    says exactly what is wrong, so both ways take the same lines. (Parsing many lines as one array
    would be faster still, but a record cut in two and glued to the next can
    parse that way: each line is parsed on its own.)
    """
    scan = scan_value
    for number, raw in enumerate(iter_raw_lines(path) if lines is None else lines, start=1):
        if raw.isspace():
            continue
        try:
            text = raw.decode("utf-8")
            value, end = scan(text, 0)
        except (ValueError, RecursionError, StopIteration):
            pass
        else:
            if type(value) is dict and (end == len(text) or not text[end:].strip(" \t\r\n")):
                yield number, value
                continue
        yield number, decode_object(raw, path, number)


def first_object(path: str | Path) -> tuple[bytes, JSONObject | None] | None:
    """A file's first non-blank line, and the JSON object it holds (None when it holds none); None for a file of
    blank lines. Formats are told apart by it."""
    for number, raw in enumerate(iter_raw_lines(path), start=1):
        if raw.isspace():
            continue
        try:
            return raw, decode_object(raw, path, number)
        except InputError:
            return raw, None
    return None
