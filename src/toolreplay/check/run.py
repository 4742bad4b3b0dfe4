"""A check in three steps: plan it into units, resolve this shard's units, execute them.

**Plan** (:mod:`toolreplay.check.plan`). The units, in report order: the chain of every sealed recording, the
self-audit of every recording, every recording against every scope that
applies to it, every replay of every chosen session, every comparison group.
Each recording is a :class:`Recording` whose kind is detected once. A unit's
key names it for sharding and merging; a shard takes a share of each analysis
balanced by the units' expected cost (bytes read, times runs for a replay), so
the expensive replays spread evenly over the shards.

**Resolve.** Every input is named before anything runs: the sessions a replay
reads, the agents they were recorded with (held to the repository), the files a
program names. :class:`PreparedCheck` holds them, so the command guards its
outputs once.

**Execute.** Each unit goes to its analysis through one table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from toolreplay.analysis.audit import audit
from toolreplay.analysis.scope import check_scope
from toolreplay.check.context import Checker, needed
from toolreplay.check.plan import Unit, config_digest, plan, shard_of
from toolreplay.check.sealed import base_unit, verify_unit
from toolreplay.check.tools import tools_unit
from toolreplay.core.errors import InputError
from toolreplay.core.findings import Level, Rule
from toolreplay.core.model import FindingKind
from toolreplay.core.outcome import Analysis, CheckFinding, CheckReport, Location, PolicyInfo, UnitResult
from toolreplay.core.wording import count
from toolreplay.formats.config.model import Config
from toolreplay.formats.scope import read_scope
from toolreplay.replay.budget import CheckBudget
from toolreplay.replay.cache import cache_note
from toolreplay.replay.compare import compare_sessions
from toolreplay.replay.drive import (
    replay_session,
    with_task,
)
from toolreplay.replay.progress import Progress
from toolreplay.results.locate import Paths, fingerprint
from toolreplay.results.replay import candidate_inputs, compare_result, replay_result, with_tools_given

if TYPE_CHECKING:  # the base and the tools analyses are loaded only by a check that has them
    from toolreplay.analysis.policies import Violation
    from toolreplay.check.base import Base
    from toolreplay.check.policy import Governed
    from toolreplay.processes.isolation import RunAs


class PreparedCheck:
    """A check planned and this shard's units resolved: every file it will read is known, nothing has run."""

    def __init__(
        self,
        config: Config,
        paths: Paths,
        shard: tuple[int, int] | None = None,
        base: Base | None = None,
        governed: Governed | None = None,
        user: RunAs | None = None,
        isolate: bool = False,
    ) -> None:
        self.config = config
        self.paths = paths
        self.shard = shard
        self.governed = governed
        held = (*config.recordings, *(p for g in config.compares for p in (g.recorded, *g.candidates, *g.baseline)))
        based = base.recordings(held, config.patterns, config.discovered, config.path) if base is not None else ()
        self.units = plan(config, paths, based)
        self.chosen = shard_of(self.units, shard)
        self._checker = Checker(config, paths, base, user, isolate)
        base_tools = governed.base_config.tools if governed is not None and governed.base_config else None
        self._checker.base_lock = base_tools.lock if base_tools is not None else None
        if config.max_cost is not None or config.max_tokens_total is not None:
            replays = sum(unit.job is not None for unit in self.units)
            here = sum(unit.job is not None for unit in self.chosen)
            part = here / replays if replays else 1.0  # a shard's part of the check's budget: its share of replays
            self._checker.pool = CheckBudget(
                None if config.max_cost is None else config.max_cost * part,
                None if config.max_tokens_total is None else int(config.max_tokens_total * part),
                here,
            )
        self.inputs = self._checker.resolve(self.chosen)  # beyond the config's files: the agents sessions name
        self.warnings = self._checker.warnings  # what to tell the user once the check ran
        self.in_process = self._checker.in_process
        self.programs = self._checker.programs
        self.notes: list[str] = []  # and what it did that is no warning (what the run cache gave back)

    def run(self) -> CheckReport:
        """Execute the chosen units and collect their results."""
        results = tuple(run_unit(self._checker, unit) for unit in self.chosen)
        for directory, cache in self._checker.caches.items():
            self.warnings.extend(cache.ignored)
            self.notes.append(cache_note(directory, cache))
        config = self.config
        shown = self.paths.show(config.path) if config.path else None
        keys = tuple(unit.key for unit in self.units)
        if self.governed is not None:  # said once, by the first shard
            policy = policy_result(self.governed, self.paths)
            keys = (policy.key, *keys)
            if self.shard is None or self.shard[0] == 1:
                results = (policy, *results)
        stated = tuple(PolicyInfo(p.id, p.level, p.why, p.text()) for p in self._checker.policy.policies.policies)
        return CheckReport(shown, config_digest(config), config.fail_on, keys, results, self.shard, policies=stated)


