"""``toolreplay record`` as a team that refreshes its recordings uses it: a run that failed is no recording, each run
starts from the same state with what its servers need, and what it writes holds no path of the machine it ran on.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

pytest.importorskip("mcp", reason="the mcp extra is not installed")

FIXTURES = ROOT / "tests" / "fixtures"
PYTHON = f"{sys.executable} -W ignore"
WITNESS = f"cmd:{PYTHON} {{here}}/mcp_witness.py --mcp-config {{mcp_config}} --out {{workdir}}/seen.json"


def _project(tmp_path: Path) -> Path:
    """A directory of the user's with the agent and the server in it."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("mcp_witness.py", "state_server.py"):
        shutil.copy(FIXTURES / name, project / name)
    return project


def test_a_run_that_failed_before_any_call_writes_no_session_and_says_why(tmp_path: Path) -> None:
    """A server that never started makes a run with no call: no session is written (a job refreshing recordings
    would commit an empty one), the server's own words say why, the later runs are not started and record exits
    2; with --keep-going every run is tried and record exits 1 with the count. Runs number on past what is there."""
    project = _project(tmp_path)
    args = ["record", "--agent", WITNESS, "--server", "state=sh {here}/missing.sh", "-o", "runs", "--task", "t"]
    result = run_cli(*args, "--runs", "3", cwd=project)
    assert result.code == 2, result.stdout + result.stderr
    said = result.stderr.splitlines()  # why, where errors go: on stderr
    assert said[0].startswith("toolreplay: warning: no --system: each session records an empty system prompt")
    assert said[1] == "toolreplay: run 1: exited with 1 before any call; no session:"
    assert f"  state: sh: 0: cannot open {project}/missing.sh: No such file" in said  # {here} was filled
    assert said[-1] == (
        "toolreplay: error: run 1 failed before any call and wrote no session (see above); 2 runs not started "
        "(--keep-going goes on)"
    )
    assert result.stdout == ""
    assert sorted(path.name for path in (project / "runs").iterdir()) == ["run-0001"]  # a directory, no session
    result = run_cli(*args, "--runs", "2", "--keep-going", cwd=project)
    assert result.code == 1, result.stdout + result.stderr
    assert "toolreplay: run 2: exited with 1 before any call; no session:" in result.stderr
    assert "toolreplay: run 3: exited with 1 before any call; no session:" in result.stderr
    assert result.stdout == "2 of 2 runs failed before any call and wrote no session\n"
    assert not list((project / "runs").glob("*.json"))


def test_each_run_starts_fresh_with_its_variables_and_the_session_keeps_its_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--before-run resets a stateful server's world for every run, --server-env gives the server a variable an
    MCP client would not pass on (its value reaches the server, never the session or the run's configuration
    afterwards), the session keeps the agent as written, and replay without --agent replays it from anywhere.
    Nothing record, tools pin or check writes names the directory it was made in."""
    secret = "demo-token-4f1c9a7e2b"
    monkeypatch.setenv("DEMO_TOKEN", secret)
    project = _project(tmp_path)
    result = run_cli(
        "record",
        "--agent",
        WITNESS,
        "--server",
        f"state={PYTHON} {{here}}/state_server.py {{workdir}}/state",
        "--server-env",
        "state:DEMO_TOKEN",
        "--before-run",
        "sh -c 'echo fresh-{run} > {workdir}/state'",
        "--runs",
        "2",
        "-o",
        "runs",
        "--task",
        "Read the state.",
        cwd=project,
    )
    assert result.code == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "run 1: 1 call, final reply → runs/run-0001.json",
        "run 2: 1 call, final reply → runs/run-0002.json",
    ]
    for number in (1, 2):
        run = project / "runs" / f"run-{number:04d}"
        seen = json.loads((run / "work" / "seen.json").read_text(encoding="utf-8"))
        assert seen[0]["results"][0]["content"][0]["text"] == f"state: fresh-{number}; token: {secret}"
        text = (project / "runs" / f"run-{number:04d}.json").read_text(encoding="utf-8")
        assert secret not in text
        assert f"state: fresh-{number}; token: [REDACTED:server-env:" in text
        config = json.loads((run / "mcp.json").read_text(encoding="utf-8"))
        assert secret not in json.dumps(config)
        assert list(config["mcpServers"]["state"]["env"]) == ["DEMO_TOKEN"]
    session = json.loads((project / "runs" / "run-0001.json").read_text(encoding="utf-8"))
    assert session["source"] == {
        "agent": WITNESS,
        "here": "..",
        "kind": "mcp",
        "log": "run-0001/mcp.jsonl",
        "processes": {"state": 1},
    }

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    replayed = run_cli("replay", str(project / "runs" / "run-0001.json"), "--repeat", "1", cwd=elsewhere)
    assert replayed.code == 0, replayed.stdout + replayed.stderr
    assert f"replaying the agent {project}/runs/run-0001.json was recorded with: {WITNESS} ({{here}}: {project})" in (
        replayed.stderr
    )
    assert "verdict: PASS: the candidate made the recorded calls" in replayed.stdout

    assert run_cli("tools", "pin", "runs/run-0001.json", "-o", "tools.lock", cwd=project).code == 0
    (project / ".toolreplay.yml").write_text(
        "sessions: [runs/*.json]\ntools:\n  lock: tools.lock\nreplay:\n  - sessions: [runs/run-0002.json]\n"
        "    repeat: 1\n",
        encoding="utf-8",
    )
    reports = ["--markdown", "r.md", "--sarif", "r.sarif", "--json", "r.json", "--html", "r.html"]
    checked = run_cli("check", "--config", ".toolreplay.yml", *reports, cwd=project)
    assert checked.code == 0, checked.stdout + checked.stderr
    written = [*(project / "runs").glob("*.json"), project / "tools.lock", *(project / name for name in reports[1::2])]
    assert len(written) == 7
    for path in written:
        text = path.read_text(encoding="utf-8")
        for whole in {str(tmp_path), str(tmp_path.resolve())}:
            assert whole not in text, f"{path.name} holds {whole}"


def test_every_call_of_every_process_of_a_server_is_recorded(tmp_path: Path) -> None:
    """A client that starts its server anew for each call (three processes, one call each): the session holds all
    three calls in the order answered and says how many processes the server had; a replay of the same program
    against it makes the same three, and import joins them when told the log is one run's."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(FIXTURES / "per_call_client.py", project / "client.py")
    features = ROOT / "samples" / "mcp" / "features.py"
    agent = f"cmd:{PYTHON} {{here}}/client.py --mcp-config {{mcp_config}}"
    args = ["record", "--agent", agent, "--server", f"ops={PYTHON} {features}", "-o", "runs", "--task", "Check."]
    result = run_cli(*args, cwd=project)
    assert result.code == 0, result.stdout + result.stderr
    assert result.stdout == "run 1: 3 calls, final reply → runs/run-0001.json\n"
    session = json.loads((project / "runs" / "run-0001.json").read_text(encoding="utf-8"))
    assert session["source"]["processes"] == {"ops": 3}
    turns = [m["content"] for m in session["messages"] if m["role"] == "assistant" and isinstance(m["content"], list)]
    asked = [block["input"]["host"] for turn in turns for block in turn if block.get("type") == "tool_use"]
    assert asked == ["build-01", "build-02", "build-03"]
    replayed = run_cli("replay", "runs/run-0001.json", "--repeat", "1", "--json", cwd=project)
    assert replayed.code == 0, replayed.stderr
    assert json.loads(replayed.stdout)["runs"][0]["calls"] == 3
    log = project / "runs" / "run-0001" / "mcp.jsonl"
    last = run_cli("import", "--from", "mcp", str(log), "-o", str(tmp_path / "last.json"), "--task", "t")
    assert "1 tool call from" in last.stdout
    assert "(run 3 of 3; choose another with --run)" in last.stdout
    joined = run_cli("import", "--from", "mcp", str(log), "--every-process", "-o", str(tmp_path / "all.json"))
    assert joined.code == 0, joined.stderr
    assert "3 tool calls from" in joined.stdout
    assert "(ops: 3 processes)" in joined.stdout


