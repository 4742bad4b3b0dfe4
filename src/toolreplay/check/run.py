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

import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from toolreplay.agent_spec import ProgramSpec
from toolreplay.analysis.audit import audit
from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.analysis.scope import Scope, check_scope
from toolreplay.check.plan import Unit, config_digest, plan, shard_of
from toolreplay.core.canonical import canonical_bytes
from toolreplay.core.errors import InputError
from toolreplay.core.findings import Level, Rule
from toolreplay.core.model import Call, Finding, Session
from toolreplay.core.outcome import Analysis, CheckFinding, CheckReport, Location, UnitResult
from toolreplay.core.wording import count
from toolreplay.formats.config import Config, ReplayJob
from toolreplay.formats.kinds import Kind, detect_kind
from toolreplay.formats.recording import calls_and_classifier, load_session, read_links
from toolreplay.formats.rules import read_rules
from toolreplay.formats.scope import read_scope
from toolreplay.integrity.chain import Verification, verify
from toolreplay.replay.budget import CheckBudget, price_for
from toolreplay.replay.cache import RunCache, cache_note
from toolreplay.replay.compare import compare_sessions
from toolreplay.replay.drive import (
    Candidate,
    load_candidate,
    program_files,
    replay_session,
    scripts,
    untold_task,
    with_task,
)
from toolreplay.replay.progress import Progress
from toolreplay.results.locate import Paths, fingerprint
from toolreplay.results.replay import candidate_inputs, compare_result, replay_result, with_tools_given
from toolreplay.settings import ReplaySettings

if TYPE_CHECKING:  # the base and the tools analyses are loaded only by a check that has them
    from toolreplay.check.base import Base
    from toolreplay.check.policy import Governed
    from toolreplay.processes.isolation import RunAs
    from toolreplay.surface.lock import Lock
    from toolreplay.surface.model import Surface, SurfaceTool


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
        self._checker = _Checker(config, paths, base, user, isolate)
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
        results = tuple(self._checker.run(unit) for unit in self.chosen)
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
        return CheckReport(shown, config_digest(config), config.fail_on, keys, results, self.shard)


