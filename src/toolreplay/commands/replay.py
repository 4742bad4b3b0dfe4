"""``replay``: a session against a candidate agent, or a transcript's self-audit.

Given a flat transcript, ``replay`` keeps the auditor's meaning: the self-audit,
byte for byte. Given a session, it replays the session's opening to a candidate
agent (a new prompt, new tools, a new model) and answers every tool call from
the recording.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.agent_spec import FunctionSpec, ProgramSpec
from toolreplay.agents.spec import recorded_here
from toolreplay.analysis.classify import Policy
from toolreplay.commands.base import Emitter, load_policy
from toolreplay.core.errors import UsageError
from toolreplay.core.findings import Gate, gated, rules_of
from toolreplay.core.model import Session
from toolreplay.core.records import record
from toolreplay.core.verdict import Exit, FailOn
from toolreplay.core.wording import count
from toolreplay.formats.kinds import Kind, detect_kind
from toolreplay.formats.recording import calls_and_classifier, load_session
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
from toolreplay.results.shown import FileAudit, NoiseShown, ReplayShown
from toolreplay.results.statements import noise_verdict, replay_verdict
from toolreplay.settings import ReplaySettings

if TYPE_CHECKING:
    from toolreplay.core.outcome import CheckReport
    from toolreplay.surface.drift import Drift


@record
class ReplayRequest:
    recording: str
    settings: ReplaySettings = ReplaySettings()
    fail_on: FailOn = FailOn.DESTRUCTIVE
    rules: str | None = None
    strict: bool = False
    no_cache: bool = False
    keep_runs: str | None = None  # move each program run that ends in no final reply here
    policies: str | None = None


def execute(request: ReplayRequest, emitter: Emitter) -> Exit:
    recording, settings, fail_on = request.recording, request.settings, request.fail_on
    if request.no_cache and settings.cache is not None:
        raise UsageError("--cache and --no-cache: give one")
    inputs = [
        recording,
        request.rules,
        request.policies,
        settings.system,
        settings.tools,
        settings.stubs,
        settings.task_file,
    ]
    emitter.guard(inputs)
    keep = _keep_directory(request.keep_runs) if request.keep_runs is not None else None
    kind = detect_kind(recording, logs=True)
    policy = load_policy(request.rules, request.strict, request.policies)
    if kind in (Kind.TRANSCRIPT, Kind.SEALED_TRANSCRIPT):
        if emitter.wants_json or emitter.wants_runs or keep is not None or emitter.wants_reports:
            raise UsageError(
                f"{recording} is a transcript, which is audited, not replayed: --json, --runs-out, --keep-runs "
                "and the reports "
                "(--html, --markdown, --sarif, --github-annotations) are for a session"
            )
        from toolreplay.analysis.audit import audit  # noqa: PLC0415 - each path loads only what it runs

        report = audit(*calls_and_classifier(recording, policy))
        emitter.show(FileAudit(recording, report))
        return gated(rules_of(report.findings), Gate.ANY_FINDING).exit_code
    session = load_session(recording, kind)
    if session.context is None:
        raise UsageError(f"{recording} has no conversation to replay")
    session = with_task(session, settings)
    candidate = load_candidate(session, settings)
    if settings.agent is None and isinstance(candidate.agent, ProgramSpec | FunctionSpec):
        here = recorded_here(session)
        said = f"replaying the agent {recording} was recorded with: {candidate.label}" + (
            f" ({{here}}: {here})" if here else ""
        )
        emitter.note(said)
    if keep is not None and not any(isinstance(a, ProgramSpec) for a in (candidate.agent, candidate.baseline_agent)):
        raise UsageError(f"--keep-runs keeps a program's run directories, and {candidate.label} is not a program")
    untold = untold_task(session, candidate, settings)
    if untold is not None:
        emitter.warn(untold)
    # The agent the session was recorded with is an input too, found only once the session is read.
    emitter.guard([*inputs, *scripts(candidate, settings), *program_files(candidate)])
    if settings.cache is None:
        outcome = replay_session(session, settings, policy, fail_on, candidate, keep_runs=keep)
    else:
        from toolreplay.replay.cache import RunCache, cache_note  # noqa: PLC0415 - only a replay with a cache

        cache = RunCache(settings.cache, settings.cache_days)
        outcome = replay_session(session, settings, policy, fail_on, candidate, cache=cache, keep_runs=keep)
        for line in cache.ignored:
            emitter.warn(line)
        emitter.note(cache_note(settings.cache, cache))
    if keep is not None:
        emitter.note(_kept(keep))
    if emitter.wants_reports:
        emitter.write(_as_report(recording, session, outcome, policy, candidate, settings, fail_on, emitter.root))
    emitter.runs(outcome)
    given = tuple(_given(session, candidate, settings))
    if outcome.noise is not None:
        emitter.show(NoiseShown(outcome.noise, settings.system, settings.tools, given))
        return outcome.noise.verdict.exit_code
    emitter.show(ReplayShown(outcome.report, settings.system, settings.tools, given))
    return outcome.report.verdict.exit_code


def _keep_directory(given: str) -> Path:
    """Where --keep-runs moves failed runs' directories: new, or an empty directory, so nothing there is replaced."""
    if not given:
        raise UsageError("--keep-runs must name a directory, not an empty string")
    path = Path(given)
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            raise UsageError(f"--keep-runs {given}: not a directory")
        try:
            held = next(path.iterdir(), None)
        except OSError as exc:
            raise UsageError(f"--keep-runs {given}: {exc.strerror or exc}") from None
        if held is not None:
            raise UsageError(f"--keep-runs {given}: holds {held.name} already; give a new or empty directory")
    return path


