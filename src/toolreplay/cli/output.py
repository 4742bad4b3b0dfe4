"""Writing command output: to stdout, or atomically to a file the user names."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator

from toolreplay.errors import UsageError
from toolreplay.formats.files import same_file, write_atomic

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


def write_lines(lines: Iterable[bytes], output: str | None, inputs: Iterable[str] = ()) -> None:
    """Write lines to ``output`` (atomically), or to stdout when it is None.

    Refuses to write over one of the command's own input files: a recording is
    never silently rewritten.
    """
    if output is None:
        stdout = sys.stdout.buffer
        for chunk in _batched(lines):
            stdout.write(chunk)
        stdout.flush()
        return
    for source in inputs:
        if same_file(source, output):
            raise UsageError(f"refusing to write over the input file {source}")
    write_atomic(output, _batched(lines))


def write_text(text: str) -> None:
    """Print a rendered report to stdout."""
    sys.stdout.write(text)
    sys.stdout.flush()
