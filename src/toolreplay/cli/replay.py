"""``toolreplay replay``: a session against a candidate agent, or a transcript's self-audit.

Given a flat transcript, ``replay`` keeps the auditor's meaning: the self-audit,
byte for byte. Given a session, it replays the session's opening to a candidate
agent (a new prompt, new tools, a new model) and answers every tool call from
the recording.
"""

from __future__ import annotations

import click

from toolreplay.agents.spec import read_prompt
from toolreplay.classify import Policy
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
from toolreplay.noise import DEFAULT_ALPHA
from toolreplay.replay.drive import ReplayPlan, replay_session
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
    plan = ReplayPlan(
        session,
        read_prompt(system_file) if system_file else context.system,
        tools,
        agent or context.model,
        repeat,
        seed,
        noise,
        alpha,
        policy_unrecorded,
        stubs,
        max_turns,
        max_tokens,
        concurrency,
        FailOn(fail_on),
    )
    outcome = replay_session(plan, policy)
    if runs_out is not None:
        lines = run_lines(outcome.runs)
        if noise:
            lines += run_lines(outcome.baseline_runs, "baseline")
        write_lines(lines, runs_out, inputs=[recording])
    if outcome.noise is not None:
        write_text(
            render_noise_json(outcome.noise) if as_json else render_noise(outcome.noise, system_file, tools_file)
        )
        return outcome.noise.verdict.exit_code
    report = outcome.report
    write_text(render_replay_json(report) if as_json else render_replay(report, system_file, tools_file))
    return report.verdict.exit_code
