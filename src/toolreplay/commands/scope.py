"""``scope``: the calls of a recording outside the tools an agent may use."""

from __future__ import annotations

from toolreplay.analysis.scope import check_scope
from toolreplay.commands.base import Emitter
from toolreplay.core.findings import Gate, gated, rules_of
from toolreplay.core.records import record
from toolreplay.core.verdict import Exit
from toolreplay.formats.recording import iter_calls
from toolreplay.formats.scope import read_scope


@record
class ScopeRequest:
    file: str
    scope: str


def execute(request: ScopeRequest, emitter: Emitter) -> Exit:
    scope = read_scope(request.scope)  # the scope's errors before the recording's
    report = check_scope(iter_calls(request.file), scope)
    emitter.show(report)
    return gated(rules_of(report.findings), Gate.ANY_FINDING).exit_code
