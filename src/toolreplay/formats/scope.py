"""Scope files: ``{"agent": str, "allowed_tools": [str, ...], "allowed_args"?: {...}}``, strictly.

Every error names the file and the line of the offending value.
"""

from __future__ import annotations

from pathlib import Path

from toolreplay.analysis.scope import Scope
from toolreplay.core.canonical import JSONValue
from toolreplay.core.files import read_text
from toolreplay.formats.parsing.json_text import parse_json

_KEYS = ("agent", "allowed_tools", "allowed_args")


def read_scope(path: str | Path) -> Scope:
    """Read and strictly validate a scope file."""
    top = parse_json(read_text(path), path).called("the scope").object().called("")
    top.only(_KEYS, "a scope").require("agent", "allowed_tools")
    agent = top.member("agent").string()
    names = [entry.string() for entry in top.member("allowed_tools").array().elements()]
    allowed_args: dict[str, dict[str, tuple[JSONValue, ...]]] = {}
    if (given := top.get("allowed_args")) is not None:
        for tool, arguments in given.object().members():
            if tool not in names:
                raise arguments.fail(f"names '{tool}', which is not in 'allowed_tools'")
            allowed_args[tool] = {}
            for name, allowed in arguments.object().members():
                if not allowed.array().value:
                    raise allowed.fail("must be a non-empty array of allowed values")
                allowed_args[tool][name] = tuple(allowed.value)
    return Scope(agent, frozenset(names), allowed_args)
