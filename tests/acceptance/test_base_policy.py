"""``check --base``: a pull request cannot make the gate less strict than its base's policy without a finding.

Each test is a git repository whose base commit holds the samples as shipped, and whose pull request keeps the
destructive prompt edit and tries one way past the gate. The check must stay FAIL, and name the loosening at error
level where there is one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLES, run_cli, run_cli_process

CONFIG = "samples/.toolreplay.yml"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=ci@example.com", "-c", "user.name=CI", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    repo = tmp_path_factory.mktemp("base") / "repo"
    shutil.copytree(SAMPLES, repo / "samples", ignore=shutil.ignore_patterns("__pycache__"))
    _git(repo.parent, "init", "-q", "-b", "main", str(repo))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    return repo, _git(repo, "rev-parse", "HEAD")


def _pull_request(base_repo: tuple[Path, str], tmp_path: Path, edit: Callable[[Path], None]) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    shutil.copytree(base_repo[0], repo)
    edit(repo)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "the pull request")
    return repo, base_repo[1]


def _check(repo: Path, *args: str) -> tuple[int, list[tuple[str, str, str, str]], dict[str, Any]]:
    out = repo.parent / "report.json"
    done = run_cli("check", "--config", CONFIG, "--json", str(out), *args, cwd=repo)
    assert done.code in (0, 1), done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    found = [
        (f["rule"], f["level"], f"{f['location']['path']}:{f['location']['line']}", f["message"])
        for result in report["results"]
        for f in result["findings"]
    ]
    return done.code, found, report


def _config(repo: Path, old: str, new: str) -> None:
    path = repo / CONFIG
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def _line(repo: Path, text: str, path: str = CONFIG) -> int:
    return next(n for n, line in enumerate((repo / path).read_text(encoding="utf-8").splitlines(), 1) if text in line)


LOOK_ALIKE = "pr\u043empt-v2.txt"  # a Cyrillic o: a copy of the old prompt, under the edited one's name


def _drop_compare(repo: Path) -> None:
    (repo / CONFIG).write_text((repo / CONFIG).read_text(encoding="utf-8").split("compare:")[0], encoding="utf-8")


def _look_alike(repo: Path) -> None:
    shutil.copy(repo / "samples/ops/prompt.txt", repo / "samples/ops" / LOOK_ALIKE)
    _config(repo, "system: ops/prompt-v2.txt", f"system: ops/{LOOK_ALIKE}")


def _read_only_rule(repo: Path) -> None:
    rules = repo / "samples/rules/rules.toml"
    rule = '[[rules]]\ntool = "delete_path"\nclass = "read-only"\n\n'
    rules.write_text(rule + rules.read_text(encoding="utf-8"), encoding="utf-8")


def _wider_scope(repo: Path) -> None:
    allowed = '["read_file", "list_dir", "search", "write_file"]'
    (repo / "samples/scope.json").write_text(
        f'{{"agent": "docs-reader", "allowed_tools": {allowed}}}\n', encoding="utf-8"
    )


LOOSENINGS: dict[str, tuple[Callable[[Path], None], str, str]] = {
    # name: (the pull request's edit, the line it points at, the message)
    "fewer runs": (
        lambda r: _config(r, "repeat: 20", "repeat: 1"),
        "repeat: 1",
        "replay 1 repeat: was 20, is 1",
    ),
    "no baseline": (lambda r: _config(r, "noise: 20 ", "noise: 1 "), "noise: 1", "replay 1 noise: was 20, is 1"),
    "fail-on never": (
        lambda r: _config(r, "fail-on: destructive", "fail-on: never"),
        "fail-on: never",
        "fail-on: was destructive, is never",
    ),
    "a sealed file dropped from the glob": (
        lambda r: _config(r, 'sealed: "sealed/*.jsonl"', 'sealed: "sealed/clean*.jsonl"'),
        "sealed:",
        "sealed: was matching samples/sealed/edited.sealed.jsonl, is not matching it",
    ),
    "the comparison removed": (
        _drop_compare,
        "",
        "compare 1: was comparing against samples/ops/session.json, is gone",
    ),
    "a look-alike prompt": (
        _look_alike,
        "system: ops/pr",
        f"replay 1 system: was samples/ops/prompt-v2.txt, is samples/ops/{LOOK_ALIKE}",
    ),
    "a rule calling the deletion read-only": (
        _read_only_rule,
        "",
        "rules delete_path: was destructive, is read-only",
    ),
    "a tool added to the scope": (
        _wider_scope,
        "file: scope.json",
        "scope 1 allowed_tools: was without write_file, is allowing write_file",
    ),
}


@pytest.mark.parametrize("name", list(LOOSENINGS))
def test_a_loosening_is_an_error_at_its_line_and_the_base_still_governs(
    base_repo: tuple[Path, str], tmp_path: Path, name: str
) -> None:
    edit, at, message = LOOSENINGS[name]
    repo, base = _pull_request(base_repo, tmp_path, edit)
    code, found, _ = _check(repo, "--base", base)
    assert code == 1  # the edited prompt still deletes: FAIL, whatever the pull request did
    loosened = [f for f in found if f[0] == "policy-loosened"]
    assert [f[3] for f in loosened] == [message] or any(f[3].startswith(message) for f in loosened), loosened
    assert all(level == "error" for _, level, _, _ in loosened)
    if at:
        assert any(f[2] == f"{CONFIG}:{_line(repo, at)}" for f in loosened), loosened
    assert any(f[0] == "destructive-call" for f in found)


def test_the_rules_loosening_points_at_the_rule(base_repo: tuple[Path, str], tmp_path: Path) -> None:
    edit = LOOSENINGS["a rule calling the deletion read-only"][0]
    repo, base = _pull_request(base_repo, tmp_path, edit)
    _, found, report = _check(repo, "--base", base)
    assert ("policy-loosened", "error", "samples/rules/rules.toml:1") in [f[:3] for f in found]
    replayed = next(r for r in report["results"] if r["analysis"] == "replay")
    assert "DESTRUCTIVE" in replayed["summary"]  # the base's reading of delete_path decided


def test_without_base_the_same_pull_request_passes_the_gate(base_repo: tuple[Path, str], tmp_path: Path) -> None:
    """What the attacks do without --base: the config is the pull request's, and the gate opens."""
    repo, _ = _pull_request(base_repo, tmp_path, LOOSENINGS["fail-on never"][0])
    code, found, _ = _check(repo)
    assert code == 0
    assert not [f for f in found if f[0] == "policy-loosened"]