def _kept(keep: Path) -> str:
    """What --keep-runs kept, in words."""
    kept = sorted(p.name for p in keep.iterdir()) if keep.is_dir() else []
    if not kept:
        return f"every run ended in a final reply: no run directory kept in {keep}"
    shown = ", ".join(kept[:5]) + (f" and {len(kept) - 5} more" if len(kept) > 5 else "")
    return f"kept {count(len(kept), 'run directory', 'run directories')} in {keep}: {shown}"


def _given(session: Session, candidate: Candidate, settings: ReplaySettings) -> list[Drift]:
    """With --tools, how the tools given differ from the recorded ones (else none)."""
    if settings.tools is None or session.context is None:
        return []
    from toolreplay.surface.drift import tools_given  # noqa: PLC0415 - only a replay given other tools

    return tools_given(session.context.tools, candidate.tools, settings.tools)


def _as_report(
    recording: str,
    session: Session,
    outcome: ReplayOutcome,
    policy: Policy,
    candidate: Candidate,
    settings: ReplaySettings,
    fail_on: FailOn,
    root: Path,
) -> CheckReport:
    """The replay as a report of one analysis, its findings pointing at the candidate's inputs (paths from the root),
    with what the replay said of it."""
    from toolreplay.core.outcome import Location, Statement  # noqa: PLC0415
    from toolreplay.results.diff import single_report  # noqa: PLC0415 - reports only
    from toolreplay.results.locate import Paths  # noqa: PLC0415
    from toolreplay.results.replay import candidate_inputs, replay_result, with_tools_given  # noqa: PLC0415 - reports only

    paths = Paths(root)  # files named from the repository root, as check names them
    shown = paths.show(recording)
    where = candidate_inputs(session, settings, candidate, paths, Location(shown, 1))
    result = replay_result(f"replay {shown}", shown, session, outcome, policy, where, candidate, settings, paths)
    result = with_tools_given(result, session, candidate, settings, paths, where, gate=False)
    why = noise_verdict(outcome.noise) if outcome.noise is not None else replay_verdict(outcome.report)
    return single_report(result, fail_on, Statement("replay", why))
