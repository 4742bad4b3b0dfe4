"""The stricter of two configs, which runs under ``check --base --policy base``: each setting at its stricter value,
whichever side wrote it, and every recording either side checks."""

from __future__ import annotations

from pathlib import Path

from toolreplay.check.loosening import loosenings
from toolreplay.check.stricter import stricter
from toolreplay.core.verdict import FailOn
from toolreplay.formats.config.model import Config
from toolreplay.formats.config.read import read_config


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
