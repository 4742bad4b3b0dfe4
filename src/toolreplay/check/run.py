"""A check in three steps: plan it into units, resolve this shard's units, execute them.

**Plan.** The units, in report order: the chain of every sealed recording, the
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

import hashlib
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from toolreplay import __version__
from toolreplay.agent_spec import ProgramSpec, shown_from
from toolreplay.analysis.audit import audit
from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.analysis.diff import DiffResult
from toolreplay.check.locate import (
    CandidateInputs,
    Paths,
    changed_tool_lines,
    fingerprint,
    first_difference,
    prompt_text,
)
from toolreplay.check.views import call_view, diff_view, field_view, recording_view, run_diff, run_views
from toolreplay.core.canonical import canonical_bytes
from toolreplay.core.errors import InputError
from toolreplay.core.findings import ChangeVerdict, Level, Rule
from toolreplay.core.model import CallClass, PairKind
from toolreplay.formats.config import CompareGroup, Config, ReplayJob, ScopeSetting
from toolreplay.integrity.chain import Verification, verify

if TYPE_CHECKING:  # the base and the tools analyses are loaded only by a check that has them
    from toolreplay.check.base import Base, BaseFile
    from toolreplay.check.policy import Governed
    from toolreplay.processes.isolation import RunAs
    from toolreplay.surface.lock import Lock
    from toolreplay.surface.model import Surface, SurfaceTool
from toolreplay.analysis.scope import Scope, check_scope
from toolreplay.core.model import Call, Finding, Session, ToolDef
from toolreplay.core.outcome import (
    Analysis,
    ChangeRow,
    CheckFinding,
    CheckReport,
    Location,
    RunView,
    Side,
    Statement,
    ToolChange,
    UnitResult,
    UnrecordedRow,
)
from toolreplay.core.records import record
from toolreplay.core.verdict import FailOn
from toolreplay.core.wording import agree, count, format_call
from toolreplay.formats.recording import (
    Kind,
    calls_and_classifier,
    detect_kind,
    load_session,
    read_links,
)
from toolreplay.formats.rules import read_rules
from toolreplay.formats.scope import read_scope
from toolreplay.replay import reading
from toolreplay.replay.budget import CheckBudget, price_for
from toolreplay.replay.cache import RunCache, cache_note
from toolreplay.replay.compare import compare_sessions
from toolreplay.replay.drive import (
    Candidate,
    ReplayOutcome,
    load_candidate,
    program_files,
    replay_session,
    scripts,
    untold_task,
    with_task,
)
from toolreplay.replay.noise import NoiseReport
from toolreplay.replay.progress import Progress
from toolreplay.replay.report import Change, ReplayReport
from toolreplay.settings import ReplaySettings


@record
class Recording:
    """A file the check reads as a recording, with its kind, detected once."""

    path: str
    kind: Kind


@record
class Unit:
    """One analysis of one file or group: its key, and what it needs."""

    key: str
    analysis: Analysis
    recording: Recording
    scope: ScopeSetting | None = None
    job: ReplayJob | None = None
    group: CompareGroup | None = None
    base: BaseFile | None = None  # the recording as committed at the pull request's base

    @property
    def path(self) -> str:
        return self.recording.path


def plan(config: Config, paths: Paths, based: Sequence[BaseFile] = ()) -> list[Unit]:
    """Every unit of the check, in report order; ``based``: the recordings at the pull request's base."""
    units: list[Unit] = []
    listed_sealed = set(config.sealed)
    found: dict[str, Recording] = {}

    def recording(path: str) -> Recording:
        if path not in found:
            found[path] = Recording(path, detect_kind(path, logs=True))
        return found[path]

    for path in config.recordings:
        kind = recording(path).kind
        if path in listed_sealed and not kind.sealed:
            raise InputError(
                f"listed under 'sealed' but is a {kind.value}; seal it: toolreplay seal FILE -o SEALED", path
            )
        if kind.sealed:
            units.append(Unit(f"verify {paths.show(path)}", Analysis.VERIFY, found[path]))
    for old in based:
        if not old.kind.sealed and config.unsealed_edits == "ignore":
            continue
        from toolreplay.check.base import kind_now  # noqa: PLC0415 - only a check against a base

        now = found.get(old.path) or Recording(old.path, kind_now(old.path) or old.kind)  # a FIFO is never opened
        units.append(Unit(f"base {paths.show(old.path)}", Analysis.BASE, now, base=old))
    units.extend(Unit(f"audit {paths.show(path)}", Analysis.AUDIT, found[path]) for path in config.recordings)
    for setting in config.scopes:
        applies = setting.recordings or config.recordings
        units.extend(
            Unit(
                f"scope {paths.show(path)} against {paths.show(setting.file)}",
                Analysis.SCOPE,
                recording(path),
                scope=setting,
            )
            for path in applies
        )
    for number, job in enumerate(config.replays, start=1):
        for path in job.sessions:
            kind = recording(path).kind
            if kind in (Kind.TRANSCRIPT, Kind.SEALED_TRANSCRIPT):
                raise InputError(
                    f"replay {number}: {paths.show(path)} is a {kind.value}, which has no conversation to replay; "
                    "name sessions under 'replay'",
                    config.path,
                    job.line,
                )
            units.append(Unit(f"replay {number} {paths.show(path)}", Analysis.REPLAY, found[path], job=job))
    if config.tools is not None:
        sealed = [path for path in config.sealed if path in found and found[path].kind is Kind.SEALED_SESSION]
        surfaces = [
            *config.sessions,
            *sealed,  # a sealed session is held to the lock as the session it sealed
            *(job.settings.tools for job in config.replays if job.settings.tools),
        ]
        for path in dict.fromkeys(surfaces):
            kind = found[path].kind if path in found else Kind.SESSION
            units.append(Unit(f"tools {paths.show(path)}", Analysis.TOOLS, Recording(path, kind)))
    for number, group in enumerate(config.compares, start=1):
        key = f"compare {number} {paths.show(group.recorded)}"
        units.append(Unit(key, Analysis.COMPARE, recording(group.recorded), group=group))
    return units


