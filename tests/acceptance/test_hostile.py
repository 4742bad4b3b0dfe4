"""Promises under an unlucky user's input: streams, outputs that would overwrite inputs, full disks, crashes.

Each class is tried on every command it applies to. Pipes, FIFOs, a full standard output, file-size limits,
a crashing entry point and a server's hang-up run the CLI as a process; the rest runs it in-process.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from tests.conftest import ROOT, SAMPLES, Completed, run_cli

DIRTY = SAMPLES / "session-dirty.jsonl"
SEALED_EDITED = SAMPLES / "sealed" / "edited.sealed.jsonl"
SESSION = SAMPLES / "ops" / "session.json"


def cli(*args: str, cwd: Path = ROOT) -> Completed:
    """The CLI in this process (see tests/conftest.py): for every promise a process adds nothing to."""
    return run_cli(*args, cwd=cwd)


def toolreplay(
    *args: str, stdin: bytes | None = None, cwd: Path = ROOT, limit_file_size: int | None = None
) -> Completed:
    """Run the real CLI in a process of its own, for what only a process shows: ``stdin`` is piped to it, as
    ``cat FILE | toolreplay ... /dev/stdin`` would, and ``limit_file_size`` is its RLIMIT_FSIZE."""

    def limit() -> None:
        if limit_file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_file_size, limit_file_size))

    # A process under a file-size limit writes no bytecode: the interpreter's own writer ignores a short write, and a
    # cache cut short at the limit would break every later process that imports the module.
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1") if limit_file_size is not None else None
    proc = subprocess.run(
        [sys.executable, "-m", "toolreplay", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        timeout=120,
        check=False,
        env=env,
        preexec_fn=limit if limit_file_size is not None else None,
    )
    return Completed(proc.returncode, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"))


def one_line_error(result: Completed) -> None:
    assert result.code == 2, result
    assert result.stderr.startswith("toolreplay: error: "), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------- streams

# (command with {} where the recording goes, the file that stands behind it)
STREAMED = [
    (("verify", "{}"), SEALED_EDITED),
    (("audit", "{}"), DIRTY),
    (("replay", "{}"), DIRTY),
    (("seal", "{}"), DIRTY),
    (("scope", "{}", str(SAMPLES / "scope.json")), DIRTY),
    (("show", "{}"), SESSION),
    (("show", "{}"), DIRTY),
    (("diff", str(SESSION), "{}"), SAMPLES / "ops" / "session-edited.json"),
]


@pytest.mark.parametrize(("args", "source"), STREAMED, ids=lambda v: v[0] if isinstance(v, tuple) else v.name)
def test_a_pipe_gives_what_the_file_gives(args: tuple[str, ...], source: Path) -> None:
    from_file = cli(*(a.replace("{}", str(source)) for a in args))
    from_pipe = toolreplay(*(a.replace("{}", "/dev/stdin") for a in args), stdin=source.read_bytes())
    assert from_pipe.code == from_file.code
    assert from_pipe.stdout == from_file.stdout.replace(str(source), "/dev/stdin")


def test_the_edited_chain_is_caught_through_a_pipe() -> None:
    result = toolreplay("verify", "/dev/stdin", stdin=SEALED_EDITED.read_bytes())
    assert (result.code, result.stdout.splitlines()[:2]) == (1, ["chain: broken", "first broken link: index 2"])


def test_process_substitution_and_a_fifo(tmp_path: Path) -> None:
    audited = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m toolreplay audit <(cat "{DIRTY}")'],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert audited.returncode == 1
    assert audited.stdout.startswith("calls: 6\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["bash", "-c", f'cat "{DIRTY}" > "{fifo}"'])
    try:
        sealed = toolreplay("seal", str(fifo))
    finally:
        writer.wait(timeout=60)
    assert sealed.code == 0
    assert sealed.stdout == cli("seal", str(DIRTY)).stdout


# ---------------------------------------------------------------- outputs never overwrite inputs


def links_to(target: Path, directory: Path) -> Iterator[Path]:
    """The target itself, a symlink to it and a hard link to it."""
    yield target
    symlink = directory / f"symlink-{target.name}"
    symlink.symlink_to(target)
    yield symlink
    hardlink = directory / f"hardlink-{target.name}"
    os.link(target, hardlink)
    yield hardlink


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the samples, so nothing the repository holds is at risk."""
    copy = tmp_path / "repo"
    shutil.copytree(SAMPLES, copy / "samples")
    (copy / ".git").mkdir()
    return copy


