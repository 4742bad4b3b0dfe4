"""MCP proxy logs: written by ``record-mcp``'s proxies, read back by run.

A log (written by ``record-mcp``) holds one or more runs, each opened by a
``start`` line and followed by the JSON-RPC exchanges the proxy saw. Version 2
logs every request with its response and every notification, in the order
they passed; version 1 logged ``tools/list`` and ``tools/call`` only, and still
reads.
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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.core.canonical import JSONObject, JSONValue, json_utf8
from toolreplay.core.errors import InputError, UsageError
from toolreplay.core.files import iter_raw_lines
from toolreplay.core.model import UNRECORDED_TASK, Call, Origin
from toolreplay.core.records import record
from toolreplay.core.wording import count
from toolreplay.formats.kinds import LOG_EVENTS, foreign_format, is_log_entry, sniff_kind
from toolreplay.formats.parsing.jsonl import decode_object, first_object
from toolreplay.formats.parsing.node import describe

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


class CallLog:
    """What ``serve --log`` would log of a run's calls, kept in memory: each call with its answer, redacted as its
    log line would be, read back as :func:`served_calls` reads a log (a ``python:`` agent's runs are answered in
    this process, so nothing needs a file between the answer and the report). Several servers of one run share it:
    the calls in the order they were answered."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._entries: list[JSONValue] = []
        self.failure: str | None = None

    def start(self, command: Sequence[str]) -> None:
        return

    def notification(self, side: str, message: JSONObject) -> None:
        return

    def exchange(self, request: JSONObject, response: JSONObject, answered: str | None = None) -> None:
        if answered is None or request.get("method") != "tools/call":
            return
        said: JSONObject = {"event": "request", "answered": answered}
        text = json.dumps({**said, "request": request, "response": response, "v": LOG_VERSION})
        self._entries.append(json.loads(self._redactor.json_text(text)))

    def close(self) -> None:
        return

    def calls(self) -> list[tuple[Call, Origin]]:
        """Every call answered, with how, as :func:`served_calls` reads them from a log (numbered from 1)."""
        found: list[tuple[Call, Origin]] = []
        for number, entry in enumerate(self._entries, start=1):
            served = _served_call(entry, len(found), number)
            if served is not None:
                found.append(served)
        return found


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


def joined_processes(runs: list[LogRun], processes: dict[str | None, int]) -> list[LogRun]:
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
