"""``toolreplay replay``: a session against a candidate agent, or a transcript's self-audit.

Given a flat transcript, ``replay`` keeps the auditor's meaning: the self-audit,
byte for byte. Given a session, it replays the session's opening to a candidate
agent (a new prompt, new tools, a new model) and answers every tool call from
the recording.
"""

from __future__ import annotations

import click

from toolreplay.cli.emitter import Printer
from toolreplay.cli.options import fail_on_option, policies_option, policy_options, settings_options
from toolreplay.cli.report_options import Outputs, outputs_options
from toolreplay.commands import replay
from toolreplay.core.verdict import Exit, FailOn
from toolreplay.settings import ReplaySettings


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

    The candidate is --agent (a Claude model id or PROVIDER/MODEL,
    scripted:FILE, a Python function given an MCP session:
    python:MODULE:FUNCTION, or a program: cmd:COMMAND, below); by default the
    agent the session was recorded with. A scripted agent's runs use seeds
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
@policies_option
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
    policies_file: str | None,
) -> Exit:
    request = replay.ReplayRequest(
        recording, settings, FailOn(fail_on), rules_file, strict, no_cache, keep_runs, policies_file
    )
    return replay.execute(request, Printer(outputs=outputs, runs_out=runs_out))