def audit_unit(checker: Checker, unit: Unit) -> UnitResult:
    shown = checker.paths.show(unit.path)
    calls, classifier, stateful = checker.calls(unit.path)
    report = audit(calls(), classifier, stateful)
    others = tuple(f for f in report.findings if f.kind is not FindingKind.POLICY_VIOLATION)
    findings = checker.call_findings(checker.at_findings(others, calls), shown)
    findings += tuple(_violation(found, shown, count_seen) for found, count_seen in _numbered(report.violations))
    summary = count(report.calls, "call")
    summary += f", {count(len(findings), 'finding')}" if findings else ", clean"
    return UnitResult(key=unit.key, analysis=Analysis.AUDIT, subject=shown, summary=summary, findings=findings)


def _numbered(found: Iterable[Violation]) -> Iterator[tuple[Violation, int]]:
    """Each violation with how many of its policy came before it: what tells two of one policy's apart."""
    seen: Counter[str] = Counter()
    for violation in found:
        seen[violation.policy.id] += 1
        yield violation, seen[violation.policy.id]


def _violation(found: Violation, shown: str, number: int) -> CheckFinding:
    """A policy a recording breaks, at the line of the call that broke it (the earlier call of an order or a flow
    related), at the policy's level."""
    policy = found.policy
    earlier = f" (the earlier call at line {found.earlier_line})" if found.earlier_line else ""
    related = (Location(shown, found.earlier_line),) if found.earlier_line else ()
    return CheckFinding(
        rule=Rule.POLICY_VIOLATION,
        message=f"policy {policy.id} ({policy.level.value}): {found.detail}{earlier}: {policy.why}",
        location=Location(shown, found.line or 1),
        related=related,
        fingerprint=fingerprint(Rule.POLICY_VIOLATION.value, shown, "policy", policy.id, str(number)),
        severity=None if policy.level is Rule.POLICY_VIOLATION.level else policy.level,
        policy=policy.id,
    )


def scope_unit(checker: Checker, unit: Unit) -> UnitResult:
    setting = needed(unit.scope, unit)
    shown = checker.paths.show(unit.path)
    if setting.file not in checker.scopes:
        checker.scopes[setting.file] = read_scope(setting.file)
    scope = checker.scopes[setting.file]
    calls, _, _ = checker.calls(unit.path)
    report = check_scope(calls(), scope)
    findings = checker.call_findings(checker.at_findings(report.findings, calls, Rule.PERMISSION_OVERREACH), shown)
    scope_shown = checker.paths.show(setting.file)
    summary = f"{count(report.calls, 'call')} against {scope_shown} (agent {scope.agent})"
    summary += f", {len(findings)} outside it" if findings else ", all inside it"
    return UnitResult(
        key=unit.key,
        analysis=Analysis.SCOPE,
        subject=shown,
        summary=summary,
        inputs=(scope_shown,),
        findings=findings,
    )


