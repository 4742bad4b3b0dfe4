"""The line-oriented text reports.

No timestamps, no randomness and a fixed order, so two runs on the same input
print the same bytes and a committed report diffs to nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolreplay.audit import AuditReport
from toolreplay.chain import Verification
from toolreplay.model import Finding
from toolreplay.scope import ScopeReport


def _finding_lines(findings: Iterable[Finding]) -> list[str]:
    return [f"index {f.index}: {f.kind.value}: {f.detail}" for f in findings]


def _lines(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def render_audit(report: AuditReport) -> str:
    """``calls``, ``divergence`` and ``findings`` header, then one line per finding."""
    divergence = "none" if report.divergence is None else f"index {report.divergence}"
    header = [f"calls: {report.calls}", f"divergence: {divergence}", f"findings: {len(report.findings)}"]
    return _lines(header + _finding_lines(report.findings))


def render_scope(report: ScopeReport) -> str:
    """``calls`` and ``findings`` header, then one line per overreach."""
    header = [f"calls: {report.calls}", f"findings: {len(report.findings)}"]
    return _lines(header + _finding_lines(report.findings))


def render_verification(result: Verification) -> str:
    """``chain: intact``, or the first broken link with the expected and found digests."""
    if result.broken is None:
        return _lines(["chain: intact"])
    broken = result.broken
    return _lines(
        [
            "chain: broken",
            f"first broken link: index {broken.index}",
            f"expected: {broken.expected}",
            f"found: {broken.found}",
        ]
    )
