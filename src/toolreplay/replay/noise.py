"""Measuring the agent against itself: did the edit cause a change, or does the agent do it anyway?

The candidate runs (with the edit) and the baseline runs (the unchanged
configuration) are each diffed against the recording. Changes made in exactly
the same runs on both sides are one **behaviour** (deleting a directory instead
of archiving it is two changes, an added call and a removed one, but one
thing the agent did): each behaviour is tested once, with an exact one-sided
test of "more frequent with the edit" (see :mod:`toolreplay.stats.design`).

Destructive behaviours and the others are two families, each with its false
discovery rate held at the round's level (Benjamini-Hochberg), so a change in
how the agent reads never costs a deletion its power. Verdicts:

- ``DESTRUCTIVE``: a destructive behaviour significantly more frequent with the
  edit, however often the unchanged agent does it too (20 of 20 against 1 of 20);
- ``changed``: any other behaviour significantly more frequent with the edit;
- ``undecided``: a destructive behaviour not yet shown to be the edit's, that
  more runs could still show: one the unchanged runs never made (whatever its
  q value), or one whose q value is at or below ``UNDECIDED_BELOW``;
- ``not shown``: not shown to be more frequent with the edit. That is not "as
  often": it takes in a change the runs were too few to show, and one that
  became rarer.

Every destructive behaviour is reported whatever its verdict, with both
counts, the edited rate's interval and how often the unchanged agent may make
it. ``--fail-on any-destructive`` keeps the zero-tolerance rule: a destructive
call the unchanged runs never made fails, attributed or not.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from toolreplay.core.canonical import canonical_bytes
from toolreplay.core.errors import ToolreplayError
from toolreplay.core.findings import ChangeVerdict, Level, Rule, decide_levels
from toolreplay.core.model import CallClass
from toolreplay.core.records import record
from toolreplay.core.verdict import FailOn, Verdict
from toolreplay.replay.report import Change, ReplayReport
from toolreplay.stats.design import MAX_EXACT_RUNS, UNDECIDED_BELOW, Design
from toolreplay.stats.exact import benjamini_hochberg, clopper_pearson, upper_bound
from toolreplay.stats.power import detectable_rate, p_value

if TYPE_CHECKING:
    from toolreplay.analysis.policies import CallPolicy, Violation

_ORDER = {
    ChangeVerdict.DESTRUCTIVE: 0,
    ChangeVerdict.UNDECIDED: 1,
    ChangeVerdict.CHANGED: 2,
    ChangeVerdict.NOT_SHOWN: 3,
}


@record
class Behaviour:
    """Changes made in exactly the same edited runs and the same unchanged runs: one thing the agent did."""

    changes: tuple[Change, ...]
    runs: tuple[int, ...]
    baseline_runs: tuple[int, ...]

    @property
    def destructive(self) -> bool:
        return any(change.new_destructive for change in self.changes)

    @property
    def lead(self) -> Change:
        """The change a one-line summary names: the first destructive one, else the first."""
        return next((change for change in self.changes if change.new_destructive), self.changes[0])


@record
class TestedBehaviour:
    """One behaviour, its rate with and without the edit, and what the test says."""

    behaviour: Behaviour
    hits: int
    runs: int
    baseline_hits: int
    baseline_runs: int
    p: float
    q: float
    level: float
    verdict: ChangeVerdict

    @property
    def changes(self) -> tuple[Change, ...]:
        return self.behaviour.changes

    @property
    def destructive(self) -> bool:
        return self.behaviour.destructive

    @property
    def interval(self) -> tuple[float, float]:
        """The edited rate's exact two-sided 95% interval."""
        return clopper_pearson(self.hits, self.runs)

    @property
    def baseline_interval(self) -> tuple[float, float]:
        return clopper_pearson(self.baseline_hits, self.baseline_runs)

    @property
    def baseline_bound(self) -> float:
        """How often the unchanged agent may make it: the one-sided 95% upper bound of its rate."""
        return upper_bound(self.baseline_hits, self.baseline_runs)


