"""What a check's units share: the config, the repository's paths, the rules, every file read once
(sessions, scopes, kinds, the lock, the allowed signers), the run caches and the budget; and the resolving of a
shard's inputs before anything runs.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from toolreplay.agent_spec import FunctionSpec, ProgramSpec, ScriptSpec
from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.analysis.policy_set import NO_POLICIES, PolicySet
from toolreplay.analysis.scope import Scope
from toolreplay.check.plan import Unit
from toolreplay.core.canonical import canonical_bytes
from toolreplay.core.errors import InputError
from toolreplay.core.findings import Rule
from toolreplay.core.model import Call, Finding, Session
from toolreplay.core.outcome import Analysis, CheckFinding, Location
from toolreplay.formats.config.model import Config, ReplayJob
from toolreplay.formats.kinds import Kind, detect_kind
from toolreplay.formats.recording import calls_and_classifier, load_session, read_links
from toolreplay.formats.rules import read_rules
from toolreplay.integrity.chain import verify
from toolreplay.replay.budget import CheckBudget
from toolreplay.replay.cache import RunCache
from toolreplay.replay.drive import (
    Candidate,
    load_candidate,
    program_files,
    scripts,
    untold_task,
    with_task,
)
from toolreplay.results.locate import Paths, fingerprint
from toolreplay.settings import ReplaySettings

if TYPE_CHECKING:  # the base, isolation and the lock are loaded only by a check that has them
    from toolreplay.check.base import Base
    from toolreplay.processes.isolation import RunAs
    from toolreplay.surface.judge import Judge
    from toolreplay.surface.lock import Lock


class Checker:
    """What every unit of one check shares: the config, the rules, each file read once, the run caches and the
    budget."""

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
        self.signers_copy: str | None = None  # the allowed signers file read (the base's, under --base)
        self.lock: Lock | None = None  # the tools lock, read once
        self.tool_judge: Judge | None = None  # the judge of the tools' texts, its verdicts shared by every surface
        self.base_lock: str | None = None  # under --base, the base's tools lock (its copy), whatever policy governs
        self.pool: CheckBudget | None = None  # the check's own budget, where the config sets one
        self.policy = Policy(strict=config.strict)
        if config.rules:  # its findings name it as every report names a file: from the repository root
            self.policy = replace(read_rules(config.rules, config.strict), source=paths.show(config.rules))
        if config.base_rules and config.base_rules != config.rules:  # the base's, beside: the more dangerous counts
            self.policy = replace(
                self.policy, also=(("the base's rules", read_rules(config.base_rules, config.strict)),)
            )
        self.unjudged = self.policy  # for a recording the policies do not apply to
        self.judged = frozenset(config.policies_for)
        if config.policies or config.base_policies:
            self.policy = replace(self.policy, policies=self._policies(config, paths))
        self.sessions: dict[str, Session] = {}
        self.candidates: dict[str, Candidate] = {}  # each replay unit's, by its key
        self.in_process: list[str] = []  # the Python files of the pull request's that run in this process
        self.programs: list[tuple[str, tuple[str, ...] | None]] = []  # each program agent, and the variables it gets
        self.scopes: dict[str, Scope] = {}
        self.kinds: dict[str, Kind] = {}
        self.warnings: list[str] = []  # what to tell the user once the check ran
        self.caches: dict[str, RunCache] = {}  # one per directory, shared by the replays that name it

    @staticmethod
    def _policies(config: Config, paths: Paths) -> PolicySet:
        """The policies the check judges by: the config's file, and under --base the base's beside it (each of the
        base's holds as the base states it; the pull request's own hold too, each the base does not state)."""
        from toolreplay.formats.policies import read_policies  # noqa: PLC0415 - only a check with policies

        own = read_policies(config.policies, paths.show(config.policies)) if config.policies else NO_POLICIES
        if not config.base_policies or config.base_policies == config.policies:
            return own
        base = read_policies(config.base_policies, own.source or "the base's policy file")
        stated = {policy.id for policy in base.policies}
        return replace(base, policies=(*base.policies, *(p for p in own.policies if p.id not in stated)))

    def cache(self, settings: ReplaySettings) -> RunCache | None:
        if settings.cache is None:
            return None
        if settings.cache not in self.caches:
            self.caches[settings.cache] = RunCache(settings.cache, settings.cache_days)
        return self.caches[settings.cache]

    def session(self, path: str) -> Session:
        if path not in self.sessions:
            self.sessions[path] = load_session(path, self.kinds.get(path))
        return self.sessions[path]

    def resolve(self, units: Sequence[Unit]) -> list[str]:
        """Read what the units' replays need before any unit runs (their sessions, their candidates), and name
        the files they will read beyond those the config names: the agents the sessions were recorded with, held
        to the repository, and the files a program names."""
        named: list[str] = []
        for unit in units:
            self.kinds[unit.path] = unit.recording.kind
        for unit in units:
            if unit.analysis is not Analysis.REPLAY or unit.job is None:
                continue
            settings = unit.job.settings
            session = with_task(self.session(unit.path), settings)
            candidate = load_candidate(session, settings)
            self.candidates[unit.key] = candidate
            untold = untold_task(session, candidate, settings)
            if untold is not None and untold not in self.warnings:
                self.warnings.append(untold)
            agents = (candidate.agent, candidate.baseline_agent) if settings.noise else (candidate.agent,)
            scripted = {agent.path for agent in agents if isinstance(agent, ScriptSpec)}
            for script in scripts(candidate, settings):  # scripted agents' files and python: agents' alike
                named.append(self.may_run(script, unit, unit.job))
                if script in scripted:  # run here, or in a worker; a python: agent is named with the programs
                    self.in_process.append(self.paths.show(script))
            for agent in agents:
                if isinstance(agent, ProgramSpec | FunctionSpec) and (agent.show(), settings.env) not in self.programs:
                    self.programs.append((agent.show(), settings.env))
            named += program_files(candidate)  # a program's files are inputs too
        return named

    def policy_for(self, path: str) -> Policy:
        """The policy a recording is judged by: the policies apply to every recording, or to those they name."""
        return self.policy if not self.judged or path in self.judged else self.unjudged

    def classifier(self, session: Session) -> Classifier:
        return Classifier.of(self.policy_for(session.path), session.context)

    def broken(self, path: str) -> bool:
        """Whether a sealed recording's chain is broken (its verify unit says where)."""
        links, last_label = read_links(path, self.kinds.get(path) or detect_kind(path, logs=True))
        return verify(links, path, last_label).broken is not None

    def signers(self) -> str:
        """The allowed signers file: under --base, the one the base's config named, as committed at the base,
        whatever the pull request's config names, so a pull request cannot let its own key in."""
        if self.signers_copy is None:
            named = self.config.signers
            assert named is not None
            self.signers_copy = named
            if self.base is not None:
                committed = self.base.signers(self.config.path)
                if committed is not None:
                    import atexit  # noqa: PLC0415
                    import tempfile  # noqa: PLC0415

                    with tempfile.NamedTemporaryFile(prefix="toolreplay-signers-", delete=False) as copy:
                        copy.write(committed)
                    atexit.register(os.unlink, copy.name)
                    self.signers_copy = copy.name
        return self.signers_copy

    def call_findings(
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
        if path in self.sessions:
            session = self.sessions[path]
            return lambda: iter(session.calls), self.classifier(session), True
        kind = self.kinds.get(path)
        policy = self.policy_for(path)
        first, classifier, stateful = calls_and_classifier(path, policy, kind)
        unread = [first]

        def calls() -> Iterator[Call]:
            return unread.pop() if unread else calls_and_classifier(path, policy, kind)[0]

        return calls, classifier, stateful

    def at_findings(
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

    def may_run(self, script: str, unit: Unit, job: ReplayJob) -> str:
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


_Needed = TypeVar("_Needed")


def needed(value: _Needed | None, unit: Unit) -> _Needed:
    """What a unit's analysis needs (its scope, replay or group), which its plan always gives it."""
    if value is None:
        raise ValueError(f"unit {unit.key} is incomplete")
    return value
