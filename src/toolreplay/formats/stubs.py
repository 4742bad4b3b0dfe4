"""Stubs files: canned results for calls the recording never made.

``{"stubs": [{"tool": GLOB, "args"?: {PATH: VALUE_OR_GLOB}, "result": ..., "is_error"?: bool, "note"?: str}]}``;
the first stub whose tool and arguments match answers. Every error names the
file and the line of the offending value.
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from pathlib import Path

from toolreplay.analysis.matching import args_match
from toolreplay.core.canonical import JSONValue
from toolreplay.core.files import read_text
from toolreplay.core.model import Call
from toolreplay.core.records import record
from toolreplay.formats.parsing.json_text import parse_json


@record
class Stub:
    """A canned result for unrecorded calls to ``tool`` (a glob) whose arguments match ``args``."""

    tool: str
    args: tuple[tuple[str, JSONValue], ...]
    content: JSONValue
    is_error: bool

    def matches(self, call: Call) -> bool:
        return fnmatchcase(call.tool, self.tool) and args_match(call.args, self.args)


def read_stubs(path: str | Path) -> tuple[Stub, ...]:
    """Read a stubs file; first match wins."""
    top = parse_json(read_text(path), path).called("the stubs file").object().called("")
    top.only(("stubs",), 'a stubs file, {"stubs": [...]}').require("stubs")
    stubs: list[Stub] = []
    for item in top.member("stubs").array().elements():
        item.object().only(("tool", "args", "result", "is_error", "note"), "a stub").require("tool", "result")
        tool = item.member("tool").string(non_empty=True)
        args = (
            tuple((key, value.value) for key, value in item.member("args").object().members())
            if "args" in item.value
            else ()
        )
        is_error = item.member("is_error").boolean() if "is_error" in item.value else False
        if "note" in item.value:
            item.member("note").string()
        result = item.member("result").value
        content = result if isinstance(result, (str, list)) else json.dumps(result, sort_keys=True)
        stubs.append(Stub(tool, args, content, is_error))
    return tuple(stubs)
