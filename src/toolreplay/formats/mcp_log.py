"""MCP proxy logs, and turning one into a session.

A log (written by ``record-mcp``) holds one or more runs, each opened by a
``start`` line and followed by the JSON-RPC exchanges the proxy saw. Version 2
logs every request with its response and every notification, in the order
they passed; version 1 logged ``tools/list`` and ``tools/call`` only, and still
reads. A proxy sees only MCP traffic, never the prompt or the model's words,
so the session built from a run carries the task, system prompt, final reply
and model name the user supplies, and one assistant turn per call.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import sys
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.core.canonical import JSONObject, JSONValue, json_utf8
from toolreplay.core.errors import InputError, UsageError
from toolreplay.core.files import iter_raw_lines
from toolreplay.core.model import UNRECORDED_TASK, Call, McpServer, Origin, Session, SessionContext, ToolDef
from toolreplay.core.records import record
from toolreplay.core.wording import count
from toolreplay.formats.kinds import LOG_EVENTS, foreign_format, is_log_entry, sniff_kind
from toolreplay.formats.mcp_content import from_mcp
from toolreplay.formats.parsing.jsonl import decode_object, first_object
from toolreplay.formats.parsing.node import describe
from toolreplay.formats.session import ANNOTATION_TYPES, dump_session, parse_session

if TYPE_CHECKING:
    from toolreplay.redact import Redactor

LOG_VERSION = 2
_NAME_LOCKS = 1 << 40  # where the per-name locks of a shared log start: far past the end of any log
DEFAULT_TASK = UNRECORDED_TASK
_EVENTS = LOG_EVENTS


class LogWriter:
    """Appends lines to a proxy log, each whole or not at all; a log that cannot be written never stops traffic.

    Each line is one ``os.write`` on a file opened for appending, redacted
    first. On a full disk or a file-size limit the line is taken back (a torn
    line would make the rest of the log unreadable), the writer says so once on
    stderr, and it logs nothing more: the log is whole but incomplete, and when
    it is closed it says so in the log itself if there is room.
    """

    def __init__(
        self,
        path: str | Path,
        redactor: Redactor,
        who: str,
        new_run: bool = True,
        server: str | None = None,
        session: int | None = None,
    ) -> None:
        """Open ``path`` for appending. A writer that adds a run of its own (``new_run``) holds the log alone
        while it writes, and one that adds exchanges to the last run shares it with its like: two runs
        written at once would interleave, and a run's lines would land in the other's. A writer for a named
        ``server`` marks each of its lines with the name, so the servers of one agent share a log: each run's
        lines are told apart by it. A writer for one ``session`` of several a server answers at once (``serve
        --http``) marks its lines with the session's number: each session is a run of its own."""
        try:  # never blocking: a FIFO without a reader would hold the proxy, and the traffic, forever
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK, 0o644)
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                raise UsageError(f"the log {path} must be a regular file, not a FIFO") from None
            raise UsageError(f"cannot open the log {path}: {exc.strerror}") from None
        if not stat.S_ISREG(os.fstat(self._fd).st_mode):  # appended to, locked and cut back: a file
            os.close(self._fd)
            raise UsageError(f"the log {path} must be a regular file")
        os.set_blocking(self._fd, True)
        try:
            import fcntl  # noqa: PLC0415 - POSIX only; elsewhere a log is not locked

            alone = new_run and server is None
            fcntl.flock(self._fd, (fcntl.LOCK_EX if alone else fcntl.LOCK_SH) | fcntl.LOCK_NB)
            if server is not None and new_run:  # one proxy per name: a byte past any log's end, locked for the name
                where = _NAME_LOCKS + zlib.crc32(server.encode("utf-8", "surrogatepass"))
                try:
                    fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, where)
                except OSError:
                    os.close(self._fd)
                    raise UsageError(
                        f"another recorder is logging a server named {server!r} to {path}; give each server its "
                        "own name"
                    ) from None
        except ImportError:
            pass
        except OSError:
            os.close(self._fd)
            raise UsageError(f"another recorder is writing to {path}; wait for it, or log to another file") from None
        self._redactor = redactor
        self._who = who
        marks = {key: value for key, value in (("server", server), ("session", session)) if value is not None}
        self._mark = "{" + json.dumps(marks)[1:-1] + "," if marks else None
        self.failure: str | None = None  # why the log stopped, once a line could not be written whole

    def append(self, text: str) -> None:
        """Append one line of JSON text (a lone surrogate, from the wire or an argument, written as its escape)."""
        if self.failure is not None:
            return
        if self._mark is not None:  # the line's own object, opening with the server's name
            text = self._mark + text[1:]
        try:
            data = json_utf8(self._redactor.json_text(text)) + b"\n"
        except (ValueError, RecursionError) as exc:  # never expected; the traffic must pass all the same
            self._stop(f"a message could not be logged: {exc}")
            return
        start = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            written = os.write(self._fd, data)
            if written != len(data):
                raise OSError(errno.ENOSPC, "a full disk or a file-size limit cut a line short")
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, start)
            self._stop(exc.strerror or str(exc))

    def _stop(self, failure: str) -> None:
        """Log nothing more, and say so once."""
        self.failure = failure
        sys.stderr.write(
            f"{self._who}: cannot write the log ({self.failure}); it is incomplete from here, "
            "and the traffic still passes through\n"
        )
        sys.stderr.flush()

    def start(self, command: Sequence[str]) -> None:
        """A run begins: the server's command (and, from a named writer, its name)."""
        self.append(json.dumps({"command": list(command), "event": "start", "v": LOG_VERSION}, ensure_ascii=False))

    def exchange(self, request: JSONObject, response: JSONObject, answered: str | None = None) -> None:
        """A request and its response; ``answered``: how ``serve`` answered a call (from the recording, a stub,
        an error result, none: the run stopped, live, a fault), which a proxy cannot know."""
        said: JSONObject = {"event": "request", "answered": answered} if answered is not None else {"event": "request"}
        self.append(json.dumps({**said, "request": request, "response": response, "v": LOG_VERSION}))

    def notification(self, side: str, message: JSONObject) -> None:
        self.append(json.dumps({"event": "notification", "from": side, "message": message, "v": LOG_VERSION}))

    def close(self) -> None:
        if self.failure is not None:  # say in the log itself that it stops short, if there is room now
            marker = {"event": "incomplete", "reason": self.failure, "v": LOG_VERSION}
            with contextlib.suppress(OSError):
                os.write(self._fd, json.dumps(marker).encode("utf-8") + b"\n")
        os.close(self._fd)