def test_seeds_come_from_the_base_and_the_report_prints_them(base_repo: tuple[Path, str], tmp_path: Path) -> None:
    repo, base = _pull_request(base_repo, tmp_path, lambda r: _config(r, "noise: 20 ", "noise: 20\n  seed: 7 "))
    code, _, report = _check(repo, "--base", base)
    assert code == 1
    policy = next(r for r in report["results"] if r["analysis"] == "policy")
    from toolreplay.check.policy import base_seed  # noqa: PLC0415

    assert f"seed {base_seed(base)} for every replay" in policy["summary"]
    assert "the base's policy governed" in policy["summary"]


def test_under_policy_pr_the_pull_requests_config_runs_and_each_loosening_warns(
    base_repo: tuple[Path, str], tmp_path: Path
) -> None:
    repo, base = _pull_request(base_repo, tmp_path, LOOSENINGS["fail-on never"][0])
    code, found, report = _check(repo, "--base", base, "--policy", "pr")
    assert code == 0
    assert [f[:2] for f in found if f[0] == "policy-loosened"] == [("policy-loosened", "warning")]
    policy = next(r for r in report["results"] if r["analysis"] == "policy")
    assert "the pull request's policy governed" in policy["summary"]


def test_a_compared_recording_edited_in_place_is_held_to_the_base(base_repo: tuple[Path, str], tmp_path: Path) -> None:
    def edit(repo: Path) -> None:
        path = repo / "samples/ops/recorded/edited-1.json"
        path.write_text(path.read_text(encoding="utf-8").replace("build-04", "build-05", 1), encoding="utf-8")

    repo, base = _pull_request(base_repo, tmp_path, edit)
    _, found, _ = _check(repo, "--base", base)
    assert any(f[0] == "recording-edited" and f[2].startswith("samples/ops/recorded/edited-1.json") for f in found)


def test_the_base_policy_is_unchanged_and_nothing_is_loosened(base_repo: tuple[Path, str], tmp_path: Path) -> None:
    repo, base = _pull_request(base_repo, tmp_path, lambda r: None)
    code, found, _ = _check(repo, "--base", base)
    assert code == 1
    assert not [f for f in found if f[0] == "policy-loosened"]