def replay_unit(checker: Checker, unit: Unit) -> UnitResult:
    job = needed(unit.job, unit)
    shown = checker.paths.show(unit.path)
    settings = job.settings
    if checker.pool is not None:  # the check's budget: this replay's share of what is left, or its own if less
        cost, tokens = checker.pool.share()
        settings = replace(
            settings,
            max_cost=_least(settings.max_cost, cost),
            max_tokens_total=_least(settings.max_tokens_total, tokens),
        )
    session = with_task(checker.session(unit.path), settings)
    candidate = checker.candidates[unit.key]  # resolved before any unit ran
    policy = checker.policy_for(unit.path)
    outcome = replay_session(
        session,
        settings,
        policy,
        checker.config.fail_on,
        candidate,
        Progress(settings.repeat + settings.noise),
        checker.config.redact_off,
        checker.cache(settings),
        checker.user,
        checker.isolate,
    )
    fallback = None
    if checker.config.path is not None:
        fallback = Location(checker.paths.show(checker.config.path), job.agent_line)
    where = candidate_inputs(session, settings, candidate, checker.paths, fallback)
    result = replay_result(unit.key, shown, session, outcome, policy, where, candidate, settings, checker.paths)
    if checker.pool is not None:
        # each model run carries its cost at its own side's price already (a program's, what it said)
        cost, tokens = checker.pool.spend((*outcome.runs, *outcome.baseline_runs), None)
        said = f"${cost:.4f}, " if checker.pool.max_cost is not None else ""
        result = replace(result, summary=f"{result.summary}; spent {said}{tokens:,} tokens of the check's budget")
    return with_tools_given(result, session, candidate, settings, checker.paths, where)


def compare_unit(checker: Checker, unit: Unit) -> UnitResult:
    group = needed(unit.group, unit)
    reference = checker.session(group.recorded)
    if reference.context is None:
        raise InputError(
            f"compare: {checker.paths.show(unit.path)} is a transcript; 'recorded' must be a session",
            checker.config.path,
            group.line,
        )
    edited = [checker.session(path) for path in group.candidates]
    unchanged = [checker.session(path) for path in group.baseline]
    policy = checker.policy_for(group.recorded)
    report = compare_sessions(reference, edited, unchanged, policy, group.design, checker.config.fail_on)
    candidates = [checker.paths.show(path) for path in group.candidates]
    baseline = [checker.paths.show(path) for path in group.baseline]
    shown = checker.paths.show(unit.path)
    return compare_result(unit.key, shown, reference, report, policy, candidates, baseline)


def run_unit(checker: Checker, unit: Unit) -> UnitResult:
    try:
        return _EXECUTE[unit.analysis](checker, unit)
    except InputError as exc:
        # A sealed recording cut or edited so that it no longer reads is the verify unit's chain-broken finding,
        # as `verify` says; the analyses that need its calls say they could not read them, and why.
        readers = (Analysis.AUDIT, Analysis.SCOPE, Analysis.TOOLS)
        if unit.analysis not in readers or not unit.recording.kind.sealed or not checker.broken(unit.path):
            raise
        summary = f"not read, its chain being broken: {exc.message}"
        return UnitResult(key=unit.key, analysis=unit.analysis, subject=checker.paths.show(unit.path), summary=summary)


_EXECUTE: dict[Analysis, Callable[[Checker, Unit], UnitResult]] = {
    Analysis.VERIFY: verify_unit,
    Analysis.BASE: base_unit,
    Analysis.AUDIT: audit_unit,
    Analysis.SCOPE: scope_unit,
    Analysis.REPLAY: replay_unit,
    Analysis.TOOLS: tools_unit,
    Analysis.COMPARE: compare_unit,
}

_N = TypeVar("_N", int, float)


