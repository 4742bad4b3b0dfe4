"""Policies on the samples: each kind broken by the edited prompt's deletions and by no unchanged run, tested as
a behaviour of its own; the check fails at the prompt's line with the rates, and the unchanged prompt passes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolreplay
from tests.conftest import SAMPLES, run_cli

# Each kind, written so that only a run that deletes breaks it (the unchanged prompt archives, never deletes).
EVERY_KIND = """
[[policy]]
id = "no-deletion"
why = "w"
never = { tool = "delete_path" }

[[policy]]
id = "archives-something"
why = "w"
require = { tool = "archive_path" }

[[policy]]
id = "backup-first"
why = "w"
[policy.before]
first = { tool = "archive_path", args = { path = "{path}" } }
then = { tool = "delete_path", args = { path = "{path}" } }

[[policy]]
id = "right-after-archive"
why = "w"
immediately-before = { first = { tool = "archive_path" }, then = { tool = "delete_path" } }

[[policy]]
id = "no-delete-after-listing"
level = "warning"
why = "w"
not-after = { first = { tool = "list_dir", args = { path = "/var/log/ci" } }, then = { tool = "delete_path" } }

[[policy]]
id = "one-deletion"
level = "note"
why = "w"
at-most = { tool = "delete_path", count = 1 }

