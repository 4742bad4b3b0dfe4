"""No secret is written: every documented shape, through every recorder, plainly and JSON-escaped.

Each recorder gets each secret in the places it records (a task, tool
arguments, tool results), some of them spelled with JSON escapes (``\\u0061``,
``\\/``) that the raw text does not show; then every byte it wrote is searched
for every secret. The error line is held to the same promise.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, Completed, run_cli

# One example of every shape docs/formats.md lists, and the part of it that must not be written.
SHAPES: dict[str, tuple[str, str]] = {
    "private-key": (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA",
    ),
    "private-key (cut off)": (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA",
        "b3BlbnNzaC1rZXktdjEAAAAA",
    ),
    "pgp-private-key": (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBGXy\n-----END PGP PRIVATE KEY BLOCK-----",
        "lQOYBGXy",
    ),
    "anthropic-key": ("sk-ant-api03-" + "Qw3" * 10, "Qw3" * 10),
    "openai-key": ("sk-proj-" + "Ab9" * 10, "Ab9" * 10),
    "stripe-live-key": ("sk_live_" + "51Hx" * 6, "51Hx" * 6),
    "github-token": ("ghp_" + "k1" * 18, "k1" * 18),
    "github-fine-grained": ("github_pat_11ABCDEFG0" + "x" * 30, "x" * 30),
    "aws-access-key": ("AKIA" + "ABCDEFGH23456789", "ABCDEFGH23456789"),
    "aws-secret-key": ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG"),
    "google-api-key": ("AIzaSyD-" + "a1B2c3D4e5" * 3 + "xyz", "a1B2c3D4e5" * 3),
    "slack-token": ("xoxb-2048-1234567890-" + "s3cr3tS" * 3, "s3cr3tS" * 3),
    "jwt": ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.Xsig5ignatureZ9", "Xsig5ignatureZ9"),
    "bearer-token": ("authorization: BEARER tok3nValue99", "tok3nValue99"),
    "basic-auth": ("Authorization: Basic YWxpY2U6c2VjcmV0cGFzcw==", "YWxpY2U6c2VjcmV0cGFzcw"),
    "url-password": ("postgres://alice:p4ssw0rd-xyz@db.internal/app", "p4ssw0rd-xyz"),
}


def escaped(text: str) -> str:
    """``text`` as a JSON string literal with every letter a \\u escape and every slash \\/."""
    body = "".join(f"\\u{ord(char):04x}" if char.isalpha() else char for char in text)
    return '"' + json.dumps(body)[1:-1].replace("\\\\u", "\\u").replace("/", "\\/") + '"'


def assert_no_secret(written: bytes) -> None:
    text = written.decode("utf-8")
    for kind, (_, part) in SHAPES.items():
        assert part not in text, f"{kind} was written"
        assert part.replace("/", "\\/") not in text, f"{kind} was written with escaped slashes"


def test_escaped_spells_the_same_string() -> None:
    for secret, _ in SHAPES.values():
        assert json.loads(escaped(secret)) == secret


def cli(*args: str, cwd: Path) -> Completed:
    """The CLI in this process (tests/conftest.py), for what needs no standard input of its own."""
    return run_cli(*args, cwd=cwd)


def toolreplay(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """The CLI as a process, its standard input piped: what record-mcp and serve read their client from."""
    return subprocess.run(
        [sys.executable, "-m", "toolreplay", *args], input=stdin, capture_output=True, cwd=cwd, timeout=120, check=False
    )


def test_run_writes_no_secret(tmp_path: Path) -> None:
    secrets = {kind: secret for kind, (secret, _) in SHAPES.items()}
    (tmp_path / "tools.py").write_text(
        "import json\n"
        "TOOLS = [{'name': 'leak', 'description': 'd', 'input_schema': {'type': 'object'}}]\n"
        f"SECRETS = {secrets!r}\n"
        "def execute(name, args):\n    return SECRETS\n"
    )
    (tmp_path / "agent.py").write_text(
        "class Agent:\n"
        "    def __init__(self, seed):\n        pass\n"
        "    def respond(self, system, tools, messages):\n"
        "        if len(messages) == 1:\n"
        f"            return [{{'type': 'tool_use', 'name': 'leak', 'input': {secrets!r}}}]\n"
        "        return [{'type': 'text', 'text': str(messages[-1]['content'])}]\n"
    )
    task = tmp_path / "task.txt"
    task.write_text("Use " + " and ".join(secrets.values()))
    out = tmp_path / "session.json"
    result = cli(
        "run", "tools.py", "--agent", "scripted:agent.py", "--task-file", str(task), "-o", str(out), cwd=tmp_path
    )
    assert result.code == 0, result.stderr
    assert_no_secret(out.read_bytes())
    assert_no_secret((result.stdout + result.stderr).encode())


def test_import_writes_no_secret_even_when_the_log_escapes_it(tmp_path: Path) -> None:
    arguments = ", ".join(f'"{number}": {escaped(secret)}' for number, (secret, _) in enumerate(SHAPES.values()))
    results = ", ".join(json.dumps({"type": "text", "text": secret}) for secret, _ in SHAPES.values())
    log = tmp_path / "log.jsonl"
    log.write_text(
        '{"v": 1, "event": "start", "command": ["server"]}\n'
        '{"v": 1, "event": "tools/call", "request": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
        f'"params": {{"name": "leak", "arguments": {{{arguments}}}}}}}, '
        f'"response": {{"jsonrpc": "2.0", "id": 1, "result": {{"content": [{results}]}}}}}}\n'
    )
    out = tmp_path / "session.json"
    result = cli("import", "--from", "mcp", str(log), "-o", str(out), cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert_no_secret(out.read_bytes())


def test_record_mcp_logs_no_secret_even_when_the_traffic_escapes_it(tmp_path: Path) -> None:
    server = tmp_path / "echo_server.py"
    server.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    text = json.dumps(request.get('params', {}))\n"
        "    result = {'content': [{'type': 'text', 'text': text}]}\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'result': result}), flush=True)\n"
    )
    arguments = ", ".join(f'"{number}": {escaped(secret)}' for number, (secret, _) in enumerate(SHAPES.values()))
    params = f'{{"name": "leak", "arguments": {{{arguments}}}}}'
    request = f'{{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {params}}}\n'
    log = tmp_path / "log.jsonl"
    result = toolreplay(
        "record-mcp", "-o", str(log), "--", sys.executable, str(server), cwd=ROOT, stdin=request.encode()
    )
    assert result.returncode == 0, result.stderr
    response = json.loads(result.stdout)  # the client gets the server's answer untouched
    echoed = json.loads(response["result"]["content"][0]["text"])["arguments"]
    assert list(echoed.values()) == [secret for secret, _ in SHAPES.values()]
    assert b'"tools/call"' in log.read_bytes()
    assert_no_secret(log.read_bytes())


@pytest.mark.parametrize("kind", ["github-token", "aws-access-key", "bearer-token", "url-password"])
def test_an_error_line_quotes_no_secret(tmp_path: Path, kind: str) -> None:
    secret, _ = SHAPES[kind]
    (tmp_path / "agent.py").write_text(
        "class Agent:\n"
        "    def __init__(self, seed):\n        pass\n"
        "    def respond(self, system, tools, messages):\n"
        f"        return [{{'type': 'tool_use', 'input': {{'token': {secret!r}}}}}]\n"
    )
    (tmp_path / "tools.py").write_text(
        "TOOLS = []\ndef execute(name, args):\n    return ''\n",
    )
    result = cli("run", "tools.py", "--agent", "scripted:agent.py", "--task", "t", "-o", "s.json", cwd=tmp_path)
    assert result.code == 2
    assert "REDACTED" in result.stderr
    assert_no_secret(result.stderr.encode())


def test_recording_client_writes_no_secret(tmp_path: Path) -> None:
    """The SDK wrapper: secrets in the person's message, the model's tool call and the tool's result."""
    anthropic = pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    from tests.fakes.anthropic_server import message, serve  # noqa: PLC0415
    from toolreplay.record import RecordingClient  # noqa: PLC0415

    secrets = {str(number): secret for number, (secret, _) in enumerate(SHAPES.values())}
    tools = [{"name": "leak", "description": "d", "input_schema": {"type": "object"}}]
    path = tmp_path / "session.json"
    with serve() as api:
        api.queue(message([{"type": "tool_use", "id": "toolu_01", "name": "leak", "input": secrets}], "tool_use"))
        api.queue(message([{"type": "text", "text": " ".join(secrets.values())}]))
        client = RecordingClient(anthropic.Anthropic(base_url=api.url, api_key="k", max_retries=0), path)
        messages: list[dict[str, object]] = [{"role": "user", "content": "Use " + " ".join(secrets.values())}]
        first = client.messages.create(model="claude-test", max_tokens=64, tools=tools, messages=messages)
        messages.append({"role": "assistant", "content": first.content})
        result = {"type": "tool_result", "tool_use_id": "toolu_01", "content": json.dumps(secrets)}
        messages.append({"role": "user", "content": [result]})
        client.messages.create(model="claude-test", max_tokens=64, tools=tools, messages=messages)
    assert path.is_file()
    assert_no_secret(path.read_bytes())


