"""A check names every input before anything runs: its outputs are guarded once, and no agent has run by then."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, run_cli
from toolreplay.check.run import PreparedCheck
from toolreplay.core.outcome import Analysis
from toolreplay.formats.config.read import read_config
from toolreplay.formats.kinds import Kind
from toolreplay.results.locate import Paths


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(SAMPLES / "ops", copy / "samples" / "ops")
    (copy / ".git").mkdir()
    agent = copy / "samples" / "ops" / "agent.py"  # it leaves a mark when it is run (imported)
    agent.write_text(agent.read_text() + f"\nopen({str(copy / 'ran')!r}, 'w').close()\n")
    (copy / "c.yml").write_text("sessions: samples/ops/session.json\nreplay:\n  repeat: 2\n", encoding="utf-8")
    return copy


def test_the_agent_a_session_names_is_an_input_known_before_any_unit_runs(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)  # where the session's agent, named from the repository's root, is found
    config = read_config(str(repo / "c.yml"), repo)
    prepared = PreparedCheck(config, Paths(repo))
    assert [unit.analysis for unit in prepared.chosen] == [Analysis.AUDIT, Analysis.REPLAY]
    assert {unit.recording.kind for unit in prepared.chosen} == {Kind.SESSION}
    assert [Path(p).resolve() for p in prepared.inputs] == [repo / "samples" / "ops" / "agent.py"]
    assert not (repo / "ran").exists()  # resolved, not run
    report = prepared.run()
    assert (repo / "ran").exists()
    assert [result.analysis for result in report.results] == [Analysis.AUDIT, Analysis.REPLAY]


@pytest.mark.parametrize("option", ["--json", "--markdown", "--sarif", "--html"])
def test_a_report_written_over_that_agent_is_refused_before_it_runs(repo: Path, option: str) -> None:
    agent = repo / "samples" / "ops" / "agent.py"
    before = agent.read_bytes()
    result = run_cli("check", "--config", "c.yml", option, "samples/ops/agent.py", cwd=repo)
    assert result.code == 2
    assert "is one of this command's inputs" in result.stderr
    assert agent.read_bytes() == before
    assert not (repo / "ran").exists()
