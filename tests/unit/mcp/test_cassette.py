"""The cassette: where a served answer comes from, and what a live answer does to the recording."""

from __future__ import annotations

import pytest

from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import UsageError
from toolreplay.core.model import Call
from toolreplay.formats.mcp_log.log import Exchange
from toolreplay.mcp.cassette import Cassette, RecordMode, record_mode
from toolreplay.mcp.handshake import Reply


class Held:
    """A source that answers what it was told, and keeps what it learns."""

    def __init__(self) -> None:
        self.learned: list[Exchange] = []

    def reply(self, method: str, params: JSONObject, call: Call | None) -> Reply | None:
        known = {exchange.event: exchange for exchange in self.learned}
        if method in known:
            return Reply(known[method].response.get("result"))  # type: ignore[arg-type]
        return Reply({"recorded": method}) if method in ("initialize", "tools/call") else None

    def learn(self, method: str, params: JSONObject, call: Call | None, exchange: Exchange) -> None:
        self.learned.append(exchange)


def test_the_record_mode_is_new_for_a_log_and_none_for_a_session() -> None:
    assert record_mode(None, log=True) is RecordMode.NEW
    assert record_mode(None, log=False) is RecordMode.NONE
    assert record_mode("all", log=True) is RecordMode.ALL
    with pytest.raises(UsageError, match="a session is never written to"):
        record_mode("new", log=False)


def test_recording_all_asks_everything_live_but_the_handshake() -> None:
    cassette = Cassette(Held(), RecordMode.ALL)
    assert cassette.play("tools/call", {}, Call(0, "t", {}, None, 0)) is None
    assert cassette.play("initialize", {}, None) == Reply({"recorded": "initialize"})
    assert Cassette(Held()).play("tools/call", {}, None) == Reply({"recorded": "tools/call"})


@pytest.mark.parametrize(
    ("mode", "said", "kept"),
    [
        (RecordMode.NEW, {"result": {"tools": []}}, True),
        (RecordMode.NEW, {"error": {"code": -1, "message": "no"}}, False),  # a failure is never the recording's
        (RecordMode.NONE, {"result": {"tools": []}}, False),
        (RecordMode.ALL, {"result": {"tools": []}}, False),  # all: the log of the new run keeps it, not the source
    ],
)
def test_a_live_answer_is_kept_only_as_new_and_only_a_result(mode: RecordMode, said: JSONObject, kept: bool) -> None:
    source = Held()
    cassette = Cassette(source, mode)
    cassette.learn("tools/list", {"cursor": "x"}, None, said, ())
    assert [exchange.request for exchange in source.learned] == (
        [{"method": "tools/list", "params": {"cursor": "x"}}] if kept else []
    )
    if kept:
        assert cassette.play("tools/list", {}, None) == Reply({"tools": []})
