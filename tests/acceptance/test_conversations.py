"""Conversations: a session of several messages from the person, recorded, shown, sealed, replayed and diffed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

AGENT = f"scripted:{ROOT / 'tests' / 'fixtures' / 'chat_agent.py'}"
TURNS = ("--task", "usage", "--then", "list /var/log/ci", "--then", "clean /var/log/ci/2026-07")


@pytest.fixture
def conversation(tmp_path: Path) -> Path:
    out = tmp_path / "chat.json"
    result = run_cli("run", str(ROOT / "samples" / "ops" / "tools.py"), "--agent", AGENT, *TURNS, "-o", str(out))
    assert (result.code, result.stderr) == (0, ""), result.stderr
    assert result.stdout == f"wrote {out}: 3 tool calls\n"
    return out


def test_a_conversation_is_recorded_turn_by_turn(conversation: Path) -> None:
    doc = json.loads(conversation.read_text(encoding="utf-8"))
    assert doc["version"] == 2
    said = [m["content"] for m in doc["messages"] if m["role"] == "user" and isinstance(m["content"], str)]
    assert said == ["usage", "list /var/log/ci", "clean /var/log/ci/2026-07"]
    shown = run_cli("show", str(conversation)).stdout.splitlines()
    assert [line.split("  ")[0] for line in shown if line.startswith("turn ")] == [
        "turn 1: usage",
        "turn 2: list /var/log/ci",
        "turn 3: clean /var/log/ci/2026-07",
    ]
    assert shown[-2].strip().startswith("2  archive_path(")  # the third turn's call, under its turn


def test_a_conversation_audits_seals_and_verifies(conversation: Path, tmp_path: Path) -> None:
    assert run_cli("audit", str(conversation)).stdout.endswith("findings: 0\n")
    sealed = tmp_path / "chat.sealed.jsonl"
    result = run_cli("seal", str(conversation), "-o", str(sealed))
    assert result.code == 0, result.stderr
    assert run_cli("verify", str(sealed)).stdout == "chain: intact\n"
    assert run_cli("show", str(sealed)).stdout.count("\nturn ") == 3


def test_replay_speaks_each_turn_after_the_reply_and_places_changes_by_turn(conversation: Path, tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("clean means delete\n", encoding="utf-8")
    result = run_cli(
        "replay", str(conversation), "--system", str(prompt), "--allow-new-prompt", "--repeat", "2", "--json"
    )
    assert result.code == 1, result.stderr
    report = json.loads(result.stdout)
    assert all(run["calls"] == 3 and run["ending"] == "final reply" for run in report["runs"])
    assert {(c["kind"], c["tool"], c["turn"]) for c in report["changes"]} == {
        ("added", "delete_path", 3),
        ("removed", "archive_path", 3),
    }
    text = run_cli("replay", str(conversation), "--system", str(prompt), "--allow-new-prompt", "--repeat", "2").stdout
    assert 'added    delete_path(host="build-04", path="/var/log/ci/2026-07")  destructive  (turn 3)' in text
    # unchanged, the candidate makes the recorded calls in every turn
    same = run_cli("replay", str(conversation), "--repeat", "2")
    assert same.code == 0
    assert "differences from the recording: none, in 2 runs" in same.stdout


def test_diff_matches_calls_within_a_turn(conversation: Path, tmp_path: Path) -> None:
    doc = json.loads(conversation.read_text(encoding="utf-8"))
    # the same calls, but the person asked for the listing first: the calls answer other turns
    swapped = tmp_path / "swapped.json"
    out = run_cli(
        "run",
        str(ROOT / "samples" / "ops" / "tools.py"),
        "--agent",
        AGENT,
        "--task",
        "list /var/log/ci",
        "--then",
        "usage",
        "--then",
        "clean /var/log/ci/2026-07",
        "-o",
        str(swapped),
    )
    assert out.code == 0, out.stderr
    assert doc["version"] == 2
    result = run_cli("diff", str(conversation), str(swapped), "--json")
    data = json.loads(result.stdout)
    assert data["counts"]["same"] == 1  # only the clean-up answers the same turn on both sides
    kinds = sorted((d["kind"], (d["b"] or d["a"])["turn"]) for d in data["differences"])
    assert kinds == [("added", 1), ("added", 2), ("removed", 1), ("removed", 2)]


def test_a_recording_that_knows_no_turns_compares_with_a_conversation_by_order_alone(
    conversation: Path, tmp_path: Path
) -> None:
    # what a proxy would log of the same run: the same calls, every one in turn 1
    doc = json.loads(conversation.read_text(encoding="utf-8"))
    calls = [b for m in doc["messages"] if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"]
    results = {
        b["tool_use_id"]: b
        for m in doc["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
    }
    flat: list[dict[str, object]] = [{"role": "user", "content": "usage"}]
    for use in calls:
        flat += [{"role": "assistant", "content": [use]}, {"role": "user", "content": [results[use["id"]]]}]
    flat.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    one = tmp_path / "one.json"
    one.write_text(json.dumps({**doc, "messages": flat, "final_reply": "Done."}, indent=2), encoding="utf-8")
    same = run_cli("diff", str(conversation), str(one))
    assert same.code == 0, same.stdout
    assert "same 3 · moved 0 · changed 0 · added 0 · removed 0" in same.stdout


def test_an_empty_later_message_is_refused(tmp_path: Path) -> None:
    result = run_cli(
        "run",
        str(ROOT / "samples" / "ops" / "tools.py"),
        "--agent",
        AGENT,
        "--task",
        "usage",
        "--then",
        " ",
        "-o",
        str(tmp_path / "s.json"),
    )
    assert result.code == 2
    assert "--then needs words" in result.stderr
