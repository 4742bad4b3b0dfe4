"""Findings as GitHub Actions workflow commands, so they show as annotations on the files.

GitHub shows at most ten annotations of each level per step, so only the first
ten of each are printed and one notice says how many more the summary holds.
"""

from __future__ import annotations

from toolreplay.core.escape import workflow_data, workflow_property
from toolreplay.core.findings import Level
from toolreplay.core.outcome import CheckReport
from toolreplay.core.wording import count

PER_LEVEL = 10
_COMMAND = {Level.ERROR: "error", Level.WARNING: "warning", Level.NOTE: "notice"}


_data = workflow_data
_property = workflow_property


def render_annotations(report: CheckReport, per_level: int = PER_LEVEL) -> str:
    lines: list[str] = []
    left_out: dict[Level, int] = {}
    shown: dict[Level, int] = {}
    for finding in report.findings:
        level = finding.level
        if shown.get(level, 0) == per_level:
            left_out[level] = left_out.get(level, 0) + 1
            continue
        shown[level] = shown.get(level, 0) + 1
        where = f"file={_property(finding.location.path)},line={finding.location.line}"
        title = _property(f"toolreplay {finding.rule.value}")
        lines.append(f"::{_COMMAND[level]} {where},title={title}::{_data(finding.message)}")
    if left_out:
        more = ", ".join(count(number, _COMMAND[level]) for level, number in left_out.items())
        lines.append(f"::notice title=toolreplay::{more} more not shown here: see the job summary")
    return "".join(line + "\n" for line in lines)