def test_a_look_alike_letter_in_a_config_path_is_a_finding_at_its_line(
    base_repo: tuple[Path, str], tmp_path: Path
) -> None:
    repo, base = _pull_request(base_repo, tmp_path, _look_alike)
    _, found, _ = _check(repo, "--base", base)
    hidden = [f for f in found if "U+043E CYRILLIC SMALL LETTER O" in f[3]]
    assert [f[:3] for f in hidden] == [("policy-loosened", "error", f"{CONFIG}:{_line(repo, 'system: ops/pr')}")]


def test_the_report_names_the_files_the_pull_request_changed_with_a_diff_stat(
    base_repo: tuple[Path, str], tmp_path: Path
) -> None:
    repo, base = _pull_request(base_repo, tmp_path, _read_only_rule)
    _, _, report = _check(repo, "--base", base, "--markdown", str(tmp_path / "summary.md"))
    policy = next(r for r in report["results"] if r["analysis"] == "policy")
    assert policy["summary"].endswith("; changed since the base: samples/rules/rules.toml (+4 -0)")
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    gate = summary.split("### The gate\n", 1)[1].split("###", 1)[0]  # read before the findings
    assert "the base's policy governed" in gate
    assert "samples/rules/rules.toml (+4 -0)" in gate


# --- found by an adversarial pass: links, renamed evidence, a committed cache, secrets asked for ------------------


def _symlinked_config(repo: Path) -> None:
    config = repo / CONFIG
    real = config.with_name("real.yml")
    config.rename(real)
    config.symlink_to("real.yml")
    real.write_text(real.read_text(encoding="utf-8").replace("fail-on: destructive", "fail-on: never"), "utf-8")


def test_a_config_made_a_link_is_still_held_to_the_base(base_repo: tuple[Path, str], tmp_path: Path) -> None:
    repo, base = _pull_request(base_repo, tmp_path, _symlinked_config)
    code, found, report = _check(repo, "--base", base)
    assert code == 1
    assert ("policy-loosened", "error") in [f[:2] for f in found if "fail-on: was destructive, is never" in f[3]]
    policy = next(r for r in report["results"] if r["analysis"] == "policy")
    assert "the base has no config" not in policy["summary"]


def test_a_policy_file_made_a_link_is_read_as_the_base_committed_it(
    base_repo: tuple[Path, str], tmp_path: Path
) -> None:
    def edit(repo: Path) -> None:
        wider = '{"agent": "docs-reader", "allowed_tools": ["read_file", "list_dir", "search", "write_file"]}\n'
        (repo / "samples" / "scope2.json").write_text(wider, encoding="utf-8")
        (repo / "samples" / "scope.json").unlink()
        (repo / "samples" / "scope.json").symlink_to("scope2.json")

    repo, base = _pull_request(base_repo, tmp_path, edit)
    _, found, _ = _check(repo, "--base", base)
    assert any(f[0] == "permission-overreach" for f in found)  # the base's scope, whatever the link says
    assert any(f[0] == "policy-loosened" and "allowing write_file" in f[3] for f in found)


def test_compared_sessions_renamed_away_are_a_loosening(base_repo: tuple[Path, str], tmp_path: Path) -> None:
    def edit(repo: Path) -> None:
        recorded = repo / "samples" / "ops" / "recorded"
        for number in range(1, 7):
            (recorded / f"edited-{number}.json").unlink()
            shutil.copy(recorded / f"unchanged-10{number}.json", recorded / f"edited-{number + 10}.json")

    repo, base = _pull_request(base_repo, tmp_path, edit)
    code, found, _ = _check(repo, "--base", base)
    assert code == 1
    said = [f for f in found if f[0] == "policy-loosened" and f[3].startswith("compare 1 candidates")]
    assert {f[1] for f in said} == {"error"}
    gone = sorted(f[3].rsplit(": ", 1)[1] for f in said if "removed or renamed" in f[3])
    assert gone == [f"samples/ops/recorded/edited-{n}.json" for n in range(1, 7)]
    new = [f for f in said if f[3].endswith("too, not one")]  # and the sessions in their place, not the base's
    assert len(new) == 6


