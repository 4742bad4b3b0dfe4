"""Faults files: failures ``serve`` injects into chosen calls, to test how an agent copes.

``{"faults": [{"tool": GLOB, "args"?: {PATH: VALUE_OR_GLOB}, "fault": KIND, ...}]}``, where KIND is

- ``error``: a JSON-RPC error (``code``, default -32603; ``message``);
- ``is_error``: a tool result with ``isError`` and ``message`` as its text;
- ``delay``: the usual answer, ``seconds`` late;
- ``hang``: no answer to that request, ever (the others are still answered);
- ``drop``: the connection closes, as a server that crashed;
- ``cut``: the notifications that come before the answer (progress, log messages) go, then the connection
  closes before the answer: over HTTP, an event stream cut mid-answer;
- ``http`` (``serve --http`` only): an HTTP error instead of any answer, ``status`` (400 to 599) with
  ``headers`` (``{"Retry-After": "2"}``, ``{"WWW-Authenticate": "Bearer"}``) and a JSON-RPC error as its
  body (``code``, ``message``, by default the status's reason).

``times`` (optional) limits a fault to the first N calls it matches; ``note`` is
free text. The first fault that matches a call, and has times left, applies.
Every error names the file and the line of the offending value.
"""

from __future__ import annotations

import enum
import re
from fnmatch import fnmatchcase
from pathlib import Path

from toolreplay.analysis.matching import args_match
from toolreplay.core.canonical import JSONValue
from toolreplay.core.files import read_text
from toolreplay.core.model import Call
from toolreplay.core.records import record
from toolreplay.formats.parsing.json_text import parse_json
from toolreplay.formats.parsing.node import Node

MAX_DELAY = 3600.0
DEFAULT_CODE = -32603  # JSON-RPC's internal error
DEFAULT_MESSAGE = "toolreplay: an injected fault"
_FIELDS = ("tool", "args", "fault", "code", "message", "seconds", "status", "headers", "times", "note")
# set by the server itself, never by a fault
_OWN_HEADERS = frozenset(
    {"content-length", "content-type", "transfer-encoding", "connection", "mcp-session-id", "date", "server"}
)
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


class FaultKind(enum.Enum):
    ERROR = "error"
    IS_ERROR = "is_error"
    DELAY = "delay"
    HANG = "hang"
    DROP = "drop"
    CUT = "cut"
    HTTP = "http"


@record
class Fault:
    """A failure for calls to ``tool`` (a glob) whose arguments match ``args``."""

    tool: str
    args: tuple[tuple[str, JSONValue], ...]
    kind: FaultKind
    code: int = DEFAULT_CODE
    message: str = DEFAULT_MESSAGE
    seconds: float = 0.0
    times: int | None = None  # None: every call it matches
    status: int = 0  # an http fault's status
    headers: tuple[tuple[str, str], ...] = ()  # and its headers

    def matches(self, call: Call) -> bool:
        return fnmatchcase(call.tool, self.tool) and args_match(call.args, self.args)


def read_faults(path: str | Path) -> tuple[Fault, ...]:
    """Read a faults file, in order: the first fault that matches a call applies."""
    top = parse_json(read_text(path), path).called("the faults file").object().called("")
    top.only(("faults",), 'a faults file, {"faults": [...]}').require("faults")
    return tuple(_fault(item) for item in top.member("faults").array().elements())


def _fault(item: Node) -> Fault:
    item.object().only(_FIELDS, "a fault").require("tool", "fault")
    tool = item.member("tool").string(non_empty=True)
    args = (
        tuple((key, value.value) for key, value in item.member("args").object().members())
        if "args" in item.value
        else ()
    )
    kind_node = item.member("fault")
    try:
        kind = FaultKind(kind_node.string())
    except ValueError:
        choices = ", ".join(kind.value for kind in FaultKind)
        raise kind_node.fail(f"must be one of {choices}, found {kind_node.value!r}") from None
    code, message, seconds, times = DEFAULT_CODE, DEFAULT_MESSAGE, 0.0, None
    for field, kinds in (
        ("code", (FaultKind.ERROR, FaultKind.HTTP)),
        ("message", (FaultKind.ERROR, FaultKind.IS_ERROR, FaultKind.HTTP)),
        ("status", (FaultKind.HTTP,)),
        ("headers", (FaultKind.HTTP,)),
    ):
        if field in item.value and kind not in kinds:
            raise item.member(field).fail(f"is for {' or '.join(k.value for k in kinds)} faults, not {kind.value}")
    if "seconds" in item.value and kind is not FaultKind.DELAY:
        raise item.member("seconds").fail(f"is for delay faults, not {kind.value}")
    if "code" in item.value:
        code = item.member("code").integer()
        if not -(2**31) <= code < 2**31:
            raise item.member("code").fail("must be a 32-bit integer, as JSON-RPC error codes are")
    if "message" in item.value:
        message = item.member("message").string(non_empty=True)
    if "seconds" in item.value:
        seconds = item.member("seconds").number()
        if not 0 <= seconds <= MAX_DELAY:
            raise item.member("seconds").fail(
                f"must be between 0 and {MAX_DELAY:.0f}, found {item.member('seconds').value}"
            )
    elif kind is FaultKind.DELAY:
        raise item.fail("a delay needs 'seconds'")
    if "times" in item.value:
        times = item.member("times").integer()
        if times < 1:
            raise item.member("times").fail(f"must be at least 1, found {times}")
    if "note" in item.value:
        item.member("note").string()
    status, headers = _status(item, kind) if kind is FaultKind.HTTP else (0, ())
    if kind is FaultKind.HTTP and "message" not in item.value:
        message = ""  # the status's reason, as a server would say it
    return Fault(tool, args, kind, code, message, seconds, times, status, headers)


def _status(item: Node, kind: FaultKind) -> tuple[int, tuple[tuple[str, str], ...]]:
    """An http fault's status and headers."""
    if "status" not in item.value:
        raise item.fail(f"an {kind.value} fault needs 'status', as in 429 or 503")
    status = item.member("status").integer()
    if not 400 <= status <= 599:
        raise item.member("status").fail(f"must be an error status, 400 to 599, found {status}")
    headers: list[tuple[str, str]] = []
    if "headers" in item.value:
        for name, value in item.member("headers").object().members():
            text = value.string()
            if not _TOKEN.fullmatch(name):
                raise value.fail(f"{name!r} is not a header name")
            if name.lower() in _OWN_HEADERS:
                raise value.fail(f"{name} is the server's own to set")
            if any(character in text for character in "\r\n\0"):
                raise value.fail("a header value cannot hold a line break or a NUL")
            headers.append((name, text))
    return status, tuple(headers)
