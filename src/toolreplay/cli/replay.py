"""``toolreplay replay``: a session against a candidate agent, or a transcript's self-audit.

Given a flat transcript, ``replay`` keeps the auditor's meaning: the self-audit,
byte for byte. Given a session, it replays the session's opening to a candidate
agent (a new prompt, new tools, a new model) and answers every tool call from
the recording.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolreplay.agent_spec import ProgramSpec
from toolreplay.agents.spec import recorded_here
from toolreplay.analysis.classify import Policy
from toolreplay.cli.options import fail_on_option, policy_options, settings_options
from toolreplay.cli.output import emit, warn, write_lines
from toolreplay.cli.report_options import Outputs, outputs_options
from toolreplay.commands.base import load_policy
from toolreplay.core.errors import UsageError
from toolreplay.core.escape import for_terminal
from toolreplay.core.findings import Gate, gated, rules_of
from toolreplay.core.model import Session
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


@click.command(
    "replay",
    help="""Replay SESSION against a candidate agent; nothing is executed.

    The recorded opening goes to the candidate with the recorded system prompt
    and tools, or the replacements from --system and --tools. Each tool call
    it makes is answered from the recording (matched by tool and arguments,
    repeated calls in recorded order). A call never recorded is handled by
    --on-unrecorded: stop the run, return an error result, or return a canned
    result from --stubs. The report lists every difference from the recording
    with the number of runs that made it, and the calls never recorded.

    With --noise N the unchanged configuration (the recorded prompt, tools and
    model) is replayed N more times, and each behaviour (the changes made in
    the same runs) is tested: is it more frequent with the edit than without
    it? (Boschloo's exact test, or --test fisher; destructive behaviours a
    family of their own.) A destructive behaviour more frequent with the edit
    is DESTRUCTIVE; one seen but not yet shown to be the edit's is undecided
    while more runs could show it (always, when the unchanged runs never made
    it), and another round of --repeat and --noise runs settles it, up to
    --rounds, with --alpha spread over the rounds. See docs/verdicts.md. Scripted
    baseline runs use seeds 10000 above the candidate's.

    The candidate is --agent (a Claude model id, scripted:FILE, or a program:
    cmd:COMMAND, below); by default the agent the session was recorded with. A scripted agent's runs use seeds
    --seed, --seed+1, ... Exits 1 on a destructive call the recording never
    made, or with --noise on one shown to be the edit's (see --fail-on).

    --agent 'cmd:COMMAND' replays any program that speaks MCP (Claude Code,
    an Agent SDK app, your own): each run gets an MCP configuration serving
    the recording ({mcp_config}), its own directory and HOME, and ends after
    --run-timeout; {task}, {system}, {run}, {seed}, {workdir} and {here} are
    filled in. --baseline-agent is the unchanged program (default: the same
    command). A run's directory (its MCP configuration, the served log, the
    program's output and stderr) is removed when the replay ends; --keep-runs
    DIR moves there the directory of each run that ended in no final reply.
    See docs/agents.md.

    SESSION may be a record-mcp log, read as 'toolreplay import --from mcp'
    would make it; a proxy never sees the person's message, so give it with
    --task-file.

    Given a flat transcript (.jsonl), replay is the auditor's self-audit, as
    'toolreplay audit'.
    """,
)
@click.argument("recording", metavar="SESSION")
@settings_options()
@click.option("--no-cache", is_flag=True, help="Drive every run: no run cache, whatever else names one.")
@click.option("--runs-out", metavar="FILE", help="Write every run's calls to FILE as JSON Lines.")
@click.option(
    "--keep-runs",
    metavar="DIR",
    help="Move the directory of each program run that ends in no final reply to DIR (new or empty), to read it.",
)
@fail_on_option
@outputs_options
@policy_options
def command(
    recording: str,
    settings: ReplaySettings,
    no_cache: bool,
    runs_out: str | None,
    keep_runs: str | None,
    fail_on: str,
    outputs: Outputs,
    rules_file: str | None,
    strict: bool,
) -> Exit:
    if no_cache and settings.cache is not None:
        raise UsageError("--cache and --no-cache: give one")
    inputs = [recording, rules_file, settings.system, settings.tools, settings.stubs, settings.task_file]
    outputs.guard(inputs, {"--runs-out": runs_out})
    keep = _keep_directory(keep_runs) if keep_runs is not None else None
    kind = detect_kind(recording, logs=True)
    policy = load_policy(rules_file, strict)
    if kind in (Kind.TRANSCRIPT, Kind.SEALED_TRANSCRIPT):
        if outputs.as_json or runs_out is not None or keep is not None or outputs.asked:
            raise UsageError(
                f"{recording} is a transcript, which is audited, not replayed: --json, --runs-out, --keep-runs "
                "and the reports "
                "(--html, --markdown, --sarif, --github-annotations) are for a session"
            )
        from toolreplay.analysis.audit import audit  # noqa: PLC0415 - each path loads only what it runs

        report = audit(*calls_and_classifier(recording, policy))
        emit(FileAudit(recording, report))
        return gated(rules_of(report.findings), Gate.ANY_FINDING).exit_code
    session = load_session(recording, kind)
    if session.context is None:
        raise UsageError(f"{recording} has no conversation to replay")
    session = with_task(session, settings)
    candidate = load_candidate(session, settings)
    if settings.agent is None and isinstance(candidate.agent, ProgramSpec):
        here = recorded_here(session)
        said = f"replaying the agent {recording} was recorded with: {candidate.label}" + (
            f" ({{here}}: {here})" if here else ""
        )
        click.echo(f"toolreplay: {for_terminal(said)}", err=True)
    if keep is not None and not any(isinstance(a, ProgramSpec) for a in (candidate.agent, candidate.baseline_agent)):
        raise UsageError(f"--keep-runs keeps a program's run directories, and {candidate.label} is not a program")
    untold = untold_task(session, candidate, settings)
    if untold is not None:
        warn(untold)
    # The agent the session was recorded with is an input too, found only once the session is read.
    outputs.guard([*inputs, *scripts(candidate, settings), *program_files(candidate)], {"--runs-out": runs_out})
    if settings.cache is None:
        outcome = replay_session(session, settings, policy, FailOn(fail_on), candidate, keep_runs=keep)
    else:
        from toolreplay.replay.cache import RunCache, cache_note  # noqa: PLC0415 - only a replay with a cache

        cache = RunCache(settings.cache, settings.cache_days)
        outcome = replay_session(session, settings, policy, FailOn(fail_on), candidate, cache=cache, keep_runs=keep)
        for line in cache.ignored:
            warn(line)
        click.echo(f"toolreplay: {for_terminal(cache_note(settings.cache, cache))}", err=True)
    if keep is not None:
        click.echo(f"toolreplay: {for_terminal(_kept(keep))}", err=True)
    if outputs.asked:
        outputs.write(
            _as_report(recording, session, outcome, policy, candidate, settings, FailOn(fail_on), outputs.root)
        )
    if runs_out is not None:
        from toolreplay.report.registry import render  # noqa: PLC0415 - only when the runs are asked for

        text = render("runs", outcome)
        write_lines((line.encode("utf-8") for line in text.split("\n")[:-1]), runs_out)
    return _told(outcome, outputs, session, candidate, settings)


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


def _told(
    outcome: ReplayOutcome, outputs: Outputs, session: Session, candidate: Candidate, settings: ReplaySettings
) -> Exit:
    """The report on stdout, as JSON or text (with the tools' changes, given --tools), and the exit code."""
    given = tuple(_given(session, candidate, settings))
    if outcome.noise is not None:
        emit(NoiseShown(outcome.noise, settings.system, settings.tools, given), outputs.as_json)
        return outcome.noise.verdict.exit_code
    emit(ReplayShown(outcome.report, settings.system, settings.tools, given), outputs.as_json)
    return outcome.report.verdict.exit_code


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