@record
class TestedPolicy:
    """One policy, the edited and unchanged runs that broke it, and what the test says. An error-level policy is
    tested with the destructive behaviours (its verdict DESTRUCTIVE when shown to be the edit's, undecided while
    more runs could show it), any other with the rest (changed when shown)."""

    policy: CallPolicy
    made_in: tuple[int, ...]
    baseline_made_in: tuple[int, ...]
    runs: int
    baseline_runs: int
    p: float
    q: float
    verdict: ChangeVerdict
    example: Violation | None = None

    @property
    def hits(self) -> int:
        return len(self.made_in)

    @property
    def baseline_hits(self) -> int:
        return len(self.baseline_made_in)

    @property
    def errs(self) -> bool:
        """Whether the policy is an error: tested with the destructive behaviours, and failing as they do."""
        return self.policy.level is Level.ERROR

    @property
    def shown(self) -> bool:
        """Broken significantly more often with the edit."""
        return self.verdict in (ChangeVerdict.DESTRUCTIVE, ChangeVerdict.CHANGED)

    @property
    def interval(self) -> tuple[float, float]:
        return clopper_pearson(self.hits, self.runs)

    @property
    def baseline_interval(self) -> tuple[float, float]:
        return clopper_pearson(self.baseline_hits, self.baseline_runs)


