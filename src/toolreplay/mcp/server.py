"""``serve``: a recording's answers, served as an MCP stdio server.

An agent that is an MCP client (an IDE agent, Claude Code) can be replayed too:
put ``toolreplay serve RECORDING`` where its server was (with ``record-mcp`` in
front to log what it does) and compare. Nothing is executed. Two recordings can
be served:

- a **proxy log** (``record-mcp``), replayed exactly: every request the log
  holds (``initialize``, ``server/discover``, ``tools/list`` page by page,
  ``resources/*``, ``prompts/*``, ``completion/complete``, ...) is answered with
  the recorded result or error, value for value but the id; a ``tools/call`` is
  matched as in a replay; the server's notifications that came before a
  response come again before it, progress rebound to the client's own token;
- a **session**, whose tools are listed from its definitions and whose calls
  are answered from its results, as MCP text and image content.

A ``tools/call`` the recording never made gets the usual unrecorded-call
policies. The server speaks newline-delimited JSON-RPC directly, with no
framework under it: a replay server should cost the client nothing it can
measure.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import BinaryIO, Protocol

from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.analysis.matching import Matcher
from toolreplay.answers import Answer, RecordedAnswers, Replies, answer_call
from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes
from toolreplay.core.errors import InputError
from toolreplay.core.model import Call, McpServer, Origin, Session, SessionContext
from toolreplay.core.records import record
from toolreplay.formats.faults import Fault, FaultKind
from toolreplay.formats.mcp_log.content import listed_tool, to_mcp
from toolreplay.formats.mcp_log.importer import listed_tools
from toolreplay.formats.mcp_log.log import Exchange, LogRun, LogWriter
from toolreplay.formats.stubs import Stub
from toolreplay.mcp.client import LiveServer, RecordMode
from toolreplay.mcp.wire import (
    HANDSHAKE_VERSIONS,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MODERN_VERSIONS,
    PARSE_ERROR,
    decode,
    encode,
    error,
    for_modern,
    modern,
    params_of,
    valid_id,
)
from toolreplay.settings import Unrecorded

STOPPED = -32001  # JSON-RPC error code for a request the recording cannot answer
_HANDSHAKE = frozenset({"initialize", "server/discover", "ping"})


@dataclass
class ServeLog:
    """What the server answered, for the summary it prints when the client leaves."""

    answered: int = 0
    unrecorded: list[tuple[Call, str]] = field(default_factory=list)
    faults: list[tuple[Call, FaultKind]] = field(default_factory=list)
    live: list[Call] = field(default_factory=list)  # calls the real server answered


class Dropped(Exception):
    """A fault closes the connection, after ``sent`` (a cut answer's notifications; nothing, for a drop)."""

    def __init__(self, sent: Sequence[JSONObject] = (), cut: bool = False) -> None:
        super().__init__("the connection is dropped")
        self.sent = list(sent)
        self.cut = cut  # an answer begun, then cut (over HTTP an event stream without its end), not a drop


class HttpFault(Exception):
    """A fault answers over HTTP with an error status, its headers and a JSON-RPC error as the body."""

    def __init__(self, status: int, headers: Sequence[tuple[str, str]], body: JSONObject) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.headers = list(headers)
        self.body = body


@record
class Reply:
    """What one request gets: notifications to send first, then the result or the error."""

    result: JSONObject | None = None
    error: JSONObject | None = None
    notifications: tuple[JSONObject, ...] = ()


class Source(Protocol):
    """Where a served answer comes from."""

    def reply(self, method: str, params: JSONObject, call: Call | None) -> Reply | None:
        """The recorded reply to a request (``call`` is set for ``tools/call``); None when it has none."""

    def learn(self, method: str, params: JSONObject, call: Call | None, exchange: Exchange) -> None:
        """Keep a live answer, so the same request is answered from it from now on."""


UNNAMED = "tools"  # a served session's name when it recorded no server: nothing about toolreplay reaches the agent


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
            self.responses = [_of(results.get(tool_use_id)) for tool_use_id in _call_ids(context)]
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
            return _recorded_reply(said, params) if said is not None else _session_answer(answer)
        if self.said is not None and (method != "tools/list" or "tools/list" in self.said.methods):
            return self.said.reply(method, params, None)
        if method in ("initialize", "server/discover"):
            return _handshake(method, params, {"tools": {"listChanged": False}}, self.name)
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


def _of(said: JSONObject | None) -> Exchange | None:
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


def _handshake(method: str, params: JSONObject, capabilities: JSONObject, name: str) -> Reply:
    """The handshake of a server known only by its name: any version MCP knows, and nothing else said."""
    if method == "server/discover":
        info: JSONObject = {"io.modelcontextprotocol/serverInfo": {"name": name, "version": "unknown"}}
        return Reply({"supportedVersions": list(MODERN_VERSIONS), "capabilities": capabilities, "_meta": info})
    asked = params.get("protocolVersion")
    version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0]
    result: JSONObject = {"protocolVersion": version, "capabilities": capabilities}
    return Reply({**result, "serverInfo": {"name": name, "version": "unknown"}})


