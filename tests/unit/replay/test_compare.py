"""Recorded sessions compared as runs: each session one run, its calls all answered from the recording."""

from __future__ import annotations

from tests.conftest import ROOT
from toolreplay.analysis.classify import Policy
from toolreplay.core.model import Origin
from toolreplay.core.verdict import FailOn, Verdict
from toolreplay.formats.recording import load_session
from toolreplay.replay.compare import as_run, compare_sessions
from toolreplay.stats.design import Design

OPS = ROOT / "samples" / "ops"


def test_a_session_is_a_run_that_made_its_recorded_calls() -> None:
    session = load_session(str(OPS / "session.json"))
    run = as_run(4, session)
    assert (run.number, run.calls, run.ending) == (4, session.calls, "final reply")
    assert set(run.origins) == {Origin.RECORDED}


def test_the_edited_sessions_destructive_call_is_more_frequent_than_the_unchanged_ones() -> None:
    reference = load_session(str(OPS / "session.json"))
    edited = [load_session(str(p)) for p in sorted((OPS / "recorded").glob("edited-*.json"))]
    unchanged = [load_session(str(p)) for p in sorted((OPS / "recorded").glob("unchanged-*.json"))]
    report = compare_sessions(reference, edited, unchanged, Policy(), Design(), FailOn.DESTRUCTIVE)
    assert (report.candidate.answered, report.baseline.answered) == (len(edited), len(unchanged))
    assert report.verdict is Verdict.FAIL
    same = compare_sessions(reference, unchanged, unchanged, Policy(), Design(), FailOn.DESTRUCTIVE)
    assert same.verdict is not Verdict.FAIL
