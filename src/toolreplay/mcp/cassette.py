"""A recording as a cassette, as vcrpy has one: where each served answer comes from (a session's server or a proxy
log's run, answered again exactly), and what a live answer does to it (the record mode): nothing, kept as new, or
everything asked live and kept."""

from __future__ import annotations

import enum
from typing import Protocol

from toolreplay.analysis.matching import Matcher
from toolreplay.answers import Answer, RecordedAnswers, Replies
from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes
from toolreplay.core.errors import InputError, UsageError
from toolreplay.core.model import Call, McpServer, Session, SessionContext
from toolreplay.formats.mcp_log.content import listed_tool, to_mcp
from toolreplay.formats.mcp_log.log import Exchange, LogRun
from toolreplay.mcp.handshake import (
    HANDSHAKE,
    UNNAMED,
    Reply,
    initialize_from_discover,
    initialize_reply,
    own_name,
    plain_handshake,
    recorded_reply,
)
from toolreplay.mcp.wire import params_of


class RecordMode(enum.Enum):
    """What a live answer does to the recording."""

    NONE = "none"
    NEW = "new"
    ALL = "all"


def record_mode(given: str | None, log: bool) -> RecordMode:
    """The record mode of a served recording: as given, else ``new`` for a log and ``none`` for a session, which is
    never written to."""
    mode = RecordMode(given or (RecordMode.NEW if log else RecordMode.NONE).value)
    if not log and mode is not RecordMode.NONE:
        raise UsageError("a session is never written to: with a session, live answers are --record none")
    return mode


class Source(Protocol):
    """Where a served answer comes from."""

    def reply(self, method: str, params: JSONObject, call: Call | None) -> Reply | None:
        """The recorded reply to a request (``call`` is set for ``tools/call``); None when it has none."""

    def learn(self, method: str, params: JSONObject, call: Call | None, exchange: Exchange) -> None:
        """Keep a live answer, so the same request is answered from it from now on."""


class SessionSource:
    """A session's server. When the session holds its messages (an import of a proxy log does), every request is
    answered as the server answered it: the handshake, each listing, resources, prompts, and each call's result
    with its structured content, ``_meta`` and every content kind. Otherwise its tools are listed from the
    session's definitions and its calls answered from its results, as MCP text and image content, under a plain
    name, and it knows no resources or prompts."""

    def __init__(self, session: Session, matcher: Matcher, name: str | None = None) -> None:
        context = session.context
        self.path = session.path
        self.server = _chosen(context.servers if context is not None else (), name, session.path)
        calls = session.calls
        if self.server is not None and self.server.results:  # this server's calls only: none another answered
            answered = {tool_use_id for tool_use_id, _ in self.server.results}
            ids = _call_ids(context)
            calls = tuple(call for call in calls if call.index < len(ids) and ids[call.index] in answered)
        self.answers = RecordedAnswers(calls, matcher)
        self.said: LogSource | None = None
        self.responses: list[Exchange | None] = []
        if self.server is not None:
            run = LogRun([], [_exchange(said) for said in self.server.exchanges], self.server.name)
            self.said = LogSource(run, matcher, session.path)
            results = dict(self.server.results)
            self.responses = [_call_exchange(results.get(tool_use_id)) for tool_use_id in _call_ids(context)]
        self.methods = self.said.methods if self.said is not None else set()
        self.tools: list[JSONValue] = [listed_tool(tool) for tool in context.tools] if context is not None else []

    @property
    def name(self) -> str:
        return self.server.name if self.server is not None else UNNAMED

    def learn(self, method: str, params: JSONObject, call: Call | None, exchange: Exchange) -> None:
        """A session is not written to: a live answer is not kept."""

    def reply(self, method: str, params: JSONObject, call: Call | None) -> Reply | None:
        if method == "tools/call" and call is not None:
            answer = self.answers.answer(call)
            if answer is None:
                return None
            said = self.responses[answer.index] if answer.index is not None and self.responses else None
            return recorded_reply(said, params) if said is not None else session_answer(answer)
        if self.said is not None and (method != "tools/list" or "tools/list" in self.said.methods):
            return self.said.reply(method, params, None)
        if method in ("initialize", "server/discover"):
            return plain_handshake(method, params, {"tools": {"listChanged": False}}, self.name)
        if method == "tools/list":
            return Reply({"tools": self.tools})
        return None


def _exchange(said: JSONObject) -> Exchange:
    """An exchange a session holds, as a log's."""
    request, response, heard = said.get("request"), said.get("response"), said.get("notifications", [])
    method = request.get("method") if isinstance(request, dict) else None
    notifications = tuple(item for item in heard if isinstance(item, dict)) if isinstance(heard, list) else ()
    return Exchange(
        str(method),
        request if isinstance(request, dict) else {},
        response if isinstance(response, dict) else {},
        0,
        notifications,
    )


def _call_exchange(said: JSONObject | None) -> Exchange | None:
    return _exchange({"request": {"method": "tools/call"}, **said}) if said is not None else None


def _chosen(servers: tuple[McpServer, ...], name: str | None, path: str) -> McpServer | None:
    """The server to serve: the one named, or the session's only one (None: it recorded none)."""
    if name is not None:
        found = next((server for server in servers if server.name == name), None)
        if found is None:
            known = ", ".join(server.name for server in servers) or "none"
            raise InputError(f"the session holds no server '{name}' (it holds: {known})", path)
        return found
    if len(servers) > 1:
        known = ", ".join(server.name for server in servers)
        raise InputError(f"the session holds several servers ({known}): choose one with --server", path)
    return servers[0] if servers else None


