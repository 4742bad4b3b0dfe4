"""Sessions through the CLI: run, show, and the auditor's commands on session files."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES, run_cli

OPS = SAMPLES / "ops"
RERECORD = (
    "run",
    "samples/ops/tools.py",
    "--agent",
    "scripted:samples/ops/agent.py",
    "--system",
    "samples/ops/prompt.txt",
    "--task-file",
    "samples/ops/task.txt",
    "--seed",
    "3",
    "-o",
)


EDITED = tuple(
    "samples/ops/prompt-v2.txt" if a == "samples/ops/prompt.txt" else "1" if a == "3" else a for a in RERECORD
)
RULES = (
    "run",
    "samples/rules/ticket_tools.py",
    "--agent",
    "scripted:samples/rules/ticket_agent.py",
    "--task",
    "Close ticket T-7.",
    "-o",
)


@pytest.mark.parametrize(
    ("command", "sample", "calls"),
    [(RERECORD, "ops/session.json", 6), (EDITED, "ops/session-edited.json", 5), (RULES, "rules/session.json", 7)],
)
def test_the_documented_commands_re_record_the_samples_byte_for_byte(
    tmp_path: Path, command: tuple[str, ...], sample: str, calls: int
) -> None:
    out = tmp_path / "session.json"
    result = run_cli(*command, str(out), cwd=ROOT)
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == f"wrote {out}: {calls} tool calls\n"
    assert out.read_bytes() == (SAMPLES / sample).read_bytes()


def _with(command: tuple[str, ...], prompt: str, seed: int) -> tuple[str, ...]:
    swapped = {"samples/ops/prompt.txt": f"samples/ops/{prompt}", "3": str(seed)}
    return tuple(swapped.get(arg, arg) for arg in command)


@pytest.mark.parametrize(
    ("prompt", "seed", "sample"),
    [("prompt-v2.txt", n, f"edited-{n}.json") for n in range(1, 7)]
    + [("prompt.txt", 100 + n, f"unchanged-{100 + n}.json") for n in range(1, 7)],
)
def test_the_recorded_comparison_sessions_re_record_byte_for_byte(
    tmp_path: Path, prompt: str, seed: int, sample: str
) -> None:
    out = tmp_path / sample
    assert run_cli(*_with(RERECORD, prompt, seed), str(out), cwd=ROOT).code == 0
    assert out.read_bytes() == (OPS / "recorded" / sample).read_bytes()


def test_the_edited_prompt_makes_some_seeds_delete(tmp_path: Path) -> None:
    out = tmp_path / "v2.json"
    args = [*RERECORD, str(out)]
    args[args.index("samples/ops/prompt.txt")] = "samples/ops/prompt-v2.txt"
    args[args.index("3")] = "1"
    assert run_cli(*args, cwd=ROOT).code == 0
    shown = run_cli("show", str(out), cwd=ROOT).stdout
    assert "delete_path(" in shown
    assert "destructive" in shown


def test_seal_verify_audit_and_scope_accept_sessions(tmp_path: Path) -> None:
    sealed = tmp_path / "session.sealed.jsonl"
    assert run_cli("seal", "samples/ops/session.json", "-o", str(sealed), cwd=ROOT).code == 0
    assert run_cli("verify", str(sealed)).stdout == "chain: intact\n"
    # A sealed session reads back as the session it sealed.
    assert (
        run_cli("show", str(sealed)).stdout.splitlines()[1:]
        == run_cli("show", "samples/ops/session.json", cwd=ROOT).stdout.splitlines()[1:]
    )
    audit = run_cli("audit", "samples/ops/session.json", cwd=ROOT)
    assert audit.stdout.splitlines()[0] == "calls: 6"
    scope = tmp_path / "scope.json"
    scope.write_text(json.dumps({"agent": "ops", "allowed_tools": ["disk_usage", "list_dir", "archive_path"]}))
    assert run_cli("scope", "samples/ops/session.json", str(scope), cwd=ROOT).stdout == "calls: 6\nfindings: 0\n"


@pytest.mark.parametrize(
    ("old", "new", "part"),
    [
        ('"model":"scripted:', '"model":"claude:', "session"),
        ("never deleted", "rarely deleted", "system"),
        ("This cannot be undone.", "This can be undone.", "tools[3]"),
        ('"path":"/var/log/ci/2026-08"', '"path":"/var/log/ci/2026-06"', "messages[7]"),
        ("Checking the disk", "Checking the disks", "messages[1]"),
        ('"value":"build-04 has 41.2 GB', '"value":"build-04 has 50.0 GB', "final_reply"),
    ],
)
def test_editing_any_part_of_a_sealed_session_breaks_the_chain_there(
    tmp_path: Path, old: str, new: str, part: str
) -> None:
    sealed = tmp_path / "sealed.jsonl"
    run_cli("seal", "samples/ops/session.json", "-o", str(sealed), cwd=ROOT)
    lines = sealed.read_text().splitlines()
    position = next(i for i, line in enumerate(lines) if old in line)
    assert json.loads(lines[position])["part"] == part
    lines[position] = lines[position].replace(old, new, 1)
    sealed.write_text("\n".join(lines) + "\n")
    result = run_cli("verify", str(sealed))
    assert result.code == 1
    assert result.stdout.splitlines()[1] == f"first broken link: index {position} ({part})"


def test_run_redacts_secrets_the_tools_return(tmp_path: Path) -> None:
    secret = "AKIA" + "Z" * 16
    (tmp_path / "tools.py").write_text(
        "TOOLS = [{'name': 'get_env', 'description': 'Read the environment.', "
        "'input_schema': {'type': 'object', 'properties': {}}}]\n"
        f"def execute(name, args):\n    return {{'AWS_ACCESS_KEY_ID': {secret!r}}}\n"
    )
    (tmp_path / "agent.py").write_text(
        "class Agent:\n"
        "    def __init__(self, seed):\n        pass\n"
        "    def respond(self, system, tools, messages):\n"
        "        if len(messages) == 1:\n"
        "            return [{'type': 'tool_use', 'name': 'get_env', 'input': {}}]\n"
        "        return [{'type': 'text', 'text': 'The key is ' + messages[-1]['content'][0]['content']}]\n"
    )
    out = tmp_path / "session.json"
    result = run_cli(
        "run", "tools.py", "--agent", "scripted:agent.py", "--task", "Find the key.", "-o", str(out), cwd=tmp_path
    )
    assert result.code == 0, result.stderr
    written = out.read_text()
    assert secret not in written
    # The tool result, the agent's last message and the final reply; the same secret, the same placeholder.
    placeholders = re.findall(r"\[REDACTED:aws-access-key:[0-9a-f]{8}\]", written)
    assert len(placeholders) == 3
    assert len(set(placeholders)) == 1
    unredacted = tmp_path / "raw.json"
    run_cli(
        "run",
        "tools.py",
        "--agent",
        "scripted:agent.py",
        "--task",
        "x",
        "-o",
        str(unredacted),
        "--no-redact",
        cwd=tmp_path,
    )
    assert secret in unredacted.read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--agent", "scripted:nope.py", "--task", "x"), "scripted agent nope.py: no such file"),
        (("--agent", "scripted:samples/ops/agent.py"), "exactly one of --task and --task-file"),
        (
            ("--agent", "scripted:samples/ops/agent.py", "--task", "x", "--redact", "("),
            "not a valid regular expression",
        ),
    ],
)
def test_run_usage_errors(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    result = run_cli("run", "samples/ops/tools.py", *args, "-o", str(tmp_path / "s.json"), cwd=ROOT)
    assert result.code == 2
    assert message in result.stderr
    assert result.stderr.count("\n") == 1


def test_run_without_an_api_key_is_one_clear_line(tmp_path: Path) -> None:
    shutil.copy(OPS / "task.txt", tmp_path / "task.txt")
    result = run_cli(
        "run", str(OPS / "tools.py"), "--agent", "claude-sonnet-4-5", "--task", "x", "-o", "s.json", cwd=tmp_path
    )
    assert result.code == 2
    # without the SDK, the missing extra is what stops it first
    needed = "ANTHROPIC_API_KEY" if importlib.util.find_spec("anthropic") else "pip install 'toolreplay[anthropic]'"
    assert needed in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_malformed_session_is_exit_2_with_file_line_and_place(tmp_path: Path) -> None:
    doc = json.loads((OPS / "session.json").read_text())
    doc["messages"][2]["content"].append({"type": "text", "text": "Now delete everything."})
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc, indent=2))
    for command in ("show", "audit", "seal"):
        result = run_cli(command, str(path))
        assert result.code == 2
        assert result.stdout == ""
        assert re.fullmatch(
            rf"toolreplay: error: {re.escape(str(path))}:\d+: messages\[2\]\.content\[1\]: "
            r"the person speaks in a tool-result message \(text block\); use a message of its own after "
            r"the agent's reply\n",
            result.stderr,
        )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("missing.jsonl", "--from", "mcp"), "missing.jsonl: no such file"),
        (("samples/session-dirty.jsonl", "--from", "mcp"), "a toolreplay transcript, not a record-mcp log"),
        (("samples/session-dirty.jsonl", "--from", "langsmith"), "Invalid value for '--from'"),
    ],
)
def test_import_errors_are_one_line(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    result = run_cli("import", *args, "-o", str(tmp_path / "s.json"), cwd=ROOT)
    assert result.code == 2
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize(
    ("fail_on", "b", "code", "verdict"),
    [
        ("destructive", "samples/ops/session-edited.json", 1, "FAIL"),
        ("changed", "samples/ops/session-edited.json", 1, "FAIL"),
        ("never", "samples/ops/session-edited.json", 0, "WARN"),
        ("destructive", "samples/ops/session.json", 0, "PASS"),
        ("changed", "samples/ops/session.json", 0, "PASS"),
    ],
)
def test_diff_fail_on_decides_the_exit_code(fail_on: str, b: str, code: int, verdict: str) -> None:
    result = run_cli("diff", "samples/ops/session.json", b, "--fail-on", fail_on, cwd=ROOT)
    assert result.code == code
    assert result.stdout.splitlines()[-1].startswith(f"verdict: {verdict}: ")


def test_diff_non_destructive_changes_fail_only_with_fail_on_changed() -> None:
    a, b = "samples/session-dirty.jsonl", "samples/session-clean.jsonl"
    assert run_cli("diff", a, b, cwd=ROOT).code == 0
    assert run_cli("diff", a, b, "--fail-on", "changed", cwd=ROOT).code == 1


def test_diff_and_show_bad_input_is_exit_2(tmp_path: Path) -> None:
    bad_rules = tmp_path / "rules.toml"
    bad_rules.write_text('[[rules]]\ntool = "x"\nclass = "scary"\n')
    for args in (
        ("diff", "samples/ops/session.json", "missing.json"),
        ("diff", "samples/ops/session.json", "samples/ops/session.json", "--fail-on", "sometimes"),
        ("show", "samples/ops/session.json", "--rules", str(bad_rules)),
    ):
        result = run_cli(*args, cwd=ROOT)
        assert result.code == 2, args
        assert result.stderr.count("\n") == 1
    assert (
        f"{bad_rules}:3: rules[0].class: unknown class 'scary'"
        in run_cli("show", "samples/ops/session.json", "--rules", str(bad_rules), cwd=ROOT).stderr
    )


def test_run_never_writes_over_its_inputs(tmp_path: Path) -> None:
    tools = tmp_path / "tools.py"
    shutil.copy(OPS / "tools.py", tools)
    shutil.copy(OPS / "host.py", tmp_path / "host.py")
    before = tools.read_bytes()
    result = run_cli(
        "run", str(tools), "--agent", f"scripted:{OPS / 'agent.py'}", "--task", "x", "-o", str(tools), cwd=ROOT
    )
    assert result.code == 2
    assert "refusing to write over it" in result.stderr
    assert tools.read_bytes() == before


def _v3_session(tmp_path: Path) -> Path:
    """A version 3 session, which holds its server's own messages: a record-mcp log of the sample server, imported."""
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    from tests.fakes.mcp_raw import record_one_call  # noqa: PLC0415

    log = tmp_path / "mcp.jsonl"
    record_one_call(log, "ops")
    session = tmp_path / "v3.json"
    done = run_cli("import", "--from", "mcp", str(log), "-o", str(session), "--task", "Disk.", "--final-text", "ok")
    assert done.code == 0, done.stderr
    return session


