"""Driving a replay: the candidate's runs, and the unchanged configuration's when a noise baseline is asked for.

``replay`` and ``check`` both come here with a
:class:`~toolreplay.settings.ReplaySettings`, so a replay means the same thing
whichever command asked for it. The candidate's files (system prompt, tools,
stubs) are read once, into a :class:`Candidate`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.agents.scripted import user_code_refused
from toolreplay.agents.spec import COMMAND, make_agent, read_prompt, recorded_agent
from toolreplay.canonical import JSONValue
from toolreplay.classify import Classifier, Policy
from toolreplay.design import Design
from toolreplay.errors import InputError, ToolreplayError, UsageError
from toolreplay.formats.files import read_text
from toolreplay.formats.located import Node, parse_json
from toolreplay.formats.session import parse_tools
from toolreplay.formats.stubs import Stub, read_stubs
from toolreplay.model import Session, SessionContext, ToolDef
from toolreplay.replay.engine import ReplaySetup, Run, replay_runs, replay_runs_async
from toolreplay.replay.noise import NoiseReport, seeds_for_baseline, weigh_changes
from toolreplay.replay.progress import Progress
from toolreplay.replay.report import ReplayReport, summarize
from toolreplay.settings import DEFAULT_MAX_TOKENS, ReplaySettings
from toolreplay.verdict import FailOn
from toolreplay.wording import agree, count

if TYPE_CHECKING:
    from toolreplay.replay.command import CommandRuns


@dataclass(frozen=True, slots=True)
class Candidate:
    """What the candidate is told and who it is, read once from the settings' files.

    ``prompt`` and ``tools_node`` are the files as read (None when the recorded
    ones are used), so a report can point at their lines without reading them again.
    """

    system: JSONValue
    tools: tuple[ToolDef, ...]
    stubs: tuple[Stub, ...]
    agent: str  # what runs: a model id, or scripted:PATH found from here
    baseline_agent: str
    label: str  # what reports call the candidate: the agent as given, else the recorded model
    prompt: str | None = None
    tools_node: Node | None = None


def conversation_of(session: Session) -> SessionContext:
    """What a replay starts from; a transcript has none."""
    if session.context is None:
        raise InputError("a transcript has no conversation to replay; replay needs a session", session.path)
    return session.context


def scripts(candidate: Candidate, settings: ReplaySettings) -> list[str]:
    """The Python files this replay will run (the candidate's, and the baseline's with a noise baseline)."""
    agents = {candidate.agent, candidate.baseline_agent} if settings.noise else {candidate.agent}
    return sorted(agent.removeprefix("scripted:") for agent in agents if agent.startswith("scripted:"))


def program_files(candidate: Candidate, settings: ReplaySettings) -> list[str]:
    """The files the cmd: agents of this replay name (their programs, their prompts), the baseline's even when it
    does not run: inputs, never outputs."""
    agents = {candidate.agent, candidate.baseline_agent}
    found: list[str] = []
    for agent in sorted(agents):
        if agent.startswith(COMMAND):
            from toolreplay.replay.command import command_files  # noqa: PLC0415 - a program runner only for cmd:

            found += command_files(agent, os.getcwd())
    return found


def load_candidate(session: Session, settings: ReplaySettings) -> Candidate:
    """The candidate a session is replayed against under ``settings``."""
    context = conversation_of(session)
    prompt = read_prompt(settings.system) if settings.system is not None else None
    tools_node = parse_json(read_text(settings.tools), settings.tools) if settings.tools is not None else None
    if settings.agent is not None and settings.agent.startswith(COMMAND):
        from toolreplay.replay.command import parse_command  # noqa: PLC0415 - a program runner only for cmd:

        parse_command(settings.agent)  # refused now, not after the first run
        baseline = settings.baseline_agent or settings.agent
        if baseline.startswith(COMMAND):
            parse_command(baseline)
        return Candidate(
            system=prompt if prompt is not None else context.system,
            tools=parse_tools(tools_node) if tools_node is not None else context.tools,
            stubs=read_stubs(settings.stubs) if settings.stubs is not None else (),
            agent=settings.agent,
            baseline_agent=baseline,
            label=settings.agent,
            prompt=prompt,
            tools_node=tools_node,
        )
    recorded = recorded_agent(context.model, session.path)
    if settings.baseline_agent is not None:
        recorded = settings.baseline_agent
    if recorded is None and (settings.agent is None or settings.noise):
        raise InputError(
            f"recorded with {context.model}, which is found neither from here nor above the session; "
            "name the agent to replay (--agent, or agent: in a config)",
            session.path,
        )
    baseline_agent = recorded or context.model
    return Candidate(
        system=prompt if prompt is not None else context.system,
        tools=parse_tools(tools_node) if tools_node is not None else context.tools,
        stubs=read_stubs(settings.stubs) if settings.stubs is not None else (),
        agent=settings.agent or baseline_agent,
        baseline_agent=baseline_agent,
        label=settings.agent or context.model,
        prompt=prompt,
        tools_node=tools_node,
    )


@dataclass(frozen=True, slots=True)
class ReplayOutcome:
    """The candidate's report, and with a baseline the changes tested against it."""

    report: ReplayReport
    noise: NoiseReport | None
    runs: tuple[Run, ...]
    baseline_runs: tuple[Run, ...]


def replay_session(
    session: Session,
    settings: ReplaySettings,
    policy: Policy,
    fail_on: FailOn,
    candidate: Candidate | None = None,
    progress: Progress | None = None,
    redact_off: tuple[str, ...] = (),
) -> ReplayOutcome:
    """Run the candidate ``settings.repeat`` times and, with ``settings.noise``, the unchanged configuration too.
    ``redact_off``: the secret shapes a cmd: run's log leaves alone (those the recording was made without)."""
    chosen = candidate if candidate is not None else load_candidate(session, settings)
    context = conversation_of(session)
    request = dict(context.request or {})  # the recorded request settings, reused unless overridden
    if settings.max_tokens is not None or "max_tokens" not in request:
        request["max_tokens"] = settings.max_tokens or DEFAULT_MAX_TOKENS
    setup = ReplaySetup(
        session,
        chosen.system,
        chosen.tools,
        settings.on_unrecorded,
        chosen.stubs,
        settings.max_turns,
        policy.matcher,
        settings.run_timeout,
        request,
    )
    unchanged = replace(setup, system=context.system, tools=context.tools)
    progress = progress if progress is not None else Progress(settings.repeat + settings.noise)
    recorded_classes = Classifier(policy, context.tools)
    candidate_classes = Classifier(policy, chosen.tools)
    # under --fail-on never no round can change the verdict: one round, at the full alpha
    design = Design(settings.alpha, settings.test, 1 if fail_on is FailOn.NEVER else settings.rounds)
    runs: list[Run] = []
    baseline_runs: list[Run] = []
    weighed = None
    programs = _Programs(settings, redact_off)
    try:
        for round_ in range(1, (design.rounds if settings.noise else 1) + 1):
            if round_ > 1:
                progress.more(settings.repeat + settings.noise)
            first = settings.seed + len(runs)
            seeds: Sequence[int] = range(first, first + settings.repeat)
            runs += drive_runs(setup, chosen.agent, seeds, settings, progress, len(runs) + 1, programs.side("edited"))
            if not settings.noise:
                break
            seeds = seeds_for_baseline(settings.seed, settings.noise, len(baseline_runs))
            baseline_runs += drive_runs(
                unchanged,
                chosen.baseline_agent,
                seeds,
                settings,
                progress,
                len(baseline_runs) + 1,
                programs.side("unchanged"),
            )
            _enough_answered(runs, "the candidate", settings.min_runs, session)
            _enough_answered(baseline_runs, "the unchanged configuration", settings.min_runs, session)
            report = summarize(setup, chosen.label, runs, recorded_classes, candidate_classes, fail_on)
            baseline = summarize(unchanged, context.model, baseline_runs, recorded_classes, recorded_classes, fail_on)
            steps = (settings.repeat, settings.noise)
            weighed = weigh_changes(report, baseline, design, fail_on, round_, steps)
            if weighed.settled:
                break
    finally:
        progress.close()
        programs.close()
    _enough_answered(runs, "the candidate", settings.min_runs, session)
    if weighed is not None:
        return ReplayOutcome(weighed.candidate, weighed, tuple(runs), tuple(baseline_runs))
    report = summarize(setup, chosen.label, runs, recorded_classes, candidate_classes, fail_on)
    return ReplayOutcome(report, weighed, tuple(runs), tuple(baseline_runs))


def _enough_answered(runs: Sequence[Run], who: str, least: int, session: Session) -> None:
    """Runs that ended in an error are no evidence; with fewer answered than ``least``, the replay could not run."""
    answered = sum(run.answered for run in runs)
    if not runs or answered >= least:
        return
    error = next((run.error for run in runs if not run.answered), None)
    if not answered:
        raise ToolreplayError(f"every run of {who} ended in an error, so nothing was replayed: {error}", session.path)
    raise ToolreplayError(
        f"only {answered} of {count(len(runs), 'run')} of {who} {agree(answered, 'was', 'were')} answered, "
        f"fewer than --min-runs {least}; "
        f"the others ended in an error: {error}",
        session.path,
    )


class _Programs:
    """Where a replay's cmd: runs keep their directories (created on first use, removed at the end)."""

    def __init__(self, settings: ReplaySettings, redact_off: tuple[str, ...]) -> None:
        self.settings = settings
        self.redact_off = redact_off  # secret shapes the runs' logs leave alone
        self.root: Path | None = None
        self.here = os.getcwd()

    def side(self, side: str) -> Callable[[ReplaySetup, str], CommandRuns]:
        def runs(setup: ReplaySetup, spec: str) -> CommandRuns:
            from toolreplay.replay.command import CommandRuns, parse_command, prepare  # noqa: PLC0415 - cmd: only

            refused = user_code_refused()
            if refused is not None:
                raise UsageError(f"agent {spec} is not run: {refused}")
            if self.root is None:
                import tempfile  # noqa: PLC0415 - directories only for cmd: runs

                self.root = Path(tempfile.mkdtemp(prefix="toolreplay-runs-"))
            served = prepare(setup, self.settings.on_unrecorded, self.settings.stubs, self.redact_off)
            words = parse_command(spec)
            return CommandRuns(words, setup, served, self.root, side, self.settings.run_timeout, self.here)

        return runs

    def close(self) -> None:
        if self.root is not None:
            import shutil  # noqa: PLC0415 - as above

            shutil.rmtree(self.root, ignore_errors=True)


def drive_runs(
    setup: ReplaySetup,
    spec: str,
    seeds: Sequence[int],
    settings: ReplaySettings,
    progress: Progress,
    start: int = 1,
    programs: Callable[[ReplaySetup, str], CommandRuns] | None = None,
) -> list[Run]:
    """The runs of one configuration, numbered from ``start``: scripted runs one by one with their seeds; model
    and program runs maybe at once."""
    if spec.startswith(COMMAND):
        if programs is None:
            raise ValueError("a cmd: agent needs a place for its runs")
        from toolreplay.replay.command import command_runs  # noqa: PLC0415 - a program runner only for cmd:

        return command_runs(programs(setup, spec), seeds, start, settings.concurrency, progress.run)
    if spec.startswith("scripted:"):
        agents = [(make_agent(spec, seed, setup.request), seed) for seed in seeds]
        return replay_runs(setup, agents, progress.turn, progress.run, start)
    if settings.concurrency == 1:
        model_agents = [(make_agent(spec, 0, setup.request, settings.request_timeout), None) for _ in seeds]
        return replay_runs(setup, model_agents, progress.turn, progress.run, start)
    import asyncio  # noqa: PLC0415 - only model replays in parallel need it, and it is slow to import

    return asyncio.run(_model_runs(setup, spec, len(seeds), settings, progress, start))


async def _model_runs(
    setup: ReplaySetup, model: str, repeat: int, settings: ReplaySettings, progress: Progress, start: int
) -> list[Run]:
    """Model runs through one async client, ``settings.concurrency`` at a time."""
    from toolreplay.agents.claude import AsyncClaudeAgent, make_async_client  # noqa: PLC0415 - the optional SDK

    client = make_async_client(settings.request_timeout)
    try:
        agents = [AsyncClaudeAgent(client, model, setup.request) for _ in range(repeat)]
        return await replay_runs_async(setup, agents, settings.concurrency, progress.turn, progress.run, start)
    finally:
        await client.close()
