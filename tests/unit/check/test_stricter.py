"""The stricter of two configs, which runs under ``check --base --policy base``: each setting at its stricter value,
whichever side wrote it, and every recording either side checks."""

from __future__ import annotations

from pathlib import Path

from toolreplay.check.context import Checker
from toolreplay.check.loosening import loosenings
from toolreplay.check.stricter import stricter
from toolreplay.core.verdict import FailOn
from toolreplay.formats.config.model import Config
from toolreplay.formats.config.read import read_config
from toolreplay.results.locate import Paths


def _config(config: Path, text: str, rules: str = "") -> Config:
    """A config in the one tree both sides share (as a base's and a pull request's recordings are)."""
    if rules:
        (config.parent / "rules.toml").write_text(rules, encoding="utf-8")
    for name in ("a.jsonl", "b.jsonl"):
        (config.parent / name).write_text('{"index": 0, "tool": "t", "args": {}, "response": null}\n', "utf-8")
    config.write_text(text, encoding="utf-8")
    return read_config(str(config))


def test_each_side_can_be_the_stricter_one_and_the_stricter_wins(tmp_path: Path) -> None:
    base = _config(
        tmp_path / "base.yml", "transcripts: a.jsonl\nfail-on: changed\nstrict: false\nunsealed-edits: warning\n"
    )
    pr = _config(
        tmp_path / "pr", "transcripts: [a.jsonl, b.jsonl]\nfail-on: never\nstrict: true\nunsealed-edits: error\n"
    )
    ran = stricter(base, pr)
    assert ran.fail_on is FailOn.CHANGED  # the base's, stricter
    assert ran.strict is True  # the pull request's, stricter
    assert ran.unsealed_edits == "error"
    assert [Path(p).name for p in ran.recordings] == ["a.jsonl", "b.jsonl"]  # every file either side checks
    assert [f"{item.setting}: {item.was} -> {item.now}" for item in loosenings(base, pr)] == [
        "fail-on: changed -> never"
    ]


def test_rules_the_pull_request_drops_still_run(tmp_path: Path) -> None:
    rules = '[[rules]]\ntool = "t"\nclass = "destructive"\n'
    base = _config(tmp_path / "base.yml", "transcripts: a.jsonl\nrules: rules.toml\n", rules)
    pr = _config(tmp_path / "pr.yml", "transcripts: a.jsonl\n")
    assert stricter(base, pr).rules == base.rules
    assert base.rules is not None
    assert [item.setting for item in loosenings(base, pr)] == ["rules", "rules t"]  # the file, and its rule for t


_POLICY = '[[policy]]\nid = "{id}"\nlevel = "{level}"\nwhy = "w"\nat-most = {{ tool = "t", count = {count} }}\n'


def test_a_policy_dropped_lowered_or_loosened_is_a_loosening_and_the_bases_still_judge(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(
        _POLICY.format(id="kept", level="error", count=1) + _POLICY.format(id="gone", level="error", count=1)
        + _POLICY.format(id="lowered", level="error", count=1) + _POLICY.format(id="raised", level="error", count=1)
        + _POLICY.format(id="tighter", level="warning", count=3)
    )  # fmt: skip
    (tmp_path / "pr.toml").write_text(
        _POLICY.format(id="kept", level="error", count=1) + _POLICY.format(id="lowered", level="note", count=1)
        + _POLICY.format(id="raised", level="error", count=5) + _POLICY.format(id="tighter", level="error", count=2)
        + _POLICY.format(id="new", level="error", count=0)
    )  # fmt: skip
    base = _config(tmp_path / "base.yml", "transcripts: a.jsonl\npolicies: base.toml\n")
    pr = _config(tmp_path / "pr.yml", "transcripts: a.jsonl\npolicies: pr.toml\n")
    said = [f"{item.setting}: {item.was} -> {item.now}" for item in loosenings(base, pr)]
    assert said == [
        "policy gone: stated (at most 1 t()) -> gone",
        "policy lowered level: error -> note",
        "policy raised count: 1 -> 5",
    ]
    ran = stricter(base, pr)
    assert (ran.policies, ran.base_policies) == (pr.policies, base.policies)
    gone = _config(tmp_path / "none.yml", "transcripts: a.jsonl\n")
    assert [item.setting for item in loosenings(base, gone)] == ["policies"]
    narrowed = _config(
        tmp_path / "narrow.yml", "transcripts: [a.jsonl, b.jsonl]\npolicies: {file: base.toml, recordings: b.jsonl}\n"
    )
    [narrowing] = loosenings(base, narrowed)
    assert narrowing.setting == "policies recordings"
    assert narrowing.now == "not judging it"
    assert narrowing.was.startswith("judging ")
    assert narrowing.was.endswith("/a.jsonl")


def test_under_base_the_bases_policies_judge_beside_the_pull_requests_own(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(_POLICY.format(id="a", level="error", count=1))
    (tmp_path / "pr.toml").write_text(
        _POLICY.format(id="a", level="note", count=9) + _POLICY.format(id="b", level="error", count=0)
    )
    base = _config(tmp_path / "base.yml", "transcripts: a.jsonl\npolicies: base.toml\n")
    pr = _config(tmp_path / "pr.yml", "transcripts: a.jsonl\npolicies: pr.toml\n")
    checker = Checker(stricter(base, pr), Paths(tmp_path))
    judged = {p.id: (p.level.value, p.count) for p in checker.policy.policies.policies}
    assert judged == {"a": ("error", 1), "b": ("error", 0)}  # the base's a as the base states it; the new b too


def test_a_judge_moved_to_another_url_is_a_loosening_that_names_the_url(tmp_path: Path) -> None:
    tools = "transcripts: a.jsonl\ntools:\n  judge: {judge}\n"
    base = _config(tmp_path / "base.yml", tools.format(judge="claude-sonnet-4-5"))
    moved = _config(tmp_path / "pr.yml", tools.format(judge="{model: claude-sonnet-4-5, url: 'http://127.0.0.1:9/'}"))
    gone = _config(tmp_path / "gone.yml", "transcripts: a.jsonl\ntools: {}\n")
    assert [f"{item.setting}: {item.was} -> {item.now}" for item in loosenings(base, moved)] == [
        "tools judge: claude-sonnet-4-5 -> claude-sonnet-4-5 at http://127.0.0.1:9/"
    ]
    assert [f"{item.setting}: {item.was} -> {item.now}" for item in loosenings(base, gone)] == [
        "tools judge: claude-sonnet-4-5 -> gone"
    ]
