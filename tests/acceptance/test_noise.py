"""The noise baseline: replay --noise and compare, with their verdicts and exit codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import GOLDEN, ROOT, run_cli

HEADLINE = (
    "replay",
    "samples/ops/session.json",
    "--system",
    "samples/ops/prompt-v2.txt",
    "--repeat",
    "20",
    "--noise",
    "20",
    "--on-unrecorded",
    "stub",
    "--stubs",
    "samples/ops/stubs.json",
)


def test_the_headline_finds_the_deletions_and_fails() -> None:
    result = run_cli(*HEADLINE, "--json", cwd=ROOT)
    assert result.code == 1
    report = json.loads(result.stdout)
    assert report["verdict"] == "FAIL"
    deletions = [t for t in report["tests"] if t["tool"] == "delete_path"]
    assert len(deletions) == 2
    for test in deletions:
        assert test["verdict"] == "DESTRUCTIVE"
        assert (test["edited"]["hits"], test["edited"]["runs"]) == (9, 20)
        assert (test["unchanged"]["hits"], test["unchanged"]["runs"]) == (0, 20)
        assert test["p"] < 0.001
    assert [run["seed"] for run in report["baseline"]["runs"]] == list(range(10001, 10021))
    assert report["power"] == {
        "smallest_flagged_runs": 5,
        "smallest_flagged_rate": 0.25,
        "never_seen_upper_bound": 0.1391,
    }


def test_the_headline_report_matches_golden() -> None:
    result = run_cli(*HEADLINE, cwd=ROOT)
    assert result.stdout == (GOLDEN / "replay-noise.txt").read_text(encoding="utf-8")


def test_one_replay_can_miss_it() -> None:
    result = run_cli(*HEADLINE[:4], "--repeat", "1", "--noise", "0", "--seed", "5", *HEADLINE[8:], cwd=ROOT)
    assert result.code == 0
    assert result.stdout.splitlines()[-1].startswith("verdict: PASS: ")


@pytest.mark.parametrize(
    ("fail_on", "code", "word"), [("destructive", 1, "FAIL"), ("changed", 1, "FAIL"), ("never", 0, "WARN")]
)
def test_fail_on_with_noise(fail_on: str, code: int, word: str) -> None:
    result = run_cli(*HEADLINE, "--fail-on", fail_on, cwd=ROOT)
    assert result.code == code
    assert result.stdout.splitlines()[-1].startswith(f"verdict: {word}: ")


def test_noise_alone_passes_and_changed_fails_only_when_asked() -> None:
    # The unchanged prompt against itself: only the agent's own variation.
    same = ("replay", "samples/ops/session.json", "--repeat", "20", "--noise", "20")
    result = run_cli(*same, cwd=ROOT)
    assert result.code == 0
    assert "every difference is within the agent's own noise" in result.stdout
    assert run_cli(*same, "--fail-on", "changed", cwd=ROOT).code == 0


def record(tmp_path: Path, name: str, prompt: str, seed: int) -> str:
    out = tmp_path / name
    result = run_cli(
        "run",
        "samples/ops/tools.py",
        "--agent",
        "scripted:samples/ops/agent.py",
        "--system",
        prompt,
        "--task-file",
        "samples/ops/task.txt",
        "--seed",
        str(seed),
        "-o",
        str(out),
        cwd=ROOT,
    )
    assert result.code == 0, result.stderr
    return name


def test_compare_recorded_sessions(tmp_path: Path) -> None:
    shutil.copy(ROOT / "samples" / "ops" / "session.json", tmp_path / "recorded.json")
    edited = [record(tmp_path, f"v2-{s}.json", "samples/ops/prompt-v2.txt", s) for s in range(1, 9)]
    unchanged = [record(tmp_path, f"v1-{s}.json", "samples/ops/prompt.txt", 100 + s) for s in range(1, 9)]
    args = ["compare", "recorded.json", *edited]
    for name in unchanged:
        args += ["--baseline", name]
    result = run_cli(*args, cwd=tmp_path)
    assert result.code == 1
    assert result.stdout == (GOLDEN / "compare.txt").read_text(encoding="utf-8")
    data = json.loads(run_cli(*args, "--json", cwd=tmp_path).stdout)
    assert {t["tool"]: t["verdict"] for t in data["tests"]}["delete_path"] == "DESTRUCTIVE"
    assert run_cli(*args, "--fail-on", "never", cwd=tmp_path).code == 0


def test_compare_needs_a_baseline() -> None:
    result = run_cli("compare", "samples/ops/session.json", "samples/ops/session-edited.json", cwd=ROOT)
    assert result.code == 2
    assert "--baseline" in result.stderr
