"""`check` and `merge` make a report's missing directories inside the repository, and nowhere else."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from toolreplay.cli import main
from toolreplay.core.files import missing_directories


def toolreplay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh checkout: a session and the documented config, and no reports/ directory."""
    checkout = tmp_path / "checkout"
    (checkout / ".git").mkdir(parents=True)
    (checkout / "recorded").mkdir()
    shutil.copy(SAMPLES / "ops" / "session.json", checkout / "recorded" / "session.json")
    (checkout / ".toolreplay.yml").write_text(
        "sessions: recorded/session.json\nhtml: reports/toolreplay.html\n", encoding="utf-8"
    )
    monkeypatch.chdir(checkout)
    return checkout


def files(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file() and ".git" not in p.parts)


def test_the_documented_html_on_a_fresh_checkout(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    code, text, error = toolreplay(capsys, "check")
    assert (code, error) == (0, "")
    assert "verdict: PASS" in text
    assert (repo / "reports" / "toolreplay.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_every_report_gets_its_directories(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    args = ["--markdown", "out/md/summary.md", "--sarif", "out/sarif/r.sarif", "--json", "out/json/r.json"]
    code, _, error = toolreplay(capsys, "check", *args)
    assert (code, error) == (0, "")
    assert files(repo) == [
        ".toolreplay.yml",
        "out/json/r.json",
        "out/md/summary.md",
        "out/sarif/r.sarif",
        "recorded/session.json",
        "reports/toolreplay.html",
    ]
    assert json.loads((repo / "out" / "json" / "r.json").read_text(encoding="utf-8"))["verdict"] == "PASS"
    code, _, error = toolreplay(capsys, "merge", "out/json/r.json", "--markdown", "merged/summary.md")
    assert (code, error) == (0, "")
    assert (repo / "merged" / "summary.md").read_text(encoding="utf-8") == (
        repo / "out" / "md" / "summary.md"
    ).read_text(encoding="utf-8")


def test_the_command_lines_html_takes_the_configs_place(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path
) -> None:
    """As under the GitHub Action, which writes its page outside the workspace, into a directory it made."""
    elsewhere = tmp_path / "runner-temp"
    elsewhere.mkdir()
    code, _, error = toolreplay(capsys, "check", "--html", str(elsewhere / "report.html"))
    assert (code, error) == (0, "")
    assert (elsewhere / "report.html").is_file()
    assert not (repo / "reports").exists()


@pytest.mark.parametrize("target", ["{outside}/missing/r.json", ".git/reports/r.json", "link/made/r.json"])
def test_directories_are_never_made_outside_the_repository_or_under_git(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path, target: str
) -> None:
    os.symlink(tmp_path, repo / "link")  # a directory inside that leads outside
    path = target.replace("{outside}", str(tmp_path))
    code, text, error = toolreplay(capsys, "check", "--json", path)
    assert (code, text) == (2, "")
    assert error.count("\n") == 1
    assert f"--json {path}: cannot write: its directory does not exist" in error
    assert not (tmp_path / "missing").exists()
    assert not (tmp_path / "made").exists()
    assert not (repo / ".git" / "reports").exists()
    assert not (repo / "reports").exists()  # refused before the check ran: nothing written at all


def test_a_symlink_out_of_the_repository_is_followed_before_anything_is_made(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "away").mkdir()
    os.symlink(tmp_path / "away", repo / "link")
    assert missing_directories(repo / "link" / "new" / "r.json", repo) is None
    assert missing_directories(repo / "new" / "deeper" / "r.json", repo) == [repo / "new", repo / "new" / "deeper"]
    assert missing_directories(repo / "recorded" / "r.json", repo) == []


def test_a_configs_page_outside_the_repository_is_refused_at_its_line(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    (repo / ".toolreplay.yml").write_text(
        "sessions: recorded/session.json\nhtml: ../elsewhere/toolreplay.html\n", encoding="utf-8"
    )
    code, _, error = toolreplay(capsys, "check", "--allow-outside-root")
    assert code == 2
    assert error == (
        "toolreplay: error: .toolreplay.yml:2: 'html': no such directory: ../elsewhere (the check makes a report's "
        "missing directories only inside the repository)\n"
    )
    code, _, error = toolreplay(capsys, "check")
    assert code == 2
    assert "'html': ../elsewhere/toolreplay.html leads outside the repository" in error
