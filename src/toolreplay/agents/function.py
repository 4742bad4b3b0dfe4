"""A ``python:`` agent's worker process (:mod:`toolreplay.agents.function_worker`), seen from the replay.

One worker per function and replay, started on a side's first run and asked for every run of both sides, so the
function's imports are paid once. Never in the replay's own process: the worker runs by path, with the environment
a program agent gets (all of toolreplay's, or under isolation the allowlist and ``env:``), as the isolated user
where the check has one. A worker that ends (the function exited, or crashed the interpreter) costs the runs it was
making; the next run starts another.

Each run's messages come back tagged with its number: :meth:`FunctionWorker.start` hands the run a queue of what
the worker says of it, and a reader thread fills the queues.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from toolreplay.agent_spec import FunctionSpec
from toolreplay.agents.program import program_environment
from toolreplay.core.errors import UsageError
from toolreplay.core.escape import one_line
from toolreplay.processes.isolation import RunAs

WORKER = Path(__file__).resolve().parent / "function_worker.py"
MAX_MESSAGE = 64 << 20  # bytes of one message from the worker: past this it is no message
LOAD_TIMEOUT = 300.0  # seconds the function's module has to import

Said = dict[str, Any]  # one message of the worker's, about one run


class FunctionWorker:
    """The worker process of one ``python:`` agent, its runs told apart by number."""

    def __init__(
        self, spec: FunctionSpec, here: str, env: tuple[str, ...] | None, user: RunAs | None, isolated: bool
    ) -> None:
        self.spec = spec
        self.here = here
        self.env = env
        self.user = user
        self.isolated = isolated or user is not None
        self.takes: tuple[str, ...] = ()
        self._process: subprocess.Popen[bytes] | None = None
        self._errors: Any = None
        self._inboxes: dict[int, queue.SimpleQueue[Said | None]] = {}
        self._lock = threading.Lock()  # the inboxes, and one message at a time to the worker
        self.started = 0  # workers started: one, unless one ended
        self.ended_because: str | None = None  # why toolreplay ended the last worker, when it did

    def _start(self) -> None:
        """A worker, started and its function loaded; a function that cannot be loaded stops the replay."""
        spec, user = self.spec, self.user
        interpreter = user.python if user is not None else sys.executable
        target = os.path.abspath(os.path.join(spec.home or self.here, spec.target)) if spec.is_file else spec.target
        home = os.path.abspath(spec.home or self.here)
        if not os.path.isdir(home):
            raise UsageError(
                f"{spec.show()} is found from {home}, which is no directory here (a session recorded elsewhere "
                "names where it was recorded: give --agent)"
            )
        env = program_environment(self.env if self.isolated else None)  # nothing of toolreplay's own added
        flags = ["-I"] if self.isolated else []  # isolated: none of the check's site, nor PYTHON* variables
        self._errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed with the worker; a pipe nobody reads fills
        try:
            process = subprocess.Popen(
                [interpreter, *flags, str(WORKER), target, spec.function, home], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=self._errors, cwd=home if user is None else "/", env=env,
                start_new_session=True, **(user.popen() if user is not None else {}),  # type: ignore[call-overload]
            )  # fmt: skip
        except OSError as exc:
            raise UsageError(f"{spec.show()}: its worker could not start: {exc.strerror or exc}") from None
        self._process = process
        self.started += 1
        self.ended_because = None
        loaded = self._first_line(process)
        if "error" not in loaded and loaded.get("ok") != "loaded":
            loaded = {"error": "its worker answered no message"}
        if "error" in loaded:
            self.close()
            raise UsageError(f"{spec.show()} {one_line(str(loaded['error']))}")
        self.takes = tuple(str(name) for name in loaded.get("takes", ()))
        threading.Thread(target=self._read, args=(process,), daemon=True).start()

    def _first_line(self, process: subprocess.Popen[bytes]) -> Said:
        import selectors  # noqa: PLC0415

        assert process.stdout is not None
        with selectors.DefaultSelector() as waiting:
            waiting.register(process.stdout, selectors.EVENT_READ)
            if not waiting.select(LOAD_TIMEOUT):
                return {"error": f"did not load within {LOAD_TIMEOUT:g} s"}
        line = process.stdout.readline(MAX_MESSAGE)
        try:
            said = json.loads(line)
        except ValueError:
            return {"error": f"failed to load: its worker ended ({self.last_words()})"}
        return said if isinstance(said, dict) else {"error": "its worker answered no message"}

    def ready(self) -> tuple[str, ...]:
        """What the function takes, its worker started where none runs."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._start()
            return self.takes

    def start(self, message: Said) -> queue.SimpleQueue[Said | None]:
        """Start one run (``message`` its ``op: run``); the queue of what the worker says of it."""
        inbox: queue.SimpleQueue[Said | None] = queue.SimpleQueue()
        number = int(message["run"])
        with self._lock:
            self._inboxes[number] = inbox
            alive = self._process is not None and self._process.poll() is None
        if not alive or not self.send(message):
            inbox.put(None)
        return inbox

    def send(self, message: Said) -> bool:
        """One message to the worker; False when it has ended."""
        process = self._process
        if process is None or process.stdin is None:
            return False
        line = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
        try:
            with self._lock:
                process.stdin.write(line)
                process.stdin.flush()
        except (OSError, ValueError):
            return False
        return True

    def finish(self, number: int) -> None:
        with self._lock:
            self._inboxes.pop(number, None)

    def _read(self, process: subprocess.Popen[bytes]) -> None:
        """Hand each message to its run's queue; at the worker's end, tell every run waiting."""
        assert process.stdout is not None
        for line in iter(lambda: process.stdout.readline(MAX_MESSAGE + 1), b""):  # type: ignore[union-attr]
            if len(line) > MAX_MESSAGE:  # no message: the runs waiting for one end with the worker
                self.ended_because = f"it sent a message of more than {MAX_MESSAGE >> 20} MiB"
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, 9)
                break
            try:
                said = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if not isinstance(said, dict) or not isinstance(said.get("run"), int):
                continue
            with self._lock:
                inbox = self._inboxes.get(said["run"])
            if inbox is not None:
                inbox.put(said)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(2)
        with self._lock:
            waiting = list(self._inboxes.values()) if process is self._process else []
        for inbox in waiting:
            inbox.put(None)

    def last_words(self) -> str:
        """The worker's last line on standard error, or how it ended."""
        process = self._process
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(1)
        errors = self._errors
        lines: list[str] = []
        if errors is not None:
            with contextlib.suppress(OSError, ValueError):
                errors.seek(max(0, errors.seek(0, os.SEEK_END) - 4000))
                lines = [line for line in errors.read().decode("utf-8", "replace").splitlines() if line.strip()]
        code = process.returncode if process is not None else None
        ended = "killed by signal " + str(-code) if code is not None and code < 0 else f"exit {code}"
        return one_line(lines[-1])[:300] + f"; {ended}" if lines else ended

    def stop(self, why: str = "toolreplay was stopped") -> None:
        """End the worker now (a run that would not end; toolreplay stopped): the runs it was making end with it,
        each told ``why``."""
        process = self._process
        self.ended_because = why
        if process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, 9)
            process.wait()  # gone before the next run asks for a worker: it gets a new one

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, 9)
        process.wait()
        if self._errors is not None:
            with contextlib.suppress(OSError):
                self._errors.close()
