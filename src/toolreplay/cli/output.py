"""Writing command output: to stdout, or atomically to a file the user names."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from toolreplay.core.errors import InputError
from toolreplay.core.escape import for_terminal, json_for_terminal, one_line
from toolreplay.core.files import write_atomic
from toolreplay.formats.parsing.node import Node, reject_constant
from toolreplay.formats.parsing.positions import Pos
from toolreplay.formats.session.reader import validate_session
from toolreplay.formats.session.writer import dump_session

if TYPE_CHECKING:
    from toolreplay.core.model import Session, SessionContext
    from toolreplay.redact import Redactor

_BATCH = 1024


def _batched(lines: Iterable[bytes]) -> Iterator[bytes]:
    """Join lines into newline-terminated chunks so output costs few writes."""
    batch: list[bytes] = []
    for line in lines:
        batch.append(line)
        if len(batch) == _BATCH:
            batch.append(b"")
            yield b"\n".join(batch)
            batch = []
    if batch:
        batch.append(b"")
        yield b"\n".join(batch)


def write_lines(lines: Iterable[bytes], output: str | None) -> None:
    """Write JSON lines to ``output`` (atomically), or to stdout when it is None (see :func:`guard_outputs` first),
    made safe for a terminal or a CI log there as :func:`write_json` does (the same JSON values)."""
    if output is None:
        stdout = sys.stdout.buffer
        for chunk in _batched(lines):
            stdout.write(_json_bytes_for_terminal(chunk))
        stdout.flush()
        return
    write_atomic(output, _batched(lines))


def warn(message: str) -> None:
    """One line on stderr for what the command did but the user should know: never a failure, never on stdout."""
    sys.stderr.write(f"toolreplay: warning: {one_line(message)}\n")
    sys.stderr.flush()


def write_text(text: str) -> None:
    """Print a rendered report to stdout, with nothing in it a terminal or a workflow runner would obey."""
    sys.stdout.write(for_terminal(text))
    sys.stdout.flush()


def _json_bytes_for_terminal(chunk: bytes) -> bytes:
    if b"##[" in chunk or b"\x7f" in chunk or not chunk.isascii():  # else nothing to make safe (most output)
        return json_for_terminal(chunk.decode("utf-8")).encode("utf-8")
    return chunk


def write_json(text: str) -> None:
    """Print a JSON report to stdout: the same JSON, with nothing in it a terminal or a workflow runner would obey."""
    sys.stdout.write(json_for_terminal(text))
    sys.stdout.flush()


def emit(outcome: object, as_json: bool = False) -> None:
    """Print a command's report of ``outcome``, its JSON or its text, as the one registry renders it."""
    from toolreplay.report.registry import render  # noqa: PLC0415 - a renderer is loaded only to print

    if as_json:
        write_json(render("json", outcome))
    else:
        write_text(render("text", outcome))


def emit_stream(outcome: object) -> None:
    """Print a command's text report of ``outcome`` as it is made, a batch at a time."""
    from toolreplay.report.registry import render_stream  # noqa: PLC0415 - a renderer is loaded only to print

    for chunk in render_stream("text", outcome):
        write_text(chunk)


def write_workflow_commands(text: str) -> None:
    """Print workflow commands to stdout as rendered: their renderer escaped what they carry, field by field."""
    sys.stdout.write(text)
    sys.stdout.flush()


def session_text(context: SessionContext, redactor: Redactor, output: str) -> tuple[str, Session]:
    """The text of the session file ``output`` is to hold, and the session it holds, read back before anything is
    written (strict JSON, the reader's rules): a command never writes a session that would not load. The reader's
    error is raised as it is; the caller says what the session was made from."""
    text = dump_session(context, redactor)
    try:
        value = json.loads(text, parse_constant=reject_constant)  # the writer allows NaN; no reader does
    except ValueError as exc:
        raise InputError(str(exc), output) from None
    return text, validate_session(Node(value, Pos(1), output, ""))
