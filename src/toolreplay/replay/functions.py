"""Replaying an agent that is a Python function (``python:MODULE:FUNCTION``), each run in its worker process.

Each run is a fresh MCP session with a fresh served world: for every server the
side serves, a :class:`~toolreplay.mcp.server.ReplayServer` made from the
side's recording, answering in this process what the function's
``ClientSession`` sends through the worker, and logging it as ``serve --log``
does; a function that takes ``url`` is also served over Streamable HTTP on the
loopback, by the same server. The run's calls are read from that log, as a
program's are, and its reply is what the function returned.

A function that raises is that run's ending (``raised``), with what it raised
and the traceback; one that raised before any call, or whose worker ended, made
no call, and is no evidence (an ``error``, as a program that never got going).
A run past ``run_timeout`` ends the worker, and the runs it was making with it;
the next run starts another.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from toolreplay.agents.base import Usage
from toolreplay.agents.function import FunctionWorker
from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import ToolreplayError
from toolreplay.formats.mcp_log.log import CallLog
from toolreplay.formats.recording import load_session
from toolreplay.mcp.server import Dropped, HttpFault, ReplayServer, session_server
from toolreplay.mcp.wire import encode
from toolreplay.redact import Redactor
from toolreplay.replay.command import Served, task_text
from toolreplay.replay.engine import ReplaySetup, Run

REPLY_LIMIT = 100_000  # characters of a final reply kept, as of a program's


class FunctionRuns:
    """One side's runs of a function: its worker, what the side serves, where the runs' logs go."""

    def __init__(
        self, worker: FunctionWorker, setup: ReplaySetup, served: Served, root: Path, side: str, timeout: float
    ) -> None:
        self.worker = worker
        self.setup = setup
        self.served = served
        self.root = root
        self.side = side
        self.timeout = timeout
        directory = root / f"{side}-served"
        directory.mkdir(parents=True, exist_ok=True)
        session, _, _ = served.write(directory)
        self.session = load_session(session)
        self.redactor = Redactor.default(off=served.redact_off)
        self.task = task_text(setup)
        self.groups = _WorkerStop(worker)  # what a stop ends: the worker, and the runs it is making

    def _server(self, name: str, log: CallLog) -> ReplayServer:
        """A server with a world of its own for one run, its calls kept in the run's log."""
        chosen = name if name in self.served.recorded else None
        server = session_server(
            self.session, self.setup.policy, self.served.on_unrecorded, self.setup.stubs, name=chosen
        )
        server.traffic = log
        return server

    def run(self, number: int, seed: int) -> Run:
        log = CallLog(self.redactor)
        try:
            takes = self.worker.ready()
        except ToolreplayError as exc:  # the worker could not start again: this run's end
            return _no_calls(number, seed, exc.message)
        names = self.served.names
        servers = {name: self._server(name, log) for name in names}
        locks = {name: threading.Lock() for name in names}
        if len(names) > 1 and "session" in takes:
            return _no_calls(
                number,
                seed,
                f"the recording has {len(names)} servers ({', '.join(names)}): a function on it takes sessions "
                "(or urls), a dict by server name, not session",
            )
        with ExitStack() as stack:
            urls = {}
            if "url" in takes or "urls" in takes:
                urls = {name: stack.enter_context(_over_http(servers[name], locks[name])) for name in names}
            ended = self._drive(number, seed, servers, locks, urls)
        served = log.calls()
        calls, made = tuple(call for call, _ in served), tuple(origin for _, origin in served)
        if ended.error is not None and not calls:  # it never got going: no evidence of what the agent does
            return _no_calls(number, seed, ended.error, traceback=ended.traceback)
        if ended.error is not None:
            return Run(number, seed, calls, made, ended.ending, None, Usage(), ended.error, traceback=ended.traceback)
        reply = ended.reply[:REPLY_LIMIT] if ended.reply else None
        return Run(number, seed, calls, made, "final reply" if reply else "no final reply", final_reply=reply)

    def _drive(
        self,
        number: int,
        seed: int,
        servers: dict[str, ReplayServer],
        locks: dict[str, threading.Lock],
        urls: dict[str, str],
    ) -> _Ended:
        """Answer the run's messages until the function returns, raises, or runs out of time."""
        message = {
            "op": "run",
            "run": number,
            "seed": seed,
            "task": self.task,
            "system": self.served.system,
            "servers": list(servers),
            "urls": urls,
        }
        inbox = self.worker.start(message)
        deadline = time.monotonic() + self.timeout
        closed: set[str] = set()
        try:
            while True:
                try:
                    said = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:  # the only way to end a function that will not: its worker goes
                    self.worker.stop(f"run {number} ran past the run timeout ({self.timeout:g} s)")
                    return _Ended(f"timed out after {self.timeout:g} s", error=f"no reply within {self.timeout:g} s")
                if said is None:  # what it did is cut short by no choice of its own: no evidence
                    why = self.worker.ended_because or self.worker.last_words()
                    return _Ended("error", error=f"its worker ended ({why})")
                if "reply" in said:
                    reply = said["reply"]
                    return _Ended("final reply", reply=reply if isinstance(reply, str) else None)
                if "error" in said:
                    trace = said.get("traceback")
                    return _Ended(
                        "raised", error=str(said["error"]), traceback=trace if isinstance(trace, str) else None
                    )
                name = said.get("server")
                if name in servers and name not in closed and "mcp" in said:
                    self._answer(number, name, said["mcp"], servers[name], locks[name], closed)
        finally:
            self.worker.finish(number)

    def _answer(
        self, number: int, name: str, message: object, server: ReplayServer, lock: threading.Lock, closed: set[str]
    ) -> None:
        """One message of the function's session answered from the recording, as serve answers it."""
        if not isinstance(message, str):
            return  # no message: the worker sends each as its JSON text
        line = message.encode("utf-8", "surrogatepass")
        with lock:
            try:
                answers = server.answer_line(line)
                delay = server.take_delay()
            except (Dropped, HttpFault) as dropped:  # the connection ends, after what went before the cut
                sent = dropped.sent if isinstance(dropped, Dropped) else []
                for item in sent:
                    self.worker.send({"run": number, "server": name, "mcp": _text(item)})
                self.worker.send({"run": number, "server": name, "closed": True})
                closed.add(name)
                return
        if delay:
            time.sleep(delay)
        for item in answers:
            self.worker.send({"run": number, "server": name, "mcp": _text(item)})