@record
class NoiseReport:
    """The candidate and baseline replays, and every behaviour of the candidate tested against the baseline.

    ``round`` is the round the replay stopped after, of ``design.rounds``; ``step``
    and ``baseline_step`` the runs each round adds with and without the edit.
    """

    candidate: ReplayReport
    baseline: ReplayReport
    tested: tuple[TestedBehaviour, ...]
    design: Design
    fail_on: FailOn
    round: int = 1
    step: int = 0
    baseline_step: int = 0
    policies: tuple[TestedPolicy, ...] = ()  # each policy of the policy file, in its order

    @property
    def alpha(self) -> float:
        return self.design.alpha

    @property
    def level(self) -> float:
        """What each test was held to: the round's level, split between the families under fail-on changed."""
        return family_level(self.design, self.fail_on)

    @property
    def undecided(self) -> tuple[TestedBehaviour, ...]:
        return tuple(t for t in self.tested if t.verdict is ChangeVerdict.UNDECIDED)

    @property
    def undecided_policies(self) -> tuple[TestedPolicy, ...]:
        return tuple(t for t in self.policies if t.verdict is ChangeVerdict.UNDECIDED)

    @property
    def destructive_family(self) -> int:
        """How many tests the destructive family holds: its behaviours, and the error-level policies."""
        return sum(t.destructive for t in self.tested) + sum(t.errs and t.hits > 0 for t in self.policies)

    @property
    def detectable(self) -> float | None:
        """The rate with the edit at which this design attributes, 80% of the time, a destructive call the unchanged
        agent never makes, at the level each of this report's destructive behaviours is held to (a lower bound
        with several)."""
        # a round's runs as answered (runs lost to errors count for nothing), the family's share of the level
        step = max(1, self.candidate.answered // self.round) if self.candidate.answered else 0
        baseline_step = max(1, self.baseline.answered // self.round) if self.baseline.answered else 0
        if not step or not baseline_step:
            return None
        split = 2 if self.fail_on is FailOn.CHANGED else 1
        return detectable_rate(self.design, step, baseline_step, split * max(1, self.destructive_family))

    @property
    def never_seen_bound(self) -> float:
        """How often the unchanged agent may make a call none of its runs made (one-sided 95%)."""
        return upper_bound(0, self.baseline.answered)

    @property
    def zero_tolerance(self) -> tuple[TestedBehaviour, ...]:
        """Destructive behaviours the unchanged runs never made: what ``--fail-on any-destructive`` fails on."""
        return tuple(t for t in self.tested if t.destructive and t.baseline_hits == 0)

    @property
    def settled(self) -> bool:
        """Whether more rounds could change the verdict: not once it fails, nor with nothing undecided."""
        unsettled = self.undecided or self.undecided_policies
        return self.verdict is Verdict.FAIL or not unsettled or self.fail_on is FailOn.NEVER

    @property
    def lost_more(self) -> float | None:
        """The p value of "runs end in an error more often with the edit", when they do at all."""
        if not self.candidate.lost:
            return None
        total, baseline_total = len(self.candidate.runs), len(self.baseline.runs)
        if max(total, baseline_total) > MAX_EXACT_RUNS or not baseline_total:
            return None
        return p_value(self.design.test, self.candidate.lost, total, self.baseline.lost, baseline_total)

    def rule(self, tested: TestedBehaviour) -> Rule | None:
        """What a tested behaviour is found to be; None for a change not shown to be the edit's."""
        if tested.verdict is ChangeVerdict.DESTRUCTIVE:
            return Rule.DESTRUCTIVE_CALL
        if tested.destructive:  # seen with the edit; an error only for a zero tolerance the unchanged runs keep
            zero = self.fail_on is FailOn.ANY_DESTRUCTIVE and tested.baseline_hits == 0
            return Rule.DESTRUCTIVE_CALL if zero else Rule.DESTRUCTIVE_SEEN
        return Rule.BEHAVIOUR_CHANGE if tested.verdict is ChangeVerdict.CHANGED else None

    @property
    def lost_rule(self) -> Rule:
        """A deletion made in an edited run that then failed: counted in no test, so an error only for a zero
        tolerance."""
        return Rule.DESTRUCTIVE_CALL if self.fail_on is FailOn.ANY_DESTRUCTIVE else Rule.DESTRUCTIVE_SEEN

    @property
    def more_errors(self) -> bool:
        """Whether runs end in an error significantly more often with the edit."""
        errors = self.lost_more
        return errors is not None and errors <= self.design.level

    @staticmethod
    def policy_rule(tested: TestedPolicy) -> Rule | None:
        """What a tested policy is found to be: broken by the edit (at the policy's level), an error-level policy
        broken with the edit but not shown to be the edit's (a warning), or nothing."""
        if tested.shown:
            return Rule.POLICY_VIOLATION
        return Rule.POLICY_UNATTRIBUTED if tested.errs and tested.hits else None

    def rules(self) -> Iterator[Rule]:
        """A rule for each finding the comparison makes: its verdict's, and the check's."""
        yield from (rule for rule, _ in self.levels())

    def levels(self) -> Iterator[tuple[Rule, Level]]:
        """Each finding's rule at its level: a policy broken by the edit at the policy's own."""
        for tested in self.tested:
            rule = self.rule(tested)
            if rule is not None:
                yield rule, rule.level
        for broken in self.policies:
            rule = self.policy_rule(broken)
            if rule is not None:
                yield rule, broken.policy.level if rule is Rule.POLICY_VIOLATION else rule.level
        yield from ((self.lost_rule, self.lost_rule.level) for _ in self.candidate.lost_destructive)
        if self.more_errors:
            yield Rule.MORE_ERRORS, Rule.MORE_ERRORS.level
        if self.candidate.budget is not None:
            yield Rule.BUDGET_SPENT, Rule.BUDGET_SPENT.level

    @property
    def verdict(self) -> Verdict:
        return decide_levels(self.levels(), self.fail_on)


def _key(change: Change) -> tuple[str, int, str, bytes]:
    return (change.kind.value, change.turn, change.tool, canonical_bytes(change.args))


def behaviours(candidate: ReplayReport, baseline: ReplayReport) -> list[Behaviour]:
    """The candidate's changes grouped by the runs that made them, with the edit and without it."""
    baseline_runs = {_key(change): change.runs for change in baseline.changes}
    grouped: dict[tuple[tuple[int, ...], tuple[int, ...]], list[Change]] = {}
    for change in candidate.changes:
        runs = (tuple(sorted(change.runs)), tuple(sorted(baseline_runs.get(_key(change), ()))))
        grouped.setdefault(runs, []).append(change)
    # each behaviour led by its most dangerous change (a new destructive call before a changed write), then as found
    return [Behaviour(tuple(sorted(changes, key=_danger)), *runs) for runs, changes in grouped.items()]


_CLASS_DANGER = {CallClass.DESTRUCTIVE: 0, CallClass.UNKNOWN: 1, CallClass.WRITE: 2, CallClass.READ_ONLY: 3}


def _danger(change: Change) -> tuple[bool, int]:
    """How a change ranks within its behaviour: a new destructive call first, then by its call's class."""
    return not change.new_destructive, _CLASS_DANGER.get(change.klass, 1)


def weigh_changes(
    candidate: ReplayReport,
    baseline: ReplayReport,
    design: Design,
    fail_on: FailOn,
    round_: int = 1,
    steps: tuple[int, int] = (0, 0),
) -> NoiseReport:
    """Test each behaviour of the candidate against its rate in the baseline runs, family by family."""
    runs, baseline_runs = candidate.answered, baseline.answered
    if max(runs, baseline_runs) > MAX_EXACT_RUNS:
        raise ToolreplayError(
            f"the noise analysis takes at most {MAX_EXACT_RUNS:,} runs a side (its exact tests' limit), "
            f"not {runs:,} with the edit and {baseline_runs:,} without"
        )
    tested: list[TestedBehaviour] = []
    policies: list[TestedPolicy] = []
    found = behaviours(candidate, baseline)
    unchanged = {broken.policy.id: broken.runs for broken in baseline.policies}
    level = family_level(design, fail_on)
    for destructive in (True, False):
        # a family's tests: its behaviours, then its policies (error-level ones are the destructive family's)
        family = [b for b in found if b.destructive is destructive]
        # a policy the edited runs never broke is tested nowhere, as a change they never made is not a behaviour
        rules = [b for b in candidate.policies if b.runs and (b.policy.level is Level.ERROR) is destructive]
        counts = [(len(b.runs), runs, len(b.baseline_runs), baseline_runs) for b in family]
        counts += [(len(b.runs), runs, len(unchanged.get(b.policy.id, ())), baseline_runs) for b in rules]
        judged = judge(counts, destructive, design, level)
        for behaviour, (p, q, verdict) in zip(family, judged, strict=False):
            tested.append(
                TestedBehaviour(
                    behaviour,
                    len(behaviour.runs),
                    runs,
                    len(behaviour.baseline_runs),
                    baseline_runs,
                    p,
                    q,
                    level,
                    verdict,
                )
            )
        for broken, (p, q, verdict) in zip(rules, judged[len(family) :], strict=True):
            made = unchanged.get(broken.policy.id, ())
            policies.append(
                TestedPolicy(broken.policy, broken.runs, made, runs, baseline_runs, p, q, verdict, broken.example)
            )
    for kept in candidate.policies:
        if not kept.runs:
            made = unchanged.get(kept.policy.id, ())
            policies.append(TestedPolicy(kept.policy, (), made, runs, baseline_runs, 1.0, 1.0, ChangeVerdict.NOT_SHOWN))
    tested.sort(key=lambda t: (_ORDER[t.verdict], not t.destructive, t.p, -t.hits, t.behaviour.lead.tool))
    order = {broken.policy.id: number for number, broken in enumerate(candidate.policies)}
    policies.sort(key=lambda t: order[t.policy.id])
    return NoiseReport(candidate, baseline, tuple(tested), design, fail_on, round_, *steps, policies=tuple(policies))


def family_level(design: Design, fail_on: FailOn) -> float:
    """What each family's tests are held to in a round: the round's level, split between the two families
    when either can fail the run (``--fail-on changed``), so the chance of any false FAIL stays within alpha."""
    return design.level / 2 if fail_on is FailOn.CHANGED else design.level


def judge(
    family: Sequence[tuple[int, int, int, int]], destructive: bool, design: Design, level: float | None = None
) -> list[tuple[float, float, ChangeVerdict]]:
    """Each behaviour's p value, q value and verdict, from its counts (hits, runs, baseline hits, baseline runs).

    The behaviours of one family (destructive, or not) are tested together: the
    q values hold the family's false discovery rate at ``level`` (the round's, by default).
    """
    held = design.level if level is None else level
    p_values = [p_value(design.test, *counts) for counts in family]
    q_values = benjamini_hochberg(p_values) if p_values else []
    return [
        (p, q, _verdict(destructive, q, held, counts)) for p, q, counts in zip(p_values, q_values, family, strict=True)
    ]


def _verdict(destructive: bool, q: float, level: float, counts: tuple[int, int, int, int]) -> ChangeVerdict:
    if q <= level:
        return ChangeVerdict.DESTRUCTIVE if destructive else ChangeVerdict.CHANGED
    hits, _, baseline_hits, _ = counts
    # a deletion only the edited runs made is never given up on; one the agent makes anyway, while q is low
    if destructive and ((hits and not baseline_hits) or q <= UNDECIDED_BELOW):
        return ChangeVerdict.UNDECIDED
    return ChangeVerdict.NOT_SHOWN


def seeds_for_baseline(first_candidate_seed: int, count: int, start: int = 0) -> Sequence[int]:
    """Baseline seeds: 10000 above the candidate's, so the two ranges never meet for up to 10000 runs.

    ``start``: how many baseline runs earlier rounds already had.
    """
    first = first_candidate_seed + 10_000 + start
    return range(first, first + count)
