"""The one canonical JSON encoding.

Hashing, call identity and every comparison of two JSON values go through
:func:`canonical_bytes`: keys sorted, no incidental whitespace, and Python's
other ``json`` defaults (non-ASCII escaped as ``\\uXXXX``). Two values are the
same for toolreplay exactly when their canonical bytes are equal.
"""

from __future__ import annotations

import json
from typing import TypeAlias

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
JSONObject: TypeAlias = "dict[str, JSONValue]"

_encode = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False).encode


def canonical_bytes(value: JSONValue) -> bytes:
    """Return the canonical encoding of ``value``.

    The output is pure ASCII, so encoding it is a plain byte copy.
    """
    return _encode(value).encode("ascii")


def canonical_call(tool: str, args: JSONObject) -> bytes:
    """Return the canonical identity of a call: ``{"args":...,"tool":...}``."""
    return canonical_bytes({"args": args, "tool": tool})