@record
class Exchange:
    """One request of the client's and the server's response, with the server's notifications that came
    before the response (and after the previous one): progress, log messages, list changes."""

    event: str  # the request's method
    request: JSONObject
    response: JSONObject
    line: int
    notifications: tuple[JSONObject, ...] = ()


@record
class LogRun:
    """The exchanges between one ``start`` line and the next."""

    command: list[JSONValue]
    exchanges: list[Exchange]
    name: str | None = None  # the server's name in the agent's configuration (record-mcp --name)
    line: int = 0  # the line of its start


@dataclass
class LogNotes:
    """What a log says about itself beyond its exchanges: a last line cut short, a proxy that stopped logging."""

    torn_line: int | None = None
    incomplete: str | None = None
    own_names: tuple[str, ...] = ()  # the servers named as they name themselves: the log gave them no name


def read_log(path: str | Path, notes: LogNotes | None = None) -> list[LogRun]:
    """Read a proxy log strictly; exchanges before any ``start`` line form a run of their own.

    A proxy killed mid-write can leave a last line cut short (no newline, not
    JSON): it is skipped, and noted in ``notes``, as is a proxy's word that it
    could not write the whole log. Anything malformed before it is an error,
    as everywhere.
    """
    _refuse_other(path)
    notes = notes if notes is not None else LogNotes()
    runs: list[LogRun] = []
    # by server name (None: a proxy that had none) and session (serve --http's, by number): its run going on
    current: dict[tuple[str | None, int | None], LogRun] = {}
    heard: dict[tuple[str | None, int | None], list[JSONObject]] = {}  # notifications since its last response
    for line, entry in _complete_lines(path, notes):
        event, version = entry.get("event"), entry.get("v")
        if type(version) is not int or version not in _EVENTS or event not in _EVENTS[version]:
            raise InputError(
                f"not a record-mcp log line (event {json.dumps(event)}, v {json.dumps(version)})", path, line
            )
        if event == "incomplete":  # the proxy could not write everything; what is here is whole
            notes.incomplete = str(entry.get("reason", "the log could not be written"))
            continue
        name, session = entry.get("server"), entry.get("session")
        if name is not None and (not isinstance(name, str) or not name):
            raise InputError(f"a server's name must be a string, found {describe(name)}", path, line)
        if session is not None and (type(session) is not int or session < 1):
            raise InputError(f"a session's number must be a whole number from 1, found {describe(session)}", path, line)
        key = (name, session)
        if event == "start":
            command = entry.get("command")
            current[key] = LogRun(command if isinstance(command, list) else [], [], name, line)
            runs.append(current[key])
            heard[key] = []
            continue
        if event == "notification":
            message, side = entry.get("message"), entry.get("from")
            if not isinstance(message, dict) or not isinstance(message.get("method"), str):
                raise InputError("a notification needs a 'message' object with a method", path, line)
            if side not in ("client", "server"):
                raise InputError(f"a notification comes from 'client' or 'server', not {json.dumps(side)}", path, line)
            if side == "server":
                heard.setdefault(key, []).append(message)
            continue
        request, response = entry.get("request"), entry.get("response")
        if not isinstance(request, dict) or not isinstance(response, dict):
            raise InputError("an exchange needs a 'request' and a 'response' object", path, line)
        method = request.get("method", event) if version == 2 else event
        if not isinstance(method, str):
            raise InputError(f"a request's method must be a string, found {describe(method)}", path, line)
        if event == "server-request":
            continue  # the server's own requests (sampling, elicitation, roots): logged, not served again
        if key not in current:
            current[key] = LogRun([], [], name, line)
            runs.append(current[key])
        current[key].exchanges.append(Exchange(method, request, response, line, tuple(heard.get(key, ()))))
        heard[key] = []
    return runs