WRITERS = [
    # (command, the option that writes, the input it is pointed at)
    (("seal", "samples/session-dirty.jsonl"), "-o", "samples/session-dirty.jsonl"),
    (
        ("replay", "samples/ops/session.json", "--system", "samples/ops/prompt-v2.txt"),
        "--runs-out",
        "samples/ops/prompt-v2.txt",
    ),
    (("replay", "samples/ops/session.json"), "--runs-out", "samples/ops/session.json"),
    (("check", "--config", "samples/.toolreplay.yml"), "--json", "samples/scope.json"),
    (("check", "--config", "samples/.toolreplay.yml"), "--sarif", "samples/ops/stubs.json"),
    (("check", "--config", "samples/.toolreplay.yml"), "--markdown", "samples/.toolreplay.yml"),
    (("check", "--config", "samples/.toolreplay.yml"), "--json", "samples/ops/recorded/edited-1.json"),
    (("import", "--from", "mcp", "samples/session-dirty.jsonl"), "-o", "samples/session-dirty.jsonl"),
    (
        ("import", "--from", "mcp", "samples/session-dirty.jsonl", "--task-file", "samples/ops/prompt-v2.txt"),
        "-o",
        "samples/ops/prompt-v2.txt",
    ),
    (
        ("run", "samples/ops/tools.py", "--agent", "scripted:samples/ops/agent.py", "--task", "x"),
        "-o",
        "samples/ops/agent.py",
    ),
]


@pytest.mark.parametrize(("args", "option", "victim"), WRITERS, ids=lambda v: v if isinstance(v, str) else None)
def test_no_output_overwrites_an_input(repo: Path, args: tuple[str, ...], option: str, victim: str) -> None:
    before = (repo / victim).read_bytes()
    for target in links_to(repo / victim, repo):
        result = cli(*args, option, str(target), cwd=repo)
        one_line_error(result)
        assert "refusing to write over it" in result.stderr
        assert (repo / victim).read_bytes() == before


def test_two_reports_cannot_share_a_file(repo: Path) -> None:
    out = repo / "report"
    result = cli("check", "--config", "samples/.toolreplay.yml", "--json", str(out), "--sarif", str(out), cwd=repo)
    one_line_error(result)
    assert not out.exists()


# ---------------------------------------------------------------- operating-system errors


@pytest.mark.parametrize(
    "args",
    [
        ("audit", str(DIRTY)),
        ("seal", str(DIRTY)),
        ("show", str(SESSION)),
        ("check", "--config", "samples/.toolreplay.yml"),
    ],
    ids=lambda a: a[0],
)
def test_a_full_standard_output_is_exit_2(args: tuple[str, ...]) -> None:
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "toolreplay", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            timeout=120,
            check=False,
        )
    stderr = proc.stderr.decode()
    assert proc.returncode == 2, stderr
    assert stderr == "toolreplay: error: standard output: cannot write: No space left on device\n"


@pytest.mark.parametrize(
    "args",
    [
        ("seal", str(DIRTY), "-o", "{}"),
        ("replay", str(SESSION), "--runs-out", "{}"),
        ("check", "--config", "samples/.toolreplay.yml", "--json", "{}"),
    ],
    ids=lambda a: a[0],
)
def test_unwritable_outputs_are_exit_2_and_leave_nothing(tmp_path: Path, args: tuple[str, ...]) -> None:
    for target, words in [
        ("/dev/full", "No space left on device"),
        (str(tmp_path), "is a directory"),
        (str(tmp_path / "missing" / "out"), "its directory does not exist"),
    ]:
        result = cli(*(a.replace("{}", target) for a in args))
        one_line_error(result)
        assert words in result.stderr
    # A file-size limit: the write fails with EFBIG (not a signal that kills the process), and no part is left.
    out = tmp_path / "limited"
    result = toolreplay(*(a.replace("{}", str(out)) for a in args), limit_file_size=512)
    one_line_error(result)
    assert "File too large" in result.stderr or "cut a line short" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# ---------------------------------------------------------------- exit 1 means findings and nothing else


