"""The changelog's table of format versions is the code's, and its newest version is the package's: a format's
version cannot change without the changelog saying so."""

from __future__ import annotations

import re

from tests.conftest import ROOT
from toolreplay import __version__
from toolreplay.formats import check_report
from toolreplay.formats.mcp_log.log import LOG_VERSION
from toolreplay.formats.session.shape import READS, SERVERS_VERSION, VERSION
from toolreplay.replay.cache import ENTRY_VERSION
from toolreplay.report.json_report import DIFF_VERSION, REPLAY_VERSION
from toolreplay.surface import lock

TEXT = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def _table() -> dict[str, tuple[list[int], list[int]]]:
    _header, *rows = re.findall(r"^\| ([^|]+?) \| ([^|]+?) \| ([^|]+?) \|$", TEXT, re.M)
    return {name.split(" (")[0]: (_numbers(written), _numbers(read)) for name, written, read in rows}


def _numbers(cell: str) -> list[int]:
    return [int(number) for number in re.findall(r"\b\d+\b", cell)]


def test_the_format_table_is_the_codes() -> None:
    assert _table() == {
        "session": ([SERVERS_VERSION, VERSION], [READS[0], READS[-1]]),
        "record-mcp log": ([LOG_VERSION], [1, LOG_VERSION]),
        "check report": ([check_report.VERSION], [check_report.VERSION]),
        "replay report": ([REPLAY_VERSION], []),
        "diff report": ([DIFF_VERSION], []),
        "tools lock": ([lock.VERSION, 1], [1, lock.VERSION]),
        "run cache entry": ([ENTRY_VERSION], [ENTRY_VERSION]),
    }


def test_unreleased_comes_first_then_the_packages_version() -> None:
    versions = re.findall(r"^## (.+)$", TEXT, re.M)
    assert versions[:2] == ["Unreleased", __version__]
    for section in re.split(r"^## ", TEXT, flags=re.M)[1:]:
        formats = re.findall(r"^### (.+)$", section, re.M)
        assert formats in ([], ["Formats"]), section.splitlines()[0]  # a version's format changes, said apart
