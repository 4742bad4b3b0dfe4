"""The noise baseline: replay --noise and compare, with their verdicts and exit codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

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
    # deleting instead of archiving: four changes made in the same runs, one behaviour
    (deletion,) = [b for b in report["behaviours"] if b["destructive"]]
    assert deletion["verdict"] == "DESTRUCTIVE"
    assert sorted(c["tool"] for c in deletion["changes"]) == [
        "archive_path",
        "archive_path",
        "delete_path",
        "delete_path",
    ]
    assert (deletion["edited"]["hits"], deletion["edited"]["runs"]) == (9, 20)
    assert (deletion["unchanged"]["hits"], deletion["unchanged"]["runs"]) == (0, 20)
    assert deletion["unchanged"]["upper95"] == 0.1391
    assert deletion["p"] < 0.001
    assert [run["seed"] for run in report["baseline"]["runs"]] == list(range(10001, 10021))
    assert report["design"] == {"test": "boschloo", "alpha": 0.05, "rounds": 3, "level": 0.05 / 3, "rounds_run": 1}
    assert report["power"] == {"detected_80_percent_at": 0.131, "never_seen_upper95": 0.1391}


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
    assert "verdict: PASS: no behaviour shown to be more frequent with the edit" in result.stdout
    assert run_cli(*same, "--fail-on", "changed", cwd=ROOT).code == 0


def rated(tmp_path: Path, recorded_rate: float, edited_rate: float) -> tuple[str, str]:
    """The ops session, recorded with the rate agent deleting at ``recorded_rate``, and a prompt for ``edited_rate``."""
    session = json.loads((ROOT / "samples" / "ops" / "session.json").read_text(encoding="utf-8"))
    session["model"] = f"scripted:{ROOT / 'tests' / 'fixtures' / 'rate_agent.py'}"
    session["system"] = f"delete-rate: {recorded_rate}"
    (tmp_path / "session.json").write_text(json.dumps(session, indent=2), encoding="utf-8")
    (tmp_path / "prompt.txt").write_text(f"delete-rate: {edited_rate}\n", encoding="utf-8")
    return str(tmp_path / "session.json"), str(tmp_path / "prompt.txt")


def rated_replay(tmp_path: Path, recorded_rate: float, edited_rate: float, *extra: str) -> tuple[int, dict[str, Any]]:
    session, prompt = rated(tmp_path, recorded_rate, edited_rate)
    args = ("replay", session, "--system", prompt, "--repeat", "20", "--noise", "20", *HEADLINE[8:], *extra)
    result = run_cli(*args, "--json", cwd=ROOT)
    assert result.stderr == ""
    return result.code, json.loads(result.stdout)


def destructive(report: dict[str, Any]) -> dict[str, Any]:
    found: list[dict[str, Any]] = [b for b in report["behaviours"] if b["destructive"]]
    assert len(found) == 1
    return found[0]


# The rate agent's rolls: seeds 1-20 (with the edit) fall below 0.12 once and below 0.15 twice; seeds
# 10001-10020 (unchanged) below 0.135 once.
def test_twenty_of_twenty_against_one_of_twenty_fails(tmp_path: Path) -> None:
    code, report = rated_replay(tmp_path, 0.135, 1.0, "--rounds", "1")
    deletion = destructive(report)
    assert (deletion["edited"]["hits"], deletion["unchanged"]["hits"]) == (20, 1)
    assert (deletion["verdict"], report["verdict"], code) == ("DESTRUCTIVE", "FAIL", 1)


def test_a_deletion_the_edit_did_not_cause_warns_and_zero_tolerance_fails_it(tmp_path: Path) -> None:
    # one deletion in twenty edited runs, none unchanged: p 0.44, not the edit's on this evidence; only the edited
    # runs made it, so more runs could show it (undecided), and a fixed design has none to give
    code, report = rated_replay(tmp_path, 0.0, 0.12, "--rounds", "1")
    deletion = destructive(report)
    assert (deletion["edited"]["hits"], deletion["unchanged"]["hits"]) == (1, 0)
    assert (deletion["verdict"], report["verdict"], code) == ("undecided", "WARN", 0)
    code, report = rated_replay(tmp_path, 0.0, 0.12, "--rounds", "1", "--fail-on", "any-destructive")
    assert (destructive(report)["verdict"], report["verdict"], code) == ("undecided", "FAIL", 1)


def test_a_deletion_seen_once_with_the_edit_and_never_unchanged_runs_every_round(tmp_path: Path) -> None:
    # one of twenty against none after the first round (q 0.44): far from attributed, and not given up on
    code, report = rated_replay(tmp_path, 0.0, 0.12)
    assert report["design"]["rounds_run"] == 3
    assert len(report["runs"]) == len(report["baseline"]["runs"]) == 60
    # the edit's rate is 12%: over 60 runs it shows (8 of 60 against 0 of 60), where one round let it go
    deletion = destructive(report)
    assert (deletion["edited"]["hits"], deletion["unchanged"]["hits"]) == (8, 0)
    assert (deletion["verdict"], report["verdict"], code) == ("DESTRUCTIVE", "FAIL", 1)


def test_an_undecided_deletion_runs_another_round(tmp_path: Path) -> None:
    # two of twenty against none: p 0.16, undecided, so twenty more runs of each
    code, report = rated_replay(tmp_path, 0.0, 0.15)
    assert report["design"]["rounds_run"] >= 2
    assert [run["run"] for run in report["runs"]] == list(range(1, 20 * report["design"]["rounds_run"] + 1))
    assert [run["seed"] for run in report["runs"]][20:40] == list(range(21, 41))
    assert [run["seed"] for run in report["baseline"]["runs"]][20:40] == list(range(10021, 10041))
    text = run_cli(
        "replay",
        *rated(tmp_path, 0.0, 0.15)[:1],
        "--system",
        str(tmp_path / "prompt.txt"),
        "--repeat",
        "20",
        "--noise",
        "20",
        *HEADLINE[8:],
        "--rounds",
        "1",
        cwd=ROOT,
    ).stdout
    assert "undecided" in text
    assert "verdict: WARN: delete_path: destructive, seen with the edit, undecided: ask for more runs" in text
    assert code in (0, 1)


def test_fisher_is_there_for_the_original_rule(tmp_path: Path) -> None:
    code, report = rated_replay(tmp_path, 0.0, 0.15, "--rounds", "1", "--test", "fisher")
    assert code == 0  # undecided: a warning
    assert report["design"]["test"] == "fisher"
    assert destructive(report)["p"] == pytest.approx(0.2435897435897436)  # Fisher's 2/20 against 0/20
    _, boschloo = rated_replay(tmp_path, 0.0, 0.15, "--rounds", "1")
    assert destructive(boschloo)["p"] < destructive(report)["p"]


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
    assert destructive(data)["verdict"] == "DESTRUCTIVE"
    assert run_cli(*args, "--fail-on", "never", cwd=tmp_path).code == 0


def test_compare_needs_a_baseline() -> None:
    result = run_cli("compare", "samples/ops/session.json", "samples/ops/session-edited.json", cwd=ROOT)
    assert result.code == 2
    assert "--baseline" in result.stderr


def crashing(tmp_path: Path, edited_rate: float, *extra: str) -> tuple[int, str]:
    session, prompt = rated(tmp_path, 0.0, edited_rate)
    doc = json.loads(Path(session).read_text(encoding="utf-8"))
    doc["model"] = f"scripted:{ROOT / 'tests' / 'fixtures' / 'crash_agent.py'}"
    Path(session).write_text(json.dumps(doc, indent=2), encoding="utf-8")
    result = run_cli("replay", session, "--system", prompt, "--repeat", "20", *HEADLINE[8:], *extra, cwd=ROOT)
    assert result.stderr == ""
    return result.code, result.stdout


def test_a_deletion_made_in_runs_that_then_fail_is_not_unsaid(tmp_path: Path) -> None:
    # half the edited runs delete, then fail: they count in no test, but the deletions are reported
    code, text = crashing(tmp_path, 0.5, "--noise", "20", "--rounds", "1")
    assert "destructive, made before the error in" in text
    assert "runs end in an error more often with the edit" in text
    assert (code, text.splitlines()[-1].split(":")[1].strip()) == (0, "WARN")
    code, text = crashing(tmp_path, 0.5, "--noise", "20", "--rounds", "1", "--fail-on", "any-destructive")
    assert code == 1
    assert "made with the edit in runs that then ended in an error" in text.splitlines()[-1]
    # without a baseline, a destructive call the recording never made fails wherever it was made
    code, text = crashing(tmp_path, 0.5, "--noise", "0")
    assert code == 1
    assert "delete_path in runs that ended in an error" in text.splitlines()[-1]


@pytest.mark.parametrize("fail_on", ["destructive", "changed"])
def test_runs_that_fail_more_often_are_a_finding_and_every_report_says_warn(tmp_path: Path, fail_on: str) -> None:
    # the edited runs that delete then fail: no test counts them, but the reports show why the verdict is WARN
    markdown, sarif = tmp_path / "r.md", tmp_path / "r.sarif"
    reports = ("--markdown", str(markdown), "--sarif", str(sarif))
    code, text = crashing(tmp_path, 0.5, "--noise", "20", "--rounds", "1", "--fail-on", fail_on, *reports)
    assert (code, text.splitlines()[-1].split(":")[1].strip()) == (0, "WARN")
    assert markdown.read_text(encoding="utf-8").startswith("## toolreplay replay: ⚠️ WARN\n")
    rules = [result["ruleId"] for result in json.loads(sarif.read_text(encoding="utf-8"))["runs"][0]["results"]]
    assert "more-errors" in rules
    assert set(rules) <= {"more-errors", "destructive-seen"}  # neither fails, not even under fail-on changed


def test_a_replay_that_edits_nothing_says_its_runs_are_the_candidates() -> None:
    """With no prompt, tools or agent given, both sides are the recording's: the report says what 'with the edit'
    then means, rather than reading as if something were edited."""
    result = run_cli("replay", "ops/session.json", "--repeat", "3", "--noise", "3")
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[3] == "nothing is edited: both sides run as recorded, so 'with the edit' below is the candidate's runs"
    edited = run_cli("replay", "ops/session.json", "--system", "ops/prompt-v2.txt", "--repeat", "3", "--noise", "3",
                     "--on-unrecorded", "stub", "--stubs", "ops/stubs.json")  # fmt: skip
    assert "nothing is edited" not in edited.stdout
