"""Merging the JSON reports of a sharded check into the report of the whole check."""

from __future__ import annotations

from collections.abc import Sequence

from toolreplay.core.errors import InputError, UsageError
from toolreplay.core.outcome import CheckReport, UnitResult
from toolreplay.core.wording import count


def merge_reports(reports: Sequence[tuple[str, CheckReport]]) -> CheckReport:
    """Every shard's results, in the unsharded order; the shards must make up exactly one check."""
    if not reports:
        raise UsageError("merge needs at least one report")
    _, first = reports[0]
    results: dict[str, UnitResult] = {}
    for path, report in reports:
        if report.config_digest != first.config_digest or report.units != first.units:
            raise InputError("comes from a different check (another config, its files, or toolreplay version)", path)
        if report.policies != first.policies:
            raise InputError("was judged by other policies than the first report (another policy file)", path)
        if report.fail_on is not first.fail_on:
            raise InputError(f"was run with fail-on {report.fail_on.value}, the first with {first.fail_on.value}", path)
        for result in report.results:
            if result.key in results:
                raise InputError(f"'{result.key}' is in more than one report; merge each shard once", path)
            results[result.key] = result
    missing = [key for key in first.units if key not in results]
    if missing:
        raise UsageError(
            f"the reports hold {len(results)} of the check's {count(len(first.units), 'analysis', 'analyses')} "
            f"('{missing[0]}' is missing): merge every shard's report"
        )
    ordered = tuple(results[key] for key in first.units)
    return CheckReport(first.config, first.config_digest, first.fail_on, first.units, ordered, policies=first.policies)