def test_a_server_that_cannot_start_and_a_setup_too_slow_say_why_and_leave_nothing(tmp_path: Path) -> None:
    """A server command that cannot be started is named in the run's words; a --before-run that outlives the run
    timeout is ended with all it started, however it treats SIGTERM."""
    project = _project(tmp_path)
    (project / "prompt.txt").write_text("You check the state.\n", encoding="utf-8")
    args = ["record", "--agent", WITNESS, "-o", "runs", "--task", "t", "--system", "prompt.txt"]
    missing = run_cli(*args, "--server", "a=/nonexistent/server-program", cwd=project)
    assert missing.code == 2
    assert "  a: toolreplay record-mcp: error: cannot start the server '/nonexistent/server-program'" in missing.stderr
    marker = f"{300 + os.getpid() % 1000}.{os.getpid() % 997:03d}5"
    stubborn = f"sh -c 'trap \"\" TERM INT HUP; sleep {marker} & wait'"
    slow = run_cli(*args, "--server", f"a={PYTHON} {{here}}/state_server.py x", "--before-run", stubborn,
                   "--run-timeout", "1", cwd=project)  # fmt: skip
    assert slow.code == 2
    assert "the --before-run command took longer than 1 s" in slow.stderr
    left = [p for p in Path("/proc").glob("[0-9]*") if marker.encode() in _cmdline(p)]
    assert left == []


def _cmdline(process: Path) -> bytes:
    try:
        return (process / "cmdline").read_bytes()
    except OSError:
        return b""


def test_sigterm_ends_a_recording_as_ctrl_c_does_and_takes_the_passed_value_off_disk(tmp_path: Path) -> None:
    """A job cancelled mid-run (SIGTERM): record ends its runs, exits 130, and the run's configuration no longer
    holds the value --server-env passed."""
    import signal  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import time  # noqa: PLC0415

    project = _project(tmp_path)
    secret = "sigterm-secret-5a1f0c93"
    marker = f"{300 + os.getpid() % 1000}.{time.monotonic_ns() % 1000:03d}"  # this run's program, no other's
    command = [sys.executable, "-m", "toolreplay", "record", "--agent", f"cmd:sleep {marker}", "--server",
               f"state={PYTHON} {{here}}/state_server.py x", "--server-env", "state:DEMO_TOKEN", "-o", "runs",
               "--task", "t", "--runs", "3"]  # fmt: skip
    record = subprocess.Popen(command, cwd=project, env={**os.environ, "DEMO_TOKEN": secret}, stderr=subprocess.PIPE)
    config = project / "runs" / "run-0001" / "mcp.json"
    deadline = time.monotonic() + 30
    while not (config.exists() and secret in config.read_text(encoding="utf-8")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert secret in config.read_text(encoding="utf-8")  # while the run runs, the program's client can read it
    record.send_signal(signal.SIGTERM)
    _, errors = record.communicate(timeout=60)
    assert record.returncode == 130, errors
    assert secret not in config.read_text(encoding="utf-8")
    assert [p for p in Path("/proc").glob("[0-9]*") if marker.encode() in _cmdline(p)] == []
    assert not (project / "runs" / "run-0002").exists()  # no run starts after it