def _session_answer(answer: Answer) -> Reply:
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
            return _initialize_reply(self.initialize, params)
        if method == "initialize" and self.discover is not None:
            return _initialize_from_discover(self.discover, params)
        if method in ("initialize", "server/discover") and self.initialize is None and self.discover is None:
            # A log with no handshake (version 1 logged tools only): the handshake a session gets, with what the
            # log shows the server can do.
            return self.bare_handshake(method, params)
        if method == "tools/call" and call is not None:
            recorded = self.calls.next(self.matcher.key(call))
        else:
            recorded = self.requests.next(_request_key(method, params))
        if recorded is None:
            return None
        return _recorded_reply(recorded, params)

    def learn(self, method: str, params: JSONObject, call: Call | None, exchange: Exchange) -> None:
        self.methods.add(method)
        if call is not None:
            self.calls.add(self.matcher.key(call), exchange)
        else:
            self.requests.add(_request_key(method, params), exchange)

    def bare_handshake(self, method: str, params: JSONObject) -> Reply:
        capabilities: JSONObject = {}
        for feature in ("tools", "resources", "prompts"):
            if any(known.startswith(feature + "/") for known in self.methods):
                capabilities[feature] = {}
        if "completion/complete" in self.methods:
            capabilities["completions"] = {}
        return _handshake(method, params, capabilities, _own_name(self.initialize, self.discover) or UNNAMED)


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


def _initialize_reply(recorded: Exchange, params: JSONObject) -> Reply:
    """The recorded handshake; a client asking for another version than the recorded one gets it if MCP knows it
    (the recorded server's own choice otherwise), as a server that speaks it would answer."""
    reply = _recorded_reply(recorded, params)
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


def _own_name(initialize: Exchange | None, discover: JSONObject | None) -> str | None:
    """The name a logged server gave itself."""
    result = initialize.response.get("result") if initialize is not None else None
    info = result.get("serverInfo") if isinstance(result, dict) else None
    meta = discover.get("_meta") if discover is not None else None
    if info is None and isinstance(meta, dict):
        info = meta.get("io.modelcontextprotocol/serverInfo")
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) and name else None


def _initialize_from_discover(discover: JSONObject, params: JSONObject) -> Reply:
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


def _recorded_reply(recorded: Exchange, params: JSONObject) -> Reply:
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


