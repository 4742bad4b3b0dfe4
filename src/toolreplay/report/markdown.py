"""The check report as GitHub-flavoured markdown: a job summary or a pull-request comment.

Verdict first, then the counts by kind, then the tables. A table longer than
a screen is folded into ``<details>``. GitHub refuses a job summary over 1 MiB,
so rows stop before the limit and a note says how many were left out and where
to find them.
"""

from __future__ import annotations

from toolreplay.core.escape import for_markdown, markdown_code
from toolreplay.core.findings import Level, Rule
from toolreplay.core.outcome import Analysis, ChangeRow, CheckFinding, CheckReport
from toolreplay.core.verdict import Verdict
from toolreplay.core.wording import count, p_value
from toolreplay.report.check_text import call_text, counts_line, field_lines, scope_line, statement

SUMMARY_LIMIT = 1_000_000  # bytes; GitHub's limit for a step summary is 1 MiB
_FOLD = 10  # tables with more rows than this are folded
_RESERVE = 4096  # kept back for the notes and closing tags after the tables
_ICON = {Verdict.PASS: "✅", Verdict.WARN: "⚠️", Verdict.FAIL: "❌"}
_LEVEL_ICON = {Level.ERROR: "🔴", Level.WARNING: "🟠", Level.NOTE: "🔵"}


_cell = for_markdown
_code = markdown_code


class _Budget:
    """Bytes left for table rows; once a row does not fit, no later row is added either."""

    def __init__(self, limit: int) -> None:
        self.left = limit
        self.full = False

    def take(self, text: str) -> bool:
        size = len(text.encode()) + 1
        if self.full or size > self.left:
            self.full = True
            return False
        self.left -= size
        return True


def _table(title: str, header: str, rows: list[str], budget: _Budget, out: list[str]) -> None:
    if not rows:
        return
    out += [f"### {title}", ""]
    shown = [row for row in rows if budget.take(row)]
    folded = len(shown) > _FOLD
    if folded:
        out += [f"<details><summary>{count(len(rows), 'row')}</summary>", ""]
    if shown:
        out += [header, "|" + "---|" * (header.count("|") - 1), *shown]
    if folded:
        out += ["", "</details>"]
    if len(shown) < len(rows):  # said outside the folded block, where it is seen without opening it
        if shown:
            out.append("")
        out.append(
            f"*{count(len(rows) - len(shown), 'more row')} not shown: the summary has a size limit."
            " The JSON and SARIF reports hold them all.*"
        )
    out.append("")


def _where(path: str, line: int) -> str:
    return _code(f"{path}:{line}")


def _related(finding: CheckFinding) -> str:
    """The recorded calls a finding is about, or the recording that never made its call."""
    places = "".join(f" (recorded {_where(r.path, r.line)})" for r in finding.related)
    if finding.absent_from is not None:
        places += f" (not in the recording {_code(finding.absent_from)})"
    return places