class _Checker:
    """Runs units, reading each file and each scope once."""

    def __init__(
        self,
        config: Config,
        paths: Paths,
        base: Base | None = None,
        user: RunAs | None = None,
        isolate: bool = False,
    ) -> None:
        self.config = config
        self.paths = paths
        self.base = base
        self.user = user  # the user program agents run as (check --isolate-user)
        self.isolate = isolate  # scripted agents each in a worker process (check --isolate)
        self._signers: str | None = None  # the allowed signers file read (the base's, under --base)
        self._lock: Lock | None = None  # the tools lock, read once
        self.pool: CheckBudget | None = None  # the check's own budget, where the config sets one
        self.policy = Policy(strict=config.strict)
        if config.rules:  # its findings name it as every report names a file: from the repository root
            self.policy = replace(read_rules(config.rules, config.strict), source=paths.show(config.rules))
        if config.base_rules and config.base_rules != config.rules:  # the base's, beside: the more dangerous counts
            self.policy = replace(
                self.policy, also=(("the base's rules", read_rules(config.base_rules, config.strict)),)
            )
        self._sessions: dict[str, Session] = {}
        self._candidates: dict[str, Candidate] = {}  # each replay unit's, by its key
        self.in_process: list[str] = []  # the Python files of the pull request's that run in this process
        self.programs: list[tuple[str, tuple[str, ...] | None]] = []  # each program agent, and the variables it gets
        self._scopes: dict[str, Scope] = {}
        self._kinds: dict[str, Kind] = {}
        self.warnings: list[str] = []  # what to tell the user once the check ran
        self.caches: dict[str, RunCache] = {}  # one per directory, shared by the replays that name it

    def cache(self, settings: ReplaySettings) -> RunCache | None:
        if settings.cache is None:
            return None
        if settings.cache not in self.caches:
            self.caches[settings.cache] = RunCache(settings.cache, settings.cache_days)
        return self.caches[settings.cache]

    def session(self, path: str) -> Session:
        if path not in self._sessions:
            self._sessions[path] = load_session(path, self._kinds.get(path))
        return self._sessions[path]

    def resolve(self, units: Sequence[Unit]) -> list[str]:
        """Read what the units' replays need before any unit runs (their sessions, their candidates), and name
        the files they will read beyond those the config names: the agents the sessions were recorded with, held
        to the repository, and the files a program names."""
        named: list[str] = []
        for unit in units:
            self._kinds[unit.path] = unit.recording.kind
        for unit in units:
            if unit.analysis is not Analysis.REPLAY or unit.job is None:
                continue
            settings = unit.job.settings
            session = with_task(self.session(unit.path), settings)
            candidate = load_candidate(session, settings)
            self._candidates[unit.key] = candidate
            untold = untold_task(session, candidate, settings)
            if untold is not None and untold not in self.warnings:
                self.warnings.append(untold)
            for script in scripts(candidate, settings):
                named.append(self._may_run(script, unit, unit.job))
                self.in_process.append(self.paths.show(script))
            agents = (candidate.agent, candidate.baseline_agent) if settings.noise else (candidate.agent,)
            for agent in agents:
                if isinstance(agent, ProgramSpec) and (agent.show(), settings.env) not in self.programs:
                    self.programs.append((agent.show(), settings.env))
            named += program_files(candidate)  # a program's files are inputs too
        return named

    def classifier(self, session: Session) -> Classifier:
        return Classifier.of(self.policy, session.context)

    def run(self, unit: Unit) -> UnitResult:
        try:
            return _EXECUTE[unit.analysis](self, unit)
        except InputError as exc:
            # A sealed recording cut or edited so that it no longer reads is the verify unit's chain-broken finding,
            # as `verify` says; the analyses that need its calls say they could not read them, and why.
            readers = (Analysis.AUDIT, Analysis.SCOPE, Analysis.TOOLS)
            if unit.analysis not in readers or not unit.recording.kind.sealed or not self._broken(unit.path):
                raise
            summary = f"not read, its chain being broken: {exc.message}"
            return UnitResult(key=unit.key, analysis=unit.analysis, subject=self.paths.show(unit.path), summary=summary)

    def _broken(self, path: str) -> bool:
        """Whether a sealed recording's chain is broken (its verify unit says where)."""
        links, last_label = read_links(path, self._kinds.get(path) or detect_kind(path, logs=True))
        return verify(links, path, last_label).broken is not None

    def verify(self, unit: Unit) -> UnitResult:
        shown = self.paths.show(unit.path)
        links, last_label = read_links(unit.path, unit.recording.kind)
        result = verify(links, unit.path, last_label)
        broken = result.broken
        if broken is None:
            summary = f"chain intact ({count(result.links, 'link')})"
            if self.config.signers is None:
                return UnitResult(key=unit.key, analysis=Analysis.VERIFY, subject=shown, summary=summary)
            return self._signed(unit, result, summary)
        part = f" ({broken.label})" if broken.label else ""
        message = (
            f"the hash chain breaks at index {broken.index}{part}: expected {broken.expected}, found "
            f"{broken.found}; the file was edited after it was sealed"
        )
        finding = CheckFinding(
            rule=Rule.CHAIN_BROKEN,
            message=message,
            location=Location(shown, broken.line),
            fingerprint=fingerprint("chain-broken", shown),
        )
        summary = f"chain broken at index {broken.index}{part}"
        return UnitResult(key=unit.key, analysis=Analysis.VERIFY, subject=shown, summary=summary, findings=(finding,))

    def _signed(self, unit: Unit, result: Verification, summary: str) -> UnitResult:
        """A sealed recording whose chain is intact, and its signature, where the config names allowed signers."""
        from toolreplay.integrity import signing  # noqa: PLC0415 - only a check that asks for signatures runs ssh-keygen

        shown = self.paths.show(unit.path)
        where = Location(shown, max(result.last_line, 1))
        path = signing.signature_of(unit.path)
        signature = signing.read_signature(path)
        rule, message = None, ""
        if signature is None:
            rule = Rule.RECORDING_UNSIGNED
            message = f"no signature beside it ({self.paths.show(path)}), and the config asks for one (signers:)"
        else:
            message_bytes = signing.statement(unit.recording.kind.value, result.head, result.links)
            checked = signing.check(message_bytes, signature, self.signers(), None, signing.NAMESPACE)
            if checked.good:
                summary += f", signed by {', '.join(checked.signers)}"
            else:
                rule, message = Rule.SIGNATURE_INVALID, f"its signature does not hold: {checked.reason}"
        inputs = (self.paths.show(path),) if signature is not None else ()
        if rule is None:
            return UnitResult(key=unit.key, analysis=Analysis.VERIFY, subject=shown, summary=summary, inputs=inputs)
        finding = CheckFinding(rule=rule, message=message, location=where, fingerprint=fingerprint(rule.value, shown))
        summary += ", " + ("unsigned" if rule is Rule.RECORDING_UNSIGNED else "signature does not hold")
        return UnitResult(
            key=unit.key, analysis=Analysis.VERIFY, subject=shown, summary=summary, inputs=inputs, findings=(finding,)
        )

    def signers(self) -> str:
        """The allowed signers file: under --base, the one the base's config named, as committed at the base,
        whatever the pull request's config names, so a pull request cannot let its own key in."""
        if self._signers is None:
            named = self.config.signers
            assert named is not None
            self._signers = named
            if self.base is not None:
                committed = self.base.signers(self.config.path)
                if committed is not None:
                    import atexit  # noqa: PLC0415
                    import tempfile  # noqa: PLC0415

                    with tempfile.NamedTemporaryFile(prefix="toolreplay-signers-", delete=False) as copy:
                        copy.write(committed)
                    atexit.register(os.unlink, copy.name)
                    self._signers = copy.name
        return self._signers

    def against_base(self, unit: Unit) -> UnitResult:
        """A recording against the one committed at the pull request's base."""
        from toolreplay.check.base import edited_line, kind_now, sealed_departure  # noqa: PLC0415

        old = _needed(unit.base, unit)
        shown = self.paths.show(unit.path)
        level = None if old.kind.sealed else Level(self.config.unsealed_edits)  # never "ignore": not planned
        if not os.path.lexists(unit.path):
            rule, line = Rule.RECORDING_DELETED, 1
            message = f"the {old.kind.value} committed at the base is gone (removed or renamed)"
            summary = "removed since the base"
        elif old.kind.sealed:
            departure = sealed_departure(old, unit.path, kind_now(unit.path))
            if departure is None:
                summary = "the base's links unchanged"
                return UnitResult(key=unit.key, analysis=Analysis.BASE, subject=shown, summary=summary)
            rule, line, message, summary = Rule.RECORDING_REWRITTEN, departure.line, departure.message, "rewritten"
        else:
            edited = edited_line(old, unit.path) if kind_now(unit.path) is not None else 1  # a FIFO is never read
            if edited is None:
                return UnitResult(key=unit.key, analysis=Analysis.BASE, subject=shown, summary="as at the base")
            rule, line, summary = Rule.RECORDING_EDITED, edited, f"edited from line {edited}"
            message = f"differs from the {old.kind.value} committed at the base, from this line on"
        finding = CheckFinding(
            rule=rule,
            message=message,
            location=Location(shown, line),
            fingerprint=fingerprint(rule.value, shown),
            severity=None if level is rule.level else level,
        )
        return UnitResult(key=unit.key, analysis=Analysis.BASE, subject=shown, summary=summary, findings=(finding,))

    def tools(self, unit: Unit) -> UnitResult:
        """A tool surface against the lock, and its texts linted."""
        from toolreplay.surface.drift import LEVELS, DriftKind, diff_surfaces  # noqa: PLC0415 - the tools analysis only
        from toolreplay.surface.lint import LintRule, lint_surface  # noqa: PLC0415
        from toolreplay.surface.lock import read_lock  # noqa: PLC0415
        from toolreplay.surface.model import Surface  # noqa: PLC0415
        from toolreplay.surface.sources import read_surface, session_surface  # noqa: PLC0415

        setting = self.config.tools
        assert setting is not None
        kinds = {kind.value: kind for kind in DriftKind}
        levels = dict(LEVELS)
        for name, level, line in setting.levels:
            if name not in kinds:
                raise InputError(
                    f"'{name}' is no kind of change; the kinds: {', '.join(kinds)}", self.config.path, line
                )
            levels[kinds[name]] = Level(level)
        rules = {rule.value for rule in LintRule}
        for rule_name, _, _, line in setting.accept:
            if rule_name not in rules:
                raise InputError(
                    f"'{rule_name}' is no lint rule; the rules: {', '.join(sorted(rules))}", self.config.path, line
                )
        shown = self.paths.show(unit.path)
        if unit.path in self.config.sessions:
            surface = session_surface(self.session(unit.path), unit.path)  # read once, with the replays
        else:
            surface = read_surface(unit.path)
        findings: list[CheckFinding] = []
        inputs: tuple[str, ...] = ()
        if setting.lock is not None:
            if self._lock is None:
                self._lock = read_lock(setting.lock)  # once for every surface held to it
            lock = self._lock
            if unit.path not in self.config.sessions:  # a candidate's tools file names no server: each tool is
                surface = with_pinned_servers(surface, lock.tools)  # the server's the lock pins it for, matched by name
            servers = {tool.server for tool in surface.tools}
            pinned = Surface(lock.path, tuple(tool for tool in lock.tools if tool.server in servers))
            inputs = (self.paths.show(setting.lock),)
            for server in sorted(servers - {tool.server for tool in lock.tools}):  # held to nothing: said
                named = f"server {server}" if server else "its tools' server"
                findings.append(
                    CheckFinding(
                        rule=Rule.TOOL_CHANGED,
                        message=f"the lock {inputs[0]} pins no tool of {named}: its tools here are held to nothing",
                        location=Location(shown, 1),
                        fingerprint=fingerprint(Rule.TOOL_CHANGED.value, shown, "unpinned", server),
                        severity=Level.WARNING,
                    )
                )
            for drift in diff_surfaces(pinned, surface):
                drift_level = levels[drift.kind]
                where = Location(self.paths.show(drift.path), max(drift.line, 1))
                findings.append(
                    CheckFinding(
                        rule=Rule.TOOL_CHANGED,
                        message=f"{drift.kind.value}: {drift.tool}: {drift.detail} (against {inputs[0]})",
                        location=where,
                        fingerprint=fingerprint(Rule.TOOL_CHANGED.value, shown, drift.kind.value, drift.tool),
                        severity=None if drift_level is Rule.TOOL_CHANGED.level else drift_level,
                    )
                )
        warned = {LintRule.ADDRESS, LintRule.SHADOWING, LintRule.BLOB}  # the likelier to be meant
        accepted = {(rule, tool) for rule, tool, _, _ in setting.accept}
        for lint in lint_surface(surface) if setting.lint else []:
            if (lint.rule.value, lint.tool) in accepted:
                continue
            findings.append(
                CheckFinding(
                    rule=Rule.TOOL_TEXT,
                    message=f"{lint.rule.value}: {lint.tool} {lint.field}: {lint.excerpt}",
                    location=Location(shown, max(lint.line, 1)),
                    fingerprint=fingerprint(Rule.TOOL_TEXT.value, shown, lint.rule.value, lint.tool, lint.field),
                    severity=Level.WARNING if lint.rule in warned else None,
                )
            )
        summary = f"{count(len(surface.tools), 'tool')}" + (
            f", {count(len(findings), 'finding')}" if findings else ", clean"
        )
        return UnitResult(
            key=unit.key,
            analysis=Analysis.TOOLS,
            subject=shown,
            summary=summary,
            inputs=inputs,
            findings=tuple(findings),
        )

    def _call_findings(
        self, rule_of: Iterable[tuple[Rule, str, Call]], shown: str, related: tuple[Location, ...] = ()
    ) -> tuple[CheckFinding, ...]:
        seen: Counter[tuple[str, str, bytes]] = Counter()
        findings: list[CheckFinding] = []
        for rule, message, call in rule_of:
            identity = self.policy.matcher.matched_args(call.tool, call.args)
            key = (rule.value, call.tool, canonical_bytes(identity))
            seen[key] += 1
            mark = fingerprint(rule.value, shown, call.tool, canonical_bytes(identity).decode(), str(seen[key]))
            where = Location(shown, call.line)
            findings.append(CheckFinding(rule=rule, message=message, location=where, related=related, fingerprint=mark))
        return tuple(findings)

    def calls(self, path: str) -> tuple[Callable[[], Iterator[Call]], Classifier, bool]:
        """A way to read a recording's calls (once per pass), a classifier that knows its tools, and whether it
        is a session.

        A session a replay or a comparison has read is taken from memory; any
        other recording is streamed, so an audit or a scope check holds one call
        at a time however large the file.
        """
        if path in self._sessions:
            session = self._sessions[path]
            return lambda: iter(session.calls), self.classifier(session), True
        kind = self._kinds.get(path)
        first, classifier, stateful = calls_and_classifier(path, self.policy, kind)
        unread = [first]

        def calls() -> Iterator[Call]:
            return unread.pop() if unread else calls_and_classifier(path, self.policy, kind)[0]

        return calls, classifier, stateful

    def _at_findings(
        self, findings: tuple[Finding, ...], calls: Callable[[], Iterator[Call]], rule: Rule | None = None
    ) -> Iterator[tuple[Rule, str, Call]]:
        """Each finding with its call, found by a second pass over the calls (only when there are findings)."""
        if not findings:
            return
        recorded = calls()
        call = next(recorded)
        for finding in sorted(findings, key=lambda f: f.index):
            while call.index != finding.index:
                call = next(recorded)
            yield (rule or Rule(finding.kind.value)), finding.detail, call

    def audit(self, unit: Unit) -> UnitResult:
        shown = self.paths.show(unit.path)
        calls, classifier, stateful = self.calls(unit.path)
        report = audit(calls(), classifier, stateful)
        findings = self._call_findings(self._at_findings(report.findings, calls), shown)
        summary = count(report.calls, "call")
        summary += f", {count(len(findings), 'finding')}" if findings else ", clean"
        return UnitResult(key=unit.key, analysis=Analysis.AUDIT, subject=shown, summary=summary, findings=findings)

    def scope(self, unit: Unit) -> UnitResult:
        setting = _needed(unit.scope, unit)
        shown = self.paths.show(unit.path)
        if setting.file not in self._scopes:
            self._scopes[setting.file] = read_scope(setting.file)
        scope = self._scopes[setting.file]
        calls, _, _ = self.calls(unit.path)
        report = check_scope(calls(), scope)
        findings = self._call_findings(self._at_findings(report.findings, calls, Rule.PERMISSION_OVERREACH), shown)
        scope_shown = self.paths.show(setting.file)
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

    def replay(self, unit: Unit) -> UnitResult:
        job = _needed(unit.job, unit)
        shown = self.paths.show(unit.path)
        settings = job.settings
        if self.pool is not None:  # the check's budget: this replay's share of what is left, or its own if less
            cost, tokens = self.pool.share()
            settings = replace(
                settings,
                max_cost=_least(settings.max_cost, cost),
                max_tokens_total=_least(settings.max_tokens_total, tokens),
            )
        session = with_task(self.session(unit.path), settings)
        candidate = self._candidates[unit.key]  # resolved before any unit ran
        outcome = replay_session(
            session,
            settings,
            self.policy,
            self.config.fail_on,
            candidate,
            Progress(settings.repeat + settings.noise),
            self.config.redact_off,
            self.cache(settings),
            self.user,
            self.isolate,
        )
        fallback = None
        if self.config.path is not None:
            fallback = Location(self.paths.show(self.config.path), job.agent_line)
        where = candidate_inputs(session, settings, candidate, self.paths, fallback)
        result = replay_result(unit.key, shown, session, outcome, self.policy, where, candidate, settings, self.paths)
        if self.pool is not None:
            price = price_for(candidate.agent, None, settings.prices)
            cost, tokens = self.pool.spend((*outcome.runs, *outcome.baseline_runs), price)
            said = f"${cost:.4f}, " if self.pool.max_cost is not None else ""
            result = replace(result, summary=f"{result.summary}; spent {said}{tokens:,} tokens of the check's budget")
        return with_tools_given(result, session, candidate, settings, self.paths, where)

    def _may_run(self, script: str, unit: Unit, job: ReplayJob) -> str:
        """A Python file the check will run, once it is known to lie in the repository.

        A session names the agent it was recorded with, and a pull request can edit a session: its
        scripted agent is held to the rule for every file the config names.
        """
        root = self.config.repository
        real = Path(script).resolve()
        if root is not None and real != root and root not in real.parents:
            raise InputError(
                f"replay of {self.paths.show(unit.path)} would run {script}, which lies outside the repository "
                f"({root}); check --allow-outside-root runs it anyway",
                self.config.path,
                job.agent_line,
            )
        return script

    def compare(self, unit: Unit) -> UnitResult:
        group = _needed(unit.group, unit)
        reference = self.session(group.recorded)
        if reference.context is None:
            raise InputError(
                f"compare: {self.paths.show(unit.path)} is a transcript; 'recorded' must be a session",
                self.config.path,
                group.line,
            )
        edited = [self.session(path) for path in group.candidates]
        unchanged = [self.session(path) for path in group.baseline]
        report = compare_sessions(reference, edited, unchanged, self.policy, group.design, self.config.fail_on)
        candidates = [self.paths.show(path) for path in group.candidates]
        baseline = [self.paths.show(path) for path in group.baseline]
        shown = self.paths.show(unit.path)
        return compare_result(unit.key, shown, reference, report, self.policy, candidates, baseline)


