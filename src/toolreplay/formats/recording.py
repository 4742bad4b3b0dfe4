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

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.core.errors import InputError
from toolreplay.core.memory import collector_paused
from toolreplay.core.model import Call, Session
from toolreplay.formats.kinds import Kind, detect_kind
from toolreplay.formats.session.sealed import FINAL_PART, assemble_session, sealed_parts
from toolreplay.formats.session.shape import Outline
from toolreplay.formats.session.stream import SessionStream, read_session, stream_session
from toolreplay.formats.transcript import iter_numbered_objects, iter_recorded_calls, iter_sealed

if TYPE_CHECKING:  # the chain is loaded only by the commands that verify
    from toolreplay.integrity.chain import SealedLink


def load_session(path: str | Path, kind: Kind | None = None) -> Session:
    """Read any recording whole, as a session (a transcript has no context).

    Parsed JSON holds no reference cycles, so the cyclic garbage collector is
    paused while the recording is built: it would walk every value read so far
    again and again, for nothing (almost half the time of reading a large
    session), and the values then go straight to its oldest generation.
    """
    kind = detect_kind(path) if kind is None else kind
    with collector_paused():
        if kind is Kind.SESSION:
            return read_session(path)
        if kind is Kind.SEALED_SESSION:
            return assemble_session(sealed_parts(iter_numbered_objects(path), path), path)
        if kind is Kind.MCP_LOG:
            from toolreplay.formats.mcp_log.importer import log_session  # noqa: PLC0415 - only for a log

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


def read_links(path: str, kind: Kind | None = None) -> tuple[Iterable[SealedLink], str | None]:
    """The links of a sealed transcript or a sealed session, and the label the last link must carry (a sealed
    session's final reply; a transcript's chain has no last link to expect). ``kind``: the file's, if known."""
    kind = detect_kind(path) if kind is None else kind
    if kind is Kind.SEALED_SESSION:
        return sealed_parts(iter_numbered_objects(path), path), FINAL_PART
    if kind is Kind.SESSION:
        raise InputError("a session, not a sealed file; seal it first: toolreplay seal FILE -o SEALED", path)
    return iter_sealed(path), None
