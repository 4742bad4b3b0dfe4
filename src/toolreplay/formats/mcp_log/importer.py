"""A run of a proxy log as a session: its listing as the tools, each ``tools/call`` as one assistant turn with
its result, and each server's own messages kept, so a replay serves the server as it spoke."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import InputError, UsageError
from toolreplay.core.model import McpServer, Session, SessionContext, ToolDef
from toolreplay.core.records import record
from toolreplay.formats.importers.builder import ConversationBuilder, Notes
from toolreplay.formats.mcp_log.content import from_mcp
from toolreplay.formats.mcp_log.log import DEFAULT_TASK, Exchange, LogNotes, joined_processes, pick_session, read_log
from toolreplay.formats.parsing.node import describe, plain_node
from toolreplay.formats.session.reader import validate_session
from toolreplay.formats.session.shape import ANNOTATION_TYPES
from toolreplay.formats.session.writer import session_document


def listed_tools(exchanges: list[Exchange], path: str | Path) -> tuple[ToolDef, ...]:
    """The tools of the last successful ``tools/list`` (pages of one listing are joined), held to the session
    reader's rules for tool definitions: a name listed twice in one listing, a description that is not a string,
    a schema or annotations that are not objects are errors at the line of the exchange, never repaired."""
    return tuple(tool for tool, _ in _listing(exchanges, path).values())


def _listing(exchanges: list[Exchange], path: str | Path) -> dict[str, tuple[ToolDef, JSONObject]]:
    """The last listing's tools by name: each as a session defines it, and as the server listed it."""
    listed: dict[str, tuple[ToolDef, JSONObject]] = {}
    for exchange in exchanges:
        if exchange.event != "tools/list":
            continue
        result = exchange.response.get("result")
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list):
            continue
        params = exchange.request.get("params")
        if not (isinstance(params, dict) and params.get("cursor")):
            listed = {}
        for raw in tools:
            if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
                raise InputError("tools/list returned a tool without a name", path, exchange.line)
            name = str(raw["name"])
            if name in listed:
                raise InputError(f"tools/list: tool '{name}' is listed twice", path, exchange.line)
            listed[name] = (_tool(raw, name, path, exchange.line), raw)
    return listed


def _tool(raw: JSONObject, name: str, path: str | Path, line: int) -> ToolDef:
    """One tool of a ``tools/list`` result; ``description`` and ``annotations`` may be absent or null."""

    def refused(key: str, expected: str, value: JSONValue) -> InputError:
        return InputError(f"tools/list: tool '{name}' {key} must be {expected}, found {describe(value)}", path, line)

    schema = raw.get("inputSchema", {"type": "object"})
    if not isinstance(schema, dict):
        raise refused("inputSchema", "an object", schema)
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        raise refused("description", "a string", description)
    annotations = raw.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        raise refused("annotations", "an object", annotations)
    kept: JSONObject | None = None
    if isinstance(annotations, dict):
        kept = {k: v for k, v in annotations.items() if k in ANNOTATION_TYPES and v is not None}
        for key, value in kept.items():
            if type(value) is not ANNOTATION_TYPES[key]:
                expected = "a boolean" if ANNOTATION_TYPES[key] is bool else "a string"
                raise refused(f"annotation '{key}'", expected, value)
    return ToolDef(name, description or "", schema, kept)


def _result(response: JSONObject) -> tuple[JSONValue, bool]:
    """A call's result as a session holds it, and whether it is an error: a JSON-RPC error is one, as text."""
    error = response.get("error")
    if isinstance(error, dict):
        return f"JSON-RPC error {error.get('code')}: {error.get('message')}", True
    result = response.get("result")
    result = result if isinstance(result, dict) else {}
    return from_mcp(result.get("content")), result.get("isError") is True


def _calls(answered: list[tuple[Exchange, int]], path: str | Path) -> Iterator[tuple[JSONObject, Exchange, int]]:
    """Each ``tools/call`` as a tool_use block, numbered in order, with its exchange and its run's mark."""
    number = 0
    for exchange, run in answered:
        if exchange.event != "tools/call":
            continue
        params = exchange.request.get("params")
        if not isinstance(params, dict) or not isinstance(params.get("name"), str) or not params["name"]:
            raise InputError("a tools/call request without a tool name", path, exchange.line)
        arguments = params.get("arguments", {})  # absent: none; anything else must be an object, as serve asks
        if not isinstance(arguments, dict):
            raise InputError(
                f"tools/call: the arguments must be an object, found {describe(arguments)}", path, exchange.line
            )
        number += 1
        tool_use_id = f"toolu_mcp_{number:04d}"
        use: JSONObject = {"type": "tool_use", "id": tool_use_id, "name": params["name"], "input": arguments}
        yield use, exchange, run


def log_tools(path: str | Path) -> tuple[ToolDef, ...]:
    """The tools (with their annotations) the last run of a proxy log listed."""
    runs = read_log(path)
    return tuple(tool for run in pick_session(runs, None, path) for tool in listed_tools(run.exchanges, path))


@record
class ImportOptions:
    """What a proxy cannot see, supplied by the user."""

    task: str = DEFAULT_TASK
    system: str = ""
    final_text: str | None = None
    model: str = "unknown"
    run: int | None = None  # 1-based; default: the last run in the log
    server: str | None = None  # the server's name in the agent's configuration; default: the log's, its own
    # every process of every server in the log is one agent run's (record's log of a run): each server's processes
    # are joined, their calls in the order answered, instead of the last process of each
    every_process: bool = False


def session_from_log(
    path: str | Path, options: ImportOptions, notes: LogNotes | None = None
) -> tuple[SessionContext, int]:
    """Build a session from one run of a proxy log; also returns how many runs the log holds."""
    context, runs, _ = _from_log(path, options, notes)
    return context, runs


