from __future__ import annotations

from toolreplay.analysis.audit import AuditReport, audit
from toolreplay.analysis.classify import DEFAULT_MUTATORS, Classifier, ClassRule, Policy
from toolreplay.core.canonical import JSONObject
from toolreplay.core.model import Call, CallClass, FindingKind

Spec = tuple[str, JSONObject, JSONObject]


def calls(*specs: Spec) -> list[Call]:
    return [Call(i, tool, args, resp, line=i + 1) for i, (tool, args, resp) in enumerate(specs)]


READ: Spec = ("read_file", {"path": "a"}, {"bytes": 1})


def kinds(report: AuditReport) -> list[tuple[int, str]]:
    return [(f.index, f.kind.value) for f in report.findings]


def test_clean_session_has_no_findings() -> None:
    report = audit(calls(READ, ("search", {"q": "x"}, {"hits": 1})))
    assert (report.calls, report.divergence, report.findings) == (2, None, ())


def test_adjacent_identical_read_is_redundant() -> None:
    report = audit(calls(READ, READ, READ))
    assert kinds(report) == [(1, "redundant-call"), (2, "redundant-call")]
    assert "at index 1 " in report.findings[1].detail


def test_a_different_call_between_resets_redundancy() -> None:
    report = audit(calls(READ, ("search", {"q": "x"}, {"hits": 1}), READ))
    assert report.findings == ()


def test_argument_order_does_not_matter_for_identity() -> None:
    report = audit(calls(("f", {"a": 1, "b": 2}, {}), ("f", {"b": 2, "a": 1}, {})))
    assert kinds(report) == [(1, "redundant-call")]


def test_repeated_mutator_is_not_redundant() -> None:
    write: Spec = ("write_file", {"path": "a", "text": "x"}, {"ok": True})
    assert audit(calls(write, write)).findings == ()
    assert "write_file" in DEFAULT_MUTATORS


def test_custom_mutator_test_is_used() -> None:
    push: Spec = ("git_push", {}, {"ok": True})
    assert kinds(audit(calls(push, push))) == [(1, "redundant-call")]
    rules = Policy(rules=(ClassRule("git_push", CallClass.WRITE),))
    assert audit(calls(push, push), Classifier(rules)).findings == ()


def test_different_response_is_non_determinism_not_redundancy() -> None:
    report = audit(calls(("search", {"q": "x"}, {"hits": 3}), ("search", {"q": "x"}, {"hits": 7})))
    assert kinds(report) == [(1, "non-determinism")]
    assert report.divergence == 1


def test_non_determinism_compares_against_the_first_occurrence() -> None:
    a: Spec = ("s", {}, {"r": 1})
    b: Spec = ("s", {}, {"r": 2})
    report = audit(calls(a, ("x", {}, {}), b, ("x", {}, {}), b, ("x", {}, {}), a))
    assert kinds(report) == [(2, "non-determinism"), (4, "non-determinism")]
    assert all("at index 0" in f.detail for f in report.findings)
    assert report.divergence == 2


def test_findings_carry_the_line_of_their_call() -> None:
    report = audit(calls(READ, READ))
    assert report.findings[0].line == 2
    assert report.findings[0].kind is FindingKind.REDUNDANT_CALL


def test_in_a_session_a_write_in_between_explains_a_different_answer() -> None:
    """Sessions are stateful: the world may change between two reads, when a write or deletion comes between."""
    usage_before: Spec = ("disk_usage", {"host": "h"}, {"used": "97%"})
    archive: Spec = ("archive_path", {"path": "/logs"}, {"ok": True})
    usage_after: Spec = ("disk_usage", {"host": "h"}, {"used": "63%"})
    rules = Classifier(Policy(rules=(ClassRule("archive_path", CallClass.WRITE),)))
    assert audit(calls(usage_before, archive, usage_after), rules, stateful=True).findings == ()
    # The auditor's rule for flat transcripts stands: the same calls there are non-determinism.
    assert kinds(audit(calls(usage_before, archive, usage_after), rules)) == [(2, "non-determinism")]
    # With nothing in between that changes state, a different answer is non-determinism in a session too,
    # compared with the last answer, not the first.
    stateful = audit(calls(usage_before, archive, usage_after, usage_before), rules, stateful=True)
    assert kinds(stateful) == [(3, "non-determinism")]
    assert "identical call at index 2" in stateful.findings[0].detail
    read_only: Spec = ("search", {"q": "x"}, {"hits": 1})
    assert kinds(audit(calls(usage_before, read_only, usage_after), rules, stateful=True)) == [(2, "non-determinism")]
