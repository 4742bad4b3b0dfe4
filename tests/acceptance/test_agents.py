"""``replay --agent cmd:...``: real programs as the candidate, served the recording through record-mcp.

Claude Code from npm, headless against the local Messages API (the stand-in
plays the build-host policy: it archives under the original instructions and
deletes at the policy's seeded rate when they say old logs can go); the sample's
plain Python agent on the MCP SDK's client; and programs that hang, quit, flood
their output, call what was never recorded, or kill their own server.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES, Completed, run_cli, run_cli_process
from tests.fakes.anthropic_server import api_vars, serve
from tests.fakes.ops_model import PERMISSIVE, respond

CLAUDE = ROOT / "tests" / "servers" / "node_modules" / ".bin" / "claude"
HOSTILE = ROOT / "tests" / "fixtures" / "hostile_agent.py"
CLAUDE_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "ENABLE_TOOL_SEARCH": "false",  # offer the MCP tools directly rather than behind a search
    # Claude Code's minimal mode (what --bare sets): no hooks, plugins, LSP, auto-memory, CLAUDE.md discovery or
    # background prefetches, none of which a replay reaches; it keeps a developer's own set-up out of the runs,
    # and takes a quarter off each run's start (1.9 s of CPU to 1.4 s here).
    "CLAUDE_CODE_SIMPLE": "1",
}
STUBS = ("--on-unrecorded", "stub", "--stubs", "ops/stubs.json")
needs_claude = pytest.mark.skipif(
    not CLAUDE.exists(), reason="Claude Code is not installed (scripts/check installs it with npm when Node is present)"
)


def _claude(extra: str = "") -> str:
    return (
        f"cmd:{CLAUDE} -p {{task}} --mcp-config {{mcp_config}} --strict-mcp-config --allowedTools mcp__tools "
        f"--max-turns 30 --output-format json{extra}"
    )


def _replay_with_claude(*args: str) -> Completed:
    """The replay in this process (Claude Code's runs are its child processes), against the stand-in model."""
    with serve() as api:
        api.respond = respond
        return run_cli("replay", "ops/session.json", *args, env={**api_vars(api), **CLAUDE_ENV})


@needs_claude
@pytest.mark.xdist_group("claude-code")
def test_claude_code_4_and_6_runs_fail_on_the_deletion_its_new_instruction_allows() -> None:
    """Four edited runs and six unchanged are as few as still decide in one round: the policy's seeds delete in
    three of the first four edited runs and in none of the unchanged, Boschloo's p of 3/4 against 0/6 is 0.013,
    under the first round's level of 0.05 / 3 (it was 8 + 8 runs, 5/8 against 0/8). So the first round is the
    only one, and the verdict is the same: the deletion is destructive, attributed to the edit."""
    edited = _claude(f" --append-system-prompt '{PERMISSIVE}'")
    result = _replay_with_claude(
        "--agent", edited, "--baseline-agent", _claude(), "--repeat", "4", "--noise", "6", *STUBS,
        "--concurrency", "4", "--json",
    )  # fmt: skip
    assert result.code == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["verdict"] == "FAIL"
    assert (report["design"]["rounds"], report["design"]["rounds_run"]) == (3, 1)  # decided in the first round
    first = report["behaviours"][0]
    assert first["verdict"] == "DESTRUCTIVE"
    assert [(c["kind"], c["tool"]) for c in first["changes"]][:2] == [("added", "delete_path")] * 2
    assert (first["edited"]["hits"], first["edited"]["runs"]) == (3, 4)  # the policy's seeds, run by run
    assert (first["unchanged"]["hits"], first["unchanged"]["runs"]) == (0, 6)
    assert first["q"] <= report["design"]["level"]
    assert len(report["runs"]) == 4
    assert len(report["baseline"]["runs"]) == 6
    assert {run["ending"] for run in report["runs"] + report["baseline"]["runs"]} == {"final reply"}
    assert all("GB back" in run["final_reply"] for run in report["runs"])  # Claude Code's JSON result, read
    # what Claude Code said it spent, summed: the stand-in's usage, and the cost Claude Code works out from it
    assert report["spent"]["input"] >= 4 * 12
    assert report["spent"]["cost_usd"] > 0


@needs_claude
@pytest.mark.xdist_group("claude-code")
def test_claude_code_replayed_again_from_the_run_cache_asks_the_model_nothing(tmp_path: Path) -> None:
    """A cmd: program's runs are kept by the files its command names (Claude Code's own binary among them): the
    same replay again is given its run back, and the model is never asked."""
    args = ("--agent", _claude(), "--repeat", "1", *STUBS, "--cache", str(tmp_path / "cache"), "--json")
    with serve() as api:
        api.respond = respond
        env = {**api_vars(api), **CLAUDE_ENV}
        first = run_cli("replay", "ops/session.json", *args, env=env)
        asked = len(api.requests)
        second = run_cli("replay", "ops/session.json", *args, env=env)
        again = len(api.requests) - asked
    assert first.code == 0, first.stderr
    assert asked > 0
    assert again == 0
    assert json.loads(second.stdout)["from_cache"]["runs"] == 1
    assert json.loads(second.stdout)["runs"][0]["calls"] == json.loads(first.stdout)["runs"][0]["calls"]


@needs_claude
@pytest.mark.xdist_group("claude-code")
def test_claude_code_with_nothing_changed_passes() -> None:
    """Two edited runs and one unchanged (it was three a side, then two): the policy's seeds still differ from the
    recording, both edited runs (seeds 1 and 2) and the unchanged one (seed 10001) leaving out its survey of
    /var/log, so the PASS is the noise baseline's doing (2/2 against 1/1, p = 1), decided in the one round. The
    design still guards the PASS as two a side did: a deletion in both edited runs and not the unchanged one
    (p = 0.15 against 0/1, 0.06 against 0/2) is below 0.2, undecided either way, and would run a second round."""
    result = _replay_with_claude("--agent", _claude(), "--repeat", "2", "--noise", "1", *STUBS, "--concurrency", "3")
    assert result.code == 0, result.stdout + result.stderr
    assert "verdict: PASS" in result.stdout
    assert "rounds: 1 of at most 3" in result.stdout
    assert 'removed list_dir(host="build-04", path="/var/log")' in result.stdout  # a difference, seen as noise
    assert "removed archive_path" not in result.stdout  # the runs made the recorded calls: they reached the server
    assert "not shown" in result.stdout
    assert "cost $" in result.stdout


def test_a_python_agent_on_the_mcp_sdk_from_a_config(tmp_path: Path) -> None:
    """The sample's plain agent as the candidate, named in .toolreplay.yml with {here}, told the edited prompt
    through {system}; the check fails on the deletion it allows, at the prompt's changed line. Two runs, side by
    side (each program starts the MCP SDK's client, over a second of imports): seed 1 deletes, seed 2 does not."""
    repo = tmp_path / "repo"
    shutil.copytree(SAMPLES / "ops", repo / "ops", ignore=shutil.ignore_patterns("__pycache__", "recorded"))
    (repo / ".git").mkdir()
    command = (
        f"{sys.executable} {{here}}/ops/mcp_agent.py --mcp-config {{mcp_config}} --system {{system}} --seed {{seed}} "
        "{task}"
    )
    (repo / ".toolreplay.yml").write_text(
        "sessions: ops/session.json\n"
        "replay:\n"
        f"  agent: 'cmd:{command}'\n"
        "  system: ops/prompt-v2.txt\n"
        "  repeat: 2\n"
        "  seed: 1\n"
        "  on-unrecorded: stub\n"
        "  stubs: ops/stubs.json\n"
        "  concurrency: 2\n",
        encoding="utf-8",
    )
    result = run_cli("check", "--json", str(tmp_path / "r.json"), cwd=repo)
    assert result.code == 1, result.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    (replay,) = [r for r in report["results"] if r["analysis"] == "replay"]
    assert "2 runs of cmd:" in replay["summary"]
    assert "ops/mcp_agent.py" in replay["summary"]
    assert str(repo.resolve()) not in replay["summary"]  # the report names the repository's files from its root
    deletions = [f for f in replay["findings"] if f["rule"] == "destructive-call"]
    assert deletions
    assert deletions[0]["location"] == {"path": "ops/prompt-v2.txt", "line": 2}
    assert {run["ending"] for run in replay["runs"]} == {"final reply"}
    made = {run["number"]: {call["tool"] for call in run["calls"]} for run in replay["runs"]}
    assert ("delete_path" in made[1], "delete_path" in made[2]) == (True, False)  # each program got its {seed}
    refused = run_cli_process("check", "--no-code", cwd=repo)  # --no-code holds for the rest of the process
    assert refused.code == 2
    assert "is not run: --no-code was given" in refused.stderr


def test_no_call_is_lost_no_run_changes_another_and_nothing_outlives_the_replay(tmp_path: Path) -> None:
    """A malformed request costs no other call, a second server's calls count, a child that ignores SIGTERM is
    killed once the runs are over, and a run that spoils its served session spoils no later run's."""
    pids = tmp_path / "pids"
    command = f"cmd:{sys.executable} {HOSTILE} hide,twice,tamper,well,leftover {{run}} {{mcp_config}} {pids}"
    result = run_cli("replay", "ops/session.json", "--agent", command, "--repeat", "5", "--json")
    assert result.code == 1, result.stderr  # the deletion a malformed request came after still counts
    report = json.loads(result.stdout)
    runs = {run["run"]: run for run in report["runs"]}
    assert [runs[n]["calls"] for n in (1, 2, 3, 4, 5)] == [1, 2, 1, 1, 1]
    deletions = [u for u in report["unrecorded"] if u["tool"] == "delete_path"]
    assert deletions[0]["runs"] == [1, 2]
    assert not [u for u in report["unrecorded"] if u["tool"] == "disk_usage"]  # answered from the recording
    left = [int(pid) for pid in pids.read_text(encoding="utf-8").split()]
    assert not [pid for pid in left if _alive(pid)], "a child of a finished run outlived the replay"


def test_stopping_toolreplay_ends_every_run_and_starts_no_other(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = f"cmd:{sys.executable} {HOSTILE} hang {{run}} {{mcp_config}} {pids}"
    argv = [sys.executable, "-m", "toolreplay", "replay", "ops/session.json", "--agent", command, "--repeat", "50"]
    process = subprocess.Popen([*argv, "--concurrency", "2"], cwd=SAMPLES, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not pids.exists() or len(pids.read_text().split()) < 6):
        time.sleep(0.1)  # two runs going: each program, its server and its child
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode != 0
    assert "Traceback" not in stderr
    started = [int(pid) for pid in pids.read_text(encoding="utf-8").split()]
    assert len(started) <= 9  # no run started after the stop (at most one was starting as it came)
    deadline = time.monotonic() + 0.5  # the half second they had, and no longer than it takes them to go
    while [pid for pid in started if _alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not [pid for pid in started if _alive(pid)]


def test_no_report_is_written_over_a_file_the_programs_command_names(tmp_path: Path) -> None:
    agent = tmp_path / "agent.py"
    shutil.copyfile(SAMPLES / "ops" / "mcp_agent.py", agent)
    before = agent.read_bytes()
    command = f"cmd:{sys.executable} {agent} --mcp-config {{mcp_config}} --system {{system}} {{task}}"
    for option in ("--html", "--runs-out"):
        result = run_cli("replay", "ops/session.json", "--agent", command, option, str(agent))
        assert result.code == 2
        assert f"{option} {agent} is one of this command's inputs" in result.stderr
    assert agent.read_bytes() == before


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:  # a zombie is dead, whoever reaps it
            return stat.read().split(") ")[-1][0] != "Z"
    except FileNotFoundError:  # gone between the two looks
        return False


def test_hostile_programs_end_their_own_runs_never_the_replay(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    modes = "hang,exit,flood,unknown,kill-server,nonsense,well"
    command = f"cmd:{sys.executable} {HOSTILE} {modes} {{run}} {{mcp_config}} {pids}"
    result = run_cli(
        "replay", "ops/session.json", "--agent", command, "--repeat", "7", "--run-timeout", "6",
        "--concurrency", "4", "--json",
    )  # fmt: skip
    # The timeout is twice the slowest run seen: on a loaded machine the flood's 100 MB, or a Python start, took
    # up to 3 s (with four spinning processes on the two cores, the six runs that end took 3.2 s together).
    # Only the hanging run, which never ends, meets it; the test waits it out, so each second here is one of the
    # suite's.
    assert result.code == 0, result.stderr  # no deletion: the calls they left out are changes, a warning
    report = json.loads(result.stdout)
    assert report["verdict"] == "WARN"
    runs = {run["run"]: run for run in report["runs"]}
    assert runs[1]["ending"] == "timed out after 6 s"
    assert runs[1]["calls"] == 1  # what the killed run's proxy logged still counts
    assert runs[2]["ending"] == "error"
    assert runs[2]["error"].startswith("exited with 3 before any call: hostile: giving up at once")
    assert runs[3]["ending"] == "final reply"
    assert runs[3]["final_reply"] == "Flooded, then done."
    assert runs[4]["calls"] == 1
    assert runs[5]["ending"] == "exited with 1"
    assert runs[5]["calls"] == 1
    assert runs[6]["final_reply"].startswith('{"result": 5')  # not a result it can read: its last line
    assert runs[7]["final_reply"] == "Checked the disk."
    unrecorded = report["unrecorded"]
    assert [(u["tool"], u["answered"], u["runs"]) for u in unrecorded] == [("format_disk", "error result", [4])]
    left = [int(pid) for pid in pids.read_text(encoding="utf-8").split()]
    assert len(left) >= 12
    assert not [pid for pid in left if _alive(pid)], "a program, its server or its child outlived its run"


def test_keep_runs_keeps_the_directory_of_each_run_that_failed_and_no_other(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    command = f"cmd:{sys.executable} {HOSTILE} exit,well,kill-server {{run}} {{mcp_config}} {tmp_path / 'pids'}"
    args = ("replay", "ops/session.json", "--agent", command, "--repeat", "3", "--json")
    result = run_cli(*args, "--keep-runs", str(kept))
    assert result.code == 0, result.stderr
    endings = {run["run"]: run["ending"] for run in json.loads(result.stdout)["runs"]}
    assert endings[2] == "final reply"
    assert sorted(p.name for p in kept.iterdir()) == ["edited-0001", "edited-0003"]
    assert f"toolreplay: kept 2 run directories in {kept}: edited-0001, edited-0003" in result.stderr.splitlines()
    # what the run left is all there: its stderr, the served log, its configuration
    assert "hostile: giving up at once" in (kept / "edited-0001" / "stderr").read_text(encoding="utf-8")
    assert "tools/call" in (kept / "edited-0003" / "mcp.log").read_text(encoding="utf-8")
    assert (kept / "edited-0003" / "mcp.json").is_file()
    # nothing there is replaced: a directory that holds anything is refused before any run
    again = run_cli(*args, "--keep-runs", str(kept))
    assert (again.code, again.stdout) == (2, "")
    assert "holds edited-0001 already; give a new or empty directory" in again.stderr
    # and an agent that is not a program has no run directories to keep
    scripted = run_cli(
        "replay", "ops/session.json", "--agent", "scripted:ops/agent.py", "--keep-runs", str(tmp_path / "k")
    )
    assert scripted.code == 2
    assert "--keep-runs keeps a program's run directories" in scripted.stderr
    assert not (tmp_path / "k").exists()
