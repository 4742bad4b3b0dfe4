"""``audit``: each file against itself."""

from __future__ import annotations

from toolreplay.analysis.audit import audit
from toolreplay.commands.base import Emitter, load_policy
from toolreplay.core.findings import Gate, gated, rules_of
from toolreplay.core.model import Finding
from toolreplay.core.records import record
from toolreplay.core.verdict import Exit
from toolreplay.formats.recording import calls_and_classifier
from toolreplay.results.shown import FileAudit


@record
class AuditRequest:
    files: tuple[str, ...]
    rules: str | None = None
    strict: bool = False
    policies: str | None = None


def execute(request: AuditRequest, emitter: Emitter) -> Exit:
    """Audit each file, its report shown before the next is read; a finding in any of them decides the exit."""
    policy = load_policy(request.rules, request.strict, request.policies)
    found: list[Finding] = []
    for number, path in enumerate(request.files):
        report = audit(*calls_and_classifier(path, policy))
        emitter.show(FileAudit(path, report, number, len(request.files)))
        found += report.findings
    return gated(rules_of(found), Gate.ANY_FINDING).exit_code