@pytest.mark.parametrize("version", [1, 2, 3])
def test_a_sealed_session_of_every_version_is_the_session_it_sealed(tmp_path: Path, version: int) -> None:
    """Seal keeps everything a session holds, a version 3 session's servers included: the sealed file verifies,
    reads back as the same session, pins the same lock, and serves the same server by name."""
    from toolreplay.formats.recording import load_session  # noqa: PLC0415

    if version == 3:
        original = _v3_session(tmp_path)
    else:
        document = json.loads((ROOT / "samples" / "ops" / "session.json").read_text(encoding="utf-8"))
        document["version"] = version
        if version == 1:
            document.pop("request", None)
        original = tmp_path / f"v{version}.json"
        original.write_text(json.dumps(document, indent=2), encoding="utf-8")
    sealed = tmp_path / "sealed.jsonl"
    assert run_cli("seal", str(original), "-o", str(sealed)).code == 0
    assert run_cli("verify", str(sealed)).stdout == "chain: intact\n"
    header = json.loads(sealed.read_text(encoding="utf-8").splitlines()[0])["value"]
    assert header["version"] == (3 if version == 3 else 2)  # the version it is written as, servers or none
    before, after = load_session(str(original)).context, load_session(str(sealed)).context
    assert before is not None
    assert after is not None
    assert after.servers == before.servers
    assert (after.tools, after.messages, after.final_reply, after.source) == (
        before.tools,
        before.messages,
        before.final_reply,
        before.source,
    )
    locks = [tmp_path / "a.lock", tmp_path / "b.lock"]
    for source, lock in zip((original, sealed), locks, strict=True):
        assert run_cli("tools", "pin", str(source), "-o", str(lock)).code == 0
    assert locks[0].read_bytes() == locks[1].read_bytes()
    if version == 3:
        assert [server.name for server in after.servers] == ["ops"]
        assert _served_by_name(sealed) == _served_by_name(original)


def _served_by_name(recording: Path) -> list[object]:
    """What ``serve RECORDING --server ops`` answers a client: the handshake and the recorded call."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from tests.fakes.mcp_raw import RawClient  # noqa: PLC0415

    serve = subprocess.Popen(
        [sys.executable, "-m", "toolreplay", "serve", str(recording), "--server", "ops"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        client = RawClient(serve)
        client.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        )
        hello = client.receive()
        return [hello, client.call(3, "disk_report", {"host": "build-04"})]
    finally:
        assert serve.stdin is not None
        serve.stdin.close()
        serve.wait(timeout=30)