def render_markdown(report: CheckReport, limit: int = SUMMARY_LIMIT) -> str:
    said = statement(report)
    out = [
        f"## toolreplay {said.command}: {_ICON[report.verdict]} {report.verdict.value}",
        "",
        f"**{_cell(said.sentence)}**",
        "",
    ]
    if said.command == "check":
        out += [_cell(scope_line(report)), ""]
    counts: dict[tuple[Rule, Level], int] = {}  # each at the level the findings have, the config's where it set one
    for finding in sorted(report.findings, key=lambda f: list(Rule).index(f.rule)):
        counts[finding.rule, finding.level] = counts.get((finding.rule, finding.level), 0) + 1
    if counts:
        out += ["| finding | level | count |", "|---|---|---:|"]
        out += [f"| {rule.value} | {level.value} | {number} |" for (rule, level), number in counts.items()]
    else:
        out.append(counts_line(report))
    out.append("")
    gate = [result for result in report.results if result.analysis is Analysis.POLICY]
    if gate:  # what the pull request changed about the gate, and how the check kept its code apart: read first
        out += ["### The gate", ""]
        out += [f"- **{_cell(result.subject)}**: {_cell(result.summary)}" for result in gate]
        out.append("")
    fixed = "\n".join(out).encode()
    budget = _Budget(limit - len(fixed) - _RESERVE)
    findings = [
        f"| {_LEVEL_ICON[f.level]} {f.level.value} | {f.rule.value} | {_where(f.location.path, f.location.line)}"
        f"{_related(f)} | {_cell(f.message)} |"
        for f in report.findings
    ]
    _table("Findings", "| level | kind | where | message |", findings, budget, out)
    changes = [
        f"| {_code(result.subject)} | {group[0].verdict.value} | "
        + "<br>".join(_change_cell(row) for row in group)
        + f" | {group[0].hits}/{group[0].runs} ({group[0].hits / group[0].runs:.0%}) "
        f"| {_baseline(group[0].baseline_hits, group[0].baseline_runs)} "
        f"| {_maybe_p(group[0].p)} | {_maybe_p(group[0].q)} |"
        for result in report.results
        for group in _behaviours(result.changes)
    ]
    _table(
        "Changes",
        "| session | verdict | changes (made in the same runs) | runs | unchanged runs | p | q |",
        changes,
        budget,
        out,
    )
    policies = [
        f"| {_code(result.subject)} | {row.words} | {_code(row.id)} ({row.level.value}): {_code(row.says)} "
        f"| {row.hits}/{row.runs} | {_baseline(row.baseline_hits, row.baseline_runs)} | {_maybe_p(row.p)} "
        f"| {_maybe_p(row.q)} | {_cell(row.why)} |"
        for result in report.results
        for row in result.policies
    ]
    _table(
        "Policies",
        "| session | verdict | policy | runs that broke it | unchanged runs | p | q | why |",
        policies,
        budget,
        out,
    )
    unrecorded = [
        f"| {_code(result.subject)} | {_code(call_text(row.tool, row.args))} | {row.klass.value} "
        f"| {row.hits}/{row.runs} | {row.answered.words} |"
        for result in report.results
        for row in result.unrecorded
    ]
    _table("Calls the recording never made", "| session | call | class | runs | answered |", unrecorded, budget, out)
    tools = [
        f"| {_code(result.subject)} | {_code(change.tool)} | {change.kind} | {change.level.value} "
        f"| {_cell(change.detail)} | {'yes' if change.called else 'no'} |"
        for result in report.results
        for change in result.tools
    ]
    _table(
        "Tools given, against the recorded",
        "| session | tool | change | level | detail | a behaviour calls it |",
        tools,
        budget,
        out,
    )
    analyses = [
        f"| {result.analysis.value} | {_code(result.subject)} | {_cell(result.summary)} |" for result in report.results
    ]
    _table("Analyses", "| analysis | file | result |", analyses, budget, out)
    return "\n".join(out) + "\n"


def _change_cell(row: ChangeRow) -> str:
    """A change in a table cell: its call and class, and a changed call's differing arguments, each cut where it
    shows the difference."""
    cell = f"{row.kind.value} {_code(call_text(row.tool, row.args))} ({row.klass.value})"
    return cell + "".join(f"<br>{_code(line)}" for line in field_lines(row.fields))


def _behaviours(rows: tuple[ChangeRow, ...]) -> list[list[ChangeRow]]:
    """The rows grouped by behaviour: a behaviour's changes are one row of the table."""
    groups: list[list[ChangeRow]] = []
    for row in rows:
        if groups and groups[-1][0].behaviour == row.behaviour:
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups


def _baseline(hits: int | None, runs: int | None) -> str:
    if hits is None or not runs:
        return "-"
    return f"{hits}/{runs} ({hits / runs:.0%})"


def _maybe_p(value: float | None) -> str:
    return "-" if value is None else p_value(value)