class ReplayServer:
    """Answers one MCP client from one recording."""

    def __init__(
        self,
        source: Source,
        on_unrecorded: Unrecorded,
        stubs: tuple[Stub, ...] | None,
        methods: Iterable[str] = (),
        faults: tuple[Fault, ...] = (),
        live: LiveServer | None = None,
        record: RecordMode = RecordMode.NONE,
        classify: Classifier | None = None,
    ) -> None:
        self.source = source
        self.classify = classify  # for the default answers by class (stub with no stubs file)
        self.live = live
        self.record = record
        self.on_unrecorded = on_unrecorded
        self.stubs = stubs
        self.recorded_methods = set(methods)
        self.faults = faults
        self._fault_uses = [0] * len(faults)
        self.log = ServeLog()
        self.traffic: LogWriter | None = None  # every message, as record-mcp logs it (serve --log)
        self.answered_by: str | None = None  # how the last call was answered, as its log line says
        self.delay = 0.0  # seconds the last answer is to wait before it goes (a delay fault), the transport's to wait

    def take_delay(self) -> float:
        """How long the answer just made is to wait, once (the next answer waits only if its own fault says so)."""
        delay, self.delay = self.delay, 0.0
        return delay

    def handle(self, message: JSONObject) -> list[JSONObject]:
        """What to send back for one message: notifications first, then the response; nothing for a notification."""
        if "id" not in message:
            if message.get("jsonrpc") == "2.0" and isinstance(message.get("method"), str):
                return []  # a notification: nothing to answer
            return [error(None, INVALID_REQUEST, "invalid request: neither a request nor a notification")]
        if "method" not in message and ("result" in message or "error" in message):
            return []  # a response, to a request this server never sends: nothing to answer
        request_id, method = message["id"], message.get("method")
        if message.get("jsonrpc") != "2.0" or not isinstance(method, str) or not valid_id(request_id):
            return [error(request_id if valid_id(request_id) else None, INVALID_REQUEST, "invalid request")]
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            return [error(request_id, INVALID_PARAMS, "params must be an object")]
        params = params or {}
        call, fault = None, None
        if method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments", {})
            if not isinstance(name, str) or not isinstance(arguments, dict):
                return [error(request_id, INVALID_PARAMS, "tools/call needs a name and an arguments object")]
            call = Call(self.log.answered, name, arguments, None, 0)
            self.log.answered += 1
            fault = self._fault(call)
            if fault is not None:
                self.delay = fault.seconds if fault.kind is FaultKind.DELAY else 0.0
                injected = _inject(fault, request_id)
                if injected is not None:
                    self.answered_by = "fault"
                    return injected
        forward_all = self.record is RecordMode.ALL and method not in _HANDSHAKE
        reply = None if forward_all else self.source.reply(method, params, call)
        self.answered_by = Origin.RECORDED.value
        if reply is None and self.live is not None and method != "ping":
            reply = self._live(self.live, method, params, call)
            self.answered_by = "live"
        if reply is None:
            reply = self._unrecorded(method, call)
        if reply.error is not None:
            response: JSONObject = {"jsonrpc": "2.0", "id": request_id, "error": reply.error}
        else:
            result = reply.result if reply.result is not None else {}
            if modern(params):
                result = for_modern(method, result)
            response = {"jsonrpc": "2.0", "id": request_id, "result": result}
        if fault is not None and fault.kind is FaultKind.CUT:
            raise Dropped(reply.notifications, cut=True)
        return [*reply.notifications, response]

    def _live(self, live: LiveServer, method: str, params: JSONObject, call: Call | None) -> Reply:
        """The real server's answer to what the recording lacks (or to everything, recording all)."""
        answer = live.ask(method, params)
        if call is not None:
            self.log.live.append(call)
        if self.record is RecordMode.NEW and "result" in answer.response:
            exchange = Exchange(method, {"method": method, "params": params}, answer.response, 0, answer.notifications)
            self.source.learn(method, params, call, exchange)
        error, result = answer.response.get("error"), answer.response.get("result")
        if isinstance(error, dict):
            return Reply(None, error, answer.notifications)
        return Reply(result if isinstance(result, dict) else {}, None, answer.notifications)

    def _fault(self, call: Call) -> Fault | None:
        """The first fault that matches ``call`` and has uses left, counted as used."""
        for number, fault in enumerate(self.faults):
            if fault.matches(call) and (fault.times is None or self._fault_uses[number] < fault.times):
                self._fault_uses[number] += 1
                self.log.faults.append((call, fault.kind))
                return fault
        return None

    def _unrecorded(self, method: str, call: Call | None) -> Reply:
        if call is not None:
            answer = answer_call(_NO_ANSWERS, call, self.on_unrecorded, self.stubs, self.classify)
            if answer is None:
                self.log.unrecorded.append((call, "refused"))
                self.answered_by = Origin.STOPPED.value
                message = "no result"  # the run stops here; the summary on stderr says why
                return Reply(None, {"code": STOPPED, "message": message})
            self.log.unrecorded.append((call, answer.origin.value))
            self.answered_by = answer.origin.value
            return _session_answer(answer)
        if method == "ping":
            return Reply({})
        if method in self.recorded_methods:
            return Reply(None, {"code": STOPPED, "message": "no result"})  # never recorded: the summary says so
        return Reply(None, {"code": METHOD_NOT_FOUND, "message": f"method not found: {method[:200]}"})

    def serve(self, lines: Iterable[bytes], out: BinaryIO) -> None:
        """Answer each line until the client closes its end; no message, however malformed, stops the server."""
        for line in lines:
            if not line.strip():
                continue
            try:
                messages = self.answer_line(line)
            except Dropped as dropped:  # what goes before the cut, then the end of the connection
                out.write(b"".join(encode(message) for message in dropped.sent))
                out.flush()
                return
            delay = self.take_delay()
            if delay:
                time.sleep(delay)
            if messages:
                out.write(b"".join(encode(message) for message in messages))
                out.flush()

    def answer_line(self, line: bytes) -> list[JSONObject]:
        """What to send for one line of the transport: JSON-RPC's own errors for what is not a request."""
        try:
            message = decode(line)
        except (ValueError, RecursionError):
            return [error(None, PARSE_ERROR, "parse error")]
        if not isinstance(message, dict):  # a batch (which MCP does not use) or a bare value
            return [error(None, INVALID_REQUEST, "invalid request: expected one JSON-RPC object")]
        self.answered_by = None
        try:
            answer = self.handle(message)
        except (Dropped, HttpFault):
            raise
        except Exception as exc:  # a bug here must cost one request, not the client's whole session
            request_id = message.get("id")
            return [error(request_id if valid_id(request_id) else None, INTERNAL_ERROR, f"internal error: {exc}")]
        if self.traffic is not None:
            answered = self.answered_by if message.get("method") == "tools/call" else None
            _note(self.traffic, message, answer, answered)
        return answer


