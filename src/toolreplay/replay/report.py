"""Across the runs of one replay: each difference from the recording, and in how many runs.

Runs that ended in an error (the model never answered, the agent failed) are
kept in the report, with their error, but counted nowhere: a difference is out
of the runs that were answered.

Each run's calls are diffed against the recording (the three-pass diff). A
difference is identified by its kind, its tool and its matched arguments (B's
for added, changed and moved calls, the recording's for removed ones) and is
counted once per run it appears in.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from toolreplay.analysis.classify import Classifier
from toolreplay.analysis.diff import FieldChange, Pair, compare_with
from toolreplay.analysis.policy_set import PolicySet, PolicyViolations
from toolreplay.core.canonical import JSONObject, canonical_bytes
from toolreplay.core.findings import Level, Rule, decide_levels
from toolreplay.core.model import CallClass, Origin, PairKind, Session
from toolreplay.core.records import record
from toolreplay.core.verdict import FailOn, Verdict
from toolreplay.formats.session.shape import person_messages
from toolreplay.replay.engine import ReplaySetup, Run

if TYPE_CHECKING:
    from toolreplay.analysis.policies import Violation

_KIND_ORDER = {kind: rank for rank, kind in enumerate(PairKind)}


@record
class Change:
    """One difference from the recording, and the runs that made it."""

    kind: PairKind
    tool: str
    args: JSONObject
    klass: CallClass
    runs: tuple[int, ...]
    fields: tuple[FieldChange, ...] = ()
    # Where the first run that made it shows it: the line of the recorded call
    # it concerns (for an added call, the recorded call before it), and the line
    # of the candidate's call when the candidate is a recorded session (else 0).
    recorded_line: int = 0
    candidate_line: int = 0
    turn: int = 1  # the person's turn of the conversation it was made in

    @property
    def new_destructive(self) -> bool:
        return self.kind in (PairKind.ADDED, PairKind.CHANGED) and self.klass is CallClass.DESTRUCTIVE


@record
class UnrecordedCall:
    """A call the recording never made, the runs that made it, and how they were answered."""

    tool: str
    args: JSONObject
    klass: CallClass
    runs: tuple[int, ...]
    answered: Origin


@record
class LostCall:
    """A destructive call the recording never made, made in runs that then ended in an error."""

    tool: str
    args: JSONObject
    runs: tuple[int, ...]


@record
class ReplayReport:
    """The whole replay: its runs, their differences from the recording, the verdict."""

    setup: ReplaySetup
    candidate: str
    runs: tuple[Run, ...]
    changes: tuple[Change, ...]
    unrecorded: tuple[UnrecordedCall, ...]
    fail_on: FailOn
    # Runs that end in an error count nowhere, but a deletion they made before it is not unsaid.
    lost_destructive: tuple[LostCall, ...] = ()
    budget: str | None = None  # why the replay stopped before its last run (its budget); None: it ran them all
    ran_on: str = ""  # where a model's runs were asked (its provider's API, and the address given); "": no model
    policies: tuple[PolicyViolations, ...] = ()  # each policy of the policy file, and the runs that broke it

    @property
    def turns(self) -> int:
        """How many messages from the person the recording holds (1 unless it is a conversation)."""
        context = self.setup.recording.context
        return len(person_messages(context.messages)) if context is not None else 1

    @property
    def answered(self) -> int:
        """How many runs count: those that did not end in an error."""
        return sum(run.answered for run in self.runs)

    @property
    def lost(self) -> int:
        """Runs that ended in an error: left out of every count and test."""
        return len(self.runs) - self.answered

    @staticmethod
    def rule(change: Change) -> Rule:
        """What a change is found to be: every change counts, a new destructive call as an error."""
        return Rule.DESTRUCTIVE_CALL if change.new_destructive else Rule.BEHAVIOUR_CHANGE

    # A deletion made in a run that then failed is not unsaid: an error too.
    lost_rule = Rule.DESTRUCTIVE_CALL

    def rules(self) -> Iterator[Rule]:
        """A rule for each finding the replay makes: its verdict's, and the check's."""
        yield from (rule for rule, _ in self.levels())

    def levels(self) -> Iterator[tuple[Rule, Level]]:
        """Each finding's rule at its level: a broken policy at the policy's own."""
        yield from ((rule, rule.level) for rule in map(self.rule, self.changes))
        yield from ((self.lost_rule, self.lost_rule.level) for _ in self.lost_destructive)
        yield from ((Rule.POLICY_VIOLATION, broken.policy.level) for broken in self.policies if broken.runs)
        if self.budget is not None:
            yield Rule.BUDGET_SPENT, Rule.BUDGET_SPENT.level

    @property
    def verdict(self) -> Verdict:
        return decide_levels(self.levels(), self.fail_on)


def summarize(
    setup: ReplaySetup,
    candidate: str,
    runs: Sequence[Run],
    classify_recording: Classifier,
    classify_candidate: Classifier,
    fail_on: FailOn,
) -> ReplayReport:
    """Diff every run against the recording and count each difference once per run."""
    matcher = classify_candidate.policy.matcher
    found: dict[tuple[int, int, str, bytes], tuple[Change, list[int]]] = {}
    unrecorded: dict[tuple[str, bytes, str], tuple[UnrecordedCall, list[int]]] = {}
    lost: dict[tuple[str, bytes], tuple[LostCall, list[int]]] = {}
    policies = classify_candidate.policy.policies
    broken: dict[str, tuple[list[int], list[Violation]]] = {p.id: ([], []) for p in policies.policies}
    for run in runs:
        if not run.answered:  # no evidence of what the agent does, but what it destroyed on the way is reported
            _note_lost(run, classify_candidate, lost)
            continue
        if policies:
            _note_broken(run, policies, broken)
        result = compare_with(setup.recording, run.as_session(), classify_recording, classify_candidate, fail_on)
        before = {id(pair): line for pair, line in _recorded_lines(result.pairs, setup.recording)}
        for pair in result.differences:
            call = pair.b if pair.b is not None else pair.a
            if call is None:
                continue
            args = matcher.matched_args(call.tool, call.args)
            key = (_KIND_ORDER[pair.kind], call.turn, call.tool, canonical_bytes(args))
            klass = result.classes_b[pair.b.index] if pair.b is not None else result.classes_a[call.index]
            lines = (before[id(pair)], pair.b.line if pair.b is not None else 0)
            change = Change(pair.kind, call.tool, args, klass, (), pair.fields, *lines, call.turn)
            entry = found.setdefault(key, (change, []))
            if run.number not in entry[1]:
                entry[1].append(run.number)
        for call, origin in zip(run.calls, run.origins, strict=True):
            if origin is Origin.RECORDED:
                continue
            args = matcher.matched_args(call.tool, call.args)
            ukey = (call.tool, canonical_bytes(args), origin.words)
            klass = classify_candidate.classify(call).klass
            uentry = unrecorded.setdefault(ukey, (UnrecordedCall(call.tool, args, klass, (), origin), []))
            if run.number not in uentry[1]:
                uentry[1].append(run.number)
    changes = sorted(
        (_with_runs(change, numbers) for change, numbers in found.values()),
        key=lambda c: (-len(c.runs), c.turn, _KIND_ORDER[c.kind], c.tool, canonical_bytes(c.args)),
    )
    calls = sorted(
        (UnrecordedCall(u.tool, u.args, u.klass, tuple(numbers), u.answered) for u, numbers in unrecorded.values()),
        key=lambda u: (-len(u.runs), u.tool, canonical_bytes(u.args), u.answered.words),
    )
    lost_calls = tuple(
        sorted(
            (LostCall(c.tool, c.args, tuple(numbers)) for c, numbers in lost.values()),
            key=lambda c: (-len(c.runs), c.tool, canonical_bytes(c.args)),
        )
    )
    kept = tuple(
        PolicyViolations(policy, tuple(broken[policy.id][0]), next(iter(broken[policy.id][1]), None))
        for policy in policies.policies
    )
    return ReplayReport(setup, candidate, tuple(runs), tuple(changes), tuple(calls), fail_on, lost_calls, policies=kept)


def _note_broken(run: Run, policies: PolicySet, broken: dict[str, tuple[list[int], list[Violation]]]) -> None:
    """The policies a run broke (a require only of a run that ended with a final reply), and the first way each
    was broken in the first run that broke it."""
    from toolreplay.analysis.policies import violated  # noqa: PLC0415 - only a replay given policies

    for ident, found in violated(run.calls, policies, replied=run.ending == "final reply").items():
        numbers, first = broken[ident]
        numbers.append(run.number)
        if not first:
            first.append(found)


def _note_lost(run: Run, classify: Classifier, lost: dict[tuple[str, bytes], tuple[LostCall, list[int]]]) -> None:
    """The destructive calls the recording never made, in a run that ended in an error."""
    matcher = classify.policy.matcher
    for made, origin in zip(run.calls, run.origins, strict=True):
        if origin is not Origin.RECORDED and classify.classify(made).klass is CallClass.DESTRUCTIVE:
            args = matcher.matched_args(made.tool, made.args)
            entry = lost.setdefault((made.tool, canonical_bytes(args)), (LostCall(made.tool, args, ()), []))
            if run.number not in entry[1]:
                entry[1].append(run.number)


def _with_runs(change: Change, numbers: list[int]) -> Change:
    return replace(change, runs=tuple(numbers))


def _recorded_lines(pairs: Sequence[Pair], recording: Session) -> Iterator[tuple[Pair, int]]:
    """Each pair with the line of its recorded call, or for an added call the recorded call before it."""
    last = recording.calls[0].line if recording.calls else 1
    for pair in sorted(pairs, key=lambda p: p.order):
        if pair.a is not None:
            last = pair.a.line
        yield pair, last
