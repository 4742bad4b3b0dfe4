"""Counts in every report agree with their number: each report rendered with one and with two of each count."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from toolreplay.core.findings import Rule
from toolreplay.core.model import Call, Origin, Session
from toolreplay.core.outcome import Analysis, CheckFinding, CheckReport, Location, UnitResult
from toolreplay.core.verdict import FailOn
from toolreplay.core.wording import agree, count, tally
from toolreplay.replay.engine import ReplaySetup, Run
from toolreplay.replay.noise import weigh_changes
from toolreplay.replay.report import ReplayReport
from toolreplay.report.check_text import render_check
from toolreplay.report.github import render_annotations
from toolreplay.report.markdown import render_markdown
from toolreplay.report.text import render_noise, render_replay, render_show
from toolreplay.settings import Unrecorded
from toolreplay.stats.design import Design

# The nouns the reports count, with their plurals.
NOUNS = {
    "call": "calls",
    "tool call": "tool calls",
    "run": "runs",
    "lost run": "lost runs",
    "unchanged run": "unchanged runs",
    "finding": "findings",
    "analysis": "analyses",
    "session": "sessions",
    "recorded session": "recorded sessions",
    "behaviour": "behaviours",
    "row": "rows",
    "more row": "more rows",
    "error": "errors",
    "warning": "warnings",
    "round": "rounds",
    "change": "changes",
    "difference": "differences",
}
_NOT_A_NUMBER_BEFORE = r"(?<![\d.,/-])"  # a count, not the end of a fraction, a decimal or a range


def disagreements(text: str) -> list[str]:
    """Every count whose noun or verb does not agree with its number: ``1 sessions``, ``2 finding``,
    ``1 finding fail``."""
    found: list[str] = []
    for singular, plural in NOUNS.items():
        found += re.findall(rf"{_NOT_A_NUMBER_BEFORE}\b1 {plural}\b", text)
        found += re.findall(rf"{_NOT_A_NUMBER_BEFORE}\b(?:0|[2-9]|\d\d+) {singular}\b(?![-/])", text)
    found += re.findall(rf"{_NOT_A_NUMBER_BEFORE}\b1 findings? fail\b", text)
    found += re.findall(rf"{_NOT_A_NUMBER_BEFORE}\b(?:0|[2-9]|\d\d+) findings fails\b", text)
    return found


def test_the_checker_catches_what_it_is_for() -> None:
    bad = "1 sessions · 2 finding · 1 finding fail the check · 3 findings fails · 1 more rows"
    assert len(disagreements(bad)) == 5
    good = "1 session · 2 findings · 1 finding fails · 9/20 runs · in 1/1 run · 0.5 run-time · seeds 1-2 runs"
    assert disagreements(good) == []


def test_the_helpers() -> None:
    assert [count(n, "analysis", "analyses") for n in (0, 1, 2)] == ["0 analyses", "1 analysis", "2 analyses"]
    assert [agree(n, "fails", "fail") for n in (0, 1, 2)] == ["fail", "fails", "fail"]
    # an ending that ends in a number of its own is never followed by a bare count
    assert tally(["exited with 1", "final reply", "final reply"]) == "exited with 1 in 1 run, final reply in 2 runs"


def _finding(rule: Rule, number: int) -> CheckFinding:
    return CheckFinding(
        rule=rule, message=f"found {number}", location=Location("a.jsonl", number), fingerprint=f"{number:032x}"
    )


def _check(findings: list[CheckFinding], units: int, shard: tuple[int, int] | None = None) -> CheckReport:
    results = tuple(
        UnitResult(key=f"audit {n}.jsonl", analysis=Analysis.AUDIT, subject=f"{n}.jsonl", summary="checked")
        for n in range(units)
    )
    first = replace(results[0], findings=tuple(findings))
    return CheckReport(None, "0" * 64, FailOn.DESTRUCTIVE, tuple(r.key for r in results), (first, *results[1:]), shard)


@pytest.mark.parametrize("n", [1, 2])
def test_the_check_reports_agree_with_their_counts(n: int) -> None:
    failing = [_finding(Rule.PERMISSION_OVERREACH, k) for k in range(1, n + 1)]
    warning = [_finding(Rule.NON_DETERMINISM, k) for k in range(1, n + 1)]
    for findings in (failing, warning, failing + warning, []):
        for report in (_check(findings, n), _check(findings, n + 1, (1, 2))):
            for text in (render_check(report), render_markdown(report)):
                assert disagreements(text) == [], text
    fail = render_check(_check(failing, n))
    assert f"FAIL: {count(n, 'finding')} {agree(n, 'fails', 'fail')} the check" in fail
    assert f"WARN: {count(n, 'finding')}, " in render_check(_check(warning, 1))
    # the summary's size limit: a note on the rows it cut, one or two of them
    many = [_finding(Rule.REDUNDANT_CALL, k) for k in range(1, 40)]
    for limit in range(4000, 9000, 97):
        assert disagreements(render_markdown(_check(many, 1), limit=limit)) == []
    # the annotations GitHub would not show
    annotations = render_annotations(_check([_finding(Rule.CHAIN_BROKEN, k) for k in range(n + 1)], 1), per_level=1)
    assert annotations.endswith(
        f"::notice title=toolreplay::{count(n, 'error')} more not shown here: see the job summary\n"
    )


def _replay(endings: list[str], calls: int = 1) -> ReplayReport:
    recorded = Session("recorded.json", tuple(Call(i, "read", {"i": i}, {}, i + 1) for i in range(calls)))
    setup = ReplaySetup(recorded, "", (), Unrecorded.ERROR, (), 1)
    runs = tuple(
        Run(
            n,
            n,
            recorded.calls,
            (Origin.RECORDED,) * calls,
            ending,
            "done",
            error="it broke" if ending == "error" else None,
        )
        for n, ending in enumerate(endings, start=1)
    )
    return ReplayReport(setup, "scripted:agent.py", runs, (), (), FailOn.DESTRUCTIVE)


@pytest.mark.parametrize("n", [1, 2])
def test_the_replay_reports_agree_with_their_counts(n: int) -> None:
    for endings in (["final reply"] * n, ["exited with 1"] * n, ["final reply"] * n + ["error"] * n):
        text = render_replay(_replay(endings, n), None, None)
        assert disagreements(text) == [], text
        noise = weigh_changes(_replay(endings, n), _replay(endings, n), Design(), FailOn.DESTRUCTIVE)
        text = render_noise(noise, None, None)
        assert disagreements(text) == [], text
    assert disagreements(render_show(Session("s.jsonl", _replay([], n).setup.recording.calls), ["read-only"] * n)) == []
    # an ending's own number is never followed by the count of runs that ended so
    text = render_replay(_replay(["exited with 1"] * n), None, None)
    assert f"endings: exited with 1 in {count(n, 'run')}" in text
    assert not re.search(r"exited with 1 \d", text)


def test_a_comparison_says_what_it_is() -> None:
    report = _replay(["final reply"] * 2)
    noise = weigh_changes(report, report, Design(), FailOn.DESTRUCTIVE)
    assert render_noise(noise, None, None, "edited: a.json · unchanged: b.json", "compare").startswith(
        "compare: recorded.json (1 call recorded)\nedited: a.json · unchanged: b.json\n"
    )
    assert render_noise(noise, None, None).startswith("replay: recorded.json")
