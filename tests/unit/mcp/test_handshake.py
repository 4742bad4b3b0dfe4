"""The handshake a served recording gives, and a recorded response given again."""

from __future__ import annotations

from toolreplay.core.canonical import JSONObject
from toolreplay.formats.mcp_log.log import Exchange
from toolreplay.mcp.handshake import initialize_reply, plain_handshake, recorded_reply
from toolreplay.mcp.wire import HANDSHAKE_VERSIONS, MODERN_VERSIONS


def test_a_plain_handshake_speaks_the_clients_version_when_mcp_knows_it() -> None:
    asked = plain_handshake("initialize", {"protocolVersion": HANDSHAKE_VERSIONS[-1]}, {}, "ops")
    assert asked.result == {"protocolVersion": HANDSHAKE_VERSIONS[-1], "capabilities": {}, "serverInfo": {
        "name": "ops", "version": "unknown"}}  # fmt: skip
    unknown = plain_handshake("initialize", {"protocolVersion": "1999-01-01"}, {}, "ops")
    assert unknown.result is not None
    assert unknown.result["protocolVersion"] == HANDSHAKE_VERSIONS[0]
    discovered = plain_handshake("server/discover", {}, {"tools": {}}, "ops")
    assert discovered.result is not None
    assert discovered.result["supportedVersions"] == list(MODERN_VERSIONS)


def _initialize(version: str) -> Exchange:
    request: JSONObject = {"method": "initialize", "params": {"protocolVersion": version}}
    response: JSONObject = {"result": {"protocolVersion": version, "capabilities": {}, "serverInfo": {"name": "s"}}}
    return Exchange("initialize", request, response, 1, ())


def test_the_recorded_handshake_is_negotiated_again_for_another_known_version() -> None:
    recorded = _initialize(HANDSHAKE_VERSIONS[1])
    again = initialize_reply(recorded, {"protocolVersion": HANDSHAKE_VERSIONS[0]})
    assert again.result is not None
    assert again.result["protocolVersion"] == HANDSHAKE_VERSIONS[0]
    kept = initialize_reply(recorded, {"protocolVersion": "1999-01-01"})
    assert kept.result is not None
    assert kept.result["protocolVersion"] == HANDSHAKE_VERSIONS[1]


def test_recorded_progress_goes_to_the_clients_token_or_not_at_all() -> None:
    progress: JSONObject = {"method": "notifications/progress", "params": {"progressToken": "old", "progress": 1}}
    logged: JSONObject = {"method": "notifications/message", "params": {"data": "hi"}}
    recorded = Exchange("tools/call", {}, {"result": {"content": []}}, 3, (progress, logged))
    rebound = recorded_reply(recorded, {"_meta": {"progressToken": 7}})
    assert rebound.notifications == ({**progress, "params": {"progressToken": 7, "progress": 1}}, logged)
    assert recorded_reply(recorded, {}).notifications == (logged,)
    failed = Exchange("tools/call", {}, {"error": {"code": -32000, "message": "down"}}, 4, ())
    assert recorded_reply(failed, {}).error == {"code": -32000, "message": "down"}
