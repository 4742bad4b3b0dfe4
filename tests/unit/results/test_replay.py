"""A comparison as a check unit's result: each finding at the edited session's line, the rows, the sessions."""

from __future__ import annotations

from tests.conftest import ROOT
from toolreplay.analysis.classify import Policy
from toolreplay.core.findings import Rule
from toolreplay.core.verdict import FailOn
from toolreplay.formats.recording import load_session
from toolreplay.replay.compare import compare_sessions
from toolreplay.results.replay import compare_result
from toolreplay.stats.design import Design

OPS = ROOT / "samples" / "ops"


def test_a_destructive_behaviour_of_the_edit_is_a_finding_at_an_edited_sessions_call() -> None:
    reference = load_session(str(OPS / "session.json"))
    edited = sorted((OPS / "recorded").glob("edited-*.json"))
    unchanged = sorted((OPS / "recorded").glob("unchanged-*.json"))
    report = compare_sessions(
        reference, [load_session(str(p)) for p in edited], [load_session(str(p)) for p in unchanged],
        Policy(), Design(), FailOn.DESTRUCTIVE,
    )  # fmt: skip
    shown = [f"recorded/{p.name}" for p in edited]
    result = compare_result(
        "compare ops", "session.json", reference, report, Policy(), shown, [p.name for p in unchanged]
    )
    destructive = [f for f in result.findings if f.rule is Rule.DESTRUCTIVE_CALL]
    assert destructive
    assert all(f.location.path in shown and f.location.line > 1 for f in destructive)
    assert result.key == "compare ops"