def _note(traffic: LogWriter, message: JSONObject, answer: list[JSONObject], answered: str | None) -> None:
    """Log one message and what it got, as record-mcp would have seen them pass, with how a call was answered. A
    message that is neither a request nor a notification (no method) is refused, not logged: no reader of the log
    could take it."""
    if not isinstance(message.get("method"), str):
        return
    if "id" not in message:
        traffic.notification("client", message)
        return
    for sent in answer[:-1]:
        traffic.notification("server", sent)
    if answer:
        traffic.exchange(message, answer[-1], answered)


_NO_ANSWERS = RecordedAnswers((), Matcher())


def _reason(status: int) -> str:
    """An HTTP status's reason phrase, as a server would give it."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return f"HTTP {status}"


def _inject(fault: Fault, request_id: JSONValue) -> list[JSONObject] | None:
    """What a fault sends instead of the answer; None when the answer still goes (after a delay)."""
    if fault.kind is FaultKind.DELAY:
        return None  # the answer goes, late: the transport waits (ReplayServer.delay), not the server
    if fault.kind is FaultKind.HANG:
        return []
    if fault.kind is FaultKind.DROP:
        raise Dropped
    if fault.kind is FaultKind.CUT:
        return None  # the answer is made, then cut before its response
    if fault.kind is FaultKind.HTTP:
        body = error(request_id, fault.code, fault.message or _reason(fault.status))
        raise HttpFault(fault.status, fault.headers, body)
    if fault.kind is FaultKind.ERROR:
        return [error(request_id, fault.code, fault.message)]
    result: JSONObject = {"content": [{"type": "text", "text": fault.message}], "isError": True}
    return [{"jsonrpc": "2.0", "id": request_id, "result": result}]


def session_server(
    session: Session,
    policy: Policy,
    on_unrecorded: Unrecorded,
    stubs: tuple[Stub, ...] | None,
    faults: tuple[Fault, ...] = (),
    live: LiveServer | None = None,
    name: str | None = None,
) -> ReplayServer:
    """A server for a session's tools and results, as the named server of the session (its only one by default);
    a live answer is never written into a session."""
    source = SessionSource(session, policy.matcher, name)
    classify = Classifier.of(policy, session.context)
    return ReplayServer(source, on_unrecorded, stubs, source.methods, faults, live, classify=classify)


def log_server(
    run: LogRun,
    path: str,
    policy: Policy,
    on_unrecorded: Unrecorded,
    stubs: tuple[Stub, ...] | None,
    faults: tuple[Fault, ...] = (),
    live: LiveServer | None = None,
    record: RecordMode = RecordMode.NONE,
) -> ReplayServer:
    """A server that answers one run of a proxy log exactly."""
    source = LogSource(run, policy.matcher, path)
    classify = Classifier(policy, listed_tools(run.exchanges, path))
    return ReplayServer(source, on_unrecorded, stubs, source.methods, faults, live, record, classify)
