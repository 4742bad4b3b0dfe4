"""A python: agent end to end: recorded against two real servers (the sample's and mcp-server-time), each session
the SDK's own behind the recorder's proxy, then replayed from the session it wrote, each server served as itself;
and the check runs it under isolation as it does a program."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, run_cli, run_cli_process

pytest.importorskip("mcp", reason="the mcp extra is not installed")

AGENT = """
async def run(task, sessions):
    ops, time = sessions["ops"], sessions["time"]
    disk = await ops.call_tool("disk_report", {"host": "build-04"})
    now = await time.call_tool("get_current_time", {"timezone": "UTC"})
    listing = await ops.call_tool("show_dir", {"host": "build-04", "path": "/var/log/ci"})
    return " | ".join(part.content[0].text[:40] for part in (disk, now, listing))
"""


def test_a_function_recorded_against_two_servers_replays_each_as_itself(tmp_path: Path) -> None:
    (tmp_path / "both.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "one.py").write_text("async def run(task, session):\n    return 'one'\n", encoding="utf-8")
    time_server = Path(sys.executable).parent / "mcp-server-time"
    recorded = run_cli(
        "record", "--agent", "python:both:run", "--server", f"ops={sys.executable} -W ignore {SAMPLES}/mcp/features.py",
        "--server", f"time={time_server}", "--task", "Disk and time.", "--system", str(SAMPLES / "ops" / "prompt.txt"),
        "-o", "runs", cwd=tmp_path,
    )  # fmt: skip
    assert recorded.code == 0, recorded.stdout + recorded.stderr
    assert recorded.stdout.splitlines() == ["run 1: 3 calls, final reply → runs/run-0001.json"]
    session = json.loads((tmp_path / "runs" / "run-0001.json").read_text(encoding="utf-8"))
    assert [server["name"] for server in session["servers"]] == ["ops", "time"]
    assert session["source"]["agent"] == "python:both:run"
    live = session["final_reply"]
    replayed = run_cli("replay", "runs/run-0001.json", "--repeat", "3", "--json", cwd=tmp_path)  # its own agent
    assert replayed.code == 0, replayed.stderr
    assert "replaying the agent runs/run-0001.json was recorded with: python:both:run" in replayed.stderr
    report = json.loads(replayed.stdout)
    assert [run["final_reply"] for run in report["runs"]] == [live] * 3  # the time included, which live never repeats
    assert report["changes"] == []
    one = run_cli("replay", "runs/run-0001.json", "--agent", "python:one:run", "--json", cwd=tmp_path)
    assert one.code == 2
    assert "the recording has 2 servers (ops, time): a function on it takes sessions" in one.stderr


def test_the_check_runs_a_function_from_its_config_isolated_or_not(tmp_path: Path) -> None:
    """A config names a python: agent from its own directory; --isolate gives its worker the allowlist, and the
    report is the same; --no-code refuses it before any run."""
    for sample in ("ops", "python"):
        shutil.copytree(SAMPLES / sample, tmp_path / sample, ignore=shutil.ignore_patterns("__pycache__"))
    config = tmp_path / ".toolreplay.yml"
    config.write_text(
        "sessions: ops/session.json\n"
        "replay:\n"
        "  sessions: ops/session.json\n"
        "  system: ops/prompt-v2.txt\n"
        "  agent: python:python/ops_agent/__init__.py:run\n"
        "  repeat: 10\n  noise: 10\n  on-unrecorded: stub\n  stubs: ops/stubs.json\n",
        encoding="utf-8",
    )
    plain = run_cli("check", "--config", str(config), "--json", "plain.json", cwd=tmp_path)
    # in a process of its own: an isolating check makes its process the reaper of, and the end of, all it started
    isolated = run_cli_process("check", "--config", str(config), "--json", "isolated.json", "--isolate", cwd=tmp_path)
    assert plain.code == isolated.code == 1, plain.stderr + isolated.stderr
    reports = [json.loads((tmp_path / name).read_text(encoding="utf-8")) for name in ("plain.json", "isolated.json")]
    findings = [[(f["rule"], f["message"]) for r in report["results"] for f in r["findings"]] for report in reports]
    assert findings[0][0][0] == "destructive-call"
    assert "5 of 10 runs with the edit" in findings[0][0][1]  # as the scripted policy the sample wraps: seeds 1-10
    unisolated = [message for rule, message in findings[1] if rule == "code-unisolated"]
    assert unisolated == [  # the worker was isolated from the check, not from the check's user
        "python:python/ops_agent/__init__.py:run ran as the check's own user: it could not outlive the check or read "
        "the check's own environment, but it could write what that user can, its served log included, and read "
        "what the user's other processes hold (the environment of the step's shell)"
    ]
    assert findings[0] == [finding for finding in findings[1] if finding[0] != "code-unisolated"]
    refused = run_cli_process("check", "--config", str(config), "--no-code", cwd=tmp_path)
    assert refused.code == 2
    assert "python:python/ops_agent/__init__.py:run is not run: --no-code was given" in refused.stderr