def _text(message: JSONObject) -> str:
    """A message as the wire writes it, without its line's end."""
    return encode(message).decode("utf-8", "surrogatepass").removesuffix("\n")


class _WorkerStop:
    """A side's runs stopped (Ctrl-C, SIGTERM): the worker ends, and with it the runs it is making."""

    def __init__(self, worker: FunctionWorker) -> None:
        self.worker = worker

    def stop(self) -> None:
        self.worker.stop()

    def end_all(self) -> None:
        return  # the worker serves the replay's later runs; the replay's workspace closes it


class _Ended:
    """How a run's function ended: its reply, or what it raised (and where)."""

    def __init__(self, ending: str, reply: str | None = None, error: str | None = None, traceback: str | None = None):
        self.ending = ending
        self.reply = reply
        self.error = error
        self.traceback = traceback


@contextmanager
def _over_http(server: ReplayServer, lock: threading.Lock) -> Iterator[str]:
    """``server`` over Streamable HTTP on the loopback for one run, every session of it answered by it."""
    from toolreplay.mcp.http.serve import HttpReplay  # noqa: PLC0415 - only functions that take a url

    listening = HttpReplay(("127.0.0.1", 0), lambda _: server, shared=True, lock=lock)
    thread = threading.Thread(target=listening.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield listening.url
    finally:
        listening.shutdown()
        listening.server_close()
        thread.join(5)


def _no_calls(number: int, seed: int, error: str, traceback: str | None = None) -> Run:
    """A run that made no call: no evidence of what the agent does, and why in one line."""
    return Run(number, seed, (), (), "error", final_reply=None, error=error, traceback=traceback)