def test_an_internal_error_is_exit_2_with_one_line_and_debug_shows_the_traceback(tmp_path: Path) -> None:
    """A bug anywhere in a command (here: a renderer that raises) must never read as findings."""
    script = tmp_path / "crash.py"
    script.write_text(
        "import sys\n"
        "import toolreplay.report.text as text\n"
        "def broken(*args, **kwargs):\n"
        "    raise RuntimeError('renderer broke')\n"
        "text.render_audit = broken\n"
        "import toolreplay.cli.audit as audit\n"
        "audit.render_audit = broken\n"
        "from toolreplay.cli import main\n"
        "raise SystemExit(main(sys.argv[1:]))\n"
    )
    plain = subprocess.run(
        [sys.executable, str(script), "audit", str(DIRTY)], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert plain.returncode == 2
    assert plain.stderr.count("\n") == 1
    assert "internal error (RuntimeError: renderer broke)" in plain.stderr
    assert "please report it" in plain.stderr
    debug = subprocess.run(
        [sys.executable, str(script), "--debug", "audit", str(DIRTY)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert debug.returncode == 2
    assert "Traceback" in debug.stderr
    assert debug.stderr.rstrip().endswith("--debug prints")


def test_an_error_message_stays_one_line_whatever_the_file_name(tmp_path: Path) -> None:
    name = tmp_path / "evil\n::error::forged\x1b[31m.jsonl"
    name.write_text('{"index": 0}\n')
    result = cli("audit", str(name))
    one_line_error(result)
    assert "\x1b" not in result.stderr
    assert "\\n::error::forged\\x1b[31m" in result.stderr


@pytest.mark.parametrize(
    ("exchange", "says"),
    [
        ('{"tools": [{"name": "", "inputSchema": {}}]}', "tools/list returned a tool without a name"),
        (
            '{"tools": [{"name": "a", "annotations": {"readOnlyHint": "yes"}}]}',
            "annotation 'readOnlyHint' must be a boolean, found a string",
        ),
    ],
)
def test_import_refuses_at_the_log_line_and_writes_nothing(tmp_path: Path, exchange: str, says: str) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(
        '{"v": 1, "event": "start", "command": ["server"]}\n'
        f'{{"v": 1, "event": "tools/list", "request": {{}}, "response": {{"result": {exchange}}}}}\n'
    )
    out = tmp_path / "session.json"
    result = cli("import", "--from", "mcp", str(log), "-o", str(out))
    one_line_error(result)
    assert f"{log}:2: " in result.stderr
    assert says in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("execute", "says"),
    [
        ("raise SystemExit(3)", "tool disk_usage: execute() called exit(3) instead of returning a result"),
        ("return {'size': float('nan')}", "tool disk_usage: execute() returned a result that is not JSON"),
        ("return object()", "tool disk_usage: execute() returned a result that is not JSON"),
    ],
)
def test_run_names_the_tool_that_misbehaves(tmp_path: Path, execute: str, says: str) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(
        "TOOLS = [{'name': 'disk_usage', 'description': 'd', 'input_schema': {'type': 'object'},"
        " 'annotations': {'readOnlyHint': True}}]\n"
        f"def execute(name, args):\n    {execute}\n"
    )
    agent = tmp_path / "agent.py"
    agent.write_text(
        "class Agent:\n"
        "    def __init__(self, seed):\n        self.turns = 0\n"
        "    def respond(self, system, tools, messages):\n"
        "        self.turns += 1\n"
        "        if self.turns == 1:\n"
        "            return [{'type': 'tool_use', 'name': 'disk_usage', 'input': {'host': 'h'}}]\n"
        "        return [{'type': 'text', 'text': 'done'}]\n"
    )
    out = tmp_path / "session.json"
    result = cli("run", str(tools), "--agent", f"scripted:{agent}", "--task", "t", "-o", str(out))
    one_line_error(result)
    assert says in result.stderr
    assert not out.exists()


# ---------------------------------------------------------------- paths stay in the repository


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink", "glob through a symlinked directory"])
def test_a_config_cannot_reach_outside_the_repository(tmp_path: Path, repo: Path, how: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(SAMPLES / "scope.json", outside / "scope.json")
    shutil.copy(DIRTY, outside / "secret.jsonl")
    if how == "dotdot":
        line = "scope: ../../outside/scope.json"
    elif how == "absolute":
        line = f"scope: {outside / 'scope.json'}"
    elif how == "symlink":
        (repo / "samples" / "scope-link.json").symlink_to(outside / "scope.json")
        line = "scope: scope-link.json"
    else:
        (repo / "samples" / "linked").symlink_to(outside)
        line = "sessions: 'linked/*.jsonl'"
    config = repo / "samples" / "outside.yml"
    config.write_text(f"transcripts: session-dirty.jsonl\n{line}\n")
    refused = cli("check", "--config", "samples/outside.yml", cwd=repo)
    one_line_error(refused)
    assert "outside.yml:2: " in refused.stderr
    assert "leads outside the repository" in refused.stderr
    sarif = tmp_path / "out.sarif"
    allowed = cli("check", "--config", "samples/outside.yml", "--allow-outside-root", "--sarif", str(sarif), cwd=repo)
    assert allowed.code in (0, 1), allowed.stderr
    uris = [
        location["physicalLocation"]["artifactLocation"]["uri"]
        for run in json.loads(sarif.read_text())["runs"]
        for result in run["results"]
        for location in result["locations"] + result.get("relatedLocations", [])
    ]
    assert uris
    assert all(not uri.startswith(("/", "..")) for uri in uris)  # SARIF names nothing outside %SRCROOT%


def test_a_sealed_session_cut_short_is_a_broken_chain(tmp_path: Path) -> None:
    """Cutting links off the end keeps every remaining digest right; the missing final part still breaks it."""
    sealed = tmp_path / "s.sealed.jsonl"
    assert cli("seal", str(SESSION), "-o", str(sealed)).code == 0
    lines = sealed.read_text().splitlines(keepends=True)
    for keep in (len(lines) - 1, 3, 1):
        cut = tmp_path / f"cut-{keep}.jsonl"
        cut.write_text("".join(lines[:keep]))
        result = cli("verify", str(cut))
        assert result.code == 1
        assert result.stdout == (
            f"chain: broken\nfirst broken link: index {keep} (final_reply)\n"
            "expected: a 'final_reply' link\nfound: the end of the file\n"
        )
    assert cli("verify", str(sealed)).stdout == "chain: intact\n"


# ---------------------------------------------------------------- from an adversarial pass


def test_an_agent_raising_any_exception_ends_in_one_line(tmp_path: Path) -> None:
    agent = tmp_path / "base.py"
    agent.write_text(
        "class Stop(BaseException):\n    pass\n"
        "class Agent:\n"
        "    def __init__(self, seed):\n        pass\n"
        "    def respond(self, system, tools, messages):\n        raise Stop('out')\n"
    )
    result = cli("replay", str(SESSION), "--agent", f"scripted:{agent}", "--repeat", "2")
    one_line_error(result)
    assert "Stop: out" in result.stderr
    broken_start = tmp_path / "init.py"
    broken_start.write_text("class Agent:\n    def __init__(self, seed):\n        raise RecursionError('deep')\n")
    result = cli("replay", str(SESSION), "--agent", f"scripted:{broken_start}")
    one_line_error(result)
    assert "failed to start: RecursionError: deep" in result.stderr


def _send_all(pipe: IO[bytes], data: bytes) -> None:
    with contextlib.suppress(BrokenPipeError, ValueError):
        pipe.write(data)
        pipe.close()


def test_serve_ends_cleanly_when_the_client_hangs_up() -> None:
    requests = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"tools/list"}\n' % n for n in range(3000))
    serve = subprocess.Popen(
        [sys.executable, "-m", "toolreplay", "serve", str(SESSION)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert serve.stdout is not None
    assert serve.stdin is not None
    writer = threading.Thread(target=_send_all, args=(serve.stdin, requests), daemon=True)
    writer.start()
    serve.stdout.read(100)
    serve.stdout.close()  # the client goes away mid-session
    assert serve.wait(timeout=60) == 0
    assert serve.stderr is not None
    assert b"Traceback" not in serve.stderr.read()


def test_sarif_keeps_a_file_whose_name_has_a_colon(repo: Path, tmp_path: Path) -> None:
    shutil.copy(DIRTY, repo / "run-2026-01-01T10:30 #1.jsonl")
    (repo / "c.yml").write_text("transcripts: 'run-*.jsonl'\n")
    sarif = tmp_path / "out.sarif"
    assert cli("check", "--config", "c.yml", "--sarif", str(sarif), cwd=repo).code == 0  # warnings only
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in results for loc in r["locations"]}
    assert uris == {"run-2026-01-01T10%3A30%20%231.jsonl"}


def test_a_session_cannot_make_check_run_code_outside_the_repository(tmp_path: Path, repo: Path) -> None:
    evil = tmp_path / "evil.py"
    marker = tmp_path / "ran"
    evil.write_text(f"open({str(marker)!r}, 'w').close()\nclass Agent:\n    pass\n")
    session = json.loads(SESSION.read_text())
    session["model"] = f"scripted:{evil}"
    (repo / "s.json").write_text(json.dumps(session))
    (repo / "c.yml").write_text("sessions: s.json\nreplay:\n  repeat: 1\n")
    result = cli("check", "--config", "c.yml", cwd=repo)
    one_line_error(result)
    assert "lies outside the repository" in result.stderr
    assert not marker.exists()


def test_no_output_overwrites_the_agent_a_session_names(repo: Path) -> None:
    agent = repo / "samples" / "ops" / "agent.py"
    before = agent.read_bytes()
    result = cli("replay", "samples/ops/session.json", "--runs-out", str(agent), cwd=repo)
    one_line_error(result)
    (repo / "samples" / "c2.yml").write_text("sessions: ops/session.json\nreplay:\n  repeat: 2\n")
    result = cli("check", "--config", "samples/c2.yml", "--json", str(agent), cwd=repo)
    one_line_error(result)
    assert agent.read_bytes() == before


def test_a_yaml_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [{', '.join(['*' + previous] * 9)}]")
    config = tmp_path / "bomb.yml"
    config.write_text("\n".join(lines) + "\n")
    result = cli("check", "--config", str(config), cwd=tmp_path)
    one_line_error(result)
    assert "values once its aliases are expanded" in result.stderr


def test_a_full_log_never_breaks_the_client_and_stays_whole(tmp_path: Path) -> None:
    """record-mcp under a file-size limit: every answer still reaches the client; the log holds whole lines only."""
    server = tmp_path / "server.py"
    server.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    result = {'content': [{'type': 'text', 'text': 'x' * 2000}]}\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'result': result}), flush=True)\n"
    )
    requests = b"".join(
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t","arguments":{}}}\n' % n for n in range(20)
    )
    log = tmp_path / "log.jsonl"
    result = toolreplay(
        "record-mcp", "-o", str(log), "--", sys.executable, str(server), stdin=requests, limit_file_size=9000
    )
    assert result.code == 0
    assert [json.loads(line)["id"] for line in result.stdout.splitlines()] == list(range(20))
    assert result.stderr.count("cannot write the log") == 1
    assert "File too large" in result.stderr or "cut a line short" in result.stderr
    logged = log.read_bytes()
    assert logged.endswith(b"\n")
    events = [json.loads(line)["request"]["method"] for line in logged.splitlines() if b'"request"' in line]
    assert 0 < events.count("tools/call") < 20
    out = tmp_path / "s.json"
    imported = cli("import", "--from", "mcp", str(log), "-o", str(out))
    assert imported.code == 0, imported.stderr
    assert f"{events.count('tools/call')} tool calls" in imported.stdout


