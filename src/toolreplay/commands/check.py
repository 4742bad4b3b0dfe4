"""``check``: every configured analysis of the committed recordings, for CI."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.agents.scripted import refusing_user_code
from toolreplay.check.run import PreparedCheck
from toolreplay.commands.base import Emitter
from toolreplay.core.errors import ToolreplayError, UsageError
from toolreplay.core.files import repository_root
from toolreplay.core.outcome import Analysis, CheckReport, parse_shard
from toolreplay.core.records import record
from toolreplay.core.verdict import Exit, FailOn
from toolreplay.core.wording import count
from toolreplay.formats.config.model import DEFAULT_CONFIG, Config
from toolreplay.formats.config.read import discover, read_config
from toolreplay.results.locate import Paths

if TYPE_CHECKING:
    from toolreplay.check.base import Base
    from toolreplay.check.policy import Governed
    from toolreplay.processes.isolation import RunAs


@record
class CheckRequest:
    config_file: str | None = None  # default: .toolreplay.yml here, else what is under this directory
    root: str | None = None  # the repository root report paths are relative to
    shard: str | None = None  # K/N
    fail_on: FailOn | None = None  # in place of the config's
    allow_outside_root: bool = False
    base: str | None = None  # the pull request's base commit
    policy: str = "base"  # under base: whose policy governs
    isolate: bool = False
    isolate_user: str | None = None
    cache: str | None = None
    no_cache: bool = False
    no_code: bool = False


def execute(request: CheckRequest, emitter: Emitter) -> Exit:
    if request.no_code:
        with refusing_user_code(
            "--no-code was given (a config from a pull request must not run code with its secrets)"
        ):
            return _execute(request, emitter)
    return _execute(request, emitter)


def _execute(request: CheckRequest, emitter: Emitter) -> Exit:
    config_file, isolate = request.config_file, request.isolate
    reaper, user = False, None
    if request.isolate_user is not None:  # before anything is read: a check that cannot isolate as asked does not run
        from toolreplay.processes.isolation import run_as  # noqa: PLC0415

        isolate, user = True, run_as(request.isolate_user)
    try:
        chosen_shard = parse_shard(request.shard) if request.shard is not None else None
    except ValueError as exc:
        raise UsageError(f"--shard {exc}") from None
    if config_file is None and os.path.isfile(DEFAULT_CONFIG):
        config_file = DEFAULT_CONFIG
    if request.root is not None:
        if not os.path.isdir(request.root):
            raise UsageError(f"--root {request.root} is not a directory")
        top = Path(request.root).resolve()
    else:
        top = repository_root(os.path.dirname(os.path.abspath(config_file)) if config_file else ".")
    config, based, governed = _configured(config_file, top, request.allow_outside_root, request.base, request.policy)
    if request.fail_on is not None:
        config = replace(config, fail_on=request.fail_on)
    if request.cache is not None or request.no_cache:
        config = with_cache(config, request.cache, request.no_cache)
    emitter.default_report("html", config.html)  # the command line's --html in place of the config's
    emitter.guard(config.files(), top)  # before reading any
    if isolate:
        from toolreplay.processes.isolation import become_subreaper, keep_unread  # noqa: PLC0415

        reaper = become_subreaper()
        keep_unread()  # an agent of the check's own user reads nothing of the check's environment or memory
        jobs = tuple(replace(job, settings=replace(job.settings, env=job.settings.env or ())) for job in config.replays)
        config = replace(config, replays=jobs)
    paths = Paths(top, governed.copies if governed is not None else ())
    prepared = PreparedCheck(config, paths, chosen_shard, based, governed, user, isolate)
    emitter.guard(prepared.inputs)  # what the sessions name
    try:
        report = prepared.run()
    except BaseException:
        if isolate:  # a check that fails leaves nothing of the runs behind either
            from toolreplay.processes.isolation import end_runs  # noqa: PLC0415

            end_runs(reaper, user.uid if user else None)
        raise
    if isolate:
        report = _ended(prepared, report, reaper, user)
    emitter.report(report, top)  # the check's repository, wherever it runs from
    if config.notice:  # said once the check ran, so a failure is still exactly one line
        emitter.note(config.notice.removeprefix("toolreplay: "))
    for warning in (*config.skipped, *prepared.warnings):
        emitter.warn(warning)
    for note in prepared.notes:
        emitter.note(note)
    return report.verdict.exit_code


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
