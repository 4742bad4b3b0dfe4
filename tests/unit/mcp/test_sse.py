"""Server-sent events: the one reader of an event and the one writer, which the client, the proxy and serve share."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from toolreplay.mcp.http import sse


def _read(stream: bytes) -> list[tuple[bytes, bytes | None]]:
    return [sse.fields(event) for event in sse.events(io.BytesIO(stream).readline)]


def test_events_end_at_a_blank_line_and_a_cut_stream_gives_what_came() -> None:
    stream = b'event: endpoint\ndata: /messages?session_id=1\n\ndata: {"a": 1}\r\n\r\n: keep-alive\n\ndata: cut'
    assert _read(stream) == [
        (b"endpoint", b"/messages?session_id=1"),
        (b"message", b'{"a": 1}'),
        (b"message", None),  # a comment alone is an event with no data
        (b"message", b"cut"),
    ]


def test_data_lines_join_with_newlines_and_lose_one_leading_space() -> None:
    assert sse.fields([b"data:  two spaces\n", b"data:none\n", b"\n"]) == (b"message", b" two spaces\nnone")


@given(st.binary().filter(lambda data: b"\r" not in data), st.sampled_from([b"message", b"endpoint"]))
def test_what_is_framed_reads_back(data: bytes, kind: bytes) -> None:
    assert _read(sse.frame(data, kind)) == [(kind, data)]


def test_a_message_is_framed_as_serve_has_always_framed_it() -> None:
    assert sse.frame(b'{"id":1}') == b'event: message\ndata: {"id":1}\n\n'
