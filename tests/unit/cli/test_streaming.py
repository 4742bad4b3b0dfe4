"""Memory: seal and verify stream; the audit keeps digests, not records; show holds no session whole."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from toolreplay.analysis.audit import audit
from toolreplay.cli import main
from toolreplay.formats.transcript import iter_sealed, iter_transcript
from toolreplay.integrity.chain import seal, verify


def transcript(n: int, response_size: int = 200) -> Iterator[bytes]:
    """A lazily generated transcript of ``n`` distinct calls."""
    for i in range(n):
        record = {"index": i, "tool": "read_file", "args": {"path": f"f{i}"}, "response": {"text": "x" * response_size}}
        yield json.dumps(record).encode() + b"\n"


def peak_bytes(action: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def consume(lines: Iterator[bytes]) -> None:
    for _ in lines:
        pass


def written(path: Path, lines: Iterator[bytes]) -> Path:
    """The lines in a file, which a test reads back a line at a time while it measures: each line is then made
    while the measured code runs (a line it kept would count), and writing them costs the measure nothing."""
    with path.open("wb") as out:
        out.writelines(lines)
    return path


def read_lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as lines:
        yield from lines


# Ten times the records in the large file (it was twenty): the peak is about 10 kB at 1,000, 10,000 and 20,000
# records alike, and anything kept per record (a pointer and a small int at the least) would cost 10,000 x 36
# bytes or more, several times the 64 kB of slack.
SMALL, LARGE = 1_000, 10_000


def test_seal_memory_does_not_grow_with_length(tmp_path: Path) -> None:
    small, large = (written(tmp_path / f"{n}.jsonl", transcript(n)) for n in (SMALL, LARGE))
    small_peak = peak_bytes(lambda: consume(seal(iter_transcript("t", read_lines(small)))))
    large_peak = peak_bytes(lambda: consume(seal(iter_transcript("t", read_lines(large)))))
    assert large_peak < small_peak * 1.5 + 64 * 1024


def test_verify_memory_does_not_grow_with_length(tmp_path: Path) -> None:
    """Sealed first (its own memory is the test above), then verified from the file a line at a time."""

    def sealed(n: int) -> Path:
        return written(
            tmp_path / f"{n}.sealed.jsonl", (line + b"\n" for line in seal(iter_transcript("t", transcript(n))))
        )

    def run(path: Path) -> None:
        assert verify(iter_sealed("s", read_lines(path))).intact

    small, large = sealed(SMALL), sealed(LARGE)
    assert peak_bytes(lambda: run(large)) < peak_bytes(lambda: run(small)) * 1.5 + 64 * 1024


def test_audit_keeps_far_less_than_the_records() -> None:
    calls, size = 2_000, 10_000
    peak = peak_bytes(lambda: audit(iter_transcript("t", transcript(calls, response_size=size))))
    # Each record holds over 10 kB; what the audit keeps per distinct call is two digests and an index (about
    # 180 bytes a call at 2,000 calls, 160 at 5,000: the fixed part spread over fewer).
    assert peak / calls < 400


def session_file(path: Path, calls: int) -> Path:
    """A session of ``calls`` distinct calls, each answered with a kilobyte."""
    messages: list[Any] = [{"role": "user", "content": "go"}]
    for number in range(calls):
        use = {"type": "tool_use", "id": f"t{number}", "name": "list_dir", "input": {"path": f"/p/{number}"}}
        result = {"type": "tool_result", "tool_use_id": f"t{number}", "content": "x" * 1000}
        messages += [{"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]
    messages.append({"role": "assistant", "content": "done"})
    tools = [{"name": "list_dir", "description": "", "input_schema": {"type": "object"}}]
    doc = {"format": "toolreplay-session", "version": 2, "model": "m", "source": {"kind": "test"}, "system": ""}
    path.write_text(json.dumps({**doc, "tools": tools, "messages": messages, "final_reply": "done"}, indent=2))
    return path


@contextlib.contextmanager
def stdout_to_devnull() -> Iterator[None]:
    saved = sys.stdout
    with open(os.devnull, "wb") as sink:
        sys.stdout = io.TextIOWrapper(sink, encoding="utf-8")
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stdout = saved


def show(*args: str) -> int:
    with stdout_to_devnull():
        return main(["show", *args])


def test_show_memory_does_not_grow_with_the_session(tmp_path: Path) -> None:
    """show reads a session a message at a time, its rows waiting in a file until the longest call is known."""
    peaks = []
    for calls in (1_500, 4_500):  # both past the window of text the stream reads at a time
        path = session_file(tmp_path / f"s{calls}.json", calls)
        tracemalloc.start()
        try:
            assert show(str(path)) == 0
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    small, large = peaks
    assert large < small * 1.5, peaks  # read whole, the larger session would cost three times as much
    assert large < 8 << 20, peaks  # the larger file is 6 MB, and read whole costs several times its size
