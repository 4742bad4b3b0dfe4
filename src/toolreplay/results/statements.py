"""What a command says of its verdict, as one sentence: the verdict and why, under the fail-on it was decided by.
The text report ends on it, and every other report of the command carries it as the command's statement."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolreplay.core.wording import count
from toolreplay.replay import reading

if TYPE_CHECKING:
    from toolreplay.analysis.diff import DiffResult
    from toolreplay.core.verdict import FailOn, Verdict
    from toolreplay.replay.noise import NoiseReport
    from toolreplay.replay.report import ReplayReport


def diff_verdict(result: DiffResult) -> str:
    """The verdict of a diff and why, as one sentence."""
    a, b = result.a, result.b
    destructive = result.new_destructive
    if destructive:
        where = ", ".join(f"{p.b.tool} at index {p.b.index}" for p in destructive if p.b is not None)
        summary = f"{b.path} makes {count(len(destructive), 'destructive call')} {a.path} does not: {where}"
    else:
        summary = _no_destructive(len(result.differences), "the two recordings made the same calls")
    if result.broken:
        broken = ", ".join(f"{found.policy.id} ({found.policy.level.value})" for found in result.broken)
        summary += f"; {b.path} breaks policies {a.path} keeps: {broken}"
    return _sentence(result.verdict, summary, result.fail_on)


def replay_verdict(report: ReplayReport) -> str:
    """The verdict of a replay without a baseline and why, as one sentence."""
    total = report.answered
    destructive: dict[str, set[int]] = {}
    for change in report.changes:
        if change.new_destructive:
            destructive.setdefault(change.tool, set()).update(change.runs)
    for made in report.lost_destructive:  # made in runs that then failed: made all the same
        destructive.setdefault(made.tool, set())
    if destructive:
        named = ", ".join(
            f"{tool} in {len(runs_of)} of {count(total, 'run')}"
            if runs_of
            else f"{tool} in runs that ended in an error"
            for tool, runs_of in sorted(destructive.items())
        )
        summary = f"destructive calls the recording never made: {named}"
    else:
        summary = _no_destructive(len(report.changes), "the candidate made the recorded calls")
    broken = [
        f"policy {b.policy.id} ({b.policy.level.value}) broken in {len(b.runs)} of {count(total, 'run')}"
        for b in report.policies
        if b.runs
    ]
    if broken:
        summary = "; ".join(broken) + ("; " + summary if destructive or report.changes else "")
    return _sentence(report.verdict, summary, report.fail_on)


def noise_verdict(report: NoiseReport) -> str:
    """The verdict of a replay or comparison against a baseline and why, as one sentence."""
    return _sentence(report.verdict, reading.summary(report), report.fail_on)


def _no_destructive(differences: int, none: str) -> str:
    return f"{count(differences, 'difference')}, none of them a new destructive call" if differences else none


def _sentence(verdict: Verdict, summary: str, fail_on: FailOn) -> str:
    return f"{verdict.value}: {summary} (--fail-on {fail_on.value})"