def unit_weight(unit: Unit) -> float:
    """A unit's expected cost, comparable within its analysis: bytes to read, times runs for a replay."""
    if unit.base is not None:
        return float(len(unit.base.data)) or 1.0
    paths = [unit.path]
    if unit.group is not None:
        paths = [unit.group.recorded, *unit.group.candidates, *unit.group.baseline]
    size = float(sum(os.path.getsize(path) for path in paths)) or 1.0
    if unit.job is not None:
        size *= unit.job.settings.repeat + unit.job.settings.noise
    return size


def shard_of(units: Sequence[Unit], shard: tuple[int, int] | None) -> list[Unit]:
    """Shard K of N: a deterministic share of every analysis, balanced by the units' weights.

    Within each analysis the heaviest unit goes first, each to the shard with
    the least work so far (work counted as shares of each analysis's total, so
    one shard does not collect the heaviest unit of every analysis). The same
    files give the same split on every machine; the shard keeps report order.
    """
    if shard is None:
        return list(units)
    k, n = shard
    load = [0.0] * n
    chosen: set[str] = set()
    for analysis in Analysis:
        members = [unit for unit in units if unit.analysis == analysis]
        weights = {unit.key: unit_weight(unit) for unit in members}
        total = sum(weights.values())
        for unit in sorted(members, key=lambda u: (-weights[u.key], u.key)):
            target = min(range(n), key=lambda i: (load[i], i))
            load[target] += weights[unit.key] / total
            if target == k - 1:
                chosen.add(unit.key)
    return [unit for unit in units if unit.key in chosen]


def config_digest(config: Config) -> str:
    """What every shard of one check shares: the toolreplay version and the config's text (or the recordings found)."""
    digest = hashlib.sha256(__version__.encode())
    found = "\n".join(config.recordings).encode("utf-8", "surrogateescape")  # a name's bytes, whatever they are
    digest.update(config.text.encode() if config.path else found)
    return digest.hexdigest()


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
        from toolreplay.surface.model import Surface, read_surface, session_surface  # noqa: PLC0415

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


def single_report(result: UnitResult, fail_on: FailOn, stated: Statement) -> CheckReport:
    """One analysis's result as a whole report, with what its command said of it: what ``replay``, ``compare`` and
    ``diff`` render every report kind from."""
    return CheckReport(None, "", fail_on, (result.key,), (result,), stated=stated)


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


def _least(own: _N | None, share: _N | None) -> _N | None:
    """The tighter of two bounds (None: no bound)."""
    if own is None or share is None:
        return share if own is None else own
    return min(own, share)


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
    agent = shown_from(candidate.agent, paths.root.as_posix(), paths.show)  # named from the root, as every report
    edits = [f"system {paths.show(p)}" for p in (settings.system,) if p]
    edits += [f"tools {paths.show(p)}" for p in (settings.tools,) if p]
    summary = f"{count(len(outcome.runs), 'run')} of {agent} ({', '.join(edits) or 'as recorded'})"
    if settings.noise:
        summary += f", {len(outcome.baseline_runs)} unchanged"
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
    recorded = Classifier.of(policy, session.context)
    diff = None
    if rows and rows[0].made_in:
        number = rows[0].made_in[0]
        run = next(run for run in outcome.report.runs if run.number == number)
        diff = run_diff(
            session,
            run,
            recorded,
            Classifier.of(policy, session.context, outcome.report.setup.tools),
            shown,
            f"edited run {number}",
            b_lines=False,  # the run's log is not kept: no line of it is cited
        )
    return UnitResult(
        key=key,
        analysis=Analysis.REPLAY,
        subject=shown,
        summary=summary,
        inputs=inputs,
        findings=findings,
        changes=rows,
        unrecorded=_unrecorded_rows(outcome.report),
        recording=recording_view(session, recorded),
        runs=runs,
        diff=diff,
    )


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
    summary = (
        f"{count(len(candidates), 'edited session')} against {count(len(baseline), 'unchanged session')}: "
        f"{_change_summary(report.candidate, report)}"
    )
    rows = _change_rows(report.candidate, report)
    runs = run_views(report.candidate, Side.EDITED, policy, candidates, recorded_lines=True)
    runs += run_views(report.baseline, Side.UNCHANGED, policy, baseline, recorded_lines=True)
    recorded = Classifier.of(policy, reference.context)
    diff = None
    if rows and rows[0].made_in:
        number = rows[0].made_in[0]
        run = report.candidate.runs[number - 1]
        edited = Classifier.of(policy, reference.context, report.candidate.setup.tools)
        diff = run_diff(reference, run, recorded, edited, shown, candidates[number - 1])
    inputs = (*candidates, *baseline)
    return UnitResult(
        key=key,
        analysis=Analysis.COMPARE,
        subject=shown,
        summary=summary,
        inputs=inputs,
        findings=findings,
        changes=rows,
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
