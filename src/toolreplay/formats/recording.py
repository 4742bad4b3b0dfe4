"""Any recording, whatever its format: telling the formats apart and reading their calls.

Four kinds of file hold calls: a transcript and a sealed transcript (JSON Lines
with ``index`` on every line), a session (one JSON object with
``"format": "toolreplay-session"``), and a sealed session (JSON Lines of
``part`` links). The first non-blank line tells them apart; after that, each
file is held to its own format's rules.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.canonical import JSONObject
from toolreplay.classify import Classifier, Policy
from toolreplay.errors import InputError
from toolreplay.formats.files import read_head
from toolreplay.formats.jsonl import first_object
from toolreplay.formats.sealed_session import FINAL_PART, assemble_session, is_sealed_session_line, sealed_parts
from toolreplay.formats.session import FORMAT, read_session
from toolreplay.formats.session_stream import stream_session
from toolreplay.formats.transcript import iter_numbered_objects, iter_recorded_calls, iter_sealed
from toolreplay.model import Call, Session

if TYPE_CHECKING:  # the chain is loaded only by the commands that verify
    from toolreplay.chain import SealedLink


class Kind(enum.Enum):
    """The format of a recording file."""

    TRANSCRIPT = "transcript"
    SEALED_TRANSCRIPT = "sealed transcript"
    SESSION = "session"
    SEALED_SESSION = "sealed session"

    @property
    def sealed(self) -> bool:
        return self in (Kind.SEALED_TRANSCRIPT, Kind.SEALED_SESSION)


def kind_of_line(first: JSONObject) -> Kind | None:
    """The one rule for what a recording is, from its first line as JSON; None when it looks like none."""
    if is_sealed_session_line(first):
        return Kind.SEALED_SESSION
    if first.get("format") == FORMAT and "index" not in first:
        return Kind.SESSION
    if "index" in first and "tool" in first:
        return Kind.SEALED_TRANSCRIPT if ("digest" in first or "prev" in first) else Kind.TRANSCRIPT
    return None


def detect_kind(path: str | Path) -> Kind:
    """Tell a recording's format from its first non-blank line (a transcript when it says nothing)."""
    found = first_object(path)
    if found is None:
        return Kind.TRANSCRIPT
    raw, first = found
    if first is None:
        # A first line that is not JSON: the opening of a pretty-printed document (a
        # lone brace, or its "format" field) is a session, whose reader says what is
        # wrong with it; anything else is a broken line of JSON Lines, named by their reader.
        line = raw.strip()
        return Kind.SESSION if line == b"{" or b'"format"' in line else Kind.TRANSCRIPT
    kind = kind_of_line(first)
    if kind is None and "format" in first and "index" not in first:
        return Kind.SESSION  # a session of another format or version: its reader says which
    return kind or Kind.TRANSCRIPT


def load_session(path: str | Path, kind: Kind | None = None) -> Session:
    """Read any recording whole, as a session (a transcript has no context)."""
    kind = detect_kind(path) if kind is None else kind
    if kind is Kind.SESSION:
        return read_session(path)
    if kind is Kind.SEALED_SESSION:
        return assemble_session(sealed_parts(iter_numbered_objects(path), path), path)
    return Session(str(path), tuple(iter_recorded_calls(path)))


def calls_and_classifier(path: str | Path, policy: Policy) -> tuple[Iterator[Call], Classifier, bool]:
    """A recording's calls as a stream, a classifier that knows its tools, and whether it is a session (whose
    world the audit takes to be stateful)."""
    kind = detect_kind(path)
    if kind in (Kind.TRANSCRIPT, Kind.SEALED_TRANSCRIPT):
        return iter_recorded_calls(path), Classifier(policy), False
    if kind is Kind.SESSION:
        tools, calls = stream_session(path)
        return calls, Classifier(policy, tools), True
    session = load_session(path, kind)
    tools = session.context.tools if session.context is not None else ()
    return iter(session.calls), Classifier(policy, tools), True


def iter_calls(path: str | Path) -> Iterator[Call]:
    """The calls of any recording, streamed (but for a sealed session, which is checked whole)."""
    kind = detect_kind(path)
    if kind in (Kind.TRANSCRIPT, Kind.SEALED_TRANSCRIPT):
        return iter_recorded_calls(path)
    if kind is Kind.SESSION:
        return stream_session(path)[1]
    return iter(load_session(path, kind).calls)


_SNIFF_BYTES = 4096


def sniff_kind(path: str | Path) -> Kind | None:
    """A file's kind if it looks like a toolreplay recording, else None; for finding recordings in a tree.

    A file that cannot be read is an :class:`InputError`: skipping it would
    check less than the user thinks.

    Only the start of the file is read: a session's ``"format"`` marker, or a
    first JSON line shaped like a transcript entry or a sealed link. A file
    that looks like a recording but is broken is reported when it is read.
    """
    head = read_head(path, _SNIFF_BYTES)
    if b'"format": "' + FORMAT.encode() + b'"' in head or b'"format":"' + FORMAT.encode() + b'"' in head:
        return Kind.SESSION
    first_line = head.lstrip().split(b"\n", 1)[0]
    try:
        first = json.loads(first_line)
    except ValueError:
        return None
    return kind_of_line(first) if isinstance(first, dict) else None


def read_links(path: str) -> tuple[Iterable[SealedLink], str | None]:
    """The links of a sealed transcript or a sealed session, and the label the last link must carry (a sealed
    session's final reply; a transcript's chain has no last link to expect)."""
    kind = detect_kind(path)
    if kind is Kind.SEALED_SESSION:
        return sealed_parts(iter_numbered_objects(path), path), FINAL_PART
    if kind is Kind.SESSION:
        raise InputError("a session, not a sealed file; seal it first: toolreplay seal FILE -o SEALED", path)
    return iter_sealed(path), None
