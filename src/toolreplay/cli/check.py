"""``toolreplay check``: every configured analysis of the committed recordings, for CI."""

from __future__ import annotations

import click

from toolreplay.cli.emitter import Printer
from toolreplay.cli.options import FAIL_ON
from toolreplay.cli.report_options import Outputs, ReportFiles, report_options
from toolreplay.commands import check
from toolreplay.core.verdict import FailOn
from toolreplay.formats.config.model import DEFAULT_CONFIG


@click.command(
    "check",
    help=f"""Run every configured analysis on the committed recordings: the CI entry point.

    Reads --config ({DEFAULT_CONFIG} by default): which sessions, transcripts
    and sealed files to check, the scope and rules, and optionally replays
    against a candidate prompt, tools or model and comparisons of recorded
    sessions (see docs/configuration.md). Without a config file, every
    recording under the current directory is verified and audited.

    Prints a text report; --markdown, --sarif and --json write the others, and
    --github-annotations prints workflow commands for the findings. Paths in
    the reports are relative to the repository root (the nearest directory
    above the config holding .git, or --root).

    Exits 1 when the verdict is FAIL: under fail-on destructive (the default)
    a broken chain, a permission overreach or a new destructive call; under
    changed, any finding; under never, nothing.

    --base REF (the pull request's base commit) also holds every recording
    committed at REF to what it was there: a sealed one may only grow (a
    rewritten link is recording-rewritten at its line, even where the file was
    sealed again), a removed one is recording-deleted, an edit to an unsealed
    one is recording-edited (the config's unsealed-edits sets its level). A
    shallow clone fetches REF from origin. The base's policy governs too: its
    config is read as committed at REF (its rules, scopes, stubs, lock and
    signers as committed there; the prompts, tools files and agents it names
    from this tree), the stricter of each of its settings and this config's
    runs, every seed comes from REF's id, and each way this config is less
    strict is a policy-loosened finding at its line (--policy pr: this config
    runs, and each loosening is a warning).

    --shard K/N runs shard K of N (a share of each analysis, balanced by its
    expected cost), for a CI matrix; 'toolreplay merge' combines the shards'
    --json reports.
    """,
)
@click.option("--config", "config_file", metavar="FILE", help=f"The config file [default: {DEFAULT_CONFIG}].")
@click.option("--root", metavar="DIR", help="The repository root that report paths are relative to.")
@click.option("--shard", metavar="K/N", help="Run only shard K of N of the analyses.")
@click.option("--fail-on", type=FAIL_ON, help="Override the config's fail-on.")
@click.option(
    "--allow-outside-root",
    is_flag=True,
    help="Let the config name files outside the repository root (by .., an absolute path or a symlink).",
)
@click.option(
    "--base",
    metavar="REF",
    help="Hold the recordings committed at REF (the pull request's base) to what they were there.",
)
@click.option(
    "--policy",
    type=click.Choice(["base", "pr"]),
    default="base",
    show_default=True,
    help="Under --base, whose policy governs: the base's (the stricter of the base's and the pull request's "
    "settings run) or the pull request's (for teams that review the config by code owners); either way each "
    "loosening is a policy-loosened finding.",
)
@click.option(
    "--isolate",
    is_flag=True,
    help="Keep the pull request's code apart: a scripted agent runs in a worker process of its own, each program "
    "agent starts from an allowlisted environment (and the variables its replay's env: names), and every process "
    "the runs started is ended, and checked gone, before any report is written; the report says what each was "
    "given and what ran unisolated (docs/security.md).",
)
@click.option(
    "--isolate-user",
    metavar="USER",
    help="With --isolate, run each program agent and scripted agent's worker as USER (UID[:GID] or a name; the check "
    "runs as root), a program's servers answered from the check's side of a relay, so it can write nothing of the "
    "check's, its log included.",
)
@click.option("--cache", metavar="DIR", help="The run cache of every replay, in place of the config's cache:.")
@click.option("--no-cache", is_flag=True, help="Drive every run: no run cache, whatever the config says.")
@click.option(
    "--no-code",
    is_flag=True,
    help="Run no Python file the config names (scripted agents): for configs that come from a pull request.",
)
@report_options()
def command(
    config_file: str | None,
    root: str | None,
    shard: str | None,
    fail_on: str | None,
    reports: ReportFiles,
    github_annotations: bool,
    allow_outside_root: bool,
    base: str | None,
    policy: str | None,
    isolate: bool,
    isolate_user: str | None,
    cache: str | None,
    no_cache: bool,
    no_code: bool,
) -> int:
    request = check.CheckRequest(
        config_file,
        root,
        shard,
        FailOn(fail_on) if fail_on is not None else None,
        allow_outside_root,
        base,
        policy or "base",
        isolate,
        isolate_user,
        cache,
        no_cache,
        no_code,
    )
    return check.execute(request, Printer(outputs=Outputs(False, reports, github_annotations), whole=True))
