"""Planning a check: its units in report order, each recording's kind detected once, a unit's key and
expected cost, and a shard's share of each analysis.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolreplay import __version__
from toolreplay.core.errors import InputError
from toolreplay.core.outcome import Analysis
from toolreplay.core.records import record
from toolreplay.formats.config.model import CompareGroup, Config, ReplayJob, ScopeSetting
from toolreplay.formats.kinds import Kind, detect_kind
from toolreplay.results.locate import Paths

if TYPE_CHECKING:  # the base and the tools analyses are loaded only by a check that has them
    from toolreplay.check.base import BaseFile


@record
class Recording:
    """A file the check reads as a recording, with its kind, detected once."""

    path: str
    kind: Kind


@record
class Unit:
    """One analysis of one file or group: its key, and what it needs."""

    key: str
    analysis: Analysis
    recording: Recording
    scope: ScopeSetting | None = None
    job: ReplayJob | None = None
    group: CompareGroup | None = None
    base: BaseFile | None = None  # the recording as committed at the pull request's base

    @property
    def path(self) -> str:
        return self.recording.path


def plan(config: Config, paths: Paths, based: Sequence[BaseFile] = ()) -> list[Unit]:
    """Every unit of the check, in report order; ``based``: the recordings at the pull request's base."""
    units: list[Unit] = []
    listed_sealed = set(config.sealed)
    found: dict[str, Recording] = {}

    def recording(path: str) -> Recording:
        if path not in found:
            found[path] = Recording(path, detect_kind(path, logs=True))
        return found[path]

    for path in config.recordings:
        kind = recording(path).kind
        if path in listed_sealed and not kind.sealed:
            raise InputError(
                f"listed under 'sealed' but is a {kind.value}; seal it: toolreplay seal FILE -o SEALED", path
            )
        if kind.sealed:
            units.append(Unit(f"verify {paths.show(path)}", Analysis.VERIFY, found[path]))
    for old in based:
        if not old.kind.sealed and config.unsealed_edits == "ignore":
            continue
        from toolreplay.check.base import kind_now  # noqa: PLC0415 - only a check against a base

        now = found.get(old.path) or Recording(old.path, kind_now(old.path) or old.kind)  # a FIFO is never opened
        units.append(Unit(f"base {paths.show(old.path)}", Analysis.BASE, now, base=old))
    units.extend(Unit(f"audit {paths.show(path)}", Analysis.AUDIT, found[path]) for path in config.recordings)
    for setting in config.scopes:
        applies = setting.recordings or config.recordings
        units.extend(
            Unit(
                f"scope {paths.show(path)} against {paths.show(setting.file)}",
                Analysis.SCOPE,
                recording(path),
                scope=setting,
            )
            for path in applies
        )
    for number, job in enumerate(config.replays, start=1):
        for path in job.sessions:
            kind = recording(path).kind
            if kind in (Kind.TRANSCRIPT, Kind.SEALED_TRANSCRIPT):
                raise InputError(
                    f"replay {number}: {paths.show(path)} is a {kind.value}, which has no conversation to replay; "
                    "name sessions under 'replay'",
                    config.path,
                    job.line,
                )
            units.append(Unit(f"replay {number} {paths.show(path)}", Analysis.REPLAY, found[path], job=job))
    if config.tools is not None:
        sealed = [path for path in config.sealed if path in found and found[path].kind is Kind.SEALED_SESSION]
        surfaces = [
            *config.sessions,
            *sealed,  # a sealed session is held to the lock as the session it sealed
            *(job.settings.tools for job in config.replays if job.settings.tools),
        ]
        for path in dict.fromkeys(surfaces):
            kind = found[path].kind if path in found else Kind.SESSION
            units.append(Unit(f"tools {paths.show(path)}", Analysis.TOOLS, Recording(path, kind)))
    for number, group in enumerate(config.compares, start=1):
        key = f"compare {number} {paths.show(group.recorded)}"
        units.append(Unit(key, Analysis.COMPARE, recording(group.recorded), group=group))
    return units


def unit_weight(unit: Unit) -> float:
    """A unit's expected cost, comparable within its analysis: bytes to read, times runs for a replay."""
    if unit.base is not None:
        return float(len(unit.base.data)) or 1.0
    paths = [unit.path]
    if unit.group is not None:
        paths = [unit.group.recorded, *unit.group.candidates, *unit.group.baseline]
    size = float(sum(os.path.getsize(path) for path in paths)) or 1.0
    if unit.job is not None:
        size *= unit.job.settings.repeat + unit.job.settings.noise
    return size


def shard_of(units: Sequence[Unit], shard: tuple[int, int] | None) -> list[Unit]:
    """Shard K of N: a deterministic share of every analysis, balanced by the units' weights.

    Within each analysis the heaviest unit goes first, each to the shard with
    the least work so far (work counted as shares of each analysis's total, so
    one shard does not collect the heaviest unit of every analysis). The same
    files give the same split on every machine; the shard keeps report order.
    """
    if shard is None:
        return list(units)
    k, n = shard
    load = [0.0] * n
    chosen: set[str] = set()
    for analysis in Analysis:
        members = [unit for unit in units if unit.analysis == analysis]
        weights = {unit.key: unit_weight(unit) for unit in members}
        total = sum(weights.values())
        for unit in sorted(members, key=lambda u: (-weights[u.key], u.key)):
            target = min(range(n), key=lambda i: (load[i], i))
            load[target] += weights[unit.key] / total
            if target == k - 1:
                chosen.add(unit.key)
    return [unit for unit in units if unit.key in chosen]


def config_digest(config: Config) -> str:
    """What every shard of one check shares: the toolreplay version and the config's text (or the recordings found)."""
    digest = hashlib.sha256(__version__.encode())
    found = "\n".join(config.recordings).encode("utf-8", "surrogateescape")  # a name's bytes, whatever they are
    digest.update(config.text.encode() if config.path else found)
    return digest.hexdigest()
