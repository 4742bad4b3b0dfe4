"""Measuring the agent against itself: is a change the edit's, or the agent's usual noise?

The candidate runs (with the edit) and the baseline runs (the unchanged
configuration) are each diffed against the recording. Every change seen with
the edit is counted once per run on both sides and tested: is it more frequent
with the edit than without it? One-sided Fisher exact test, with the false
discovery rate across all the changes of one report held at ``alpha``
(Benjamini-Hochberg). Verdicts:

- ``DESTRUCTIVE``: a destructive call the unchanged runs never made, however rarely
  the edit makes it;
- ``changed``: clearly more frequent with the edit (q below ``alpha``);
- ``noise``: not distinguishable from how often the agent does it anyway.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from toolreplay.canonical import canonical_bytes
from toolreplay.replay.report import Change, ReplayReport
from toolreplay.stats import (
    benjamini_hochberg,
    clopper_pearson,
    fisher_greater,
    smallest_flagged,
    upper_bound_never_seen,
)
from toolreplay.verdict import FailOn, Verdict, decide

DEFAULT_ALPHA = 0.05


class ChangeVerdict(enum.Enum):
    DESTRUCTIVE = "DESTRUCTIVE"
    CHANGED = "changed"
    NOISE = "noise"


@dataclass(frozen=True, slots=True)
class TestedChange:
    """One change, its rate with and without the edit, and what the test says."""

    change: Change
    hits: int
    runs: int
    baseline_hits: int
    baseline_runs: int
    p: float
    q: float
    interval: tuple[float, float]
    baseline_interval: tuple[float, float]
    verdict: ChangeVerdict


@dataclass(frozen=True, slots=True)
class NoiseReport:
    """The candidate and baseline replays, and every candidate change tested against the baseline."""

    candidate: ReplayReport
    baseline: ReplayReport
    tested: tuple[TestedChange, ...]
    alpha: float
    fail_on: FailOn

    @property
    def smallest_flagged(self) -> int | None:
        """Fewest edited runs that flag a change the unchanged runs never make (one test alone)."""
        return smallest_flagged(self.candidate.answered, 0, self.baseline.answered, self.alpha)

    @property
    def never_seen_bound(self) -> float:
        """How often a change seen in none of the baseline runs may still happen there (one-sided 95%)."""
        return upper_bound_never_seen(self.baseline.answered)

    @property
    def verdict(self) -> Verdict:
        # Noise is what the agent does anyway: it neither fails nor warns.
        destructive = any(t.verdict is ChangeVerdict.DESTRUCTIVE for t in self.tested)
        changed = any(t.verdict is ChangeVerdict.CHANGED for t in self.tested)
        return decide(self.fail_on, destructive, changed)


def _key(change: Change) -> tuple[str, str, bytes]:
    return (change.kind.value, change.tool, canonical_bytes(change.args))


def weigh_changes(candidate: ReplayReport, baseline: ReplayReport, alpha: float, fail_on: FailOn) -> NoiseReport:
    """Test each candidate change against its rate in the baseline runs."""
    runs, baseline_runs = candidate.answered, baseline.answered
    seen_in_baseline = {_key(change): len(change.runs) for change in baseline.changes}
    counted = [(change, len(change.runs), seen_in_baseline.get(_key(change), 0)) for change in candidate.changes]
    p_values = [fisher_greater(hits, runs, base, baseline_runs) for _, hits, base in counted]
    q_values = benjamini_hochberg(p_values) if p_values else []
    tested: list[TestedChange] = []
    for (change, hits, base), p, q in zip(counted, p_values, q_values, strict=True):
        if change.new_destructive and base == 0:
            verdict = ChangeVerdict.DESTRUCTIVE
        elif q < alpha:
            verdict = ChangeVerdict.CHANGED
        else:
            verdict = ChangeVerdict.NOISE
        tested.append(
            TestedChange(
                change,
                hits,
                runs,
                base,
                baseline_runs,
                p,
                q,
                clopper_pearson(hits, runs),
                clopper_pearson(base, baseline_runs),
                verdict,
            )
        )
    order = {ChangeVerdict.DESTRUCTIVE: 0, ChangeVerdict.CHANGED: 1, ChangeVerdict.NOISE: 2}
    tested.sort(key=lambda t: (order[t.verdict], t.p, -t.hits, t.change.tool))
    return NoiseReport(candidate, baseline, tuple(tested), alpha, fail_on)


def seeds_for_baseline(first_candidate_seed: int, count: int) -> Sequence[int]:
    """Baseline seeds: 10000 above the candidate's, so the two ranges never meet for up to 10000 runs."""
    return range(first_candidate_seed + 10_000, first_candidate_seed + 10_000 + count)
