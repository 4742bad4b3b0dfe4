"""Declared tool scope: which tools one agent may call, and the calls outside it.

A scope file is one JSON object, ``{"agent": str, "allowed_tools": [str, ...]}``.
Tool names match exactly and case-sensitively: a scope that let ``Read_File``
through for ``read_file`` would not be a scope.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from toolreplay.errors import InputError
from toolreplay.formats.files import read_text
from toolreplay.formats.jsonl import parse_json_text, type_name
from toolreplay.model import Call, Finding, FindingKind, sorted_findings

_SCOPE_KEYS = ("agent", "allowed_tools")


@dataclass(frozen=True, slots=True)
class Scope:
    """The tools one agent is permitted to call."""

    agent: str
    allowed_tools: frozenset[str]


@dataclass(frozen=True, slots=True)
class ScopeReport:
    """The calls of one recording checked against a scope."""

    calls: int
    findings: tuple[Finding, ...]


def _key_line(text: str, key: str) -> int:
    """The line a key first appears on, so an error can point at it (1 if absent)."""
    match = re.search(rf'"{re.escape(key)}"\s*:', text)
    return 1 if match is None else text.count("\n", 0, match.start()) + 1


def read_scope(path: str | Path) -> Scope:
    """Read and strictly validate a scope file."""
    text = read_text(path)
    obj = parse_json_text(text, path)
    if not isinstance(obj, dict):
        raise InputError(f"a scope must be a JSON object, found {type_name(obj)}", path, 1)
    for key in sorted(obj.keys() - set(_SCOPE_KEYS)):
        raise InputError(f"unknown field '{key}' in scope", path, _key_line(text, key))
    for key in _SCOPE_KEYS:
        if key not in obj:
            raise InputError(f"missing field '{key}' in scope", path, 1)
    agent = obj["agent"]
    if not isinstance(agent, str):
        raise InputError(f"field 'agent' must be a string, found {type_name(agent)}", path, _key_line(text, "agent"))
    tools = obj["allowed_tools"]
    if not isinstance(tools, list):
        raise InputError(
            f"field 'allowed_tools' must be an array, found {type_name(tools)}", path, _key_line(text, "allowed_tools")
        )
    names: list[str] = []
    for position, tool in enumerate(tools):
        if not isinstance(tool, str):
            raise InputError(
                f"entry {position} of 'allowed_tools' must be a string, found {type_name(tool)}",
                path,
                _key_line(text, "allowed_tools"),
            )
        names.append(tool)
    return Scope(agent, frozenset(names))


def check_scope(calls: Iterable[Call], scope: Scope) -> ScopeReport:
    """Report every call to a tool outside the scope."""
    findings: list[Finding] = []
    count = 0
    for call in calls:
        count += 1
        if call.tool not in scope.allowed_tools:
            findings.append(
                Finding(
                    call.index,
                    FindingKind.PERMISSION_OVERREACH,
                    f"tool '{call.tool}' is not in the declared scope for agent '{scope.agent}'",
                    call.line,
                )
            )
    return ScopeReport(count, sorted_findings(findings))
