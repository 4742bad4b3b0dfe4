"""``check --base`` on a repository made here: the base's files read with git, a recording's edit found at its line,
a loosened config found, and the seed the base's id gives."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT
from toolreplay.check.base import Base
from toolreplay.check.policy import base_seed, govern
from toolreplay.commands import check
from toolreplay.commands.base import Quiet
from toolreplay.core.findings import Rule
from toolreplay.core.outcome import CheckReport
from toolreplay.formats.config.read import read_config


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q", "-b", "main")
    shutil.copy(ROOT / "samples" / "session-clean.jsonl", tmp_path / "a.jsonl")
    (tmp_path / ".toolreplay.yml").write_text("transcripts: a.jsonl\nfail-on: changed\n", encoding="utf-8")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


class Reported(Quiet):
    def __init__(self) -> None:
        self.reports: list[CheckReport] = []

    def report(self, report: CheckReport, root: Path | None = None) -> None:
        self.reports.append(report)


def test_the_base_holds_each_file_as_committed(repo: Path) -> None:
    committed = (repo / "a.jsonl").read_bytes()
    (repo / "a.jsonl").write_text("changed\n", encoding="utf-8")
    base = Base("HEAD", repo)
    assert base.file(str(repo / "a.jsonl")) == committed
    assert base.file(str(repo / "missing.jsonl")) is None
    assert base_seed(base.commit) == base_seed(_git(repo, "rev-parse", "HEAD"))
    assert base_seed("0" * 40) != base_seed("1" * 40)


def test_an_edited_recording_and_a_loosened_config_are_found(repo: Path) -> None:
    lines = (repo / "a.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (repo / "a.jsonl").write_text("".join(lines[:1]), encoding="utf-8")  # the pull request dropped calls
    (repo / ".toolreplay.yml").write_text("transcripts: a.jsonl\nfail-on: never\n", encoding="utf-8")
    config = str(repo / ".toolreplay.yml")
    governed = govern(read_config(config, repo), config, Base("HEAD", repo), "base", repo, False)
    assert [item.message for item in governed.loosenings] == ["fail-on: was changed, is never"]
    kept = Reported()
    check.execute(check.CheckRequest(config, root=str(repo), base="HEAD"), kept)
    (report,) = kept.reports
    rules = {finding.rule for result in report.results for finding in result.findings}
    assert {Rule.POLICY_LOOSENED, Rule.RECORDING_EDITED} <= rules