_EXECUTE: dict[Analysis, Callable[[_Checker, Unit], UnitResult]] = {
    Analysis.VERIFY: _Checker.verify,
    Analysis.BASE: _Checker.against_base,
    Analysis.AUDIT: _Checker.audit,
    Analysis.SCOPE: _Checker.scope,
    Analysis.REPLAY: _Checker.replay,
    Analysis.TOOLS: _Checker.tools,
    Analysis.COMPARE: _Checker.compare,
}

_Needed = TypeVar("_Needed")
_N = TypeVar("_N", int, float)


def _needed(value: _Needed | None, unit: Unit) -> _Needed:
    """What a unit's analysis needs (its scope, replay or group), which its plan always gives it."""
    if value is None:
        raise ValueError(f"unit {unit.key} is incomplete")
    return value


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


def with_pinned_servers(surface: Surface, pinned: Sequence[SurfaceTool]) -> Surface:
    """A surface whose tools name no server (a tools file), each given the server the lock pins a tool of its name
    for, where exactly one does, so the lock sees a tool changed, not a tool removed and another added."""
    owners: dict[str, set[str]] = {}
    for tool in pinned:
        owners.setdefault(tool.name, set()).add(tool.server)
    tools = tuple(
        replace(tool, server=next(iter(owners[tool.name])))
        if not tool.server and len(owners.get(tool.name, ())) == 1
        else tool
        for tool in surface.tools
    )
    return replace(surface, tools=tools)


def _least(own: _N | None, share: _N | None) -> _N | None:
    """The tighter of two bounds (None: no bound)."""
    if own is None or share is None:
        return share if own is None else own
    return min(own, share)