def test_a_json_escape_between_marker_and_secret_hides_nothing(tmp_path: Path) -> None:
    """``Bearer\\t...`` in a result that is JSON text inside JSON: the escape is not a separator the raw text shows."""
    server = tmp_path / "server.py"
    texts = [
        "Authorization: Bearer\ttok3nValue99",
        'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    ]
    server.write_text(
        "import json, sys\n"
        f"TEXTS = {texts!r}\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    result = {'content': [{'type': 'text', 'text': json.dumps({'said': TEXTS})}]}\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'result': result}), flush=True)\n"
    )
    request = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}}\n'
    log = tmp_path / "log.jsonl"
    result = toolreplay("record-mcp", "-o", str(log), "--", sys.executable, str(server), cwd=ROOT, stdin=request)
    assert result.returncode == 0, result.stderr
    assert b"tok3nValue99" not in log.read_bytes()
    assert b"wJalrXUtnFEMI" not in log.read_bytes()


ECHO_SERVER = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    request = json.loads(line)\n"
    "    result = {'content': [{'type': 'text', 'text': json.dumps(request.get('params', {}))}]}\n"
    "    print(json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'result': result}), flush=True)\n"
)
BASIC, TOKEN = SHAPES["basic-auth"][0], SHAPES["github-token"][0]