def served_calls(path: str | Path) -> list[tuple[Call, Origin]]:
    """Every call a program's run asked ``serve`` for, with how it was answered, from the log serve wrote: an error
    answer included (a refused deletion was still asked for), from every server the program started, in the order
    they were answered.

    Read leniently, unlike :func:`read_log`: the program may kill its server mid-line or write into the log
    itself, and a line that is not a call serve logged with its answer (a torn line, a malformed request the
    server refused, text the program wrote) is not one, and costs none of the others.
    """
    found: list[tuple[Call, Origin]] = []
    if not os.path.isfile(path):
        return found
    with open(path, "rb") as lines:
        for number, raw in enumerate(lines, start=1):
            try:
                entry = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            served = _served_call(entry, len(found), number)
            if served is not None:
                found.append(served)
    return found


_ORIGINS = {origin.value: origin for origin in Origin}


def _served_call(entry: JSONValue, index: int, line: int) -> tuple[Call, Origin] | None:
    if not isinstance(entry, dict) or entry.get("event") != "request" or entry.get("answered") not in _ORIGINS:
        return None
    request, response = entry.get("request"), entry.get("response")
    if not isinstance(request, dict) or not isinstance(response, dict) or request.get("method") != "tools/call":
        return None
    params = request.get("params")
    if not isinstance(params, dict):
        return None
    name, arguments = params.get("name"), params.get("arguments", {})
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return None
    result = response.get("result")
    failed = "error" in response or (isinstance(result, dict) and result.get("isError") is True)
    answer = result if isinstance(result, dict) else response.get("error")
    return Call(index, name, arguments, answer, line, failed), _ORIGINS[str(entry["answered"])]


def pick_run(runs: list[LogRun], number: int | None, path: str | Path, server: str | None = None) -> LogRun:
    """Run ``number`` (1-based) of a log, the last by default; with ``server``, that server's last run. A log that
    several named servers share has no last run of its own: it needs the server."""
    if not runs:
        raise InputError("the log holds no run", path)
    if number is not None:
        if not 1 <= number <= len(runs):
            raise UsageError(f"--run {number}: the log holds {count(len(runs), 'run')}")
        return runs[number - 1]
    names = _names(runs)
    if server is not None:
        found = [run for run in runs if run.name == server]
        if not found:
            raise UsageError(f"the log holds no server '{server}' (it holds: {', '.join(names) or 'none named'})")
        return found[-1]
    if len(names) > 1:
        raise UsageError(f"the log holds the runs of several servers ({', '.join(names)}): choose one with --server")
    return runs[-1]


