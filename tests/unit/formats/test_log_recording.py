"""``replay`` and ``check`` take a record-mcp log as the recording, read as its import would make it: the same
runs and report as the imported session's, findings at the log's own lines, and the task (which a proxy never
sees) from ``task-file``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.formats.test_import_strict import READ, mcp_log, toolreplay, tools_call, tools_list
from toolreplay.formats.mcp_log.log import DEFAULT_TASK

AGENT = """\
class Agent:
    def __init__(self, seed):
        self.turn = 0

    def respond(self, system, tools, messages):
        self.turn += 1
        if self.turn == 1:
            return [{"type": "tool_use", "id": "t1", "name": "read", "input": {"p": 9}}]
        return [{"type": "text", "text": "asked: " + messages[0]["content"]}]
"""


@pytest.fixture
def log(tmp_path: Path) -> Path:
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "task.txt").write_text("Read p.\n", encoding="utf-8")
    return mcp_log(tmp_path, tools_list(READ), tools_call({"p": 1}))


def _replayed(capsys: pytest.CaptureFixture[str], recording: Path, *more: str) -> tuple[int, dict[str, object], str]:
    agent = recording.parent / "agent.py"
    code, out, err = toolreplay(capsys, "replay", str(recording), "--agent", f"scripted:{agent}", "--json", *more)
    return code, json.loads(out), err


def test_a_log_replays_as_the_session_its_import_makes(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    task = log.parent / "task.txt"
    session = log.parent / "session.json"
    code, _, _ = toolreplay(capsys, "import", str(log), "--from", "mcp", "-o", str(session), "--task", "Read p.")
    assert code == 0
    from_log = _replayed(capsys, log, "--task-file", str(task))
    from_session = _replayed(capsys, session)
    assert from_log[0] == from_session[0] == 0
    assert from_log[2] == from_session[2] == ""
    first, second = from_log[1], from_session[1]
    assert first.pop("recording") == {"path": str(log), "calls": 1}
    assert second.pop("recording") == {"path": str(session), "calls": 1}
    assert first == second
    runs = first["runs"]
    assert isinstance(runs, list)
    assert runs[0]["final_reply"] == "asked: Read p."  # the task file's text, its last newline dropped


def test_a_change_points_at_the_recorded_calls_line_in_the_log(
    capsys: pytest.CaptureFixture[str], log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(log.parent)  # reports name files inside the repository
    sarif = log.parent / "out.sarif"
    code, _, err = toolreplay(
        capsys, "replay", str(log), "--agent", f"scripted:{log.parent / 'agent.py'}", "--sarif", str(sarif)
    )
    assert code == 0, err
    results = json.loads(sarif.read_text(encoding="utf-8"))["runs"][0]["results"]
    recorded = [place for result in results for place in result["relatedLocations"]]
    assert [place["physicalLocation"]["region"]["startLine"] for place in recorded] == [3]  # its tools/call line


def test_a_log_without_a_task_file_warns_what_the_runs_are_sent(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    code, report, err = _replayed(capsys, log)
    assert code == 0
    runs = report["runs"]
    assert isinstance(runs, list)
    assert runs[0]["final_reply"] == f"asked: {DEFAULT_TASK}"
    assert err.count("\n") == 1
    assert err.startswith(f"toolreplay: warning: {log} holds {DEFAULT_TASK!r} where the person's message belongs")
    assert "--task-file" in err


def test_a_recording_that_holds_its_task_refuses_another(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    session = log.parent / "session.json"
    toolreplay(capsys, "import", str(log), "--from", "mcp", "-o", str(session), "--task", "Read p.")
    agent = f"scripted:{log.parent / 'agent.py'}"
    code, out, err = toolreplay(capsys, "replay", str(session), "--agent", agent, "--task-file", str(log.parent / "x"))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "holds the person's message already; task-file is for a recording without one" in err


def test_check_audits_and_replays_a_log_named_in_its_config(
    capsys: pytest.CaptureFixture[str], log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(log.parent)
    (log.parent / ".git").mkdir()
    config = "sessions: log.jsonl\nreplay:\n  - agent: scripted:agent.py\n    task-file: task.txt\n    repeat: 2\n"
    (log.parent / ".toolreplay.yml").write_text(config, encoding="utf-8")
    code, out, err = toolreplay(capsys, "check", "--json", "report.json")
    assert code == 0, err
    assert err == ""
    assert "audit   log.jsonl: 1 call, clean" in out
    assert "replay  log.jsonl: 2 runs of scripted:agent.py" in out
    report = json.loads((log.parent / "report.json").read_text(encoding="utf-8"))
    findings = [finding for result in report["results"] for finding in result["findings"]]
    assert [(f["rule"], f["related"]) for f in findings] == [("behaviour-change", [{"path": "log.jsonl", "line": 3}])]


def test_check_warns_once_when_a_replayed_log_has_no_task(
    capsys: pytest.CaptureFixture[str], log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(log.parent)
    (log.parent / ".git").mkdir()
    config = "sessions: log.jsonl\nreplay:\n  - agent: scripted:agent.py\n  - agent: scripted:agent.py\n    seed: 5\n"
    (log.parent / ".toolreplay.yml").write_text(config, encoding="utf-8")
    code, _, err = toolreplay(capsys, "check")
    assert code == 0, err
    assert err.count("\n") == 1
    assert err.startswith("toolreplay: warning: log.jsonl holds ")
