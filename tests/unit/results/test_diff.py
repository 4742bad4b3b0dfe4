"""A diff as a check unit's result, and its verdict in one sentence."""

from __future__ import annotations

from tests.conftest import ROOT
from toolreplay.analysis.classify import Policy
from toolreplay.analysis.diff import compare_recordings
from toolreplay.commands.diff import read_recording
from toolreplay.core.findings import Rule
from toolreplay.core.outcome import Statement
from toolreplay.core.verdict import FailOn, Verdict
from toolreplay.results.diff import diff_result, single_report
from toolreplay.results.statements import diff_verdict

OPS = ROOT / "samples" / "ops"


def test_a_new_destructive_call_is_a_finding_at_bs_line_with_as_call_beside() -> None:
    a, b = read_recording(str(OPS / "session.json")), read_recording(str(OPS / "session-edited.json"))
    result = compare_recordings(a, b, Policy(), FailOn.DESTRUCTIVE)
    unit = diff_result(result, "a.json", "b.json")
    destructive = [f for f in unit.findings if f.rule is Rule.DESTRUCTIVE_CALL]
    assert destructive
    assert all(f.location.path == "b.json" and f.location.line > 1 for f in destructive)
    assert all("a.json does not make it" in f.message for f in destructive)
    sentence = diff_verdict(result)
    assert sentence.startswith("FAIL: ")
    assert sentence.endswith("(--fail-on destructive)")
    report = single_report(unit, FailOn.DESTRUCTIVE, Statement("diff", sentence))
    assert (report.verdict, report.units) == (Verdict.FAIL, (unit.key,))


def test_the_same_recording_twice_makes_the_same_calls() -> None:
    a = read_recording(str(OPS / "session.json"))
    result = compare_recordings(a, a, Policy(), FailOn.CHANGED)
    assert diff_result(result, "a", "a").findings == ()
    assert diff_verdict(result) == "PASS: the two recordings made the same calls (--fail-on changed)"
