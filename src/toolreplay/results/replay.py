"""A replay or a comparison as the records every report is drawn from: its findings at the lines of the
candidate's inputs that changed, its behaviours' rows, its unrecorded calls, its runs and a diff.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from toolreplay.agent_spec import shown_from
from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.core.canonical import canonical_bytes
from toolreplay.core.findings import ChangeVerdict, Level, Rule
from toolreplay.core.model import Call, CallClass, PairKind, Session, ToolDef
from toolreplay.core.outcome import (
    Analysis,
    ChangeRow,
    CheckFinding,
    Location,
    PolicyRow,
    RunView,
    Side,
    ToolChange,
    UnitResult,
    UnrecordedRow,
)
from toolreplay.core.wording import agree, count, format_call
from toolreplay.replay import reading
from toolreplay.replay.drive import Candidate, ReplayOutcome
from toolreplay.replay.noise import NoiseReport
from toolreplay.replay.report import Change, ReplayReport
from toolreplay.results.locate import (
    CandidateInputs,
    Paths,
    changed_tool_lines,
    fingerprint,
    first_difference,
    prompt_text,
)
from toolreplay.results.views import field_view, recording_view, run_diff, run_views
from toolreplay.settings import ReplaySettings

if TYPE_CHECKING:  # the base and the tools analyses are loaded only by a check that has them
    from toolreplay.analysis.policies import CallPolicy


def candidate_inputs(
    session: Session, settings: ReplaySettings, candidate: Candidate, paths: Paths, fallback: Location | None
) -> CandidateInputs:
    """The lines of the candidate's inputs that a replay's findings point at: where each differs from the
    recording."""
    context = session.context
    system = tools = None
    changed: dict[str, Location] = {}
    if settings.system is not None and candidate.prompt is not None and context is not None:
        line = first_difference(prompt_text(context.system), candidate.prompt)
        system = Location(paths.show(settings.system), line)
    if settings.tools is not None and candidate.tools_node is not None and context is not None:
        lines, first = changed_tool_lines(candidate.tools_node, candidate.tools, context.tools)
        shown = paths.show(settings.tools)
        changed = {name: Location(shown, line) for name, line in lines.items()}
        tools = Location(shown, first or 1)
    return CandidateInputs(system, tools, changed, fallback)


def _readings(rows: Sequence[ChangeRow], policy: Policy, tools: Sequence[ToolDef], session: Session) -> str:
    """Which reading decided each call whose class is not the candidate's own reading of it (the recorded
    annotations, the base's rules): said in the summary, so a reviewer sees why a call counts as it does."""
    classify = Classifier.of(policy, session.context, tools)
    said: dict[str, str] = {}
    for row in rows:
        found = classify.classify(Call(0, row.tool, row.args, None, 0))
        if found.reading and row.tool not in said:
            said[row.tool] = f"{row.tool} is {found.klass.value} by {found.reading}"
    return f"; {', '.join(said.values())}, the most dangerous of its readings" if said else ""


def with_tools_given(
    result: UnitResult,
    session: Session,
    candidate: Candidate,
    settings: ReplaySettings,
    paths: Paths,
    where: CandidateInputs,
    gate: bool = True,
) -> UnitResult:
    """A replay given other tools, with how they differ from the recorded ones: each change (every report shows
    them), the summary's count, and, where the check gates (``gate``), an error for each annotation that now reads
    as less dangerous (the replay keeps the recorded reading, and says why). ``replay`` decides its verdict from
    the behaviours alone, so its reports show the changes without that error."""
    if settings.tools is None or session.context is None:
        return result
    from toolreplay.surface.drift import DriftKind, tools_given  # noqa: PLC0415 - only a replay given other tools

    changes = tools_given(session.context.tools, candidate.tools, settings.tools)
    if not changes:
        return result
    tools_shown = paths.show(settings.tools)
    involved = {row.tool for row in result.changes}
    located = [(c, where.changed_tools.get(c.tool) or Location(tools_shown, max(c.line, 1))) for c in changes]
    weakened = tuple(
        CheckFinding(
            rule=Rule.TOOL_CHANGED,
            message=f"{c.kind.value}: {c.tool}: {c.detail} (against the recorded {result.subject})",
            location=location,
            fingerprint=fingerprint(Rule.TOOL_CHANGED.value, tools_shown, c.kind.value, c.tool),
            severity=Level.ERROR,
        )
        for c, location in located
        if gate and c.kind is DriftKind.ANNOTATION_WEAKENED
    )
    said = "; ".join(
        f"{c.kind.value} {c.tool}" + (", which a behaviour calls" if c.tool in involved else "")
        for c in changes
        if c.level is not Level.NOTE
    )
    summary = f"{result.summary}; the tools given differ from the recorded ({count(len(changes), 'change')}"
    views = tuple(ToolChange(c.kind.value, c.level, c.tool, c.detail, at, c.tool in involved) for c, at in located)
    return replace(
        result,
        findings=(*weakened, *result.findings),
        summary=summary + (f": {said})" if said else ")"),
        tools=views,
    )


