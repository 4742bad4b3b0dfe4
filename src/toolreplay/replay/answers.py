"""Answering a candidate's tool calls from a recording, without executing anything.

A call is looked up by tool name and matched arguments (the rules file's
matching). A recorded call gets its recorded result; a call recorded several
times gets its results back in recorded order, and the last one again once they
run out. A call the recording never made has no honest answer: the run's
unrecorded-call policy decides (stop the run, return an error result, or return
a canned stub).
"""

from __future__ import annotations

import enum
import json
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from toolreplay.canonical import JSONValue
from toolreplay.errors import InputError
from toolreplay.formats.files import read_text
from toolreplay.formats.jsonl import parse_json_text, type_name
from toolreplay.matching import Matcher, lookup
from toolreplay.model import Call


class Unrecorded(enum.Enum):
    """What to do with a call the recording never made."""

    STOP = "stop"
    ERROR = "error"
    STUB = "stub"


UNRECORDED_ERROR = "toolreplay: this call was not in the recording, so there is no recorded result for it"


@dataclass(frozen=True, slots=True)
class Answer:
    """A tool result to hand the candidate, and where it came from."""

    content: JSONValue
    is_error: bool
    origin: str  # "recorded", "stub" or "error"


class RecordedAnswers:
    """The recording's results, queued per matched call."""

    def __init__(self, calls: Sequence[Call], matcher: Matcher) -> None:
        self.matcher = matcher
        self._queues: dict[bytes, deque[Call]] = defaultdict(deque)
        self._last: dict[bytes, Call] = {}
        for call in calls:
            self._queues[matcher.key(call)].append(call)

    def answer(self, call: Call) -> Answer | None:
        key = self.matcher.key(call)
        queue = self._queues.get(key)
        if queue:
            self._last[key] = queue.popleft()
        recorded = self._last.get(key)
        if recorded is None:
            return None
        return Answer(recorded.result, recorded.is_error, "recorded")


@dataclass(frozen=True, slots=True)
class Stub:
    """A canned result for unrecorded calls to ``tool`` whose arguments match ``args``."""

    tool: str
    args: tuple[tuple[str, JSONValue], ...]
    content: JSONValue
    is_error: bool

    def matches(self, call: Call) -> bool:
        if not fnmatchcase(call.tool, self.tool):
            return False
        for path, expected in self.args:
            found, actual = lookup(call.args, path)
            if not found:
                return False
            if isinstance(expected, str):
                if not (isinstance(actual, str) and fnmatchcase(actual, expected)):
                    return False
            elif json.dumps(actual, sort_keys=True) != json.dumps(expected, sort_keys=True):
                return False
        return True


def read_stubs(path: str | Path) -> tuple[Stub, ...]:
    """A stubs file: ``{"stubs": [{"tool", "args"?, "result", "is_error"?}, ...]}``; first match wins."""
    doc = parse_json_text(read_text(path), path)
    if not isinstance(doc, dict) or set(doc) != {"stubs"} or not isinstance(doc["stubs"], list):
        raise InputError('a stubs file is one object: {"stubs": [...]}', path, 1)
    stubs: list[Stub] = []
    for number, item in enumerate(doc["stubs"]):
        where = f"stubs[{number}]"
        if not isinstance(item, dict):
            raise InputError(f"{where}: must be an object, found {type_name(item)}", path)
        for key in item:
            if key not in ("tool", "args", "result", "is_error", "note"):
                raise InputError(f"{where}: unknown field '{key}'", path)
        tool, args, is_error = item.get("tool"), item.get("args", {}), item.get("is_error", False)
        if not isinstance(tool, str) or not tool:
            raise InputError(f"{where}.tool: must be a non-empty string", path)
        if "result" not in item:
            raise InputError(f"{where}: missing field 'result'", path)
        if not isinstance(args, dict):
            raise InputError(f"{where}.args: must be an object, found {type_name(args)}", path)
        if not isinstance(is_error, bool):
            raise InputError(f"{where}.is_error: must be a boolean", path)
        result = item["result"]
        content = result if isinstance(result, (str, list)) else json.dumps(result, sort_keys=True)
        stubs.append(Stub(tool, tuple(args.items()), content, is_error))
    return tuple(stubs)


def stub_answer(call: Call, stubs: Sequence[Stub]) -> Answer | None:
    for stub in stubs:
        if stub.matches(call):
            return Answer(stub.content, stub.is_error, "stub")
    return None


def unrecorded_error() -> Answer:
    return Answer(UNRECORDED_ERROR, True, "error")
