"""A changed argument too long to print whole is shown where its two values differ: by ``diff``, and by ``check``
in its text, its markdown and its JSON (which the other reports are rendered from)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ROOT, run_cli

_LONG = "/var/log/ci/" + "nightly-builds-of-the-release-branch/" * 4  # past any cut a report makes


def _session(tmp: Path, name: str, last: str) -> None:
    """The ops sample's session with its first archive_path call given a long path ending in ``last``."""
    document = json.loads((ROOT / "samples" / "ops" / "session.json").read_text(encoding="utf-8"))
    for message in document["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else ():
            if block.get("type") == "tool_use" and block["id"] == "toolu_0004":
                block["input"]["path"] = _LONG + last
    (tmp / name).write_text(json.dumps(document), encoding="utf-8")


def test_diff_shows_where_two_long_contents_differ(tmp_path: Path) -> None:
    content = "line of the report " * 8
    for name, tail in (("a.jsonl", "kept"), ("b.jsonl", "gone")):
        call = {"index": 0, "tool": "write_file", "args": {"path": "r.md", "content": content + tail}, "response": {}}
        (tmp_path / name).write_text(json.dumps(call) + "\n", encoding="utf-8")
    result = run_cli("diff", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"))
    assert result.code == 0, result.stderr  # a changed write warns
    assert '… line of the report kept" → … line of the report gone"' in result.stdout, result.stdout


def test_check_shows_where_a_long_changed_argument_differs(tmp_path: Path) -> None:
    _session(tmp_path, "recorded.json", "2026-07")
    for n in range(1, 6):
        _session(tmp_path, f"edited-{n}.json", "2026-09")
        _session(tmp_path, f"unchanged-{n}.json", "2026-07")
    config = tmp_path / ".toolreplay.yml"
    config.write_text(
        "compare:\n  - recorded: recorded.json\n    candidates: 'edited-*.json'\n    baseline: 'unchanged-*.json'\n",
        encoding="utf-8",
    )
    result = run_cli("check", "--config", str(config), "--json", str(tmp_path / "c.json"), "--markdown",
                     str(tmp_path / "c.md"), cwd=tmp_path)  # fmt: skip
    assert result.code in (0, 1), result.stderr
    # the call line is cut before the difference; the field line is cut to the same window around it
    assert 'path: …elease-branch/2026-07" → …elease-branch/2026-09"' in result.stdout, result.stdout
    assert "2026-09" in (tmp_path / "c.md").read_text(encoding="utf-8")
    document = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    changed = [c for r in document["results"] for c in r["changes"] if c["kind"] == "changed"]
    assert [f["path"] for f in changed[0]["fields"]] == ["path"], changed
    assert json.loads(changed[0]["fields"][0]["after"]) == _LONG + "2026-09"


def test_compare_shows_where_a_long_changed_argument_differs(tmp_path: Path) -> None:
    _session(tmp_path, "recorded.json", "2026-07")
    edited = [f"edited-{n}.json" for n in range(1, 4)]
    unchanged = [f"unchanged-{n}.json" for n in range(1, 4)]
    for name in edited:
        _session(tmp_path, name, "2026-09")
    for name in unchanged:
        _session(tmp_path, name, "2026-07")
    result = run_cli("compare", "recorded.json", *edited, "--baseline", *unchanged, cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert 'path: …elease-branch/2026-07" → …elease-branch/2026-09"' in result.stdout, result.stdout
