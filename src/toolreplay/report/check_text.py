"""The check report as plain text, for a terminal or a CI log."""

from __future__ import annotations

from collections import Counter

from toolreplay.core.canonical import JSONObject
from toolreplay.core.escape import one_line
from toolreplay.core.findings import Rule
from toolreplay.core.model import Call
from toolreplay.core.outcome import ChangeRow, CheckFinding, CheckReport, FieldView, Statement, UnrecordedRow
from toolreplay.core.verdict import Verdict
from toolreplay.core.wording import agree, count, format_call, format_changed, p_value


def call_text(tool: str, args: JSONObject) -> str:
    return format_call(Call(0, tool, args, None, 0))


def field_lines(fields: tuple[FieldView, ...]) -> list[str]:
    """Each argument of a changed call that differs from the recorded call's: ``path: before → after``, each cut
    where it shows the difference."""
    lines = []
    for field in fields:
        before, after = format_changed(field.before or "", field.after or "")
        shown = (before if field.before is not None else "(absent)", after if field.after is not None else "(absent)")
        lines.append(f"{field.path}: {shown[0]} → {shown[1]}")
    return lines


def rates(row: ChangeRow) -> str:
    """A change's runs, with the baseline's and the test's p and q when a baseline ran."""
    edited = f"{row.hits}/{row.runs}"
    if row.baseline_runs is None or row.p is None or row.q is None:
        return f"in {row.hits}/{count(row.runs, 'run')}"
    return (
        f"edited {edited} · unchanged {row.baseline_hits}/{row.baseline_runs} · p {p_value(row.p)} · q {p_value(row.q)}"
    )


def counts_line(report: CheckReport) -> str:
    counts = report.counts
    if not counts:
        return "findings: none"
    return "findings: " + ", ".join(f"{count} {rule.value}" for rule, count in counts.items())


def statement(report: CheckReport) -> Statement:
    """What the report's command says: its own statement, or a check's, from its findings."""
    if report.stated is not None:
        return report.stated
    return Statement("check", verdict_line(report))


def verdict_line(report: CheckReport) -> str:
    """The verdict and why, as one sentence."""
    failing = report.failing
    findings = report.findings
    rule = f"fail-on {report.fail_on.value}"
    if report.verdict is Verdict.FAIL:
        kinds = Counter(finding.rule for finding in failing)
        named = ", ".join(f"{kinds[r]} {r.value}" for r in Rule if kinds[r])
        more = len(findings) - len(failing)
        tail = f"; {more} more reported" if more else ""
        fail = agree(len(failing), "fails", "fail")
        return f"FAIL: {count(len(failing), 'finding')} {fail} the check ({named}){tail} ({rule})"
    if report.verdict is Verdict.WARN:
        none = agree(len(findings), "which does not fail", "none that fail")
        return f"WARN: {count(len(findings), 'finding')}, {none} the check ({rule})"
    return f"PASS: nothing found in {count(len(report.results), 'analysis', 'analyses')} ({rule})"


def scope_line(report: CheckReport) -> str:
    where = f"config: {report.config}" if report.config else "config: none (recordings found under the directory)"
    if report.shard is not None:
        k, n = report.shard
        return f"{where} · shard {k}/{n}: {len(report.results)} of {count(len(report.units), 'analysis', 'analyses')}"
    return f"{where} · {count(len(report.units), 'analysis', 'analyses')}"


def _finding(finding: CheckFinding) -> str:
    place = f"{finding.location.path}:{finding.location.line}"
    related = "".join(f" (recorded: {r.path}:{r.line})" for r in finding.related)
    if finding.absent_from is not None:
        related += f" (not in the recording: {finding.absent_from})"
    return f"  {finding.level.value:<8} {finding.rule.value}  {place}  {finding.message}{related}"


def _changes(rows: tuple[ChangeRow, ...]) -> list[str]:
    """One line per change; a behaviour's later changes say they were made in the same runs."""
    lines = []
    for number, row in enumerate(rows):
        call = f"{row.kind.value} {call_text(row.tool, row.args)}  {row.klass.value}"
        if number and rows[number - 1].behaviour == row.behaviour:
            lines.append(f"  {'':<11} {call}  (in the same runs)")
        else:
            lines.append(f"  {row.verdict.value:<11} {call}  {rates(row)}")
        lines.extend(f"  {'':<11} {'':<8} {line}" for line in field_lines(row.fields))
    return lines


def _unrecorded(row: UnrecordedRow) -> str:
    call = call_text(row.tool, row.args)
    answered = row.answered.words
    return f"  unrecorded  {call}  {row.klass.value}  in {row.hits}/{count(row.runs, 'run')}, answered: {answered}"


def render_check(report: CheckReport) -> str:
    lines = [f"toolreplay check: {report.verdict.value}", scope_line(report), counts_line(report), ""]
    for result in report.results:
        lines.append(f"{result.analysis.value:<7} {result.subject}: {result.summary}")
        lines.extend(_changes(result.changes))
        lines.extend(_unrecorded(row) for row in result.unrecorded)
        lines.extend(
            f"  tools  {change.level.value:<8} {change.kind}  {change.tool}  {change.detail}" for change in result.tools
        )
        lines.extend(_finding(finding) for finding in result.findings)
    lines.append("")
    lines.append(f"verdict: {verdict_line(report)}")
    return "".join(one_line(line) + "\n" for line in lines)
