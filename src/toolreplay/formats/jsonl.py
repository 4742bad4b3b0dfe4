"""Strict JSON Lines reading, shared by every line-oriented format.

Each non-blank line must be one JSON object in UTF-8. Anything else (bytes that
are not UTF-8, text that is not JSON, ``NaN`` or ``Infinity``, a key given
twice) is an :class:`InputError` naming the file and the line: an auditor that
repairs its input would report on a file that is not the one on disk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NoReturn

from toolreplay.canonical import JSONObject, JSONValue
from toolreplay.errors import InputError


def reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def unique_keys(pairs: list[tuple[str, JSONValue]]) -> JSONObject:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"key {key!r} appears twice in one object")
            seen.add(key)
    return obj


_decode = json.JSONDecoder(parse_constant=reject_constant, object_pairs_hook=unique_keys).decode


def type_name(value: object) -> str:
    """The JSON name of a parsed value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def parse_json_text(text: str, path: str | Path, first_line: int = 1) -> JSONValue:
    """Parse one JSON document strictly; errors name the line they are on."""
    try:
        value: JSONValue = _decode(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno})", path, first_line + exc.lineno - 1) from None
    except ValueError as exc:
        raise InputError(f"not valid JSON: {exc}", path, first_line) from None
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
        value: JSONValue = _decode(text)
    except ValueError:
        # Rare path: parse again for a precise message.
        if text.startswith("\ufeff"):
            raise InputError(
                "starts with a byte-order mark; save the file as UTF-8 without one", path, number
            ) from None
        value = parse_json_text(text, path, number)
    if type(value) is not dict:
        raise InputError(f"expected a JSON object, found {type_name(value)}", path, number)
    return value
