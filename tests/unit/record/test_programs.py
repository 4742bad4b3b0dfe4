"""Where ``record`` numbers its runs: one past the highest already there, so nothing recorded is written over."""

from __future__ import annotations

from pathlib import Path

from toolreplay.record.programs import next_number


def test_runs_number_on_from_what_is_there(tmp_path: Path) -> None:
    assert next_number(tmp_path / "none-yet") == 1
    (tmp_path / "run-0001.json").write_text("{}")
    (tmp_path / "run-0007.json").write_text("{}")
    (tmp_path / "run-0003").mkdir()
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "run-9.json").write_text("{}")  # not a run this numbering wrote: four digits at least
    assert next_number(tmp_path) == 8