def _call(arguments: dict[str, str]) -> bytes:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": arguments}}
    return json.dumps(message).encode() + b"\n"


@pytest.mark.parametrize(
    ("flags", "basic_kept", "token_kept"),
    [
        ((), False, False),
        (("--no-redact", "basic-auth"), True, False),
        (("--no-redact=basic-auth", "--no-redact", "github-token"), True, True),
        (("--no-redact",), True, True),  # alone: every shape, as before
    ],
)
def test_record_mcp_leaves_alone_the_shapes_named(
    tmp_path: Path, flags: tuple[str, ...], basic_kept: bool, token_kept: bool
) -> None:
    server = tmp_path / "echo_server.py"
    server.write_text(ECHO_SERVER)
    log = tmp_path / "log.jsonl"
    stdin = _call({"header": BASIC, "token": TOKEN})
    command = ("record-mcp", "-o", str(log), *flags, "--", sys.executable, str(server))
    result = toolreplay(*command, cwd=ROOT, stdin=stdin)
    assert result.returncode == 0, result.stderr
    written = log.read_text()
    assert (SHAPES["basic-auth"][1] in written) == basic_kept
    assert (SHAPES["github-token"][1] in written) == token_kept


@pytest.mark.parametrize("command", ["record-mcp", "run", "import", "serve"])
def test_an_unknown_shape_is_one_line_naming_every_shape(tmp_path: Path, command: str) -> None:
    args = {
        "record-mcp": ("record-mcp", "-o", str(tmp_path / "log.jsonl"), "--no-redact", "basic", "--", "true"),
        "run": ("run", "tools.py", "--agent", "scripted:a.py", "--task", "t", "-o", "s.json", "--no-redact", "basic"),
        "import": ("import", "--from", "mcp", "log.jsonl", "-o", "s.json", "--no-redact", "basic"),
        "serve": ("serve", "samples/ops/session.json", "--log", str(tmp_path / "l.jsonl"), "--no-redact", "basic"),
    }[command]
    result = cli(*args, cwd=ROOT)
    assert result.code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("toolreplay: error: --no-redact basic: no such secret shape; the shapes are ")
    for name in ("private-key", "basic-auth", "bearer-token", "url-password"):
        assert name in lines[0]
    assert not (tmp_path / "log.jsonl").exists()


