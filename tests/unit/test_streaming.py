"""Memory: seal and verify stream; the audit keeps digests, not records."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable, Iterator

from toolreplay.audit import audit
from toolreplay.chain import seal, verify
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