def replay_result(
    key: str,
    shown: str,
    session: Session,
    outcome: ReplayOutcome,
    policy: Policy,
    where: CandidateInputs,
    candidate: Candidate,
    settings: ReplaySettings,
    paths: Paths,
) -> UnitResult:
    """A replay as a check unit's result: its findings where the candidate's inputs changed, its rows, its runs."""
    findings = _change_findings(
        outcome.report,
        outcome.noise,
        lambda c: where.for_tool(c.tool),
        shown,
        f"replay {shown}",
        where.edit or Location(shown, 1),
    )
    at = where.edit or Location(shown, 1)  # a broken policy is the edit's: at the prompt's line, where it changed
    findings += _policy_findings(outcome.report, outcome.noise, f"replay {shown}", lambda _run, _line: at)
    agent = shown_from(candidate.agent, paths.root.as_posix(), paths.show)  # named from the root, as every report
    edits = [f"system {paths.show(p)}" for p in (settings.system,) if p]
    edits += [f"tools {paths.show(p)}" for p in (settings.tools,) if p]
    on = f" on {outcome.report.ran_on}" if outcome.report.ran_on else ""
    summary = f"{count(len(outcome.runs), 'run')} of {agent}{on} ({', '.join(edits) or 'as recorded'})"
    if settings.noise:
        summary += f", {len(outcome.baseline_runs)} unchanged"
        baseline = outcome.noise.baseline if outcome.noise is not None else None
        if (
            baseline is not None
            and baseline.ran_on
            and (baseline.candidate, baseline.ran_on)
            != (
                outcome.report.candidate,
                outcome.report.ran_on,
            )
        ):
            summary += f" of {baseline.candidate} on {baseline.ran_on}"
    summary += f": {_change_summary(outcome.report, outcome.noise)}"
    reused = sum(run.cached for run in (*outcome.runs, *outcome.baseline_runs))
    if reused:
        total = len(outcome.runs) + len(outcome.baseline_runs)
        summary += f" ({reused} of {count(total, 'run')} from the run cache)"
    inputs = tuple(paths.show(p) for p in (settings.system, settings.tools, settings.stubs) if p)
    rows = _change_rows(outcome.report, outcome.noise)
    summary += _readings(rows, policy, outcome.report.setup.tools, session)
    runs = run_views(outcome.report, Side.EDITED, policy)
    if outcome.noise is not None:
        runs += run_views(outcome.noise.baseline, Side.UNCHANGED, policy)
    result = _behaviours_result(
        Analysis.REPLAY, key, shown, summary, inputs, findings, rows, runs, (session, outcome.report, policy),
        lambda number: f"edited run {number}", cited=False,  # the run's log is not kept: no line of it is cited
        unrecorded=_unrecorded_rows(outcome.report),
    )  # fmt: skip
    return replace(result, policies=_policy_rows(outcome.report, outcome.noise))


