"""A scripted agent in a worker process of its own (:mod:`toolreplay.agents.worker`), for ``check --isolate``.

One worker per agent file and replay, started once and asked for every run: the check keeps the turn loop and the
recording, and the worker only answers ``respond``. Its environment is the allowlist a program agent gets, it runs as
the isolated user where the check has one, and it is ended with the replay (and, by the check's reaper, before any
report).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from toolreplay.agents.program import program_environment
from toolreplay.core.errors import UsageError
from toolreplay.processes.isolation import RunAs

WORKER = Path(__file__).resolve().parent / "worker.py"
MAX_ANSWER = 64 << 20  # bytes of one turn's answer: past this it is no turn


class WorkerFailure(Exception):
    """What the agent's code raised in its worker, in its own words."""


class ScriptWorker:
    """The worker process of one scripted agent file."""

    def __init__(self, path: str, timeout: float, user: RunAs | None = None, python: str | None = None) -> None:
        self.path = path
        self.timeout = timeout
        interpreter = user.python if user is not None else (python or _python())
        cwd = os.getcwd() if user is None else os.path.dirname(os.path.abspath(path))
        env = dict(program_environment(()), PYTHONDONTWRITEBYTECODE="1")
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed with the worker; a pipe nobody reads fills
        try:
            self.process = subprocess.Popen(
                [interpreter, "-I", str(WORKER), os.path.abspath(path)], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=self.errors, cwd=cwd, env=env, start_new_session=True,
                **(user.popen() if user is not None else {}),  # type: ignore[call-overload]
            )  # fmt: skip
        except OSError as exc:
            raise UsageError(f"scripted agent {path}: its worker could not start: {exc.strerror or exc}") from None
        loaded = self._answer()
        if "error" in loaded:
            self.close()
            raise UsageError(f"scripted agent {path} {loaded['error']}")

    def ask(self, request: dict[str, Any]) -> Any:
        """One request's answer; a failure of the agent's code is a :class:`WorkerFailure`."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write((json.dumps(request) + "\n").encode())
            self.process.stdin.flush()
        except OSError:
            raise UsageError(f"scripted agent {self.path}: its worker ended ({self._said()})") from None
        answer = self._answer()
        if "error" in answer:
            raise WorkerFailure(answer["error"])
        return answer["ok"]

    def _answer(self) -> dict[str, Any]:
        stream = self.process.stdout
        assert stream is not None
        with selectors.DefaultSelector() as waiting:
            waiting.register(stream, selectors.EVENT_READ)
            if not waiting.select(self.timeout):
                self.close()
                raise UsageError(f"scripted agent {self.path}: no answer within {self.timeout:g} s")
        line = stream.readline(MAX_ANSWER + 1)
        if len(line) > MAX_ANSWER:
            self.close()
            raise UsageError(f"scripted agent {self.path}: a turn of more than {MAX_ANSWER >> 20} MiB")
        try:
            answer = json.loads(line)
        except ValueError:
            raise UsageError(f"scripted agent {self.path}: its worker ended ({self._said()})") from None
        if not isinstance(answer, dict):
            raise UsageError(f"scripted agent {self.path}: its worker answered no message")
        return answer

    def _said(self) -> str:
        """The worker's last words on standard error, once it has ended."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(1)
        self.errors.seek(max(0, self.errors.seek(0, os.SEEK_END) - 2000))
        errors = self.errors.read()
        last = [line for line in errors.decode("utf-8", "replace").splitlines() if line.strip()]
        return last[-1] if last else f"exit {self.process.returncode}"

    def close(self) -> None:
        for stream in (self.process.stdin, self.process.stdout, self.errors):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, 9)
        self.process.wait()


class RemotePolicy:
    """One agent of a worker, answering ``respond`` as the agent's own object would."""

    def __init__(self, worker: ScriptWorker, seed: int) -> None:
        self.worker = worker
        self.number = worker.ask({"op": "new", "seed": seed})

    def respond(self, system: Any, tools: list[dict[str, Any]], messages: list[dict[str, Any]]) -> Any:
        request = {"op": "respond", "agent": self.number, "system": system, "tools": tools, "messages": messages}
        return self.worker.ask(request)


def _python() -> str:
    import sys  # noqa: PLC0415

    return sys.executable
