"""``toolreplay check``: every configured analysis of the committed recordings, for CI."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolreplay.agents.scripted import refuse_user_code
from toolreplay.check.run import PreparedCheck
from toolreplay.cli.options import FAIL_ON
from toolreplay.cli.output import warn
from toolreplay.cli.report_options import ReportFiles, emit_reports, guard_reports, report_options
from toolreplay.core.errors import ToolreplayError, UsageError
from toolreplay.core.escape import for_terminal
from toolreplay.core.files import repository_root
from toolreplay.core.outcome import Analysis, CheckReport, parse_shard
from toolreplay.core.verdict import FailOn
from toolreplay.formats.config.model import DEFAULT_CONFIG, Config
from toolreplay.formats.config.read import discover, read_config
from toolreplay.results.locate import Paths

if TYPE_CHECKING:
    from toolreplay.check.base import Base
    from toolreplay.check.policy import Governed
    from toolreplay.processes.isolation import RunAs
from toolreplay.core.wording import count


def _configured(
    config_file: str | None, top: Path, outside: bool, base: str | None, policy: str
) -> tuple[Config, Base | None, Governed | None]:
    """The config the check runs: the one given (or found), or under ``--base`` the one the base's policy governs."""
    if base is None:
        return (read_config(config_file, top, outside) if config_file is not None else _discovered(".")), None, None
    from toolreplay.check.base import Base  # noqa: PLC0415 - only a check against a base runs git
    from toolreplay.check.policy import config_named, govern  # noqa: PLC0415

    based = Base(base, top)
    config_file = config_named(config_file, based)
    if config_file is None:
        return _discovered("."), based, None
    pr = read_config(config_file, top, outside) if os.path.lexists(config_file) else None
    governed = govern(pr, config_file, based, policy, top, outside)
    return governed.config, based, governed


def _ended(prepared: PreparedCheck, report: CheckReport, reaper: bool, user: RunAs | None) -> CheckReport:
    """Every process the runs started (and every process of the user they ran as) ended before any report is
    written, and the report saying so."""
    from toolreplay.check.run import isolation_result  # noqa: PLC0415
    from toolreplay.processes.isolation import end_runs  # noqa: PLC0415

    ended, left = end_runs(reaper, user.uid if user else None)
    if left:
        raise ToolreplayError(
            f"{count(len(left), 'process', 'processes')} the runs started could not be ended "
            f"(pids {', '.join(map(str, left))}); "
            "no report is written while code of the pull request's still runs"
        )
    said = isolation_result(prepared.in_process, prepared.programs, ended, reaper, user.uid if user else None)
    first = prepared.shard is None or prepared.shard[0] == 1
    policies = sum(1 for result in report.results if result.analysis is Analysis.POLICY)  # said first, then this
    keys = (*report.units[:policies], said.key, *report.units[policies:])
    results = (*report.results[:policies], said, *report.results[policies:]) if first else report.results
    return replace(report, units=keys, results=results)


def with_cache(config: Config, cache: str | None, no_cache: bool) -> Config:
    """``config`` with every replay's run cache the command line's (``--cache DIR``), or none (``--no-cache``)."""
    if cache is not None and no_cache:
        raise UsageError("--cache and --no-cache: give one")
    if cache == "":
        raise UsageError("--cache must name a directory, not an empty string")
    jobs = tuple(replace(job, settings=replace(job.settings, cache=cache)) for job in config.replays)
    return replace(config, replays=jobs)


def _discovered(directory: str) -> Config:
    config = discover(directory)
    if not config.recordings:
        raise UsageError(
            f"no {DEFAULT_CONFIG} here and no recordings under {directory}; "
            "name them in a config (see docs/configuration.md) or pass --config FILE"
        )
    sealed = set(config.sealed)
    sessions = sum(1 for path in config.sessions if path not in sealed)
    transcripts = sum(1 for path in config.recordings if path not in sealed and path not in config.sessions)
    notice = (
        f"toolreplay: no {DEFAULT_CONFIG}; checked what is under {directory}: {count(sessions, 'session')}, "
        f"{count(transcripts, 'transcript')}, {count(len(sealed), 'sealed file')} (audit and verify, default settings)"
    )
    return replace(config, notice=notice)


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
    reaper, user = False, None
    if isolate_user is not None:  # before anything is read: a check that cannot isolate as asked does not run
        from toolreplay.processes.isolation import run_as  # noqa: PLC0415

        isolate, user = True, run_as(isolate_user)
    if no_code:
        refuse_user_code("--no-code was given (a config from a pull request must not run code with its secrets)")
    try:
        chosen_shard = parse_shard(shard) if shard is not None else None
    except ValueError as exc:
        raise UsageError(f"--shard {exc}") from None
    if config_file is None and os.path.isfile(DEFAULT_CONFIG):
        config_file = DEFAULT_CONFIG
    if root is not None:
        if not os.path.isdir(root):
            raise UsageError(f"--root {root} is not a directory")
        top = Path(root).resolve()
    else:
        top = repository_root(os.path.dirname(os.path.abspath(config_file)) if config_file else ".")
    config, based, governed = _configured(config_file, top, allow_outside_root, base, policy or "base")
    if fail_on is not None:
        config = replace(config, fail_on=FailOn(fail_on))
    if cache is not None or no_cache:
        config = with_cache(config, cache, no_cache)
    reports["html"] = reports["html"] or config.html  # the command line's --html in place of the config's
    guard_reports(reports, config.files(), top)  # before reading any
    if isolate:
        from toolreplay.processes.isolation import become_subreaper, keep_unread  # noqa: PLC0415

        reaper = become_subreaper()
        keep_unread()  # an agent of the check's own user reads nothing of the check's environment or memory
        jobs = tuple(replace(job, settings=replace(job.settings, env=job.settings.env or ())) for job in config.replays)
        config = replace(config, replays=jobs)
    paths = Paths(top, governed.copies if governed is not None else ())
    prepared = PreparedCheck(config, paths, chosen_shard, based, governed, user, isolate)
    guard_reports(reports, prepared.inputs)  # what the sessions name
    try:
        report = prepared.run()
    except BaseException:
        if isolate:  # a check that fails leaves nothing of the runs behind either
            from toolreplay.processes.isolation import end_runs  # noqa: PLC0415

            end_runs(reaper, user.uid if user else None)
        raise
    if isolate:
        report = _ended(prepared, report, reaper, user)
    code = emit_reports(report, reports, github_annotations, top)
    if config.notice:  # said once the check ran, so a failure is still exactly one line
        click.echo(config.notice, err=True)
    for warning in (*config.skipped, *prepared.warnings):
        warn(warning)
    for note in prepared.notes:
        click.echo(f"toolreplay: {for_terminal(note)}", err=True)
    return code