def compare_result(
    key: str,
    shown: str,
    reference: Session,
    report: NoiseReport,
    policy: Policy,
    candidates: Sequence[str],
    baseline: Sequence[str],
) -> UnitResult:
    """A comparison as a check unit's result: findings at the candidate session's line, its rows, its sessions."""

    def primary(change: Change) -> Location:
        return Location(candidates[change.runs[0] - 1], change.candidate_line or 1)

    # the analysis is part of a finding's identity: a replay and a comparison of one recording are two alerts
    lost = [run.number for run in report.candidate.runs if not run.answered]
    errors_at = Location(candidates[lost[0] - 1] if lost else shown, 1)
    findings = _change_findings(report.candidate, report, primary, shown, f"compare {shown}", errors_at)
    findings += _policy_findings(
        report.candidate, report, f"compare {shown}", lambda run, line: Location(candidates[run - 1], line or 1)
    )
    summary = (
        f"{count(len(candidates), 'edited session')} against {count(len(baseline), 'unchanged session')}: "
        f"{_change_summary(report.candidate, report)}"
    )
    rows = _change_rows(report.candidate, report)
    runs = run_views(report.candidate, Side.EDITED, policy, candidates, recorded_lines=True)
    runs += run_views(report.baseline, Side.UNCHANGED, policy, baseline, recorded_lines=True)
    inputs = (*candidates, *baseline)
    result = _behaviours_result(
        Analysis.COMPARE, key, shown, summary, inputs, findings, rows, runs, (reference, report.candidate, policy),
        lambda number: candidates[number - 1], cited=True,
    )  # fmt: skip
    return replace(result, policies=_policy_rows(report.candidate, report))


def _behaviours_result(
    analysis: Analysis,
    key: str,
    shown: str,
    summary: str,
    inputs: tuple[str, ...],
    findings: tuple[CheckFinding, ...],
    rows: tuple[ChangeRow, ...],
    runs: tuple[RunView, ...],
    replayed: tuple[Session, ReplayReport, Policy],
    named: Callable[[int], str],
    cited: bool,
    unrecorded: tuple[UnrecordedRow, ...] = (),
) -> UnitResult:
    """A replay's or a comparison's result: its rows, the recording's calls classified, every run, and the diff of
    the first run that made its first behaviour (``named``: what that run is called; ``cited``: its calls' lines
    are a file's the reader can open)."""
    reference, report, policy = replayed
    recorded = Classifier.of(policy, reference.context)
    diff = None
    if rows and rows[0].made_in:
        number = rows[0].made_in[0]
        run = next(run for run in report.runs if run.number == number)
        edited = Classifier.of(policy, reference.context, report.setup.tools)
        diff = run_diff(reference, run, recorded, edited, shown, named(number), b_lines=cited)
    return UnitResult(
        key=key,
        analysis=analysis,
        subject=shown,
        summary=summary,
        inputs=inputs,
        findings=findings,
        changes=rows,
        unrecorded=unrecorded,
        recording=recording_view(reference, recorded),
        runs=runs,
        diff=diff,
    )


def _recorded(shown: str, change: Change) -> tuple[tuple[Location, ...], str | None]:
    """The recorded call a change is about, at its line; for a call the recording never made (an added one, whose
    nearest recorded line is another call's), no call but the recording itself."""
    if change.kind is PairKind.ADDED:
        return (), shown
    return (Location(shown, change.recorded_line or 1),), None


def _call_text(change: Change) -> str:
    return f"{change.kind.value} call {format_call(Call(0, change.tool, change.args, None, 0))}"


