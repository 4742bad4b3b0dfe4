"""Declared tool scope: which tools one agent may call, on what, and the calls outside it.

A scope file is one JSON object, ``{"agent": str, "allowed_tools": [str, ...]}``,
optionally with ``"allowed_args"``: for a tool, the values each named argument
may take (``{"read_file": {"path": ["docs/**"]}}``; a string is a glob, where
``*`` and ``**`` both match across ``/``). Tool names match exactly and
case-sensitively: a scope that let ``Read_File`` through for ``read_file`` would
not be a scope. A permitted tool called on a value outside its list is
overreach too, with the argument named.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from toolreplay.canonical import JSONValue, canonical_bytes
from toolreplay.errors import InputError
from toolreplay.formats.files import read_text
from toolreplay.formats.jsonl import parse_json_text, type_name
from toolreplay.matching import lookup
from toolreplay.model import Call, Finding, FindingKind, sorted_findings

_SCOPE_KEYS = ("agent", "allowed_tools")
_OPTIONAL_KEYS = ("allowed_args",)


@dataclass(frozen=True, slots=True)
class Scope:
    """The tools one agent is permitted to call."""

    agent: str
    allowed_tools: frozenset[str]
    allowed_args: Mapping[str, Mapping[str, tuple[JSONValue, ...]]] = field(default_factory=dict)

    def outside(self, call: Call) -> str | None:
        """Why ``call`` is outside this scope, or None when it is inside."""
        if call.tool not in self.allowed_tools:
            return f"tool '{call.tool}' is not in the declared scope for agent '{self.agent}'"
        for path, allowed in self.allowed_args.get(call.tool, {}).items():
            found, value = lookup(call.args, path)
            if found and not any(_allowed(value, pattern) for pattern in allowed):
                shown = json.dumps(value, ensure_ascii=False)
                return (
                    f"tool '{call.tool}' argument '{path}' = {shown} is outside the declared scope "
                    f"for agent '{self.agent}'"
                )
        return None


def _allowed(value: JSONValue, pattern: JSONValue) -> bool:
    if isinstance(pattern, str):
        return isinstance(value, str) and fnmatchcase(value, pattern)
    return canonical_bytes(value) == canonical_bytes(pattern)


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
    for key in sorted(obj.keys() - set(_SCOPE_KEYS) - set(_OPTIONAL_KEYS)):
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
    allowed_args = _allowed_args(obj.get("allowed_args", {}), path, _key_line(text, "allowed_args"))
    for tool in allowed_args:
        if tool not in names:
            raise InputError(
                f"'allowed_args' names '{tool}', which is not in 'allowed_tools'", path, _key_line(text, tool)
            )
    return Scope(agent, frozenset(names), allowed_args)


def _allowed_args(value: JSONValue, path: str | Path, line: int) -> dict[str, dict[str, tuple[JSONValue, ...]]]:
    if not isinstance(value, dict):
        raise InputError(f"field 'allowed_args' must be an object, found {type_name(value)}", path, line)
    result: dict[str, dict[str, tuple[JSONValue, ...]]] = {}
    for tool, arguments in value.items():
        if not isinstance(arguments, dict):
            raise InputError(f"'allowed_args.{tool}' must be an object of argument lists", path, line)
        result[tool] = {}
        for name, allowed in arguments.items():
            if not isinstance(allowed, list) or not allowed:
                raise InputError(
                    f"'allowed_args.{tool}.{name}' must be a non-empty array of allowed values", path, line
                )
            result[tool][name] = tuple(allowed)
    return result


def check_scope(calls: Iterable[Call], scope: Scope) -> ScopeReport:
    """Report every call to a tool outside the scope."""
    findings: list[Finding] = []
    count = 0
    for call in calls:
        count += 1
        reason = scope.outside(call)
        if reason is not None:
            findings.append(Finding(call.index, FindingKind.PERMISSION_OVERREACH, reason, call.line))
    return ScopeReport(count, sorted_findings(findings))