def log_session(path: str | Path, task: str = DEFAULT_TASK) -> Session:
    """A proxy log read as the session ``import --from mcp LOG`` would write of it (its last run, or the last run of
    each server it names), held to the same rules, without a file: each call's line is its line in the log."""
    context, _, lines = _from_log(path, ImportOptions(task=task), None)
    try:  # held to the reader's rules as the document a session file would hold, without its text
        session = validate_session(plain_node(session_document(context), path))
    except InputError as exc:
        raise InputError(f"cannot be read as a session: {exc.message}", path) from None
    calls = tuple(replace(call, line=line) for call, line in zip(session.calls, lines, strict=True))
    return replace(session, path=str(path), calls=calls)


def _from_log(
    path: str | Path, options: ImportOptions, notes: LogNotes | None
) -> tuple[SessionContext, int, list[int]]:
    """A session's context from a log, how many runs the log holds, and the log's line of each call."""
    runs = read_log(path, notes)
    processes: dict[str | None, int] = {}
    if options.every_process:
        chosen = joined_processes(runs, processes)
        if not chosen:
            raise InputError("the log holds no run", path)
    else:
        chosen = pick_session(runs, options.run, path)
    if options.server is not None and len(chosen) > 1:
        raise UsageError("--server-name names one server; the log names its servers itself")
    listing: dict[str, ToolDef] = {}  # first: a listing comes before the calls it offers
    listed_by: dict[str, str | None] = {}
    for run in chosen:
        for name, (tool, _) in _listing(run.exchanges, path).items():
            if name in listing:
                raise InputError(
                    f"tool '{name}' is listed by two servers ({listed_by[name]} and {run.name}); a session names a "
                    "tool, not a server's tool: give each server its own session",
                    path,
                    run.line,
                )
            listing[name], listed_by[name] = tool, run.name
    conversation = ConversationBuilder(Notes())  # every call of a log has its result: nothing is left out
    conversation.person(options.task)
    results: dict[int, list[tuple[str, JSONObject]]] = {id(run): [] for run in chosen}
    answered = sorted(
        ((exchange.line, id(run), exchange) for run in chosen for exchange in run.exchanges), key=lambda item: item[0]
    )  # the calls of every server, in the order they were answered
    lines: list[int] = []
    for use, exchange, run_id in _calls([(exchange, run_id) for _, run_id, exchange in answered], path):
        lines.append(exchange.line)
        tool_use_id = str(use["id"])
        conversation.agent([use])  # a call of its own turn: the proxy saw no turn hold two
        content, is_error = _result(exchange.response)
        conversation.result(tool_use_id, content, is_error)
        results[run_id].append((tool_use_id, _said(exchange)))
    if options.final_text is not None:
        conversation.agent([{"type": "text", "text": options.final_text}])
    messages, _ = conversation.finish()
    servers = tuple(
        McpServer(
            options.server or run.name or _own_name(run.exchanges) or "server",
            tuple({"request": _asked(e), **_said(e)} for e in run.exchanges if e.event != "tools/call"),
            tuple(results[id(run)]),
        )
        for run in chosen
    )
    if notes is not None:
        notes.own_names = tuple(
            server.name for server, run in zip(servers, chosen, strict=True) if options.server is None and not run.name
        )
    source: JSONObject = {"kind": "mcp", "log": Path(path).as_posix()}
    if options.every_process:  # how many processes each server had (a client may start one per call)
        source["processes"] = {server.name: processes[run.name] for server, run in zip(servers, chosen, strict=True)}
    else:
        numbers = [runs.index(run) + 1 for run in chosen]
        source["run"] = numbers[-1]
        if len(numbers) > 1:
            source["runs"] = list(numbers)
    context = SessionContext(
        options.model,
        source,
        options.system,
        tuple(listing.values()),
        messages,
        options.final_text,
        None,
        servers,
    )
    return context, len(runs), lines


def _asked(exchange: Exchange) -> JSONObject:
    """A request as a session keeps it: its method and parameters (its id was the client's)."""
    return {key: exchange.request[key] for key in ("method", "params") if key in exchange.request}


def _said(exchange: Exchange) -> JSONObject:
    """What the server said to one request: its response (result or error) and the notifications before it."""
    response: JSONObject = {key: exchange.response[key] for key in ("result", "error") if key in exchange.response}
    said: JSONObject = {"response": response}
    if exchange.notifications:
        said["notifications"] = list(exchange.notifications)
    return said


def _own_name(exchanges: list[Exchange]) -> str | None:
    """The name a server gives itself in its handshake (``serverInfo``; in a discovery, its ``_meta``)."""
    for exchange in exchanges:
        said = exchange.response.get("result")
        if exchange.event not in ("initialize", "server/discover") or not isinstance(said, dict):
            continue
        info = said.get("serverInfo")
        meta = said.get("_meta")
        if info is None and isinstance(meta, dict):
            info = meta.get("io.modelcontextprotocol/serverInfo")
        name = info.get("name") if isinstance(info, dict) else None
        if isinstance(name, str) and name:
            return name
    return None


def with_listing(server: McpServer, tools: Sequence[JSONObject]) -> McpServer:
    """The server listing ``tools`` instead, in one page: for an agent given other tools than recorded."""
    kept = tuple(
        exchange
        for exchange in server.exchanges
        if not (isinstance(request := exchange.get("request"), dict) and request.get("method") == "tools/list")
    )
    listing: JSONObject = {"request": {"method": "tools/list"}, "response": {"result": {"tools": list(tools)}}}
    return replace(server, exchanges=(*kept, listing))
