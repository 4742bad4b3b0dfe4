"""Flat transcripts and sealed transcripts: strict JSON Lines of tool calls.

A transcript line is exactly ``{"index", "tool", "args", "response"}``; a sealed
line adds ``"prev"`` and ``"digest"``. Indices start at 0 and grow by one. Both
formats are parsed with the same rules, so a sealed file is held to everything a
transcript is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from toolreplay.canonical import JSONObject
from toolreplay.errors import InputError
from toolreplay.formats.jsonl import iter_objects, type_name
from toolreplay.model import Call

TRANSCRIPT_FIELDS = ("index", "tool", "args", "response")
SEALED_FIELDS = ("index", "tool", "args", "response", "prev", "digest")
_TRANSCRIPT_KEYS = frozenset(TRANSCRIPT_FIELDS)
_SEALED_KEYS = frozenset(SEALED_FIELDS)
_HEX_DIGEST = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class SealedCall:
    """A call read from a sealed file, with the two digests stored beside it."""

    call: Call
    prev: str
    digest: str


def _check_fields(
    obj: JSONObject, expected: frozenset[str], order: tuple[str, ...], path: str | Path, line: int
) -> None:
    if obj.keys() == expected:
        return
    unknown = sorted(obj.keys() - expected)
    if unknown:
        hint = " (this looks like a sealed file)" if unknown == ["digest", "prev"] else ""
        raise InputError(f"unknown field '{unknown[0]}'{hint}", path, line)
    missing = [name for name in order if name not in obj]
    hint = " (seal the transcript first: toolreplay seal)" if missing == ["prev", "digest"] else ""
    raise InputError(f"missing field '{missing[0]}'{hint}", path, line)


def _to_call(obj: JSONObject, path: str | Path, line: int) -> Call:
    index = obj["index"]
    if type(index) is not int:
        raise InputError(f"field 'index' must be an integer, found {type_name(index)}", path, line)
    tool = obj["tool"]
    if type(tool) is not str:
        raise InputError(f"field 'tool' must be a string, found {type_name(tool)}", path, line)
    if not tool:
        raise InputError("field 'tool' must not be empty", path, line)
    args = obj["args"]
    if type(args) is not dict:
        raise InputError(f"field 'args' must be an object, found {type_name(args)}", path, line)
    response = obj["response"]
    if type(response) is not dict:
        raise InputError(f"field 'response' must be an object, found {type_name(response)}", path, line)
    return Call(index, tool, args, response, line)


def _check_order(call: Call, expected: int, path: str | Path) -> None:
    if call.index != expected:
        raise InputError(f"index {call.index} is out of order: expected {expected}", path, call.line)


def iter_transcript(path: str | Path) -> Iterator[Call]:
    """Yield the calls of a flat transcript, refusing anything malformed."""
    for expected, (line, obj) in enumerate(iter_objects(path)):
        call = _checked_call(obj, path, line)
        _check_order(call, expected, path)
        yield call


def _to_sealed(obj: JSONObject, path: str | Path, line: int) -> SealedCall:
    _check_fields(obj, _SEALED_KEYS, SEALED_FIELDS, path, line)
    call = _to_call(obj, path, line)
    return SealedCall(call, _hex_field(obj, "prev", path, line), _hex_field(obj, "digest", path, line))


def _hex_field(obj: JSONObject, name: str, path: str | Path, line: int) -> str:
    value = obj[name]
    if type(value) is not str or not _HEX_DIGEST.fullmatch(value):
        raise InputError(f"field '{name}' must be 64 lowercase hex characters", path, line)
    return value


def iter_sealed(path: str | Path) -> Iterator[SealedCall]:
    """Yield the links of a sealed file.

    Index order is not checked here: an edited index is a broken link, which only
    the chain can tell, so :func:`toolreplay.chain.verify` checks it after the
    digests.
    """
    for line, obj in iter_objects(path):
        yield _to_sealed(obj, path, line)


def iter_recorded_calls(path: str | Path) -> Iterator[Call]:
    """Yield the calls of a transcript or a sealed transcript, told apart by the first line.

    Every line of one file must be of the same kind.
    """
    sealed: bool | None = None
    for expected, (line, obj) in enumerate(iter_objects(path)):
        if sealed is None:
            sealed = "digest" in obj or "prev" in obj
        call = _to_sealed(obj, path, line).call if sealed else _checked_call(obj, path, line)
        _check_order(call, expected, path)
        yield call


def _checked_call(obj: JSONObject, path: str | Path, line: int) -> Call:
    _check_fields(obj, _TRANSCRIPT_KEYS, TRANSCRIPT_FIELDS, path, line)
    return _to_call(obj, path, line)
