"""What a config's globs match that is not a plain file is said, never dropped, and a recording reached through a
link is reported under the path the config matched."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.conftest import SAMPLES, run_cli


def _repository(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "recorded").mkdir()
    shutil.copy(SAMPLES / "session-clean.jsonl", tmp_path / "recorded" / "clean.jsonl")
    return tmp_path


def test_a_fifo_a_glob_matches_is_said_skipped_and_one_it_matches_alone_is_the_error(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    os.mkfifo(root / "recorded" / "pipe.jsonl")
    (root / ".toolreplay.yml").write_text("transcripts: recorded/*.jsonl\n", encoding="utf-8")
    result = run_cli("check", cwd=root)
    assert result.code == 0, result.stdout + result.stderr
    assert "audit   recorded/clean.jsonl" in result.stdout
    assert "pipe.jsonl" not in result.stdout
    assert (
        "toolreplay: warning: 'transcripts': recorded/*.jsonl matched recorded/pipe.jsonl, a FIFO, not a file: "
        "skipped\n"
    ) in result.stderr
    (root / ".toolreplay.yml").write_text("transcripts: recorded/pipe*\n", encoding="utf-8")
    result = run_cli("check", cwd=root)
    assert result.code == 2
    assert result.stderr == (
        "toolreplay: error: .toolreplay.yml:1: 'transcripts': recorded/pipe* matches no file "
        "(recorded/pipe.jsonl, a FIFO, not a file: skipped)\n"
    )


def test_a_recording_through_a_link_is_reported_under_the_name_the_config_matched(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    (root / "current").mkdir()
    (root / "current" / "latest.jsonl").symlink_to("../recorded/clean.jsonl")
    (root / ".toolreplay.yml").write_text("transcripts: current/latest.jsonl\n", encoding="utf-8")
    result = run_cli("check", "--markdown", "report.md", cwd=root)
    assert result.code == 0, result.stdout + result.stderr
    assert "audit   current/latest.jsonl" in result.stdout
    assert "recorded/clean.jsonl" not in result.stdout
    assert "current/latest.jsonl" in (root / "report.md").read_text(encoding="utf-8")
