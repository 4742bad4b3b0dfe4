"""Any recording, whatever its format: telling the formats apart and reading their calls.

Four kinds of file hold calls: a transcript and a sealed transcript (JSON Lines
with ``index`` on every line), a session (one JSON object with
``"format": "toolreplay-session"``), and a sealed session (JSON Lines of
``part`` links). The first non-blank line tells them apart; after that, each
file is held to its own format's rules. A file another tool wrote that
``import`` turns into a session (a record-mcp log, a Claude Code transcript) is
refused with the command that imports it, but for a record-mcp log where a
command takes one (``replay`` and ``check``), read as its import would make it.
"""

from __future__ import annotations

import contextlib
import enum
import gc
import json
import shlex
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import InputError
from toolreplay.core.files import read_head
from toolreplay.core.model import Call, Session
from toolreplay.formats.jsonl import first_object
from toolreplay.formats.sealed_session import FINAL_PART, assemble_session, is_sealed_session_line, sealed_parts
from toolreplay.formats.session import FORMAT, Outline, read_session
from toolreplay.formats.session_stream import SessionStream, stream_session
from toolreplay.formats.transcript import iter_numbered_objects, iter_recorded_calls, iter_sealed

if TYPE_CHECKING:  # the chain is loaded only by the commands that verify
    from toolreplay.integrity.chain import SealedLink


class Kind(enum.Enum):
    """The format of a recording file."""

    TRANSCRIPT = "transcript"
    SEALED_TRANSCRIPT = "sealed transcript"
    SESSION = "session"
    SEALED_SESSION = "sealed session"
    MCP_LOG = "record-mcp log"  # read as the session its import would make, where a command takes one

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


_CLAUDE_CODE_IDS = ("uuid", "parentUuid", "sessionId", "leafUuid")  # what every line of its transcripts carries


def foreign_format(first: JSONObject) -> str | None:
    """The ``import --from`` format of a file another tool wrote, from its first line; None for any other file."""
    from toolreplay.formats.mcp_log import is_log_entry  # noqa: PLC0415 - only for a file that is no recording

    if is_log_entry(first):
        return "mcp"
    if isinstance(first.get("type"), str) and any(key in first for key in _CLAUDE_CODE_IDS):
        return "claude-code"
    return None


_FOREIGN = {"mcp": "a record-mcp log (the MCP traffic a proxy saw)", "claude-code": "a Claude Code transcript"}


def detect_kind(path: str | Path, logs: bool = False) -> Kind:
    """Tell a recording's format from its first non-blank line (a transcript when it says nothing). ``logs``: a
    record-mcp log is taken as a recording (replay and check read it as its import would); else it is refused
    with the command that imports it."""
    found = first_object(path)
    if found is None:
        return Kind.TRANSCRIPT
    return _kind_of_first(*found, path, logs)


def kind_of_bytes(data: bytes, path: str) -> Kind | None:
    """What :func:`detect_kind` (with ``logs``) tells from a file's whole bytes (a file in git's history, say);
    None for a file no command reads as a recording."""
    from toolreplay.formats.jsonl import decode_object  # noqa: PLC0415

    for number, raw in enumerate(data.splitlines(keepends=True), start=1):
        if raw.isspace():
            continue
        try:
            first = decode_object(raw, path, number)
        except InputError:
            first = None
        try:
            return _kind_of_first(raw, first, path, logs=True)
        except InputError:
            return None
    return None


def _kind_of_first(raw: bytes, first: JSONObject | None, path: str | Path, logs: bool) -> Kind:
    if first is None:
        # A first line that is not JSON: the opening of a pretty-printed document (a
        # lone brace, or its "format" field) is a session, whose reader says what is
        # wrong with it; anything else is a broken line of JSON Lines, named by their reader.
        line = raw.strip()
        return Kind.SESSION if line == b"{" or b'"format"' in line else Kind.TRANSCRIPT
    kind = kind_of_line(first)
    imported = foreign_format(first) if kind is None else None
    if imported == "mcp" and logs:
        return Kind.MCP_LOG
    if imported is not None:
        command = f"toolreplay import --from {imported} {shlex.quote(str(path))} -o SESSION"
        raise InputError(f"{_FOREIGN[imported]}, not a toolreplay recording: import it first: {command}", path)
    if kind is None and "format" in first and "index" not in first:
        return Kind.SESSION  # a session of another format or version: its reader says which
    return kind or Kind.TRANSCRIPT


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a while (unless it already is); what was made meanwhile then joins
    the oldest generation at once (through a freeze, where nothing else is frozen), rather than being walked by
    the next collection."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        gc.enable()


