"""The check renderers on made-up reports: the annotation cap, the summary's size limit, the verdict rule."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import ROOT
from toolreplay.core.findings import Level, Rule
from toolreplay.core.outcome import Analysis, CheckFinding, CheckReport, Location, UnitResult
from toolreplay.core.verdict import FailOn, Verdict
from toolreplay.report.github import render_annotations
from toolreplay.report.markdown import render_markdown


def _report(findings: list[CheckFinding], fail_on: FailOn = FailOn.DESTRUCTIVE) -> CheckReport:
    summary = f"{len(findings)} findings"
    result = UnitResult(
        key="audit a.jsonl", analysis=Analysis.AUDIT, subject="a.jsonl", summary=summary, findings=tuple(findings)
    )
    return CheckReport(None, "0" * 64, fail_on, (result.key,), (result,))


def _finding(rule: Rule, number: int, message: str = "found") -> CheckFinding:
    where = Location("a.jsonl", number)
    return CheckFinding(rule=rule, message=f"{message} {number}", location=where, fingerprint=f"{number:032x}")


def test_annotations_stop_at_ten_per_level() -> None:
    findings = [_finding(Rule.PERMISSION_OVERREACH, n) for n in range(1, 14)]
    findings += [_finding(Rule.REDUNDANT_CALL, n) for n in range(1, 4)]
    lines = render_annotations(_report(findings)).splitlines()
    assert sum(line.startswith("::error ") for line in lines) == 10
    assert sum(line.startswith("::notice file=") for line in lines) == 3
    assert lines[-1] == "::notice title=toolreplay::3 errors more not shown here: see the job summary"


def test_annotation_text_is_escaped() -> None:
    where = Location("dir,x/a:b.jsonl", 2)
    finding = CheckFinding(rule=Rule.CHAIN_BROKEN, message="100% broken\nreally", location=where, fingerprint="f" * 32)
    (line,) = render_annotations(_report([finding])).splitlines()
    assert line == "::error file=dir%2Cx/a%3Ab.jsonl,line=2,title=toolreplay chain-broken::100%25 broken%0Areally"


def test_markdown_stays_under_the_limit_with_a_note() -> None:
    findings = [_finding(Rule.NON_DETERMINISM, n, "x" * 200) for n in range(1, 2001)]
    report = _report(findings)
    full = render_markdown(report)
    assert "more rows not shown" not in full
    limited = render_markdown(report, limit=50_000)
    assert len(limited.encode()) <= 50_000
    assert "more rows not shown: the summary has a size limit" in limited
    assert limited.startswith("## toolreplay check: ⚠️ WARN")
    assert limited.count("<details>") == limited.count("</details>") == 1
    assert "### Analyses\n\n*1 more row not shown" in limited


def test_markdown_escapes_table_cells() -> None:
    finding = _finding(Rule.REDUNDANT_CALL, 1, "a | b")
    assert "a \\| b 1" in render_markdown(_report([finding]))


@pytest.mark.parametrize(
    ("rule", "fail_on", "verdict"),
    [
        (Rule.PERMISSION_OVERREACH, FailOn.DESTRUCTIVE, Verdict.FAIL),
        (Rule.NON_DETERMINISM, FailOn.DESTRUCTIVE, Verdict.WARN),
        (Rule.NON_DETERMINISM, FailOn.CHANGED, Verdict.FAIL),
        (Rule.CHAIN_BROKEN, FailOn.NEVER, Verdict.WARN),
        (None, FailOn.CHANGED, Verdict.PASS),
    ],
)
def test_the_verdict_follows_fail_on(rule: Rule | None, fail_on: FailOn, verdict: Verdict) -> None:
    findings = [_finding(rule, 1)] if rule is not None else []
    assert _report(findings, fail_on).verdict is verdict


def test_docs_describe_every_kind_of_finding() -> None:
    text = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    for rule in Rule:
        assert f"## {rule.value}\n" in text
        assert rule.info.short in text
        assert rule.info.help in text


def test_under_fail_on_changed_a_destructive_call_not_shown_to_be_the_changes_warns() -> None:
    from toolreplay.core.verdict import FailOn, Verdict  # noqa: PLC0415

    where = Location("a.json", 1)
    seen = CheckFinding(rule=Rule.DESTRUCTIVE_SEEN, message="seen", location=where, fingerprint="f" * 16)
    result = UnitResult(
        key="replay 1 a.json", analysis=Analysis.REPLAY, subject="a.json", summary="s", findings=(seen,)
    )
    for fail_on in (FailOn.CHANGED, FailOn.DESTRUCTIVE, FailOn.NEVER):
        report = CheckReport(None, "0" * 64, fail_on, (result.key,), (result,))
        assert (report.verdict, report.failing) == (Verdict.WARN, ())
    attributed = CheckFinding(
        rule=Rule.BEHAVIOUR_CHANGE, message="changed", location=Location("a.json", 2), fingerprint="e" * 16
    )
    both = replace(result, findings=(seen, attributed))
    report = CheckReport(None, "0" * 64, FailOn.CHANGED, (both.key,), (both,))
    assert (report.verdict, report.failing) == (Verdict.FAIL, (attributed,))


def test_a_call_the_recording_never_made_has_no_recorded_line(tmp_path: Path) -> None:
    """An added call is related to the recording as a whole, said to be the one that never made it; a removed one
    to its own recorded line."""
    from toolreplay.formats.check_report import read_check_report, render_check_json  # noqa: PLC0415
    from toolreplay.report.check_text import render_check  # noqa: PLC0415
    from toolreplay.report.html import render_html  # noqa: PLC0415
    from toolreplay.report.sarif import render_sarif  # noqa: PLC0415

    added = CheckFinding(
        rule=Rule.DESTRUCTIVE_CALL,
        message="added call delete()",
        location=Location("prompt.txt", 2),
        absent_from="sessions/kg.json",
        fingerprint="a" * 32,
    )
    removed = CheckFinding(
        rule=Rule.BEHAVIOUR_CHANGE,
        message="removed call archive()",
        location=Location("prompt.txt", 2),
        related=(Location("sessions/kg.json", 385),),
        fingerprint="b" * 32,
    )
    result = UnitResult(
        key="replay 1 sessions/kg.json",
        analysis=Analysis.REPLAY,
        subject="sessions/kg.json",
        summary="2 runs",
        findings=(added, removed),
    )
    report = CheckReport(None, "0" * 64, FailOn.DESTRUCTIVE, (result.key,), (result,))
    text = render_check(report).splitlines()
    assert next(line for line in text if "added call" in line).endswith(
        "added call delete() (not in the recording: sessions/kg.json)"
    )
    assert next(line for line in text if "removed call" in line).endswith("(recorded: sessions/kg.json:385)")
    markdown = render_markdown(report)
    assert "`prompt.txt:2` (not in the recording `sessions/kg.json`) |" in markdown
    assert "`prompt.txt:2` (recorded `sessions/kg.json:385`) |" in markdown
    assert "not in the recording</span> <code>sessions/kg.json</code>" in render_html(report)
    first, second = json.loads(render_sarif(report))["runs"][0]["results"]
    assert first["relatedLocations"] == [
        {
            "id": 1,
            "physicalLocation": {"artifactLocation": {"uri": "sessions/kg.json", "uriBaseId": "%SRCROOT%"}},
            "message": {"text": "The recording, which never made this call."},
        }
    ]
    (recorded,) = second["relatedLocations"]
    assert recorded["physicalLocation"]["region"] == {"startLine": 385}
    assert recorded["message"] == {"text": "The recorded call."}
    # and a shard's report reads back to the same findings
    path = tmp_path / "report.json"
    path.write_text(render_check_json(report), encoding="utf-8")
    assert read_check_report(path) == report


def test_the_markdown_counts_each_finding_at_its_own_level() -> None:
    """A config can give a kind another level (unsealed-edits: error, a tools level): the table says the level the
    findings have, one row for each level a kind was found at."""
    raised = replace(_finding(Rule.RECORDING_EDITED, 1), severity=Level.ERROR)
    lowered = replace(_finding(Rule.TOOL_CHANGED, 2), severity=Level.NOTE)
    default = _finding(Rule.TOOL_CHANGED, 3)
    page = render_markdown(_report([raised, lowered, default]))
    table = [line for line in page.splitlines() if line.startswith(("| recording-edited", "| tool-"))]
    assert table == [
        "| recording-edited | error | 1 |",
        "| tool-changed | note | 1 |",
        "| tool-changed | warning | 1 |",
    ]