def test_import_reads_a_log_whose_last_line_was_cut_short(tmp_path: Path) -> None:
    exchange = (
        '{"v": 1, "event": "tools/call", "request": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
        '"params": {"name": "t", "arguments": {}}}, "response": {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}}'
    )
    log = tmp_path / "log.jsonl"
    log.write_text('{"v": 1, "event": "start", "command": ["s"]}\n' + exchange + "\n" + exchange[:40])
    out = tmp_path / "s.json"
    result = cli("import", "--from", "mcp", str(log), "-o", str(out))
    assert result.code == 0, result.stderr
    assert "1 tool call" in result.stdout
    assert "skipped line 3, cut short" in result.stdout
    log.write_text('{"v": 1, "event": "start", "command": ["s"]}\n' + exchange[:40] + "\n" + exchange + "\n")
    one_line_error(cli("import", "--from", "mcp", str(log), "-o", str(out)))  # a broken line inside is an error


def obeyed(text: str) -> list[str]:
    """Lines a GitHub runner would take for a workflow command: ``::`` after leading whitespace, ``##[`` anywhere."""
    return [line for line in text.split("\n") if line.lstrip().startswith("::") or "##[" in line]


HOSTILE_VALUE = "##[error]forged \x85 \u2028 ::warning::x"


def test_json_on_standard_output_is_the_same_json_and_forges_no_command(tmp_path: Path) -> None:
    """diff --json, seal and the like print JSON a runner reads: it stays valid, equal, and obeys nothing."""
    left, right = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    left.write_text(json.dumps({"index": 0, "tool": "t", "args": {"a": HOSTILE_VALUE}, "response": {}}) + "\n")
    right.write_text(json.dumps({"index": 0, "tool": "t", "args": {"a": "other"}, "response": {}}) + "\n")
    printed = toolreplay("diff", "--json", str(left), str(right))
    assert printed.code in (0, 1), printed.stderr
    assert not obeyed(printed.stdout)
    assert not any(0x7F <= ord(char) <= 0x9F or char in "\u2028\u2029" for char in printed.stdout)
    assert HOSTILE_VALUE in json.dumps(json.loads(printed.stdout), ensure_ascii=False)
    sealed = toolreplay("seal", str(left))
    assert sealed.code == 0, sealed.stderr
    assert not obeyed(sealed.stdout)
    kept = tmp_path / "sealed.jsonl"
    kept.write_text(sealed.stdout, encoding="utf-8")
    assert toolreplay("verify", str(kept)).stdout == "chain: intact\n"  # the printed links are the same links


