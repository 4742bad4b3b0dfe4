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

from toolreplay.audit import audit
from toolreplay.chain import seal, verify
from toolreplay.cli import main
from toolreplay.formats.transcript import iter_sealed, iter_transcript


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


def test_seal_memory_does_not_grow_with_length() -> None:
    small = peak_bytes(lambda: consume(seal(iter_transcript("t", transcript(1_000)))))
    large = peak_bytes(lambda: consume(seal(iter_transcript("t", transcript(20_000)))))
    assert large < small * 1.5 + 64 * 1024


def test_verify_memory_does_not_grow_with_length() -> None:
    def run(n: int) -> None:
        links = (line + b"\n" for line in seal(iter_transcript("t", transcript(n))))
        assert verify(iter_sealed("s", links)).intact

    small = peak_bytes(lambda: run(1_000))
    large = peak_bytes(lambda: run(20_000))
    assert large < small * 1.5 + 64 * 1024


def test_audit_keeps_far_less_than_the_records() -> None:
    calls, size = 5_000, 10_000
    peak = peak_bytes(lambda: audit(iter_transcript("t", transcript(calls, response_size=size))))
    # Each record holds over 10 kB; what the audit keeps per distinct call is two digests and an index.
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
    for calls in (1_500, 6_000):  # both past the window of text the stream reads at a time
        path = session_file(tmp_path / f"s{calls}.json", calls)
        tracemalloc.start()
        try:
            assert show(str(path)) == 0
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    small, large = peaks
    assert large < small * 1.5, peaks  # read whole, the larger session would cost four times as much
    assert large < 8 << 20, peaks  # the larger file is 7 MB
