"""What a file is, from its first line or its first bytes: the one rule every reader and importer asks, so that
none needs another to tell its own kind from the others'.

A toolreplay recording (a transcript, a session, either sealed), a record-mcp log, or a file another tool wrote
that ``import`` reads (a Claude Code transcript).
"""

from __future__ import annotations

import enum
import json
import shlex
from pathlib import Path

from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import InputError
from toolreplay.core.files import read_head
from toolreplay.formats.parsing.jsonl import first_object
from toolreplay.formats.session.sealed import is_sealed_session_line
from toolreplay.formats.session.shape import FORMAT

# The events of each version of a record-mcp log (docs/formats.md, "MCP proxy log").
LOG_EVENTS = {
    1: frozenset({"start", "tools/list", "tools/call", "incomplete"}),
    2: frozenset({"start", "request", "notification", "server-request", "incomplete"}),
}


def is_log_entry(first: JSONObject) -> bool:
    """Whether a file's first line is a proxy log's."""
    return first.get("event") in LOG_EVENTS[1] | LOG_EVENTS[2] and type(first.get("v")) is int


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
    from toolreplay.formats.parsing.jsonl import decode_object  # noqa: PLC0415

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
