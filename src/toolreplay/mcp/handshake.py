"""The handshake a served recording gives: the recorded one (its protocol version negotiated as a server that speaks
the client's would), one made from a recorded discovery, or a plain one for a server known only by its name; and a
recorded response given again, its progress rebound to the client's own token."""

from __future__ import annotations

from toolreplay.core.canonical import JSONObject
from toolreplay.core.records import record
from toolreplay.formats.mcp_log.log import Exchange
from toolreplay.mcp.wire import HANDSHAKE_VERSIONS, MODERN_VERSIONS, params_of

HANDSHAKE = frozenset({"initialize", "server/discover", "ping"})
UNNAMED = "tools"  # a served session's name when it recorded no server: nothing about toolreplay reaches the agent


@record
class Reply:
    """What one request gets: notifications to send first, then the result or the error."""

    result: JSONObject | None = None
    error: JSONObject | None = None
    notifications: tuple[JSONObject, ...] = ()


def plain_handshake(method: str, params: JSONObject, capabilities: JSONObject, name: str) -> Reply:
    """The handshake of a server known only by its name: any version MCP knows, and nothing else said."""
    if method == "server/discover":
        info: JSONObject = {"io.modelcontextprotocol/serverInfo": {"name": name, "version": "unknown"}}
        return Reply({"supportedVersions": list(MODERN_VERSIONS), "capabilities": capabilities, "_meta": info})
    asked = params.get("protocolVersion")
    version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0]
    result: JSONObject = {"protocolVersion": version, "capabilities": capabilities}
    return Reply({**result, "serverInfo": {"name": name, "version": "unknown"}})


def initialize_reply(recorded: Exchange, params: JSONObject) -> Reply:
    """The recorded handshake; a client asking for another version than the recorded one gets it if MCP knows it
    (the recorded server's own choice otherwise), as a server that speaks it would answer."""
    reply = recorded_reply(recorded, params)
    if reply.result is None:
        return reply
    asked = params.get("protocolVersion")
    if asked != params_of(recorded.request).get("protocolVersion"):
        return Reply(_negotiated(reply.result, params), None, reply.notifications)
    return reply


def _negotiated(recorded: JSONObject, params: JSONObject) -> JSONObject:
    """A recorded initialize result for a client that asks for a version: the one it asks for when MCP knows it
    (as a server that speaks it would answer), else the recorded server's own choice."""
    asked = params.get("protocolVersion")
    if asked in HANDSHAKE_VERSIONS and asked != recorded.get("protocolVersion"):
        return {**recorded, "protocolVersion": asked}
    return recorded


def own_name(initialize: Exchange | None, discover: JSONObject | None) -> str | None:
    """The name a logged server gave itself."""
    result = initialize.response.get("result") if initialize is not None else None
    info = result.get("serverInfo") if isinstance(result, dict) else None
    meta = discover.get("_meta") if discover is not None else None
    if info is None and isinstance(meta, dict):
        info = meta.get("io.modelcontextprotocol/serverInfo")
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) and name else None


def initialize_from_discover(discover: JSONObject, params: JSONObject) -> Reply:
    """A handshake for a client that does not speak 2026-07-28, from what the recorded server said it is."""
    asked = params.get("protocolVersion")
    meta = discover.get("_meta")
    server_info = meta.get("io.modelcontextprotocol/serverInfo") if isinstance(meta, dict) else None
    result: JSONObject = {
        "protocolVersion": asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0],
        "capabilities": discover.get("capabilities", {}),
        "serverInfo": server_info if isinstance(server_info, dict) else {"name": UNNAMED, "version": "unknown"},
    }
    if isinstance(discover.get("instructions"), str):
        result["instructions"] = discover["instructions"]
    return Reply(result)


def recorded_reply(recorded: Exchange, params: JSONObject) -> Reply:
    """A recorded response again, with the notifications that came before it; progress goes to the client's own
    token, and is left out when the client asked for none."""
    meta = params.get("_meta")
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    notifications: list[JSONObject] = []
    for heard in recorded.notifications:
        if heard.get("method") != "notifications/progress":
            notifications.append(heard)
        elif token is not None:
            heard_params = heard.get("params")
            rebound = (
                {**heard, "params": {**heard_params, "progressToken": token}}
                if isinstance(heard_params, dict)
                else heard
            )
            notifications.append(rebound)
    result, error = recorded.response.get("result"), recorded.response.get("error")
    if isinstance(error, dict):
        return Reply(None, error, tuple(notifications))
    return Reply(result if isinstance(result, dict) else {}, None, tuple(notifications))
