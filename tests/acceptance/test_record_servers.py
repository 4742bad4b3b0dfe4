"""``toolreplay record`` against real servers, and what one proxy name and one tool name each stand for.

Apart from test_served_session's tests (which share each protocol mode's recording, on one worker), so these
two, each a few real servers started, run beside them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES, run_cli
from tests.fakes.mcp_raw import RawClient, record_one_call

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from tests.acceptance.test_serve_fidelity import TOOLREPLAY

FEATURES = [sys.executable, "-W", "ignore", str(SAMPLES / "mcp" / "features.py")]


def _rules_name_servers(tmp_path: Path, session: Path, log: Path, called: list[str]) -> None:
    """A rule may name its server: every tool of the time server is held destructive, the ops server's not."""
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rules]]\ntool = "*"\nserver = "time"\nclass = "destructive"\n', encoding="utf-8")
    imported = tmp_path / "imported.json"
    assert run_cli("import", "--from", "mcp", str(log), "-o", str(imported)).code == 0
    for shown in (session, imported):  # the session, and the import of the log it was made from
        rows = run_cli("show", str(shown), "--rules", str(rules)).stdout.splitlines()[1:4]
        assert [row.split()[1].split("(")[0] for row in rows] == called, rows
        assert [row.endswith("  read-only") for row in rows] == [True, True, False], rows
        assert rows[2].endswith("  destructive (annotations say read-only)"), rows


