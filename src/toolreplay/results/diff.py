"""A diff, and any one analysis's result, as the records every report is drawn from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolreplay.analysis.diff import DiffResult
from toolreplay.core.canonical import canonical_bytes
from toolreplay.core.findings import ChangeVerdict, Level, Rule
from toolreplay.core.outcome import (
    Analysis,
    CheckFinding,
    CheckReport,
    Location,
    PolicyInfo,
    PolicyRow,
    RunView,
    Side,
    Statement,
    UnitResult,
)
from toolreplay.core.verdict import FailOn
from toolreplay.core.wording import count, format_call
from toolreplay.results.locate import fingerprint
from toolreplay.results.views import call_view, diff_view

if TYPE_CHECKING:  # the base and the tools analyses are loaded only by a check that has them
    from toolreplay.analysis.policies import Violation


def single_report(result: UnitResult, fail_on: FailOn, stated: Statement) -> CheckReport:
    """One analysis's result as a whole report, with what its command said of it: what ``replay``, ``compare`` and
    ``diff`` render every report kind from."""
    policies = tuple(PolicyInfo(row.id, row.level, row.why, row.says) for row in result.policies)
    return CheckReport(None, "", fail_on, (result.key,), (result,), stated=stated, policies=policies)


def diff_result(result: DiffResult, a: str, b: str) -> UnitResult:
    """A diff as a check unit's result: each difference a finding at B's line, both sides' calls, the diff."""
    found: list[CheckFinding] = []
    new_destructive = {id(pair) for pair in result.new_destructive}  # by identity: equality compares whole calls
    for pair in result.differences:
        call = pair.b if pair.b is not None else pair.a
        if call is None:
            continue
        klass = result.classes_b[pair.b.index] if pair.b is not None else result.classes_a[call.index]
        destructive = id(pair) in new_destructive
        rule = Rule.DESTRUCTIVE_CALL if destructive else Rule.BEHAVIOUR_CHANGE
        text = f"{pair.kind.value} call {format_call(call)} ({klass.value})"
        if destructive:
            text += f": destructive, and {a} does not make it"
        where = Location(b, pair.b.line or 1) if pair.b is not None else Location(a, call.line or 1)
        related = (Location(a, pair.a.line or 1),) if pair.a is not None and pair.b is not None else ()
        identity = canonical_bytes(call.args).decode()
        mark = fingerprint(rule.value, f"diff {a} {b}", pair.kind.value, call.tool, identity, str(call.index))
        found.append(CheckFinding(rule=rule, message=text, location=where, related=related, fingerprint=mark))
    for number, broken in enumerate(result.broken, 1):
        policy = broken.policy
        level = None if policy.level is Rule.POLICY_VIOLATION.level else policy.level
        found.append(
            CheckFinding(
                rule=Rule.POLICY_VIOLATION,
                message=f"policy {policy.id} ({policy.level.value}): {broken.detail}, which {a} does not: {policy.why}",
                location=Location(b, broken.line or 1),
                related=(Location(b, broken.earlier_line),) if broken.earlier_line else (),
                fingerprint=fingerprint(Rule.POLICY_VIOLATION.value, f"diff {a} {b}", "policy", policy.id, str(number)),
                severity=level,
                policy=policy.id,
            )
        )
    differences = len(result.differences)
    summary = f"{count(len(result.b.calls), 'call')} against {len(result.a.calls)}: "
    summary += f"{count(differences, 'difference')}" if differences else "the same calls"
    b_ending = "final reply" if result.b.context is not None and result.b.context.final_reply else "no final reply"
    calls = tuple(call_view(call, klass) for call, klass in zip(result.b.calls, result.classes_b, strict=True))
    return UnitResult(
        key=f"diff {a} {b}",
        analysis=Analysis.DIFF,
        subject=b,
        summary=summary,
        inputs=(a,),
        findings=tuple(found),
        recording=tuple(call_view(call, klass) for call, klass in zip(result.a.calls, result.classes_a, strict=True)),
        runs=(RunView(Side.COMPARED, 1, b_ending, b, calls),),
        diff=diff_view(result, a, b),
        policies=tuple(_broken_row(found) for found in result.broken),
    )


def _broken_row(found: Violation) -> PolicyRow:
    """A policy B breaks and A keeps, as a row of the one run B is."""
    policy = found.policy
    verdict = ChangeVerdict.DESTRUCTIVE if policy.level is Level.ERROR else ChangeVerdict.CHANGED
    return PolicyRow(policy.id, policy.level, policy.why, policy.text(), 1, 1, None, None, None, None, verdict, (1,),
                     (), found.detail)  # fmt: skip