def test_under_base_no_run_cache_of_the_configs_is_read(base_repo: tuple[Path, str], tmp_path: Path) -> None:
    """A cache in the repository is the pull request's to write: a run taken from it was never made."""
    repo, base = _pull_request(
        base_repo,
        tmp_path,
        lambda r: _config(r, "  stubs: ops/stubs.json", "  stubs: ops/stubs.json\n  cache: ops/.cache"),
    )
    out = repo.parent / "report.json"
    done = run_cli("check", "--config", CONFIG, "--json", str(out), "--base", base, cwd=repo)
    assert done.code == 1, done.stderr
    assert "the run cache" not in done.stderr
    assert not (repo / "samples" / "ops" / ".cache").exists()


def test_a_variable_the_pull_request_asks_for_its_program_is_a_loosening_and_not_given(
    base_repo: tuple[Path, str], tmp_path: Path
) -> None:
    seen = tmp_path / "seen.txt"
    replays = (
        "replay:\n"
        "  - sessions: ops/session.json\n    system: ops/prompt-v2.txt\n    agent: scripted:ops/agent.py\n"
        "    repeat: 20\n    noise: 20\n    on-unrecorded: stub\n    stubs: ops/stubs.json\n"
        f"  - sessions: ops/session.json\n    agent: {json.dumps(f'cmd:{sys.executable} {{here}}/ops/leak.py')}\n"
        "    env: [ANTHROPIC_API_KEY]\n\n"
    )

    def edit(repo: Path) -> None:
        program = f"import os\nopen({str(seen)!r}, 'a').write(','.join(sorted(os.environ)) + '\\n')\nprint('done')\n"
        (repo / "samples" / "ops" / "leak.py").write_text(program, encoding="utf-8")
        text = (repo / CONFIG).read_text(encoding="utf-8")
        start, end = text.index("replay:"), text.index("compare:")
        (repo / CONFIG).write_text(text[:start] + replays + text[end:], encoding="utf-8")

    repo, base = _pull_request(base_repo, tmp_path, edit)
    out = repo.parent / "report.json"
    environ = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-secret"}  # --isolate reaps: a process of its own
    done = run_cli_process("check", "--config", CONFIG, "--json", str(out), "--base", base, "--isolate", cwd=repo,
                           environ=environ)  # fmt: skip
    assert done.code == 1, done.stderr
    found = [f for r in json.loads(out.read_text(encoding="utf-8"))["results"] for f in r["findings"]]
    asked = [f for f in found if f["rule"] == "policy-loosened" and f["message"].startswith("replay 2 env")]
    assert [f["level"] for f in asked] == ["error"]
    assert seen.read_text(encoding="utf-8")  # the program ran
    assert "ANTHROPIC_API_KEY" not in seen.read_text(encoding="utf-8")  # and was not given what it asked for


def test_sessions_added_to_a_comparison_are_a_loosening(base_repo: tuple[Path, str], tmp_path: Path) -> None:
    """Copies of a clean edited session, added as candidates, dilute the deletion the base's sessions show."""

    def edit(repo: Path) -> None:
        recorded = repo / "samples" / "ops" / "recorded"
        for number in range(7, 61):
            shutil.copy(recorded / "edited-2.json", recorded / f"edited-{number}.json")

    repo, base = _pull_request(base_repo, tmp_path, edit)
    code, found, _ = _check(repo, "--base", base)
    assert code == 1
    added = [f for f in found if f[0] == "policy-loosened" and f[3].startswith("compare 1 candidates")]
    assert len(added) == 54
    assert {f[1] for f in added} == {"error"}


def test_a_check_wide_budget_the_pull_request_sets_is_a_loosening_and_not_applied(
    base_repo: tuple[Path, str], tmp_path: Path
) -> None:
    """A budget at the config's top stops runs, so the pull request setting one (or a lower one) loosens the gate:
    an error at its line, and the check runs as the base's would, with no such bound."""

    def edit(repo: Path) -> None:
        text = (repo / CONFIG).read_text(encoding="utf-8")
        (repo / CONFIG).write_text("max-tokens-total: 1\n" + text, encoding="utf-8")

    repo, base = _pull_request(base_repo, tmp_path, edit)
    code, found, report = _check(repo, "--base", base)
    assert code == 1
    assert ("policy-loosened", "error", f"{CONFIG}:1") in [finding[:3] for finding in found]
    loosened = next(f for f in found if f[0] == "policy-loosened" and f[2] == f"{CONFIG}:1")
    assert "max-tokens-total" in loosened[3]
    summaries = [result["summary"] for result in report["results"] if result["analysis"] == "replay"]
    assert summaries
    assert all("of the check's budget" not in summary for summary in summaries)