def _change_findings(
    report: ReplayReport,
    noise: NoiseReport | None,
    primary: Callable[[Change], Location],
    recording: str,
    subject: str,
    errors_at: Location,
) -> tuple[CheckFinding, ...]:
    """Findings for the changes that matter, each with the rule its analysis gives it: every change without a
    baseline; with one, each destructive behaviour and each behaviour shown to be the edit's, once, named by its
    lead change. ``errors_at``: where a finding that runs fail more often with the edit points."""
    found: list[tuple[Rule, str, Change]] = []
    if noise is None:
        runs = report.answered
        for change in report.changes:
            share = f"{len(change.runs)} of {count(runs, 'run')}"
            rule = report.rule(change)
            if rule is Rule.DESTRUCTIVE_CALL:
                text = f"{_call_text(change)} is destructive and the recording never made it ({share})"
            else:
                text = f"{_call_text(change)} ({change.klass.value}) in {share}"
            found.append((rule, text, change))
        lost_rule = report.lost_rule
    else:
        for tested in noise.tested:
            judged = noise.rule(tested)
            if judged is None:
                continue
            lead = tested.behaviour.lead
            rates = reading.counts_text(tested)
            others = [c for c in tested.changes if c is not lead]
            also = f"; in the same runs: {', '.join(_call_text(c) for c in others)}" if others else ""
            text = f"{_call_text(lead)} ({lead.klass.value}): {reading.reason(tested)}: {rates}{also}"
            if judged is Rule.DESTRUCTIVE_CALL and tested.verdict is not ChangeVerdict.DESTRUCTIVE:
                text = f"{_call_text(lead)} ({lead.klass.value}): destructive, never made by the unchanged runs "
                text += f"(fail-on any-destructive), not shown to be the edit's: {rates}{also}"
            found.append((judged, text, lead))
        lost_rule = noise.lost_rule
    for made in report.lost_destructive:  # made in runs that then ended in an error: counted nowhere, said here
        change = Change(PairKind.ADDED, made.tool, made.args, CallClass.DESTRUCTIVE, made.runs)
        text = (
            f"{_call_text(change)} is destructive and the recording never made it: made in "
            f"{count(len(made.runs), 'run')} that then ended in an error (counted in no test)"
        )
        found.append((lost_rule, text, change))
    findings = []
    for rule, message, change in found:
        related, absent = _recorded(recording, change)
        mark = fingerprint(
            rule.value,
            subject,
            change.kind.value,
            change.tool,
            canonical_bytes(change.args).decode(),
            *((f"turn {change.turn}",) if change.turn > 1 else ()),
        )
        findings.append(
            CheckFinding(
                rule=rule,
                message=message,
                location=primary(change),
                related=related,
                absent_from=absent,
                fingerprint=mark,
            )
        )
    errors = reading.errors_text(noise) if noise is not None else None
    if errors is not None:
        mark = fingerprint(Rule.MORE_ERRORS.value, subject)
        text = errors[0].upper() + errors[1:]
        findings.append(CheckFinding(rule=Rule.MORE_ERRORS, message=text, location=errors_at, fingerprint=mark))
    if report.budget is not None:
        mark = fingerprint(Rule.BUDGET_SPENT.value, subject)
        said = f"The replay {report.budget}: what those runs show is reported, the rest is unknown"
        findings.append(CheckFinding(rule=Rule.BUDGET_SPENT, message=said, location=errors_at, fingerprint=mark))
    return tuple(findings)


def _policy_findings(
    report: ReplayReport, noise: NoiseReport | None, subject: str, place: Callable[[int, int], Location]
) -> tuple[CheckFinding, ...]:
    """A finding for each policy the edited runs broke: with no baseline, broken at all (at the policy's level);
    with one, broken more often with the edit (at its level), or an error-level one broken but not shown to be the
    edit's (a warning). ``place``: where the finding points, given the first run that broke it and the line of its
    call in that run's file (0 for a replayed run)."""
    found: list[tuple[Rule, CallPolicy, str, int, int]] = []
    if noise is None:
        runs = report.answered
        for broken in report.policies:
            if broken.runs and broken.example is not None:
                text = f"broken in {len(broken.runs)} of {count(runs, 'run')}: first in run {broken.runs[0]}, "
                found.append((Rule.POLICY_VIOLATION, broken.policy, text, broken.runs[0], broken.example.line))
    else:
        for tested in noise.policies:
            rule = noise.policy_rule(tested)
            if rule is None or tested.example is None:
                continue
            text = f"{reading.policy_reason(tested)}: {reading.policy_counts_text(tested)}; "
            text += f"first in edited run {tested.made_in[0]}, "
            found.append((rule, tested.policy, text, tested.made_in[0], tested.example.line))
    examples = {b.policy.id: b.example for b in report.policies}
    findings = []
    for rule, stated, text, run, line in found:
        example = examples[stated.id]
        assert example is not None
        level = stated.level if rule is Rule.POLICY_VIOLATION else rule.level
        findings.append(
            CheckFinding(
                rule=rule,
                message=f"policy {stated.id} ({stated.level.value}): {text}{example.detail}: {stated.why}",
                location=place(run, line),
                fingerprint=fingerprint(rule.value, subject, "policy", stated.id),
                severity=None if level is rule.level else level,
                policy=stated.id,
            )
        )
    return tuple(findings)


