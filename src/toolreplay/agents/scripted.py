"""Scripted agents: a seeded Python policy in a file, for offline runs and replays.

The file defines ``class Agent`` whose ``__init__(self, seed)`` takes the run's
seed and whose ``respond(self, system, tools, messages)`` returns the content
blocks of the next turn, in Messages API form. ``tool_use`` blocks need only
``name`` and ``input``: toolreplay numbers their ids. A turn without
``tool_use`` ends the run. The same seed gives the same run.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from toolreplay.agent_spec import ScriptSpec
from toolreplay.agents.base import Turn
from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import UsageError
from toolreplay.core.files import readable
from toolreplay.core.model import ToolDef
from toolreplay.formats.session.writer import tool_document

if TYPE_CHECKING:
    from toolreplay.agents.remote import ScriptWorker

_REFUSED: list[str] = []  # why this process runs no user code, once a command has said so


@contextmanager
def refusing_user_code(reason: str) -> Iterator[None]:
    """No user code runs in this process while inside (``check --no-code``; the API's ``check(no_code=True)``,
    after which the caller's process runs its own code again)."""
    _REFUSED.append(reason)
    try:
        yield
    finally:
        _REFUSED.remove(reason)


def user_code_refused() -> str | None:
    """Why no user code runs in this process (``check --no-code``), or None."""
    return _REFUSED[0] if _REFUSED else None


class _Unwritten(importlib.machinery.SourceFileLoader):
    """A user's file, compiled without leaving its bytecode beside it: loading an agent or a tools module writes
    nothing into the user's tree (a ``__pycache__`` there would be toolreplay's, unasked)."""

    def set_data(self, path: str, data: object, *, _mode: int = 0o666) -> None:
        return None


def load_module(path: str | Path, what: str) -> ModuleType:
    """Import a user's Python file by path, once per process; a missing or broken file is a UsageError.

    A replay builds one scripted agent per run, so the file is imported on the
    first and reused: importing it again for each of forty runs cost more than
    the runs themselves.
    """
    if _REFUSED:
        raise UsageError(f"{what} {path} is not run: {_REFUSED[0]}")
    file = Path(readable(path))  # a stream (<(cat agent.py), a FIFO) is read once, into a file of our own
    if not file.is_file():
        raise UsageError(f"{what} {path}: no such file")
    name = f"toolreplay_user_{abs(hash(str(file.resolve())))}"
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    loader = _Unwritten(name, str(file))  # by content, whatever the file's name
    spec = importlib.util.spec_from_file_location(name, file, loader=loader)
    if spec is None or spec.loader is None:
        raise UsageError(f"{what} {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # the user's code: any failure, an exit too, is theirs to see
        del sys.modules[name]
        raise UsageError(f"{what} {path} failed to load: {type(exc).__name__}: {exc}") from None
    return module


def _raised(exc: BaseException) -> str:
    """What the agent's code raised: its type and words (a worker's failure says both already)."""
    from toolreplay.agents.remote import WorkerFailure  # noqa: PLC0415

    return str(exc) if isinstance(exc, WorkerFailure) else f"{type(exc).__name__}: {exc}"


class ScriptedAgent:
    """An agent whose turns come from a seeded policy in a Python file."""

    def __init__(
        self, path: str, seed: int, module: ModuleType | None = None, worker: ScriptWorker | None = None
    ) -> None:
        """``module``: the file, already loaded (a replay loads it once for all its runs); ``worker``: the process
        it runs in instead, apart from this one (``check --isolate``)."""
        self.path = path
        self.seed = seed
        if worker is not None:
            from toolreplay.agents.remote import RemotePolicy  # noqa: PLC0415

            factory: Any = lambda seed: RemotePolicy(worker, seed)  # noqa: E731
        else:
            module = module if module is not None else load_module(path, "scripted agent")
            factory = getattr(module, "Agent", None)
            if not callable(factory):
                raise UsageError(f"scripted agent {path} defines no class Agent")
        try:
            self._policy: Any = factory(seed)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # the user's code
            raise UsageError(f"scripted agent {path} failed to start: {_raised(exc)}") from None
        self._next_id = 1
        self._tool_documents: tuple[Sequence[ToolDef], list[JSONObject]] | None = None

    @property
    def model(self) -> str:
        return ScriptSpec(self.path).show()

    def respond(self, system: JSONValue, tools: Sequence[ToolDef], messages: Sequence[JSONObject]) -> Turn:
        if self._tool_documents is None or self._tool_documents[0] is not tools:
            self._tool_documents = (tools, [tool_document(t) for t in tools])
        try:
            blocks = self._policy.respond(system, self._tool_documents[1], [dict(m) for m in messages])
        except KeyboardInterrupt:
            raise
        except UsageError:
            raise  # its worker's own failure, said already
        except BaseException as exc:  # the policy is the user's code, whatever it raises
            raise UsageError(f"scripted agent {self.path} failed: {_raised(exc)}") from None
        if not isinstance(blocks, list):
            raise UsageError(f"scripted agent {self.path} returned {type(blocks).__name__}, not a list of blocks")
        content = [self._block(raw) for raw in blocks]
        stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
        return Turn(content, stop)

    def _block(self, raw: object) -> JSONObject:
        """One content block as the policy returned it, checked to be JSON; a tool_use gets its id."""
        problem = None
        if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
            problem = "a block that is not a content block"
        elif raw["type"] == "tool_use" and not (
            isinstance(raw.get("name"), str) and raw["name"] and isinstance(raw.get("input"), dict)
        ):
            problem = "a tool_use block without a name and an input object"
        else:
            try:
                json.dumps(raw, allow_nan=False)
            except (TypeError, ValueError) as exc:
                problem = f"a block that is not JSON ({exc})"
        if problem is not None or not isinstance(raw, dict):
            raise UsageError(f"scripted agent {self.path} returned {problem}: {str(raw)[:200]}")
        if raw["type"] != "tool_use":
            return raw
        self._next_id += 1
        return {"type": "tool_use", "id": f"toolu_{self._next_id - 1:04d}", "name": raw["name"], "input": raw["input"]}