def pick_session(runs: list[LogRun], number: int | None, path: str | Path) -> list[LogRun]:
    """The runs that make one session: run ``number``, or the last run of each server the log names (a log shared
    by an agent's servers holds one run of the agent), or the last run of a log that names none."""
    if not runs:
        raise InputError("the log holds no run", path)
    if number is not None or len(_names(runs)) <= 1:
        return [pick_run(runs, number, path) if number is not None else runs[-1]]
    last = {run.name: run for run in runs if run.name is not None}
    return sorted(last.values(), key=lambda run: run.line)


def _joined(runs: list[LogRun], processes: dict[str | None, int]) -> list[LogRun]:
    """Each server's runs (one a process) joined into one, its exchanges in the log's order; ``processes`` gets how
    many each server had."""
    joined: dict[str | None, LogRun] = {}
    for run in runs:
        processes[run.name] = processes.get(run.name, 0) + 1
        if run.name not in joined:
            joined[run.name] = LogRun(list(run.command), [], run.name, run.line)
        joined[run.name].exchanges.extend(run.exchanges)
    for run in joined.values():
        run.exchanges.sort(key=lambda exchange: exchange.line)
    return list(joined.values())


def _names(runs: list[LogRun]) -> list[str]:
    return list(dict.fromkeys(run.name for run in runs if run.name is not None))


def is_log(path: str | Path) -> bool:
    """Whether a file is a proxy log, by its first line (any other file is for its own reader to judge)."""
    found = first_object(path)
    first = found[1] if found is not None else None
    return first is not None and is_log_entry(first)


def _refuse_other(path: str | Path) -> None:
    """A file that is no proxy log at all but a recording of another kind, named for what it is."""
    found = first_object(path)
    if found is None or (found[1] is not None and is_log_entry(found[1])):
        return
    # the recordings' reader asks this module what a log looks like; here it is asked what else a file may be

    if found[1] is not None and foreign_format(found[1]) == "claude-code":
        raise InputError("a Claude Code transcript, not a record-mcp log: import it with --from claude-code", path)
    kind = sniff_kind(path)
    if kind is not None:
        raise InputError(f"a toolreplay {kind.value}, not a record-mcp log: a {kind.value} needs no import", path)


def _complete_lines(path: str | Path, notes: LogNotes) -> Iterator[tuple[int, JSONObject]]:
    """The log's objects, less a last line that was cut short."""
    previous: tuple[int, bytes] | None = None
    for number, raw in enumerate(iter_raw_lines(path), start=1):
        if previous is not None:
            yield previous[0], decode_object(previous[1], path, previous[0])
        previous = None if raw.isspace() else (number, raw)
    if previous is None:
        return
    number, raw = previous
    try:
        yield number, decode_object(raw, path, number)
    except InputError:
        if raw.endswith(b"\n"):
            raise  # a whole line that is broken is an error, not a torn tail
        notes.torn_line = number


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


def _result_block(tool_use_id: str, response: JSONObject) -> JSONObject:
    error = response.get("error")
    if isinstance(error, dict):
        text = f"JSON-RPC error {error.get('code')}: {error.get('message')}"
        return {"type": "tool_result", "tool_use_id": tool_use_id, "content": text, "is_error": True}
    result = response.get("result")
    result = result if isinstance(result, dict) else {}
    block: JSONObject = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": from_mcp(result.get("content")),
    }
    if result.get("isError") is True:
        block["is_error"] = True
    return block


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
    try:
        session = parse_session(dump_session(context), path)
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
        chosen = _joined(runs, processes)
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
    messages: list[JSONObject] = [{"role": "user", "content": options.task}]
    results: dict[int, list[tuple[str, JSONObject]]] = {id(run): [] for run in chosen}
    answered = sorted(
        ((exchange.line, id(run), exchange) for run in chosen for exchange in run.exchanges), key=lambda item: item[0]
    )  # the calls of every server, in the order they were answered
    lines: list[int] = []
    for use, exchange, run_id in _calls([(exchange, run_id) for _, run_id, exchange in answered], path):
        lines.append(exchange.line)
        tool_use_id = str(use["id"])
        messages.append({"role": "assistant", "content": [use]})
        messages.append({"role": "user", "content": [_result_block(tool_use_id, exchange.response)]})
        results[run_id].append((tool_use_id, _said(exchange)))
    if options.final_text is not None:
        messages.append({"role": "assistant", "content": [{"type": "text", "text": options.final_text}]})
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
        tuple(messages),
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
