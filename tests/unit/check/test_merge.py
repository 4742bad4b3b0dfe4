"""A sharded check's reports merge into the whole check's, and only shards of one check merge."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import ROOT
from toolreplay.check.merge import merge_reports
from toolreplay.commands import check
from toolreplay.commands.base import Quiet
from toolreplay.core.errors import InputError, UsageError
from toolreplay.core.outcome import CheckReport
from toolreplay.core.verdict import FailOn

CONFIG = str(ROOT / "samples" / ".toolreplay.yml")


class Reported(Quiet):
    def __init__(self) -> None:
        self.reports: list[CheckReport] = []

    def report(self, report: CheckReport, root: Path | None = None) -> None:
        self.reports.append(report)


def _run(shard: str | None) -> CheckReport:
    kept = Reported()
    check.execute(check.CheckRequest(CONFIG, root=str(ROOT), shard=shard), kept)
    (report,) = kept.reports
    return report


def test_the_shards_merged_are_the_whole_check() -> None:
    whole = _run(None)
    first, second = _run("1/2"), _run("2/2")
    assert 0 < len(first.results) < len(whole.results)
    merged = merge_reports([("one.json", second), ("two.json", first)])  # in any order
    assert merged.results == whole.results
    assert merged.verdict is whole.verdict


def test_a_shard_given_twice_or_of_another_check_is_refused() -> None:
    first, second = _run("1/2"), _run("2/2")
    with pytest.raises(InputError, match="in more than one report"):
        merge_reports([("a.json", first), ("b.json", first), ("c.json", second)])
    with pytest.raises(InputError, match="was run with fail-on never"):
        merge_reports([("a.json", first), ("b.json", replace(second, fail_on=FailOn.NEVER))])
    with pytest.raises(UsageError, match="the reports hold"):
        merge_reports([("a.json", first)])