def _policy_rows(report: ReplayReport, noise: NoiseReport | None) -> tuple[PolicyRow, ...]:
    """Each policy's row: the runs that broke it, its test's numbers where a baseline ran."""
    if noise is None:
        runs = report.answered
        return tuple(
            PolicyRow(
                b.policy.id,
                b.policy.level,
                b.policy.why,
                b.policy.text(),
                len(b.runs),
                runs,
                None,
                None,
                None,
                None,
                ChangeVerdict.DESTRUCTIVE if b.policy.level is Level.ERROR else ChangeVerdict.CHANGED,
                b.runs,
                (),
                b.example.detail if b.example is not None else "",
            )
            for b in report.policies
        )
    return tuple(
        PolicyRow(
            t.policy.id,
            t.policy.level,
            t.policy.why,
            t.policy.text(),
            t.hits,
            t.runs,
            t.baseline_hits,
            t.baseline_runs,
            t.p,
            t.q,
            t.verdict,
            t.made_in,
            t.baseline_made_in,
            t.example.detail if t.example is not None else "",
        )
        for t in noise.policies
    )


def _change_summary(report: ReplayReport, noise: NoiseReport | None) -> str:
    if noise is None:
        if not report.changes:
            return "the recorded calls, no change"
        destructive = sum(change.new_destructive for change in report.changes)
        new = agree(destructive, "a new destructive call", "new destructive calls")
        return f"{count(len(report.changes), 'change')}, {destructive} of them {new}"
    if not noise.tested:
        return "the recorded calls, no change"
    verdicts = Counter(t.verdict for t in noise.tested)
    parts = [f"{verdicts[v]} {v.value}" for v in ChangeVerdict if verdicts[v]]
    rounds = f", after {noise.round} of at most {noise.design.rounds} rounds" if noise.design.rounds > 1 else ""
    return f"{count(len(noise.tested), 'behaviour')} ({', '.join(parts)}){rounds}"


def _change_rows(report: ReplayReport, noise: NoiseReport | None) -> tuple[ChangeRow, ...]:
    if noise is None:  # a behaviour is still the changes made in the same runs, numbered as first met
        runs = report.answered
        behaviours: dict[tuple[int, ...], list[Change]] = {}
        for change in report.changes:
            behaviours.setdefault(change.runs, []).append(change)
        rows = []
        for number, changes in enumerate(behaviours.values(), 1):
            destructive = any(d.new_destructive for d in changes)  # the behaviour's verdict
            verdict = ChangeVerdict.DESTRUCTIVE if destructive else ChangeVerdict.CHANGED
            rows += [_row(c, (len(c.runs), runs, None, None, None, None, verdict), number, c.runs) for c in changes]
        return tuple(rows)
    return tuple(
        _row(
            c,
            (t.hits, t.runs, t.baseline_hits, t.baseline_runs, t.p, t.q, t.verdict),
            number,
            t.behaviour.runs,
            t.behaviour.baseline_runs,
        )
        for number, t in enumerate(noise.tested, 1)
        for c in t.changes
    )


_Rates = tuple[int, int, int | None, int | None, float | None, float | None, ChangeVerdict]


def _row(
    change: Change, rates: _Rates, behaviour: int, made_in: tuple[int, ...], baseline_made_in: tuple[int, ...] = ()
) -> ChangeRow:
    """A change as a row: its kind, call and class, its behaviour's rates and verdict, the runs that made it."""
    fields = tuple(field_view(f) for f in change.fields)
    return ChangeRow(
        change.kind, change.tool, change.args, change.klass, *rates, behaviour, change.turn, made_in,
        baseline_made_in, fields,
    )  # fmt: skip


def _unrecorded_rows(report: ReplayReport) -> tuple[UnrecordedRow, ...]:
    runs = report.answered
    return tuple(UnrecordedRow(u.tool, u.args, u.klass, len(u.runs), runs, u.answered) for u in report.unrecorded)