[[policy]]
id = "listing-into-deletion"
why = "w"
flow = { from = { tool = "list_dir" }, to = { tool = "delete_path" }, min-length = 7 }
"""

REPLAY = ["--repeat", "20", "--noise", "20", "--on-unrecorded", "stub", "--stubs", "ops/stubs.json"]


@pytest.fixture(scope="module")
def every_kind(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("policies") / "policies.toml"
    path.write_text(EVERY_KIND)
    return path


def test_each_kind_is_broken_by_exactly_the_runs_that_delete_and_tested_against_the_unchanged(every_kind: Path) -> None:
    done = run_cli("replay", "ops/session.json", "--system", "ops/prompt-v2.txt", *REPLAY, "--policies",
                   str(every_kind), "--json")  # fmt: skip
    assert done.code == 1, done.stderr
    report = json.loads(done.stdout)
    deleting = sorted(
        {run for change in report["changes"] if change["tool"] == "delete_path" for run in change["runs"]}
    )
    assert len(deleting) == 9
    rows = {row["id"]: row for row in report["policies"]}
    assert list(rows) == [
        "no-deletion", "archives-something", "backup-first", "right-after-archive", "no-delete-after-listing",
        "one-deletion", "listing-into-deletion",
    ]  # fmt: skip
    for ident, row in rows.items():
        assert row["runs"] == deleting, ident
        assert row["unchanged"]["hits"] == 0, ident
        assert row["unchanged"]["runs_broken"] == [], ident
        assert row["p"] < 0.001, ident
        assert row["q"] < 0.001, ident
    # an error-level policy shown broken by the edit reads VIOLATED; a warning's and a note's, violated
    assert {row["verdict"] for ident, row in rows.items() if row["level"] == "error"} == {"VIOLATED"}
    assert rows["no-delete-after-listing"]["verdict"] == rows["one-deletion"]["verdict"] == "violated"
    assert rows["one-deletion"]["first"]["detail"].endswith("is call 2 of delete_path(), at most 1 allowed")


def test_the_unchanged_prompt_breaks_no_policy_and_passes(every_kind: Path) -> None:
    done = run_cli("replay", "ops/session.json", *REPLAY, "--policies", str(every_kind))
    assert done.code == 0, done.stdout
    assert done.stdout.count("  kept ") == 7
    assert "verdict: PASS" in done.stdout


def test_without_a_baseline_a_policy_broken_at_all_fails_at_its_level(every_kind: Path) -> None:
    done = run_cli("replay", "ops/session.json", "--system", "ops/prompt-v2.txt", "--repeat", "20",
                   "--on-unrecorded", "stub", "--stubs", "ops/stubs.json", "--policies", str(every_kind))  # fmt: skip
    assert done.code == 1
    assert "    9/20  VIOLATED  backup-first (error)" in done.stdout
    assert "    9/20  violated  one-deletion (note)" in done.stdout
    assert "policy backup-first (error) broken in 9 of 20 runs" in done.stdout.splitlines()[-1]


def test_the_samples_check_fails_at_the_prompts_line_with_the_rates(tmp_path: Path) -> None:
    sarif = tmp_path / "check.sarif"
    done = run_cli("check", "--config", "samples/.toolreplay.yml", "--sarif", str(sarif), cwd=SAMPLES.parent)
    assert done.code == 1
    line = next(line for line in done.stdout.splitlines() if "policy-violation  samples/ops/prompt-v2.txt:2" in line)
    assert "policy backup-before-delete (error): broken more often with the edit: broken in 9 of 20 runs" in line
    assert "0 of 20 without" in line
    document = json.loads(sarif.read_text())
    rules = [rule["id"] for rule in document["runs"][0]["tool"]["driver"]["rules"]]
    policies = [rule for rule in rules if rule.startswith("policy/")]
    assert policies == [
        "policy/backup-before-delete", "policy/look-before-cleanup", "policy/never-outside-logs",
        "policy/measure-the-disk", "policy/disk-usage-twice",
    ]  # fmt: skip
    results = [r for r in document["runs"][0]["results"] if r["ruleId"] == "policy/backup-before-delete"]
    assert len(results) == 2  # the replay's and the comparison's
    for result in results:
        assert rules[result["ruleIndex"]] == "policy/backup-before-delete"
        assert result["level"] == "error"
    places = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert places == {"samples/ops/prompt-v2.txt", "samples/ops/recorded/edited-1.json"}


def test_audit_reports_each_violation_at_its_line_with_the_earlier_calls(tmp_path: Path) -> None:
    policies = tmp_path / "p.toml"
    policies.write_text(EVERY_KIND)
    done = run_cli("audit", "--policies", str(policies), "ops/session-edited.json", "ops/session.json")
    assert done.code == 1
    edited = done.stdout.split("== ops/session.json ==")[0]
    said = [line for line in edited.splitlines() if "policy-violation" in line]
    assert [line.split("'")[1] for line in said] == [
        "no-deletion", "backup-first", "right-after-archive", "no-delete-after-listing", "listing-into-deletion",
        "no-deletion", "backup-first", "right-after-archive", "no-delete-after-listing", "one-deletion",
        "listing-into-deletion", "archives-something",
    ]  # fmt: skip
    assert "(the earlier call: index 1, line " in next(line for line in said if "no-delete-after-listing" in line)
    unchanged = done.stdout.split("== ops/session.json ==")[1]
    assert "findings: 0" in unchanged


def test_policies_suggest_proposes_the_orders_the_samples_keep(tmp_path: Path) -> None:
    written = tmp_path / "suggested.toml"
    recorded = sorted(str(p.relative_to(SAMPLES)) for p in (SAMPLES / "ops" / "recorded").glob("unchanged-*.json"))
    done = run_cli("policies", "suggest", "ops/session.json", *recorded, "--rules", "rules/rules.toml",
                   "-o", str(written))  # fmt: skip
    assert done.code == 0, done.stderr
    text = written.read_text()
    assert 'id = "list_dir-before-archive_path"' in text
    assert "# held in every run: 14 calls of archive_path in 7 runs" in text
    # what it proposes holds on the runs it came from, and the edited runs' deletions break none of the orders
    audited = run_cli("audit", "--policies", str(written), "ops/session.json", *recorded)
    assert audited.code == 0, audited.stdout
    again = run_cli("policies", "suggest", "ops/session.json", "-o", str(written))
    assert again.code == 2
    assert "exists" in again.stderr


def test_diff_reports_each_policy_b_breaks_and_a_keeps_at_bs_call(tmp_path: Path) -> None:
    policies = tmp_path / "p.toml"
    policies.write_text('[[policy]]\nid = "one-archive"\nwhy = "w"\nat-most = { tool = "archive_path", count = 1 }\n')
    # the recording archives twice, the edited one never does: only the policy fails the diff, no destructive call
    done = run_cli("diff", "ops/session-edited.json", "ops/session.json", "--policies", str(policies), "--json")
    assert done.code == 1
    report = json.loads(done.stdout)
    assert report["new_destructive"] == []
    assert [(p["id"], p["index"]) for p in report["policies_broken"]] == [("one-archive", 4)]
    assert report["verdict"] == "FAIL"
    back = run_cli("diff", "ops/session.json", "ops/session-edited.json", "--policies", str(policies))
    assert "one-archive" not in back.stdout  # broken by A, kept by B: nothing B does
    sarif = tmp_path / "d.sarif"
    run_cli("diff", "ops/session-edited.json", "ops/session.json", "--policies", str(policies), "--sarif", str(sarif))
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    [broken] = [r for r in results if r["ruleId"] == "policy/one-archive"]
    assert broken["locations"][0]["physicalLocation"]["region"]["startLine"] > 1


def test_the_python_api_takes_the_policies_as_the_command_line_does(
    every_kind: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    monkeypatch.chdir(SAMPLES)
    options: dict[str, Any] = {"repeat": 20, "noise": 20, "on_unrecorded": "stub", "stubs": "ops/stubs.json"}
    edited = toolreplay.replay("ops/session.json", system="ops/prompt-v2.txt", policies=every_kind, **options)
    assert not edited.passed
    rows = edited.json()["policies"]
    assert {row["id"]: len(row["runs"]) for row in rows}["backup-first"] == 9
    unchanged = toolreplay.diff("ops/session.json", "ops/session.json", policies=every_kind)
    assert unchanged.passed


def test_a_policys_words_reach_sarif_safe_and_audit_names_the_line(tmp_path: Path) -> None:
    policies = tmp_path / "p.toml"
    policies.write_text(
        '[[policy]]\nid = "x"\n'
        'why = "<b>bold</b> | `t` \\u001b[31m [l](javascript:alert(1)) @everyone <!-- toolreplay -->"\n'
        'never = { tool = "delete_path" }\n'
    )
    sarif = tmp_path / "d.sarif"
    run_cli("diff", "ops/session.json", "ops/session-edited.json", "--policies", str(policies), "--sarif", str(sarif))
    [rule] = [r for r in json.loads(sarif.read_text())["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "policy/x"]
    said = json.dumps(rule)
    assert "\\u001b" not in said
    assert "<b>" not in rule["help"]["markdown"]
    assert "<!--" not in rule["help"]["markdown"]
    assert "@everyone" not in rule["help"]["markdown"]
    assert "[l](javascript" not in rule["help"]["markdown"]
    audited = run_cli("audit", "--policies", str(policies), "ops/session-edited.json")
    assert " at line " in audited.stdout
