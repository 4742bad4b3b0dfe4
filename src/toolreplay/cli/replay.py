"""``toolreplay replay``: a session against a candidate agent, or a transcript's self-audit.

Given a flat transcript, ``replay`` keeps the auditor's meaning: the self-audit,
byte for byte. Given a session, it replays the session's opening to a candidate
agent (a new prompt, new tools, a new model) and answers every tool call from
the recording.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import click

from toolreplay.classify import Classifier, Policy
from toolreplay.cli.agent_options import make_agent, read_prompt
from toolreplay.cli.audit import audit_files
from toolreplay.cli.diff import FAIL_ON
from toolreplay.cli.output import write_lines, write_text
from toolreplay.cli.policy_options import load_policy, policy_options
from toolreplay.cli.unrecorded_options import load_unrecorded, unrecorded_options
from toolreplay.errors import UsageError
from toolreplay.formats.files import read_text
from toolreplay.formats.located import parse_located
from toolreplay.formats.recording import Kind, detect_kind, load_session
from toolreplay.formats.session import parse_tools
from toolreplay.noise import DEFAULT_ALPHA, seeds_for_baseline, weigh_changes
from toolreplay.replay.engine import ReplaySetup, Run, replay_runs, replay_runs_async
from toolreplay.replay.progress import Progress
from toolreplay.replay.report import summarize
from toolreplay.report.json_report import render_noise_json, render_replay_json, run_lines
from toolreplay.report.text import render_noise, render_replay
from toolreplay.verdict import FailOn


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
    model) is replayed N more times, and each change is tested: is it more
    frequent with the edit than without it? (one-sided Fisher exact test, false
    discovery rate held at --alpha across the changes). A destructive call the
    unchanged runs never made is DESTRUCTIVE however rarely it appears. Scripted
    baseline runs use seeds 10000 above the candidate's.

    The candidate is --agent (a Claude model id, or scripted:FILE); by default
    the model the session was recorded with. A scripted agent's runs use seeds
    --seed, --seed+1, ... Exits 1 on a destructive call the recording never
    made (see --fail-on).

    Given a flat transcript (.jsonl), replay is the auditor's self-audit, as
    'toolreplay audit'.
    """,
)
@click.argument("recording", metavar="SESSION")
@click.option("--system", "system_file", metavar="FILE", help="A replacement system prompt.")
@click.option("--tools", "tools_file", metavar="FILE", help="Replacement tool definitions (a JSON array).")
@click.option("--agent", "--model", "agent", metavar="SPEC", help="A Claude model id, or scripted:FILE.")
@click.option("--repeat", default=1, show_default=True, help="How many runs.")
@click.option("--seed", default=1, show_default=True, help="The first scripted run's seed.")
@unrecorded_options
@click.option("--max-turns", default=50, show_default=True, help="End a run after this many agent turns.")
@click.option("--max-tokens", default=4096, show_default=True, help="Output token limit per model request.")
@click.option(
    "--concurrency",
    default=1,
    show_default=True,
    help="Model runs in flight at once (async client). Scripted runs are in-process and always one at a time.",
)
@click.option("--runs-out", metavar="FILE", help="Write every run's calls to FILE as JSON Lines.")
@click.option("--fail-on", type=FAIL_ON, default="destructive", show_default=True, help="What fails the check.")
@click.option(
    "--noise",
    default=0,
    show_default=True,
    help="Also replay the unchanged configuration this many times, and test each change against it.",
)
@click.option(
    "--alpha",
    default=DEFAULT_ALPHA,
    show_default=True,
    help="False discovery rate for calling a change real, across the changes of one report.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@policy_options
def command(
    recording: str,
    system_file: str | None,
    tools_file: str | None,
    agent: str | None,
    repeat: int,
    seed: int,
    on_unrecorded: str,
    stubs_file: str | None,
    max_turns: int,
    max_tokens: int,
    concurrency: int,
    runs_out: str | None,
    fail_on: str,
    noise: int,
    alpha: float,
    as_json: bool,
    rules_file: str | None,
    strict: bool,
) -> int:
    kind = detect_kind(recording)
    if kind in (Kind.TRANSCRIPT, Kind.SEALED_TRANSCRIPT):
        return audit_files((recording,), load_policy(rules_file, strict) if rules_file or strict else Policy())
    if repeat < 1 or max_turns < 1 or concurrency < 1:
        raise UsageError("--repeat, --max-turns and --concurrency must be at least 1")
    if noise < 0 or not 0 < alpha < 1:
        raise UsageError("--noise must be 0 or more, and --alpha between 0 and 1")
    policy_unrecorded, stubs = load_unrecorded(on_unrecorded, stubs_file)
    session = load_session(recording, kind)
    context = session.context
    if context is None:
        raise UsageError(f"{recording} has no conversation to replay")
    policy = load_policy(rules_file, strict)
    tools = context.tools
    if tools_file is not None:
        tools = parse_tools(parse_located(read_text(tools_file), tools_file), tools_file)
    setup = ReplaySetup(
        session,
        read_prompt(system_file) if system_file else context.system,
        tools,
        policy_unrecorded,
        stubs,
        max_turns,
        policy.matcher,
    )
    spec = agent or context.model
    progress = Progress(repeat + noise)
    try:
        runs = _runs(setup, spec, range(seed, seed + repeat), concurrency, max_tokens, progress)
        baseline_runs: list[Run] = []
        if noise:
            unchanged = replace(setup, system=context.system, tools=context.tools)
            seeds = seeds_for_baseline(seed, noise)
            baseline_runs = _runs(unchanged, context.model, seeds, concurrency, max_tokens, progress)
    finally:
        progress.close()
    recorded_classes = Classifier(policy, context.tools)
    report = summarize(setup, spec, runs, recorded_classes, Classifier(policy, tools), FailOn(fail_on))
    if noise:
        baseline = summarize(
            replace(setup, system=context.system, tools=context.tools),
            context.model,
            baseline_runs,
            recorded_classes,
            recorded_classes,
            FailOn(fail_on),
        )
        weighed = weigh_changes(report, baseline, alpha, FailOn(fail_on))
        if runs_out is not None:
            write_lines(run_lines(runs) + run_lines(baseline_runs, "baseline"), runs_out, inputs=[recording])
        write_text(render_noise_json(weighed) if as_json else render_noise(weighed, system_file, tools_file))
        return weighed.verdict.exit_code
    if runs_out is not None:
        write_lines(run_lines(runs), runs_out, inputs=[recording])
    write_text(render_replay_json(report) if as_json else render_replay(report, system_file, tools_file))
    return report.verdict.exit_code


def _runs(
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
