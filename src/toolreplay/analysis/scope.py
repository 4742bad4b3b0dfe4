"""Declared tool scope: which tools one agent may call, on what, and the calls outside it.

The file format is read by :mod:`toolreplay.formats.scope`.

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
from collections.abc import Iterable, Mapping
from dataclasses import field

from toolreplay.analysis.matching import lookup, value_matches
from toolreplay.core.canonical import JSONValue
from toolreplay.core.model import Call, Finding, FindingKind, sorted_findings
from toolreplay.core.records import record

_SCOPE_KEYS = ("agent", "allowed_tools")
_OPTIONAL_KEYS = ("allowed_args",)


@record
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
            if found and not any(value_matches(value, pattern) for pattern in allowed):
                shown = json.dumps(value, ensure_ascii=False)
                return (
                    f"tool '{call.tool}' argument '{path}' = {shown} is outside the declared scope "
                    f"for agent '{self.agent}'"
                )
        return None


@record
class ScopeReport:
    """The calls of one recording checked against a scope."""

    calls: int
    findings: tuple[Finding, ...]


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
