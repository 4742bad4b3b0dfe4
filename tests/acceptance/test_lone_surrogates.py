"""A lone surrogate escape on the wire, and a server command that is not UTF-8: the traffic passes untouched.

``"\\ud800"`` is valid JSON that no UTF-8 can carry as a character (a JavaScript
client sends one for an emoji cut in half). A raw client sends it through
``record-mcp`` to a real stdio server that echoes it, with and without a secret
beside it: the client must get the server's exact bytes, the proxy must exit 0,
and the log must be UTF-8 JSON that keeps the escape, hides the secret, and
reads back through ``import`` and ``serve``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, run_cli

TOOLREPLAY = [sys.executable, "-m", "toolreplay"]
SECRET = "ghp_" + "k1" * 18
EVERYTHING = ROOT / "tests" / "servers" / "node_modules" / ".bin" / "mcp-server-everything"

# A stdio MCP server in the standard library's JSON: it escapes what it cannot write as UTF-8, as JSON.stringify
# does; its one tool echoes its message, and says which bytes its command's arguments were.
ECHO_SERVER = """\
import json, os, sys
TOOL = {"name": "echo", "description": "Echo a message.", "inputSchema": {"type": "object"}}
for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    method, params = request["method"], request.get("params", {})
    if method == "initialize":
        result = {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "echo", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    else:
        argv = [os.fsencode(word).hex() for word in sys.argv[1:]]
        text = "Echo: " + params["arguments"]["message"]
        result = {"content": [{"type": "text", "text": text}], "structuredContent": {"argv": argv}}
    print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}), flush=True)
"""


def _requests(message_json: str) -> bytes:
    """The client's side, as raw lines: the handshake, the tools, and one call whose message is JSON text as sent."""
    lines = [
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        '"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}',
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":'
        + message_json
        + "}}}",
    ]
    return "".join(line + "\n" for line in lines).encode("ascii")