def test_serve_logs_with_the_shapes_named_left_alone(tmp_path: Path) -> None:
    """serve --log, as a cmd: run's server: a call's Basic credentials stay when the recording kept them."""
    request = b'{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}\n'
    request += _call({"host": BASIC, "path": TOKEN}).replace(b'"name": "t"', b'"name": "disk_usage"')
    logs = {}
    for name, flags in (("default", ()), ("kept", ("--no-redact", "basic-auth"))):
        logs[name] = tmp_path / f"{name}.jsonl"
        served = toolreplay(
            "serve", "samples/ops/session.json", "--log", str(logs[name]), *flags, cwd=ROOT, stdin=request
        )
        assert served.returncode == 0, served.stderr
    assert SHAPES["basic-auth"][1] not in logs["default"].read_text()
    assert SHAPES["basic-auth"][1] in logs["kept"].read_text()
    assert SHAPES["github-token"][1] not in logs["kept"].read_text()


AGENT = """\
import json, subprocess, sys
sys.path.insert(0, {root!r})
from tests.fakes.mcp_raw import RawClient
with open(sys.argv[1], encoding="utf-8") as file:
    spec = next(iter(json.load(file)["mcpServers"].values()))
server = subprocess.Popen([spec["command"], *spec["args"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
client = RawClient(server)
client.initialize()
client.call(1, "fetch", {{"header": {header!r}}})
server.stdin.close()
server.wait()
print("done")
"""


@pytest.mark.parametrize("left_alone", [True, False], ids=["no-redact-in-config", "default"])
def test_check_logs_a_programs_calls_with_the_shapes_the_config_leaves_alone(tmp_path: Path, left_alone: bool) -> None:
    """A session recorded with --no-redact basic-auth holds a Basic header; a cmd: program sends it again. The
    config's ``no-redact`` has the run's log keep it too, so the call is the recorded one; without it the run's
    call is redacted and reads as changed."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "fetch", "arguments": {}}}
    request["params"]["arguments"] = {"header": BASIC}  # type: ignore[index]
    tools = {"tools": [{"name": "fetch", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}]}
    lines = [
        {"command": ["server"], "event": "start", "v": 2},
        {
            "event": "request",
            "request": {"id": 0, "method": "tools/list"},
            "response": {"id": 0, "result": tools},
            "v": 2,
        },
        {"event": "request", "request": request, "response": {"id": 1, "result": {"content": []}}, "v": 2},
    ]
    (tmp_path / ".git").mkdir()
    log = tmp_path / "mcp.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    imported = cli(
        "import", "--from", "mcp", str(log), "-o", "session.json", "--final-text", "done", "--no-redact", "basic-auth",
        cwd=tmp_path,
    )  # fmt: skip
    assert imported.code == 0, imported.stderr
    assert SHAPES["basic-auth"][1] in (tmp_path / "session.json").read_text()
    (tmp_path / "agent.py").write_text(AGENT.format(root=str(ROOT), header=BASIC))
    config = "sessions: session.json\nfail-on: changed\n"
    config += "no-redact: [basic-auth]\n" if left_alone else ""
    config += f"replay:\n  agent: 'cmd:{sys.executable} {{here}}/agent.py {{mcp_config}}'\n  repeat: 1\n"
    (tmp_path / ".toolreplay.yml").write_text(config)
    checked = cli("check", "--json", "report.json", cwd=tmp_path)
    report = json.loads((tmp_path / "report.json").read_text())
    (replay,) = [result for result in report["results"] if result["analysis"] == "replay"]
    assert {run["ending"] for run in replay["runs"]} == {"final reply"}
    if left_alone:
        assert checked.code == 0, checked.stdout + checked.stderr
        assert replay["findings"] == []
    else:
        assert checked.code == 1, checked.stdout + checked.stderr
        (finding,) = replay["findings"]
        assert finding["message"].startswith('changed call fetch(header="Authorization: Basic [REDACTED:basic-auth:')