def test_file_names_reach_no_runner_as_commands(tmp_path: Path) -> None:
    """A file name is text from the pull request, wherever a command prints it."""
    named = tmp_path / "x\n::error::forged##[error]y.jsonl"
    shutil.copy(SAMPLES / "session-dirty.jsonl", named)
    both = cli("audit", str(named), str(SAMPLES / "session-clean.jsonl"))
    assert both.code == 1
    assert not obeyed(both.stdout)
    assert both.stdout.count("\n== ") == 1  # each file's header stays one line
    log = tmp_path / "::error::log\n##[x].jsonl"
    log.write_text('{"command": ["s"], "event": "start", "v": 2}\n{"event": "req', encoding="utf-8")
    served = toolreplay("serve", str(log), stdin=b"")
    assert served.code == 0, served.stderr
    assert "stops short" in served.stderr
    assert not obeyed(served.stderr)


def _unreadable(tmp_path: Path) -> Path:
    """A file this process may not read: one without permissions, or, for root, a kernel file that refuses."""
    mine = tmp_path / "secret.jsonl"
    shutil.copy(SAMPLES / "session-clean.jsonl", mine)
    mine.chmod(0)
    for candidate in (mine, Path("/proc/1/environ")):
        try:
            candidate.read_bytes()
        except PermissionError:
            return candidate
        except OSError:
            continue
    pytest.skip("every file here is readable (running as root, with no kernel file that refuses)")


