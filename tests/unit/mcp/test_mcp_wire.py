"""MCP's wire, shared by the server, the client and the proxy: one decoder, one encoder, content both ways."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolreplay.core.canonical import JSONValue
from toolreplay.formats.mcp_log.content import from_mcp, to_mcp
from toolreplay.mcp.wire import INTERNAL_ERROR, LineSplitter, decode, encode, messages


@pytest.mark.parametrize("line", [b"NaN", b'{"a": Infinity}', b'{"a": 1e999}', b"\xff{}", b"{", b'{"a": 1} x'])
def test_what_is_not_strict_json_is_refused_by_the_one_decoder(line: bytes) -> None:
    with pytest.raises((ValueError, RecursionError)):
        decode(line)
    assert messages(line) == []  # and the proxy sees no message in it


def test_a_lone_surrogate_escape_is_json_and_is_kept() -> None:
    message = decode(b'{"jsonrpc": "2.0", "id": 1, "params": {"q": "\\ud800"}}')
    assert isinstance(message, dict)
    assert message["params"] == {"q": "\ud800"}
    assert encode(message) == b'{"jsonrpc": "2.0", "id": 1, "params": {"q": "\\ud800"}}\n'


def test_a_message_too_deep_to_write_becomes_its_requests_error() -> None:
    deep: JSONValue = []
    for _ in range(100_000):
        deep = [deep]
    written = json.loads(encode({"jsonrpc": "2.0", "id": 7, "result": {"x": deep}}))
    assert (written["id"], written["error"]["code"]) == (7, INTERNAL_ERROR)


def test_a_batch_is_each_of_its_messages_with_its_own_bytes() -> None:
    line = b' [{"id": 1, "method": "ping"}, 3, {"method": "notifications/x"}] '
    found = messages(line)
    assert [message for _, message in found] == [{"id": 1, "method": "ping"}, {"method": "notifications/x"}]
    assert [json.loads(raw) for raw, _ in found] == [message for _, message in found]


@given(st.lists(st.binary(max_size=40), max_size=12))
def test_lines_come_out_whole_however_the_stream_is_cut(chunks: list[bytes]) -> None:
    splitter = LineSplitter()
    lines = [line for chunk in chunks for line in splitter.feed(chunk)]
    rest = splitter.rest()
    assert b"\n".join([*lines, rest]) == b"".join(chunks)
    assert all(b"\n" not in line for line in [*lines, rest])


TEXT = st.text(max_size=20)
BLOCKS = st.lists(
    st.one_of(
        st.builds(lambda t: {"type": "text", "text": t}, TEXT),
        st.builds(
            lambda d, m: {"type": "image", "source": {"type": "base64", "media_type": m, "data": d}},
            TEXT,
            st.sampled_from(["image/png", "image/jpeg"]),
        ),
    ),
    max_size=5,
)


@given(BLOCKS)
def test_text_and_images_go_to_mcp_and_back_unchanged(blocks: list[dict[str, object]]) -> None:
    assert from_mcp(to_mcp(blocks)) == blocks  # type: ignore[arg-type]


def test_what_the_other_side_has_no_block_for_becomes_its_json_as_text() -> None:
    link: JSONValue = {"type": "resource_link", "uri": "file:///a", "name": "a"}
    assert from_mcp([link]) == [{"type": "text", "text": json.dumps(link, sort_keys=True)}]
    assert to_mcp("plain") == [{"type": "text", "text": "plain"}]
