"""``check`` and ``replay`` run in process: the request, the outcomes handed over, the exit."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import ROOT
from toolreplay.agent_spec import parse_agent
from toolreplay.commands import check, replay
from toolreplay.commands.base import Quiet
from toolreplay.core.errors import UsageError
from toolreplay.core.outcome import CheckReport
from toolreplay.core.verdict import Exit, FailOn
from toolreplay.results.shown import FileAudit, NoiseShown
from toolreplay.settings import ReplaySettings, Unrecorded

OPS = ROOT / "samples" / "ops"


class Kept(Quiet):
    def __init__(self) -> None:
        self.shown: list[object] = []
        self.reports: list[CheckReport] = []
        self.notes: list[str] = []

    def show(self, outcome: object) -> None:
        self.shown.append(outcome)

    def report(self, report: CheckReport, root: Path | None = None) -> None:
        self.reports.append(report)

    def note(self, text: str) -> None:
        self.notes.append(text)


def test_the_samples_check_fails_and_never_is_never() -> None:
    config = str(ROOT / "samples" / ".toolreplay.yml")
    kept = Kept()
    assert check.execute(check.CheckRequest(config, root=str(ROOT)), kept) is Exit.FINDINGS
    assert kept.reports[0].units
    assert check.execute(check.CheckRequest(config, root=str(ROOT), fail_on=FailOn.NEVER), Kept()) is Exit.CLEAN
    with pytest.raises(UsageError, match="--shard"):
        check.execute(check.CheckRequest(config, shard="3/2"), Kept())


def test_a_replay_with_a_baseline_hands_over_its_noise_report() -> None:
    settings = ReplaySettings(
        system=str(OPS / "prompt-v2.txt"),
        agent=parse_agent(f"scripted:{OPS / 'agent.py'}"),
        repeat=6,
        noise=6,
        on_unrecorded=Unrecorded.STUB,
        stubs=str(OPS / "stubs.json"),
    )
    kept = Kept()
    code = replay.execute(replay.ReplayRequest(str(OPS / "session.json"), settings), kept)
    (shown,) = kept.shown
    assert isinstance(shown, NoiseShown)
    assert code is shown.report.verdict.exit_code
    assert (shown.report.candidate.answered, shown.system) == (12, settings.system)  # a second round of 6 decided


def test_a_transcript_is_audited_and_refuses_what_is_for_a_session() -> None:
    transcript = str(ROOT / "samples" / "session-dirty.jsonl")
    kept = Kept()
    assert replay.execute(replay.ReplayRequest(transcript), kept) is Exit.FINDINGS
    assert [type(o) for o in kept.shown] == [FileAudit]

    class WantsJson(Quiet):
        @property
        def wants_json(self) -> bool:
            return True

    with pytest.raises(UsageError, match="is a transcript, which is audited, not replayed"):
        replay.execute(replay.ReplayRequest(transcript), WantsJson())
    assert replace(replay.ReplayRequest(transcript), strict=True).strict


def test_the_checks_reports_are_made_inside_its_own_repository_wherever_it_runs_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots: list[Path | None] = []

    class Rooted(Quiet):
        def report(self, report: CheckReport, root: Path | None = None) -> None:
            roots.append(root)

    monkeypatch.chdir(tmp_path)  # another directory than the check's repository
    check.execute(check.CheckRequest(str(ROOT / "samples" / ".toolreplay.yml"), root=str(ROOT)), Rooted())
    assert roots == [ROOT.resolve()]
