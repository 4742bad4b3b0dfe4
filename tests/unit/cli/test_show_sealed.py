"""``show`` of a sealed file that was edited after it was sealed prints it, and says it is not what was sealed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SAMPLES, run_cli


@pytest.mark.parametrize("source", ["ops/session.json", "session-clean.jsonl"])
def test_an_edited_sealed_file_is_shown_with_a_warning(tmp_path: Path, source: str) -> None:
    sealed = tmp_path / "sealed.jsonl"
    assert run_cli("seal", source, "-o", str(sealed)).code == 0
    intact = run_cli("show", str(sealed))
    assert (intact.code, intact.stderr) == (0, "")
    lines = sealed.read_text(encoding="utf-8").splitlines(keepends=True)
    first = lines[1].index('"digest":"') + len('"digest":"')  # the second link's stored digest, one digit changed
    lines[1] = lines[1][:first] + ("1" if lines[1][first] == "0" else "0") + lines[1][first + 1 :]
    sealed.write_text("".join(lines), encoding="utf-8")
    shown = run_cli("show", str(sealed))
    assert shown.code == 0
    assert shown.stdout.startswith(f"{sealed}: ")
    assert shown.stderr.startswith(f"toolreplay: warning: {sealed}: the chain is broken at line 2")
    assert "this is not what was sealed" in shown.stderr
    assert shown.stderr.count("\n") == 1


def test_an_unsealed_file_is_not_verified() -> None:
    assert run_cli("show", str(SAMPLES / "ops" / "session.json")).stderr == ""