def _talk(command: list[str | bytes], requests: bytes, answers: int) -> tuple[list[bytes], int, bytes]:
    """Send ``requests`` to ``command`` and read ``answers`` response lines before closing its input (a server may
    stop at the end of its input before it answers); the lines with an id, its exit code and its stderr."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(requests)
    process.stdin.flush()
    answered: list[bytes] = []
    while len(answered) < answers:
        line = process.stdout.readline()
        if not line:
            break
        if b'"id"' in line:
            answered.append(line)
    process.stdin.close()
    process.stdout.read()
    assert process.stderr is not None
    stderr = process.stderr.read()
    return answered, process.wait(timeout=60), stderr


def _log_lines(log: Path) -> list[dict[str, Any]]:
    data = log.read_bytes()
    data.decode("utf-8")  # UTF-8 throughout, strictly
    return [json.loads(line) for line in data.splitlines()]


def _servers(tmp_path: Path) -> dict[str, list[str]]:
    script = tmp_path / "echo_server.py"
    script.write_text(ECHO_SERVER)
    servers = {"python": [sys.executable, str(script)]}
    if EVERYTHING.exists() and shutil.which("node") is not None:
        servers["everything"] = [str(EVERYTHING), "stdio"]
    return servers


@pytest.mark.parametrize("server_name", ["python", "everything"])
@pytest.mark.parametrize("beside", ["", " " + SECRET], ids=["alone", "beside-a-secret"])
def test_a_lone_surrogate_passes_through_and_is_logged_as_its_escape(
    tmp_path: Path, server_name: str, beside: str
) -> None:
    servers = _servers(tmp_path)
    if server_name not in servers:
        pytest.skip("server-everything is not installed: npm install --prefix tests/servers (as .ci/run does)")
    server = servers[server_name]
    message = "cut \ud800 here" + beside
    requests = _requests('"cut \\ud800 here' + beside + '"')
    direct, _, _ = _talk(list(server), requests, 3)
    log = tmp_path / "mcp.jsonl"
    proxied, code, stderr = _talk([*TOOLREPLAY, "record-mcp", "-o", str(log), "--", *server], requests, 3)
    assert code == 0, stderr
    assert b"internal error" not in stderr
    assert proxied == direct  # the server's exact bytes, the escape as the server wrote it
    echoed = json.loads(proxied[-1])["result"]["content"][0]["text"]
    assert echoed == "Echo: " + message

    entries = _log_lines(log)
    text = log.read_text(encoding="utf-8")
    assert "\\ud800" in text
    assert SECRET not in text
    call = next(e for e in entries if e.get("request", {}).get("method") == "tools/call")
    logged = call["request"]["params"]["arguments"]["message"]
    assert logged.startswith("cut \ud800 here")
    assert ("[REDACTED:github-token:" in logged) == bool(beside)

    session = tmp_path / "session.json"
    imported = run_cli("import", "--from", "mcp", str(log), "-o", str(session), cwd=ROOT)
    assert imported.code == 0, imported.stderr
    assert "1 tool call from" in imported.stdout
    written = session.read_bytes()
    written.decode("utf-8")
    assert b"\\ud800" in written
    assert SECRET.encode() not in written

    # serve answers the call again from the log, the surrogate and all; the agent sends what it was given
    replayed = _requests(json.dumps(logged))
    served, code, stderr = _talk([*TOOLREPLAY, "serve", str(log)], replayed, 3)
    assert code == 0, stderr
    assert json.loads(served[-1])["result"] == call["response"]["result"]
    assert "\\ud800" in served[-1].decode("utf-8")
    assert b"0 never recorded" in stderr


def test_a_server_command_that_is_not_utf8_runs_with_its_bytes(tmp_path: Path) -> None:
    """``record-mcp -o LOG -- python server.py $'\\xff'``: the child gets the byte; the log keeps it as an escape."""
    server = _servers(tmp_path)["python"]
    log = tmp_path / "mcp.jsonl"
    command: list[str | bytes] = [*TOOLREPLAY, "record-mcp", "-o", str(log), "--", *server, b"caf\xe9\xff"]
    answered, code, stderr = _talk(command, _requests('"hi"'), 3)
    assert code == 0, stderr
    assert json.loads(answered[-1])["result"]["structuredContent"] == {"argv": ["636166e9ff"]}
    start = _log_lines(log)[0]
    assert start["event"] == "start"
    assert start["command"][-1] == os.fsdecode(b"caf\xe9\xff")  # the bytes as lone surrogates, escaped in the log
    assert "\\udce9\\udcff" in log.read_text(encoding="utf-8")
    imported = run_cli("import", "--from", "mcp", str(log), "-o", str(tmp_path / "s.json"), cwd=ROOT)
    assert imported.code == 0, imported.stderr


def test_the_sdk_recorder_keeps_a_lone_surrogate_from_the_model(tmp_path: Path) -> None:
    """A model's reply that holds ``\\ud800`` (the API's JSON escapes it): the session is written, and loads."""
    anthropic = pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    from tests.fakes.anthropic_server import message, serve  # noqa: PLC0415
    from toolreplay.formats.session.stream import read_session  # noqa: PLC0415
    from toolreplay.record import RecordingClient  # noqa: PLC0415

    path = tmp_path / "session.json"
    said = "cut \ud800 here " + SECRET
    with serve() as api:
        api.queue(message([{"type": "text", "text": said}]))
        client = RecordingClient(anthropic.Anthropic(base_url=api.url, api_key="k", max_retries=0), path)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the recorder warns when it cannot record
            reply = client.messages.create(
                model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
            )
    assert reply.content[0].text == said  # the caller's answer is untouched
    written = path.read_bytes()
    written.decode("utf-8")
    assert b"\\ud800" in written
    assert SECRET.encode() not in written
    session = read_session(path)
    assert session.context is not None
    assert session.context.final_reply is not None
    assert session.context.final_reply.startswith("cut \ud800 here [REDACTED:github-token:")
