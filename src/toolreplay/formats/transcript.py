"""Flat transcripts and sealed transcripts: strict JSON Lines of tool calls.

A transcript line is exactly ``{"index", "tool", "args", "response"}``; a sealed
line adds ``"prev"`` and ``"digest"``. Indices start at 0 and grow by one. Both
formats are parsed with the same rules, so a sealed file is held to everything a
transcript is.

These readers sit on the hot path of every command over a large transcript, so
each one is a single loop over the raw lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import InputError
from toolreplay.core.model import Call
from toolreplay.core.records import record
from toolreplay.formats.parsing.jsonl import iter_objects
from toolreplay.formats.parsing.node import describe

TRANSCRIPT_FIELDS = ("index", "tool", "args", "response")
SEALED_FIELDS = ("index", "tool", "args", "response", "prev", "digest")
_TRANSCRIPT_KEYS = frozenset(TRANSCRIPT_FIELDS)
_SEALED_KEYS = frozenset(SEALED_FIELDS)
_HEX = "0123456789abcdef"


@record
class SealedCall:
    """A call read from a sealed file, with the two digests stored beside it."""

    call: Call
    prev: str
    digest: str

    @property
    def index(self) -> int:
        return self.call.index

    @property
    def line(self) -> int:
        return self.call.line

    @property
    def label(self) -> None:
        return None

    def record(self) -> JSONObject:
        """The record the digest covers."""
        from toolreplay.integrity.chain import call_record  # noqa: PLC0415 - the chain only where a sealed link is checked

        return call_record(self.call, self.prev)


def iter_numbered_objects(path: str | Path, lines: Iterable[bytes] | None = None) -> Iterator[tuple[int, JSONObject]]:
    """``(line number, object)`` for each non-blank line of the file, or of ``lines`` if given."""
    yield from iter_objects(path, lines)


def _fields_error(obj: JSONObject, order: tuple[str, ...], path: str | Path, line: int) -> InputError:
    unknown = sorted(obj.keys() - set(order))
    if unknown:
        hint = " (this looks like a sealed file)" if unknown == ["digest", "prev"] else ""
        return InputError(f"unknown field '{unknown[0]}'{hint}", path, line)
    missing = [name for name in order if name not in obj]
    hint = " (seal the transcript first: toolreplay seal)" if missing == ["prev", "digest"] else ""
    return InputError(f"missing field '{missing[0]}'{hint}", path, line)


def _to_call(obj: JSONObject, path: str | Path, line: int) -> Call:
    """Build a call from a record whose field names are already checked."""
    index, tool, args, response = obj["index"], obj["tool"], obj["args"], obj["response"]
    if type(index) is not int:
        raise InputError(f"field 'index' must be an integer, found {describe(index)}", path, line)
    if type(tool) is not str or not tool:
        found = "an empty one" if tool == "" else describe(tool)
        raise InputError(f"field 'tool' must be a non-empty string, found {found}", path, line)
    if type(args) is not dict:
        raise InputError(f"field 'args' must be an object, found {describe(args)}", path, line)
    if type(response) is not dict:
        raise InputError(f"field 'response' must be an object, found {describe(response)}", path, line)
    return Call(index, tool, args, response, line)


def _out_of_order(index: int, expected: int, path: str | Path, line: int) -> InputError:
    return InputError(f"index {index} is out of order: expected {expected}", path, line)


def iter_transcript(path: str | Path, lines: Iterable[bytes] | None = None) -> Iterator[Call]:
    """Yield the calls of a flat transcript, refusing anything malformed.

    ``lines`` gives the file's content directly; ``path`` then only names it.
    """
    for expected, (line, obj) in enumerate(iter_numbered_objects(path, lines)):
        if obj.keys() != _TRANSCRIPT_KEYS:
            raise _fields_error(obj, TRANSCRIPT_FIELDS, path, line)
        call = _to_call(obj, path, line)
        if call.index != expected:
            raise _out_of_order(call.index, expected, path, line)
        yield call


def _to_sealed(obj: JSONObject, path: str | Path, line: int) -> SealedCall:
    if obj.keys() != _SEALED_KEYS:
        raise _fields_error(obj, SEALED_FIELDS, path, line)
    return SealedCall(
        _to_call(obj, path, line), _hex_field(obj, "prev", path, line), _hex_field(obj, "digest", path, line)
    )


def _hex_field(obj: JSONObject, name: str, path: str | Path, line: int) -> str:
    value = obj[name]
    if type(value) is not str or len(value) != 64 or value.strip(_HEX):
        raise InputError(f"field '{name}' must be 64 lowercase hex characters", path, line)
    return value


def iter_sealed(path: str | Path, lines: Iterable[bytes] | None = None) -> Iterator[SealedCall]:
    """Yield the links of a sealed file.

    Index order is not checked here: an edited index is a broken link, which only
    the chain can tell, so :func:`toolreplay.integrity.chain.verify` checks it after the
    digests.
    """
    for line, obj in iter_numbered_objects(path, lines):
        yield _to_sealed(obj, path, line)


def iter_recorded_calls(path: str | Path, lines: Iterable[bytes] | None = None) -> Iterator[Call]:
    """Yield the calls of a transcript or a sealed transcript, told apart by the first line.

    Every line of one file must be of the same kind.
    """
    # One loop from raw line to call: this is the audit's hot path over large transcripts.
    sealed: bool | None = None
    for expected, (line, obj) in enumerate(iter_objects(path, lines)):
        if sealed is None:
            sealed = "digest" in obj or "prev" in obj
        if sealed:
            call = _to_sealed(obj, path, line).call
        elif obj.keys() == _TRANSCRIPT_KEYS:
            call = _to_call(obj, path, line)
        else:
            raise _fields_error(obj, TRANSCRIPT_FIELDS, path, line)
        if call.index != expected:
            raise _out_of_order(call.index, expected, path, line)
        yield call