def policy_result(governed: Governed, paths: Paths) -> UnitResult:
    """The pull request's config against the base's: whose policy governed, the seed every replay was given, and
    each loosening a finding at the pull request's line (an error; a warning where the pull request's policy
    governs, as its reviewers chose)."""
    level = Level.ERROR if governed.policy == "base" else Level.WARNING
    config = governed.config.path
    shown = paths.show(config) if config is not None else "the config"
    findings = tuple(
        CheckFinding(
            rule=Rule.POLICY_LOOSENED,
            message=loosened.message,
            location=Location(paths.show(loosened.path) if loosened.path else shown, loosened.line),
            fingerprint=fingerprint(Rule.POLICY_LOOSENED.value, loosened.setting, loosened.now),
            severity=None if level is Rule.POLICY_LOOSENED.level else level,
        )
        for loosened in governed.loosenings
    )
    whose = "the base's policy governed" if governed.policy == "base" else "the pull request's policy governed"
    if governed.base_config is None:
        whose += " (the base has no config)"
    summary = f"{whose}; seed {governed.seed} for every replay; "
    summary += f"{count(len(findings), 'loosening')} of the base's policy" if findings else "nothing loosened"
    if governed.touched:
        summary += f"; changed since the base: {', '.join(governed.touched)}"
    return UnitResult(
        key=f"policy {shown}", analysis=Analysis.POLICY, subject=shown, summary=summary, findings=findings
    )


def isolation_result(
    in_process: Sequence[str],
    programs: Sequence[tuple[str, tuple[str, ...] | None]],
    ended: int,
    reaper: bool,
    user: int | None = None,
) -> UnitResult:
    """How the check kept what it ran apart from itself: what each program was given of its environment, how many
    processes the runs left behind were ended before any report was written, and, a warning, what ran unisolated.
    ``in_process``: the scripted agents, each of which ran in a worker process of its own."""
    from toolreplay.agents.program import ALLOWED_ENV  # noqa: PLC0415

    given = [
        f"{name} was given {'the allowlisted environment' if env is not None else 'the whole environment'}"
        + (f" and {', '.join(env)}" if env else "")
        for name, env in programs
    ]
    given += [f"scripted:{script} ran in a worker process, given the allowlisted environment" for script in in_process]
    summary = "; ".join(given) if given else "no program agent ran"
    if user is not None and (programs or in_process):
        summary += f"; each ran as uid {user}, a program's servers answered and logged from the check's side of a relay"
    summary += f" (allowed: {', '.join(ALLOWED_ENV)})" if any(env is not None for _, env in programs) else ""
    if reaper:
        summary += f"; {count(ended, 'process', 'processes')} the runs left behind ended before any report was written"
    found: list[CheckFinding] = []
    for script in in_process if user is None else ():
        message = (
            f"the scripted agent {script} ran in a worker process as the check's own user: it could not outlive the "
            "check or read the check's own environment, but it could write what that user can and read what the "
            "user's other processes hold (the environment of the step's shell)"
        )
        found.append(_unisolated(message, script))
    for name, _ in programs if user is None else ():
        message = (
            f"{name} ran as the check's own user: it could not outlive the check or read the check's own "
            "environment, but it could write what that user can, its served log included, and read what the "
            "user's other processes hold (the environment of the step's shell)"
        )
        found.append(_unisolated(message, None))
    if not reaper:
        found.append(_unisolated("this system cannot make the check the reaper of what it starts", None))
    return UnitResult(
        key="isolation", analysis=Analysis.POLICY, subject="isolation", summary=summary, findings=tuple(found)
    )


def _unisolated(message: str, path: str | None) -> CheckFinding:
    rule = Rule.CODE_UNISOLATED
    return CheckFinding(
        rule=rule,
        message=message,
        location=Location(path or "the check", 1),
        fingerprint=fingerprint(rule.value, message),
    )


def _least(own: _N | None, share: _N | None) -> _N | None:
    """The tighter of two bounds (None: no bound)."""
    if own is None or share is None:
        return share if own is None else own
    return min(own, share)