def test_record_runs_a_program_against_two_servers_and_a_replay_serves_each_as_itself(tmp_path: Path) -> None:
    """``toolreplay record`` runs a program live against the sample server and a real third-party one
    (mcp-server-time), each behind record-mcp with its name, one log between them; the session it writes holds
    both servers' calls in the order they were answered, and the replayed program receives from each what it
    received live (the time included, which a live server never gives twice), whether the recording replayed is
    the session or the run's log itself."""
    witness = f"{sys.executable} -W ignore {ROOT / 'tests' / 'fixtures' / 'mcp_witness.py'}"
    for sample in ("mcp", "ops"):  # the sample server and the host it simulates, in a directory of the user's
        shutil.copytree(SAMPLES / sample, tmp_path / sample, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "runs"
    args = [
        "record",
        "--agent",
        f"cmd:{witness} --mcp-config {{mcp_config}} --out {{workdir}}/seen.json",
        "--server",
        f"ops={sys.executable} -W ignore mcp/features.py",  # relative: started where record was
        "--server",
        f"time={Path(sys.executable).parent / 'mcp-server-time'}",
        "--runs",
        "1",
        "-o",
        "runs",  # relative too: the program, in a directory of its own, is given whole paths
        "--task",
        "Disk and time.",
    ]
    result = run_cli(*args, cwd=tmp_path)
    assert result.code == 0, result.stdout + result.stderr
    session, log = out / "run-0001.json", out / "run-0001" / "mcp.jsonl"
    assert result.stdout.splitlines() == ["run 1: 3 calls, final reply → runs/run-0001.json"]  # as -o was given
    document = json.loads(session.read_text(encoding="utf-8"))
    assert (document["messages"][0], document["final_reply"]) == (
        {"role": "user", "content": "Disk and time."},
        "Seen 2 servers.",
    )
    assert [server["name"] for server in document["servers"]] == ["ops", "time"]
    turns = [m["content"] for m in document["messages"] if m["role"] == "assistant"]
    called = [block["name"] for turn in turns for block in turn if block["type"] == "tool_use"]
    assert called == ["disk_report", "show_dir", "get_current_time"]  # as answered, across both servers
    seen = json.loads((out / "run-0001" / "work" / "seen.json").read_text(encoding="utf-8"))  # its own directory
    assert [server["name"] for server in seen] == ["ops", "time"]
    _rules_name_servers(tmp_path, session, log, called)
    again = run_cli(*args, cwd=tmp_path)  # nothing recorded is written over: runs are added, numbered on
    assert again.stdout.splitlines() == ["run 2: 3 calls, final reply → runs/run-0002.json"]
    assert json.loads(session.read_text(encoding="utf-8")) == document
    refused = run_cli("serve", str(log))
    assert refused.code == 2
    assert "several servers (ops, time): choose one with --server" in refused.stderr
    words = f"{witness} --mcp-config {{mcp_config}} --out {tmp_path}/replayed-{{run}}.json"
    result = run_cli("replay", str(session), "--agent", f"cmd:{words}", "--repeat", "1", cwd=tmp_path)
    assert result.code == 0, result.stdout + result.stderr
    assert json.loads((tmp_path / "replayed-1.json").read_text(encoding="utf-8")) == seen
    # the log itself is a recording replay takes, read as its import makes it: the program sees the same
    (tmp_path / "task.txt").write_text("Disk and time.\n", encoding="utf-8")
    words = words.replace("replayed-", "from-log-")
    result = run_cli("replay", str(log), "--task-file", "task.txt", "--agent", f"cmd:{words}", cwd=tmp_path)
    assert result.code == 0, result.stdout + result.stderr
    assert result.stderr == ""
    assert json.loads((tmp_path / "from-log-1.json").read_text(encoding="utf-8")) == seen
    # and over Streamable HTTP: each server up on its own loopback port, the configuration naming its URL
    words = words.replace("from-log-", "over-http-")
    result = run_cli("replay", str(session), "--mcp-transport", "http", "--agent", f"cmd:{words}", cwd=tmp_path)
    assert result.code == 0, result.stdout + result.stderr
    assert json.loads((tmp_path / "over-http-1.json").read_text(encoding="utf-8")) == seen
    # each server answers its own calls only: the time server was never asked for a disk report
    serve = subprocess.Popen(
        [*TOOLREPLAY, "serve", str(session), "--server", "time"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        client = RawClient(serve)
        client.initialize()
        answer = client.call(2, "disk_report", {"host": "build-04"})
        assert answer["result"]["isError"] is True
        assert answer["result"]["content"] == [{"type": "text", "text": "Error: no result."}]
    finally:
        assert serve.stdin is not None
        serve.stdin.close()
        serve.wait(timeout=30)


def test_one_name_is_one_proxy_and_one_tool_name_is_one_server(tmp_path: Path) -> None:
    """A second proxy under a name already logging to the log is refused; a log whose servers list one tool
    name twice is refused at import, since a session names a tool, not a server's tool."""
    log = tmp_path / "mcp.jsonl"
    proxy = [*TOOLREPLAY, "record-mcp", "-o", str(log), "--name"]
    first = subprocess.Popen([*proxy, "ops", "--", *FEATURES], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        client = RawClient(first)
        client.initialize()  # logging now
        second = subprocess.run([*proxy, "ops", "--", *FEATURES], capture_output=True, text=True, check=False)
        assert second.returncode == 2
        assert "another recorder is logging a server named 'ops'" in second.stderr
        other = subprocess.Popen([*proxy, "copy", "--", *FEATURES], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            RawClient(other).initialize()
            for talking in (client, RawClient(other)):
                talking.send({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
                talking.receive()
        finally:
            assert other.stdin is not None
            other.stdin.close()
            other.wait(timeout=30)
    finally:
        assert first.stdin is not None
        first.stdin.close()
        first.wait(timeout=30)
    result = run_cli("import", "--from", "mcp", str(log), "-o", str(tmp_path / "s.json"), "--task", "t")
    assert result.code == 2
    assert "is listed by two servers (ops and copy)" in result.stderr
    assert not (tmp_path / "s.json").exists()


def test_a_server_logged_without_a_name_is_imported_saying_so_and_replayed_under_the_name_given(
    tmp_path: Path,
) -> None:
    """A log recorded without --name names its server as the server names itself: import says so and how to give
    another name, and replay's --server-name serves it under the name the agent's configuration gives it."""
    log = tmp_path / "mcp.jsonl"
    record_one_call(log)
    session = tmp_path / "s.json"
    imported = run_cli("import", "--from", "mcp", str(log), "-o", str(session), "--task", "Disk.")
    assert imported.code == 0, imported.stdout + imported.stderr
    assert "the server is named 'build-host-features', as it names itself (the log gave it no name)" in (
        imported.stdout
    )
    assert "--server-name" in imported.stdout
    witness = f"{sys.executable} -W ignore {ROOT / 'tests' / 'fixtures' / 'mcp_witness.py'}"
    agent = f"cmd:{witness} --mcp-config {{mcp_config}} --out {tmp_path}/seen-{{run}}.json"
    replayed = run_cli("replay", str(session), "--agent", agent, "--server-name", "ops", cwd=tmp_path)
    assert replayed.code == 0, replayed.stdout + replayed.stderr
    seen = json.loads((tmp_path / "seen-1.json").read_text(encoding="utf-8"))
    assert [server["name"] for server in seen] == ["ops"]
    result = seen[0]["results"][0]  # the recorded disk report, under the new name
    assert not result.get("isError")
    assert "build-04" in json.dumps(result["content"])
    refused = run_cli("replay", str(session), "--agent", agent, "--server-name", "notes=ops", cwd=tmp_path)
    assert refused.code == 2
    assert "server-name notes=...: the session has no server notes (it has build-host-features)" in refused.stderr
