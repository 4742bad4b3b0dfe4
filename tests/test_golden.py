"""Whole reports compared byte for byte against the files in tests/golden/."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import GOLDEN, ROOT, SAMPLES, run_cli


def tampered(tmp_path: Path) -> str:
    """The dirty sample sealed, then "hits":3 changed to "hits":4 at index 3."""
    sealed = (GOLDEN / "seal-dirty.jsonl").read_text(encoding="utf-8")
    assert sealed.count('"hits":3') == 1
    path = tmp_path / "tampered.jsonl"
    path.write_text(sealed.replace('"hits":3', '"hits":4'), encoding="utf-8")
    return str(path)


CASES = [
    (("replay", "session-dirty.jsonl"), "replay-dirty.txt", 1),
    (("audit", "session-dirty.jsonl"), "replay-dirty.txt", 1),
    (("replay", "session-clean.jsonl"), "replay-clean.txt", 0),
    (("scope", "session-dirty.jsonl", "scope.json"), "scope-dirty.txt", 1),
    (("scope", "session-clean.jsonl", "scope.json"), "scope-clean.txt", 0),
    (("seal", "session-dirty.jsonl"), "seal-dirty.jsonl", 0),
    (("verify", str(GOLDEN / "seal-dirty.jsonl")), "verify-intact.txt", 0),
    (("show", "ops/session.json"), "show-ops.txt", 0),
    (("show", "session-dirty.jsonl"), "show-dirty.txt", 0),
    (("show", "rules/session.json"), "show-rules-none.txt", 0),
    (("show", "rules/session.json", "--rules", "rules/rules.toml"), "show-rules.txt", 0),
    (("show", "rules/session.json", "--rules", "rules/rules.toml", "--strict"), "show-rules-strict.txt", 0),
    (("audit", "rules/session.json", "--rules", "rules/rules.toml"), "audit-rules.txt", 1),
    (("diff", "ops/session.json", "ops/session-edited.json"), "diff-ops.txt", 1),
]


@pytest.mark.parametrize(("args", "golden", "code"), CASES, ids=[" ".join(c[0][:2]) for c in CASES])
def test_report_matches_golden(args: tuple[str, ...], golden: str, code: int) -> None:
    result = run_cli(*args, cwd=SAMPLES)
    assert result.stderr == ""
    assert result.stdout == (GOLDEN / golden).read_text(encoding="utf-8")
    assert result.code == code


@pytest.mark.parametrize(("extra", "golden"), [((), "diff-kinds.txt"), (("--json",), "diff-kinds.json")])
def test_diff_of_every_kind_matches_golden(extra: tuple[str, ...], golden: str) -> None:
    args = ("diff", "tests/fixtures/diff-a.jsonl", "tests/fixtures/diff-b.jsonl", "--rules", "samples/rules/rules.toml")
    result = run_cli(*args, *extra, cwd=ROOT)
    assert (result.code, result.stderr) == (1, "")
    assert result.stdout == (GOLDEN / golden).read_text(encoding="utf-8")


def test_tampered_chain_matches_golden(tmp_path: Path) -> None:
    result = run_cli("verify", tampered(tmp_path))
    assert result.stdout == (GOLDEN / "verify-tampered.txt").read_text(encoding="utf-8")
    assert result.code == 1
