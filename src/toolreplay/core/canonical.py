"""The one canonical JSON encoding.

Hashing, call identity and every comparison of two JSON values go through
:func:`canonical_bytes`: the bytes of ``json.dumps(value, sort_keys=True,
separators=(",", ":"))`` with Python's other defaults (non-ASCII escaped as
``\\uXXXX``). Two values are the same for toolreplay exactly when their
canonical bytes are equal. :func:`json_utf8` is how every file and stream of
JSON text is encoded.
"""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Callable
from typing import TypeAlias

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
JSONObject: TypeAlias = "dict[str, JSONValue]"


def _not_json(value: object) -> None:
    raise TypeError(f"{type(value).__name__} is not a JSON value")


def _make_encoder() -> Callable[[JSONValue], bytes]:
    """The fastest function that gives exactly ``json.dumps``'s canonical output, as ASCII bytes.

    ``JSONEncoder.encode`` builds a new C encoder on every call, which costs
    more than encoding a small object. Values here come from a JSON parser, so
    they cannot hold cycles, and one C encoder without cycle markers is built
    once. If this Python's ``json`` lacks it or it disagrees on a probe, the
    plain encoder is used.
    """
    plain_encode = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False).encode

    def encode_in_python(value: JSONValue) -> bytes:
        return plain_encode(value).encode("ascii")

    make_encoder = getattr(json.encoder, "c_make_encoder", None)
    if make_encoder is None:
        return encode_in_python
    try:
        iterencode = make_encoder(
            None, _not_json, json.encoder.encode_basestring_ascii, None, ":", ",", True, False, False
        )
    except TypeError:
        return encode_in_python

    def encode(value: JSONValue) -> bytes:
        chunks: tuple[str, ...] = iterencode(value, 0)
        return "".join(chunks).encode("ascii")

    probe: JSONValue = {"b": [1, 2.5, None, True, "é\n"], "a": {"z": -1e300, "y": ""}}
    return encode if encode(probe) == encode_in_python(probe) else encode_in_python


canonical_bytes: Callable[[JSONValue], bytes] = _make_encoder()
"""Return the canonical encoding of a value (always ASCII)."""


def canonical_call(tool: str, args: JSONObject) -> bytes:
    """Return the canonical identity of a call: ``{"args":...,"tool":...}``."""
    return canonical_bytes({"args": args, "tool": tool})


def json_utf8(text: str) -> bytes:
    """JSON text as the UTF-8 every writer writes: non-ASCII as itself, and a lone surrogate as its escape.

    ``"\\ud800"`` is valid JSON (a JavaScript client sends one for an emoji cut in
    half), but no UTF-8 can carry the code point it stands for. Only a JSON
    string can hold one, where ``\\ud800`` (what ``backslashreplace`` writes for
    it, and for nothing else UTF-8 can encode) is the same string again.
    """
    return text.encode("utf-8", "backslashreplace")
