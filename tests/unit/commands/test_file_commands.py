"""``merge``, ``rules init`` and ``show`` in process: what each hands over, writes and refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from toolreplay.commands import check, merge, rules, show
from toolreplay.commands.base import Quiet
from toolreplay.core.errors import UsageError
from toolreplay.core.outcome import CheckReport
from toolreplay.core.verdict import Exit
from toolreplay.formats.check_report import render_check_json
from toolreplay.formats.rules import read_rules
from toolreplay.results.show import ShownRecording

SAMPLES = ROOT / "samples"


class Kept(Quiet):
    def __init__(self) -> None:
        self.reports: list[CheckReport] = []
        self.streamed: list[ShownRecording] = []
        self.said: list[str] = []

    def report(self, report: CheckReport, root: Path | None = None) -> None:
        self.reports.append(report)

    def stream(self, outcome: object) -> None:
        assert isinstance(outcome, ShownRecording)
        self.streamed.append(outcome)

    def say(self, text: str) -> None:
        self.said.append(text)


def test_merged_shards_report_as_the_whole_check(tmp_path: Path) -> None:
    config = str(SAMPLES / ".toolreplay.yml")
    shards = []
    for number in (1, 2):
        kept = Kept()
        check.execute(check.CheckRequest(config, root=str(ROOT), shard=f"{number}/2"), kept)
        shard = tmp_path / f"shard-{number}.json"
        shard.write_text(render_check_json(kept.reports[0]), encoding="utf-8")
        shards.append(str(shard))
    whole, merged = Kept(), Kept()
    check.execute(check.CheckRequest(config, root=str(ROOT)), whole)
    assert merge.execute(merge.MergeRequest(tuple(shards)), merged) is Exit.FINDINGS
    assert merged.reports[0].results == whole.reports[0].results


def test_rules_init_writes_a_file_that_loads_and_never_writes_over_one(tmp_path: Path) -> None:
    output = tmp_path / "rules.toml"
    kept = Kept()
    rules.init(rules.RulesInitRequest((str(SAMPLES / "ops" / "session.json"),), str(output)), kept)
    assert read_rules(str(output)).rules
    assert kept.said[0].startswith(f"wrote {output}: ")
    with pytest.raises(UsageError, match="exists; rules init writes a new file"):
        rules.init(rules.RulesInitRequest((str(SAMPLES / "ops" / "session.json"),), str(output)), Kept())


def test_show_streams_each_recording_and_warns_of_a_broken_seal() -> None:
    warned: list[str] = []

    class Warned(Kept):
        def warn(self, text: str) -> None:
            warned.append(text)

    kept = Warned()
    sessions = (str(SAMPLES / "ops" / "session.json"), str(SAMPLES / "sealed" / "edited.sealed.jsonl"))
    assert show.execute(show.ShowRequest(sessions), kept) is Exit.CLEAN
    assert [recording.head.path for recording in kept.streamed] == list(sessions)
    assert kept.said == ["\n"]  # a blank line between two recordings
    assert len(warned) == 1
    assert "the chain is broken" in warned[0]