@contextlib.contextmanager
def kept_still() -> Iterator[None]:
    """Every object made so far (the recordings read, above all) left out of the cyclic garbage collector's
    walks until the block ends (unless something else froze objects): a command working beside large
    recordings does not pay to walk them again and again. They are collected as before afterwards."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def load_session(path: str | Path, kind: Kind | None = None) -> Session:
    """Read any recording whole, as a session (a transcript has no context).

    Parsed JSON holds no reference cycles, so the cyclic garbage collector is
    paused while the recording is built: it would walk every value read so far
    again and again, for nothing (almost half the time of reading a large
    session), and the values then go straight to its oldest generation.
    """
    kind = detect_kind(path) if kind is None else kind
    with _collector_paused():
        if kind is Kind.SESSION:
            return read_session(path)
        if kind is Kind.SEALED_SESSION:
            return assemble_session(sealed_parts(iter_numbered_objects(path), path), path)
        if kind is Kind.MCP_LOG:
            from toolreplay.formats.mcp_log import log_session  # noqa: PLC0415 - only for a log

            return log_session(path)
        return Session(str(path), tuple(iter_recorded_calls(path)))


def calls_and_classifier(
    path: str | Path, policy: Policy, kind: Kind | None = None
) -> tuple[Iterator[Call], Classifier, bool]:
    """A recording's calls as a stream, a classifier that knows its tools, and whether it is a session (whose
    world the audit takes to be stateful). ``kind``: the file's, if known."""
    kind = detect_kind(path) if kind is None else kind
    if kind in (Kind.TRANSCRIPT, Kind.SEALED_TRANSCRIPT):
        return iter_recorded_calls(path), Classifier(policy), False
    if kind is Kind.SESSION:
        stream = SessionStream(path)
        return stream.calls(), Classifier(policy, stream.tools, servers=stream.servers), True
    session = load_session(path, kind)
    return iter(session.calls), Classifier.of(policy, session.context), True


class RecordingStream:
    """Any recording read once, as a stream: its tools, then its calls, then what it says around them.

    A sealed session is checked whole, so it is read whole; any other recording
    a call (or a session's message) at a time.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = path
        kind = detect_kind(path)
        self.stream = SessionStream(path) if kind is Kind.SESSION else None
        self.whole = load_session(path, kind) if kind is Kind.SEALED_SESSION else None
        context = self.whole.context if self.whole is not None else None
        self.tools = self.stream.tools if self.stream is not None else context.tools if context is not None else ()
        self.servers = self.stream.servers if self.stream is not None else context.servers if context else ()

    def calls(self) -> Iterator[Call]:
        if self.stream is not None:
            return self.stream.calls()
        return iter(self.whole.calls) if self.whole is not None else iter_recorded_calls(self.path)

    def outline(self) -> Outline | None:
        """What a session says around its calls, once they are read; None for a transcript."""
        if self.stream is not None:
            return self.stream.outline()
        context = self.whole.context if self.whole is not None else None
        return Outline.of(context) if context is not None else None


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
    return sniff_bytes(read_head(path, _SNIFF_BYTES))


def sniff_bytes(head: bytes) -> Kind | None:
    """What :func:`sniff_kind` tells from a file's first bytes (those of a file in git's history, say)."""
    first_line = head.lstrip().split(b"\n", 1)[0]
    try:
        first = json.loads(first_line)
    except (ValueError, RecursionError):
        first = None
    # a line of its own first: a sealed session's first link holds the session marker inside its value
    kind = kind_of_line(first) if isinstance(first, dict) else None
    if kind is not None:
        return kind
    if b'"format": "' + FORMAT.encode() + b'"' in head or b'"format":"' + FORMAT.encode() + b'"' in head:
        return Kind.SESSION
    return None


def read_links(path: str, kind: Kind | None = None) -> tuple[Iterable[SealedLink], str | None]:
    """The links of a sealed transcript or a sealed session, and the label the last link must carry (a sealed
    session's final reply; a transcript's chain has no last link to expect). ``kind``: the file's, if known."""
    kind = detect_kind(path) if kind is None else kind
    if kind is Kind.SEALED_SESSION:
        return sealed_parts(iter_numbered_objects(path), path), FINAL_PART
    if kind is Kind.SESSION:
        raise InputError("a session, not a sealed file; seal it first: toolreplay seal FILE -o SEALED", path)
    return iter_sealed(path), None