def _call_ids(context: SessionContext | None) -> list[str]:
    """The tool_use id of each call of a session, in the calls' order."""
    if context is None:
        return []
    ids: list[str] = []
    for message in context.messages:
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list):
            ids += [str(b.get("id")) for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
    return ids


def session_answer(answer: Answer) -> Reply:
    return Reply({"content": to_mcp(answer.content), "isError": answer.is_error})


class LogSource:
    """One run of a proxy log, answered again exactly."""

    def __init__(self, run: LogRun, matcher: Matcher, path: str) -> None:
        for exchange in run.exchanges:
            _check_response(exchange, path)
        self.matcher = matcher
        self.methods = {exchange.event for exchange in run.exchanges}
        self.requests: Replies[Exchange] = Replies()
        self.calls: Replies[Exchange] = Replies()
        self.initialize: Exchange | None = None
        self.discover: JSONObject | None = None
        for exchange in run.exchanges:
            params = params_of(exchange.request)
            if exchange.event == "initialize":
                self.initialize = exchange
                continue
            discovered = exchange.response.get("result")
            if exchange.event == "server/discover" and isinstance(discovered, dict):
                self.discover = discovered
            if exchange.event == "tools/call":
                # the rule a client's request is held to below: no arguments, or an object ([] is not {})
                name, arguments = params.get("name"), params.get("arguments", {})
                if isinstance(name, str) and isinstance(arguments, dict):
                    self.calls.add(matcher.key(Call(0, name, arguments, None, 0)), exchange)
            else:
                self.requests.add(_request_key(exchange.event, params), exchange)

    def reply(self, method: str, params: JSONObject, call: Call | None) -> Reply | None:
        if method == "initialize" and self.initialize is not None:
            return initialize_reply(self.initialize, params)
        if method == "initialize" and self.discover is not None:
            return initialize_from_discover(self.discover, params)
        if method in ("initialize", "server/discover") and self.initialize is None and self.discover is None:
            # A log with no handshake (version 1 logged tools only): the handshake a session gets, with what the
            # log shows the server can do.
            return self.bareplain_handshake(method, params)
        if method == "tools/call" and call is not None:
            recorded = self.calls.next(self.matcher.key(call))
        else:
            recorded = self.requests.next(_request_key(method, params))
        if recorded is None:
            return None
        return recorded_reply(recorded, params)

    def learn(self, method: str, params: JSONObject, call: Call | None, exchange: Exchange) -> None:
        self.methods.add(method)
        if call is not None:
            self.calls.add(self.matcher.key(call), exchange)
        else:
            self.requests.add(_request_key(method, params), exchange)

    def bareplain_handshake(self, method: str, params: JSONObject) -> Reply:
        capabilities: JSONObject = {}
        for feature in ("tools", "resources", "prompts"):
            if any(known.startswith(feature + "/") for known in self.methods):
                capabilities[feature] = {}
        if "completion/complete" in self.methods:
            capabilities["completions"] = {}
        return plain_handshake(method, params, capabilities, own_name(self.initialize, self.discover) or UNNAMED)


def _check_response(exchange: Exchange, path: str) -> None:
    """A recorded response is served as it is, so it must be one JSON-RPC can carry: a result object, or an error
    with its code and message (a recorded failure must never come back as a success)."""
    response = exchange.response
    result, error = response.get("result"), response.get("error")
    if ("result" in response) == ("error" in response):
        raise InputError("a recorded response holds neither a 'result' nor an 'error', or both", path, exchange.line)
    if "error" in response:
        if (
            not isinstance(error, dict)
            or type(error.get("code")) is not int
            or not isinstance(error.get("message"), str)
        ):
            raise InputError("a recorded error needs an integer 'code' and a string 'message'", path, exchange.line)
    elif not isinstance(result, dict):
        raise InputError("a recorded result must be an object", path, exchange.line)
    elif exchange.event == "initialize" and not isinstance(result.get("protocolVersion"), str):
        raise InputError("the recorded initialize result names no protocolVersion", path, exchange.line)


def _request_key(method: str, params: JSONObject) -> bytes:
    """A request's identity: its method and its parameters but for ``_meta`` (ids, tokens, protocol stamps)."""
    return canonical_bytes([method, {key: value for key, value in params.items() if key != "_meta"}])


class Cassette:
    """A recording's answers and its record mode: what the server asks for each request, and tells of each live
    answer."""

    def __init__(self, source: Source, record: RecordMode = RecordMode.NONE) -> None:
        self.source = source
        self.record = record

    def play(self, method: str, params: JSONObject, call: Call | None) -> Reply | None:
        """The recorded reply; None when the recording has none, or when every request but the handshake is to be
        asked live (record all)."""
        if self.record is RecordMode.ALL and method not in HANDSHAKE:
            return None
        return self.source.reply(method, params, call)

    def learn(
        self, method: str, params: JSONObject, call: Call | None, said: JSONObject, heard: tuple[JSONObject, ...]
    ) -> None:
        """A live answer, kept as the recording's when the record mode keeps new answers and it is a result."""
        if self.record is RecordMode.NEW and "result" in said:
            exchange = Exchange(method, {"method": method, "params": params}, said, 0, heard)
            self.source.learn(method, params, call, exchange)