@pytest.mark.parametrize("command", ["audit", "verify", "show", "seal"])
def test_a_permission_refused_is_exit_2_with_one_line(tmp_path: Path, command: str) -> None:
    unreadable = _unreadable(tmp_path)
    result = cli(command, str(unreadable))
    assert result.code == 2
    assert result.stderr == f"toolreplay: error: {unreadable}: cannot read: Permission denied\n"


# --- names that lead anywhere: a pull request's file may be a link to a device, a stream without end, a depth -------


@pytest.mark.parametrize(
    "args",
    [
        ("verify", "{zero}"),
        ("audit", "{zero}"),
        ("show", "{zero}"),
        ("tools", "lint", "{zero}"),
        ("tools", "diff", "{zero}", "{zero}"),
        ("tools", "pin", "{zero}", "-o", "{out}"),
        ("replay", "{zero}"),
    ],
)
def test_a_link_to_a_device_is_never_read(tmp_path: Path, args: tuple[str, ...]) -> None:
    zero = tmp_path / "zero.lock"
    zero.symlink_to("/dev/zero")
    given = [arg.format(zero=zero, out=tmp_path / "out.lock") for arg in args]
    done = cli(*given)
    assert done.code == 2
    assert done.stderr == f"toolreplay: error: {zero}: is a device, not a file: it is never read\n"
    assert not [p for p in Path(os.environ.get("TMPDIR", "/tmp")).glob("toolreplay-*") if p.stat().st_size > 1 << 20]


