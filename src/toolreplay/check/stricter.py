"""The stricter of two configs: what runs under ``check --base --policy base``."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from toolreplay.check.loosening import BUDGETS, FAILS_ON, MORE_IS_STRICTER, union
from toolreplay.formats.config.model import CompareGroup, Config, ReplayJob, ScopeSetting
from toolreplay.formats.config.read import UNSEALED_EDITS
from toolreplay.settings import ReplaySettings, SettingError

if TYPE_CHECKING:
    pass


_B = TypeVar("_B", int, float)


def stricter(base: Config, pr: Config) -> Config:
    """What runs under ``--policy base``: every file either config checks, the base's entries at the stricter of
    each setting, and the pull request's own entries beside them. The base's policy files (rules, policies, scopes,
    stubs, lock, signers) are its own; the pull request's rules count too, as another reading of each call, and its
    policies beside the base's, each one the base does not state."""
    recordings = union(base.recordings, pr.recordings)
    fail_on = pr.fail_on if FAILS_ON[base.fail_on] <= FAILS_ON[pr.fail_on] else base.fail_on
    unsealed = min(base.unsealed_edits, pr.unsealed_edits, key=UNSEALED_EDITS.index)
    replays = [_stricter_job(job, pr.replays[n] if n < len(pr.replays) else None) for n, job in enumerate(base.replays)]
    given = {name for job in base.replays for name in job.settings.env or ()}
    addresses = {url for job in base.replays for url in (job.settings.base_url, job.settings.baseline_base_url)}
    for number, job in enumerate(pr.replays):  # the pull request's own, beside: what it replays differently runs too
        if number >= len(base.replays) or _job_inputs(job) != _job_inputs(base.replays[number]):
            chosen = job.settings
            env = tuple(name for name in chosen.env or () if name in given)  # none the base gives no program
            # a model is asked only where the base asks one (its key goes there), else at its SDK's own address
            url = chosen.base_url if chosen.base_url in addresses else None
            baseline_url = chosen.baseline_base_url if chosen.baseline_base_url in addresses else None
            settings = replace(chosen, env=env, base_url=url, baseline_base_url=baseline_url)
            replays.append(replace(job, settings=settings))
    compares = [
        _stricter_group(group, pr.compares[n] if n < len(pr.compares) else None)
        for n, group in enumerate(base.compares)
    ]
    compares += [group for n, group in enumerate(pr.compares) if n >= len(base.compares)]
    scopes = list(base.scopes)
    scopes += [s for s in pr.scopes if not any(_same_scope(s, b) for b in base.scopes)]
    return replace(
        pr,
        recordings=recordings,
        sealed=union(base.sealed, pr.sealed),
        sessions=union(base.sessions, pr.sessions),
        patterns=union(base.patterns, pr.patterns),
        scopes=tuple(scopes),
        rules=pr.rules if pr.rules is not None else base.rules,
        base_rules=base.rules,
        policies=pr.policies,
        base_policies=base.policies,
        # the policies judge what either config has them judge: every recording, where either says so
        policies_for=() if not base.policies_for or not pr.policies_for else union(base.policies_for, pr.policies_for),
        strict=base.strict or pr.strict,
        fail_on=fail_on,
        replays=tuple(replays),
        compares=tuple(compares),
        signers=base.signers if base.signers is not None else pr.signers,
        unsealed_edits=unsealed,
        tools=base.tools if base.tools is not None else pr.tools,
        max_cost=_looser(base.max_cost, pr.max_cost),
        max_tokens_total=_looser(base.max_tokens_total, pr.max_tokens_total),
    )


def _looser(before: _B | None, after: _B | None) -> _B | None:
    """The budget that stops fewer runs: none where either sets none."""
    return None if before is None or after is None else max(before, after)


def _same_scope(a: ScopeSetting, b: ScopeSetting) -> bool:
    try:
        same_file = Path(a.file).read_bytes() == Path(b.file).read_bytes()
    except OSError:
        return False
    return same_file and set(a.recordings) == set(b.recordings)


def _job_inputs(job: ReplayJob) -> tuple[object, ...]:
    chosen = job.settings
    return (
        frozenset(job.sessions),
        *(os.path.realpath(p) if p else None for p in (chosen.system, chosen.tools, chosen.task_file)),
        chosen.agent,
        chosen.baseline_agent,
    )


def _stricter_job(base: ReplayJob, pr: ReplayJob | None) -> ReplayJob:
    if pr is None:
        return base
    old, new = base.settings, pr.settings
    changes: dict[str, object] = {field: max(getattr(old, field), getattr(new, field)) for field in MORE_IS_STRICTER}
    for field in BUDGETS:
        before, after = getattr(old, field), getattr(new, field)
        changes[field] = None if before is None or after is None else max(before, after)
    # how the runs are made is the pull request's to say; what they are held to is not
    for field in ("concurrency", "prompt_cache", "batch", "mcp_transport", "max_tokens"):
        changes[field] = getattr(new, field)
    changes["env"] = old.env  # the variables a program gets are the base's to give
    # where a model is asked is where its key goes: the base's address, whatever the pull request says
    changes["base_url"], changes["baseline_base_url"] = old.base_url, old.baseline_base_url
    changes["cache_files"] = union(old.cache_files, new.cache_files)  # a run is keyed on the files of either
    try:
        settings: ReplaySettings = replace(old, **changes)  # type: ignore[arg-type]
    except SettingError:  # more rounds of more runs than the exact tests take: the base's own design
        settings = replace(old, **{field: getattr(new, field) for field in ("concurrency", "cache", "mcp_transport")})
    return replace(base, sessions=union(base.sessions, pr.sessions), settings=settings, line=pr.line)


def _stricter_group(base: CompareGroup, pr: CompareGroup | None) -> CompareGroup:
    if pr is None:
        return base
    design = replace(base.design, alpha=max(base.design.alpha, pr.design.alpha))
    return replace(
        base,
        candidates=union(base.candidates, pr.candidates),
        baseline=union(base.baseline, pr.baseline),
        design=design,
        line=pr.line,
    )
