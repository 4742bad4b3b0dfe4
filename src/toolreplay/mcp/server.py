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
from typing import BinaryIO

from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.analysis.matching import Matcher
from toolreplay.answers import RecordedAnswers, answer_call
from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.model import Call, Origin, Session
from toolreplay.formats.faults import Fault, FaultKind
from toolreplay.formats.mcp_log.importer import listed_tools
from toolreplay.formats.mcp_log.log import CallLog, LogRun, LogWriter
from toolreplay.formats.stubs import Stub
from toolreplay.mcp.cassette import Cassette, LogSource, RecordMode, SessionSource, session_answer
from toolreplay.mcp.client import LiveServer
from toolreplay.mcp.handshake import Reply
from toolreplay.mcp.wire import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    decode,
    encode,
    error,
    for_modern,
    modern,
    valid_id,
)
from toolreplay.settings import Unrecorded

STOPPED = -32001  # JSON-RPC error code for a request the recording cannot answer


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


class ReplayServer:
    """Answers one MCP client from one recording."""

    def __init__(
        self,
        cassette: Cassette,
        on_unrecorded: Unrecorded,
        stubs: tuple[Stub, ...] | None,
        methods: Iterable[str] = (),
        faults: tuple[Fault, ...] = (),
        live: LiveServer | None = None,
        classify: Classifier | None = None,
    ) -> None:
        self.cassette = cassette
        self.classify = classify  # for the default answers by class (stub with no stubs file)
        self.live = live
        self.on_unrecorded = on_unrecorded
        self.stubs = stubs
        self.recorded_methods = set(methods)
        self.faults = faults
        self._fault_uses = [0] * len(faults)
        self.log = ServeLog()
        self.traffic: LogWriter | CallLog | None = None  # every message, as record-mcp logs it (serve --log)
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
        reply = self.cassette.play(method, params, call)
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
        self.cassette.learn(method, params, call, answer.response, answer.notifications)
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
            return session_answer(answer)
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


def _note(traffic: LogWriter | CallLog, message: JSONObject, answer: list[JSONObject], answered: str | None) -> None:
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
    return ReplayServer(Cassette(source), on_unrecorded, stubs, source.methods, faults, live, classify=classify)


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
    return ReplayServer(Cassette(source, record), on_unrecorded, stubs, source.methods, faults, live, classify)