def test_a_stream_is_read_to_its_bound_and_no_further(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolreplay.core import files  # noqa: PLC0415

    monkeypatch.setattr(files, "STREAM_LIMIT", 1 << 20)
    fifo = tmp_path / "endless"
    os.mkfifo(fifo)
    stop = threading.Event()

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), open(fifo, "wb") as handle:
            while not stop.is_set():
                handle.write(b" " * 65536)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    done = cli("verify", str(fifo))
    stop.set()
    assert done.code == 2
    assert done.stderr == f"toolreplay: error: {fifo}: a stream of more than 1 MiB: write it to a file first\n"
    spooled = files._SPOOLED.get(str(fifo))
    assert spooled is None or os.path.getsize(spooled) == 0  # nothing of it kept


def test_a_lock_nested_deeper_than_any_reader_goes_is_refused_in_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.lock"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for args in (("tools", "lint", str(deep)), ("tools", "diff", str(deep), str(deep))):
        done = cli(*args)
        assert done.code == 2
        assert done.stderr == f"toolreplay: error: {deep}:1: not a tools.lock: nested too deeply to read\n"


def test_a_cache_whose_shards_link_out_of_it_gets_nothing_written_there(tmp_path: Path) -> None:
    outside, cache = tmp_path / "outside", tmp_path / "cache"
    outside.mkdir()
    cache.mkdir()
    for number in range(256):
        (cache / f"{number:02x}").symlink_to(outside, target_is_directory=True)
    args = ["replay", str(SESSION), "--system", str(SAMPLES / "ops" / "prompt-v2.txt"), "--repeat", "2"]
    done = run_cli(
        *args, "--on-unrecorded", "stub", "--stubs", str(SAMPLES / "ops" / "stubs.json"), "--cache", str(cache)
    )
    assert done.code in (0, 1), done.stderr
    assert list(outside.iterdir()) == []
    assert "a link out of the cache, never written through" in done.stderr


def test_a_check_writes_all_its_reports_or_none(tmp_path: Path) -> None:
    """The markdown fits the file-size limit, the HTML page does not: no report is left new, not the markdown
    either (a half set of reports would let a later step sign a summary whose page was never written)."""
    markdown, page = tmp_path / "summary.md", tmp_path / "report.html"
    config = str(SAMPLES / ".toolreplay.yml")
    result = toolreplay("check", "--config", config, "--markdown", str(markdown), "--html", str(page),
                        limit_file_size=16 << 10)  # fmt: skip
    one_line_error(result)
    assert "File too large" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []
