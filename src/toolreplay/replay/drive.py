"""Driving a replay: the candidate's runs, and the unchanged configuration's when a noise baseline is asked for.

``replay`` and ``check`` both come here, so a replay means the same thing
whichever command asked for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from toolreplay.agents.spec import make_agent
from toolreplay.canonical import JSONValue
from toolreplay.classify import Classifier, Policy
from toolreplay.model import Session, ToolDef
from toolreplay.noise import NoiseReport, seeds_for_baseline, weigh_changes
from toolreplay.replay.answers import Stub, Unrecorded
from toolreplay.replay.engine import ReplaySetup, Run, replay_runs, replay_runs_async
from toolreplay.replay.progress import Progress
from toolreplay.replay.report import ReplayReport, summarize
from toolreplay.verdict import FailOn


@dataclass(frozen=True, slots=True)
class ReplayPlan:
    """One replay of a session: the candidate, how many runs, and how calls are answered."""

    session: Session
    system: JSONValue
    tools: tuple[ToolDef, ...]
    agent: str
    repeat: int = 1
    seed: int = 1
    noise: int = 0
    alpha: float = 0.05
    on_unrecorded: Unrecorded = Unrecorded.ERROR
    stubs: tuple[Stub, ...] = ()
    max_turns: int = 50
    max_tokens: int = 4096
    concurrency: int = 1
    fail_on: FailOn = FailOn.DESTRUCTIVE
    baseline_agent: str | None = None  # the unchanged configuration's agent; by default the recorded model


@dataclass(frozen=True, slots=True)
class ReplayOutcome:
    """The candidate's report, and with a baseline the changes tested against it."""

    report: ReplayReport
    noise: NoiseReport | None
    runs: tuple[Run, ...]
    baseline_runs: tuple[Run, ...]


def replay_session(plan: ReplayPlan, policy: Policy, progress: Progress | None = None) -> ReplayOutcome:
    """Run the candidate ``plan.repeat`` times and, with ``plan.noise``, the unchanged configuration too."""
    context = plan.session.context
    if context is None:
        raise ValueError("a transcript has no conversation to replay")
    setup = ReplaySetup(
        plan.session, plan.system, plan.tools, plan.on_unrecorded, plan.stubs, plan.max_turns, policy.matcher
    )
    unchanged = replace(setup, system=context.system, tools=context.tools)
    progress = progress if progress is not None else Progress(plan.repeat + plan.noise)
    try:
        seeds: Sequence[int] = range(plan.seed, plan.seed + plan.repeat)
        runs = drive_runs(setup, plan.agent, seeds, plan.concurrency, plan.max_tokens, progress)
        baseline_runs: list[Run] = []
        if plan.noise:
            seeds = seeds_for_baseline(plan.seed, plan.noise)
            baseline_agent = plan.baseline_agent or context.model
            baseline_runs = drive_runs(unchanged, baseline_agent, seeds, plan.concurrency, plan.max_tokens, progress)
    finally:
        progress.close()
    recorded_classes = Classifier(policy, context.tools)
    report = summarize(setup, plan.agent, runs, recorded_classes, Classifier(policy, plan.tools), plan.fail_on)
    weighed = None
    if plan.noise:
        baseline = summarize(unchanged, context.model, baseline_runs, recorded_classes, recorded_classes, plan.fail_on)
        weighed = weigh_changes(report, baseline, plan.alpha, plan.fail_on)
    return ReplayOutcome(report, weighed, tuple(runs), tuple(baseline_runs))


def drive_runs(
    setup: ReplaySetup, spec: str, seeds: Sequence[int], concurrency: int, max_tokens: int, progress: Progress
) -> list[Run]:
    """The runs of one configuration: scripted runs one by one with their seeds; model runs maybe at once."""
    if spec.startswith("scripted:"):
        agents = [(make_agent(spec, seed, max_tokens), seed) for seed in seeds]
        return replay_runs(setup, agents, progress.turn, progress.run)
    if concurrency == 1:
        return replay_runs(setup, [(make_agent(spec, 0, max_tokens), None) for _ in seeds], progress.turn, progress.run)
    import asyncio  # noqa: PLC0415 - only model replays in parallel need it, and it is slow to import

    return asyncio.run(_model_runs(setup, spec, len(seeds), concurrency, max_tokens, progress))


async def _model_runs(
    setup: ReplaySetup, model: str, repeat: int, concurrency: int, max_tokens: int, progress: Progress
) -> list[Run]:
    """Model runs through one async client, ``concurrency`` at a time."""
    from toolreplay.agents.claude import AsyncClaudeAgent, make_async_client  # noqa: PLC0415 - the optional SDK

    client = make_async_client()
    try:
        agents = [AsyncClaudeAgent(client, model, max_tokens) for _ in range(repeat)]
        return await replay_runs_async(setup, agents, concurrency, progress.turn, progress.run)
    finally:
        await client.close()
