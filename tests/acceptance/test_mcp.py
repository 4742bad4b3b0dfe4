"""record-mcp between the real mcp SDK client and the real sample server, and import."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, SAMPLES, run_cli
from tests.fakes.mcp_raw import RawClient
from toolreplay.formats.session.stream import read_session

pytest.importorskip("mcp", reason="the mcp extra is not installed")

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

SERVER = [sys.executable, str(SAMPLES / "mcp" / "server.py")]
# A server that answers disk_usage from the recorded session: up in a quarter of a second, where the SDK's sample
# server takes two (its imports). For the tests about the proxy alone (what it logs before a kill, that it ends
# with its client), whose server only has to answer.
QUICK_SERVER = [sys.executable, "-m", "toolreplay", "serve", "samples/ops/session.json"]
TOKEN = "ghp_" + "Zy9" * 12


def proxied(log: Path, *extra: str, server: list[str] = SERVER) -> list[str]:
    return [sys.executable, "-m", "toolreplay", "record-mcp", "-o", str(log), *extra, "--", *server]


async def _session_script(command: list[str]) -> list[Any]:
    """What a client sees over one session: the tool list and each call's result, errors included."""
    seen: list[Any] = []
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        seen.append((await session.list_tools()).model_dump(mode="json"))
        for name, arguments in [
            ("disk_usage", {"host": "build-04"}),
            ("list_dir", {"host": "build-04", "path": "/var/log/ci"}),
            ("archive_path", {"host": "build-04", "path": "/var/log/ci/2026-07"}),
            ("list_dir", {"host": "build-04", "path": "/nope"}),
            ("list_dir", {"host": "build-04", "path": f"/home/{TOKEN}"}),
        ]:
            seen.append((await session.call_tool(name, arguments)).model_dump(mode="json"))
    return seen


def method_of(entry: dict[str, Any]) -> str | None:
    """The method a log line is about: its request's, or its notification's."""
    message = entry.get("request") or entry.get("message") or {}
    method: str | None = message.get("method")
    return method


def session_script(command: list[str]) -> list[Any]:
    return anyio.run(_session_script, command)


@pytest.fixture(scope="module")
def through_the_proxy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """The session script through record-mcp: its log, and what the client saw. Once per process, for the two
    tests below (each start of the SDK's server takes a second and more)."""
    log = tmp_path_factory.mktemp("proxied") / "mcp.jsonl"
    return log, session_script(proxied(log))


# The tests of through_the_proxy go to one worker, so that the session is recorded once.
THROUGH_THE_PROXY_GROUP = pytest.mark.xdist_group("through-the-proxy")


@THROUGH_THE_PROXY_GROUP
def test_the_client_sees_the_same_traffic_through_the_proxy(through_the_proxy: tuple[Path, list[Any]]) -> None:
    log, through = through_the_proxy
    direct = session_script(SERVER)
    assert through == direct
    assert direct[4]["is_error"] is True  # the server's error reached the client unchanged
    assert TOKEN in json.dumps(direct[5])  # the client sees the real bytes ...
    assert TOKEN not in log.read_text()  # ... the log never holds them

    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(e["event"], method_of(e)) for e in entries] == [
        ("start", None),
        ("request", "initialize"),
        ("notification", "notifications/initialized"),
        ("request", "tools/list"),
    ] + [("request", "tools/call")] * 5
    assert entries[7]["response"]["result"]["isError"] is True
    assert entries[2]["from"] == "client"


@THROUGH_THE_PROXY_GROUP
def test_the_log_imports_to_a_session_whose_calls_match(
    tmp_path: Path, through_the_proxy: tuple[Path, list[Any]]
) -> None:
    log, _ = through_the_proxy
    out = tmp_path / "session.json"
    result = run_cli(
        "import",
        str(log),
        "--from",
        "mcp",
        "-o",
        str(out),
        "--task",
        "Free space.",
        "--final-text",
        "Done.",
        "--model",
        "claude-code",
    )
    assert result.code == 0, result.stderr
    session = read_session(out)
    assert [(c.tool, c.args) for c in session.calls] == [
        ("disk_usage", {"host": "build-04"}),
        ("list_dir", {"host": "build-04", "path": "/var/log/ci"}),
        ("archive_path", {"host": "build-04", "path": "/var/log/ci/2026-07"}),
        ("list_dir", {"host": "build-04", "path": "/nope"}),
        ("list_dir", {"host": "build-04", "path": session.calls[4].args["path"]}),
    ]
    assert [c.is_error for c in session.calls] == [False, False, False, True, True]
    assert session.context is not None
    assert {t.name: t.annotations for t in session.context.tools}["delete_path"] == {
        "destructiveHint": True,
        "openWorldHint": False,
        "readOnlyHint": False,
    }
    shown = run_cli("show", str(out)).stdout
    assert re.search(r"archive_path\(host=\"build-04\", path=\"/var/log/ci/2026-07\"\) +write", shown)
    same = run_cli(
        "import-mcp",
        str(log),
        "-o",
        str(tmp_path / "again.json"),
        "--task",
        "Free space.",
        "--final-text",
        "Done.",
        "--model",
        "claude-code",
    )
    assert same.code == 0
    assert (tmp_path / "again.json").read_bytes() == out.read_bytes()


def test_bytes_pass_through_unchanged_and_the_exit_code_is_the_servers(tmp_path: Path) -> None:
    echo = tmp_path / "echo.py"
    echo.write_text("import sys\ndata = sys.stdin.buffer.read()\nsys.stdout.buffer.write(data[::-1])\nsys.exit(3)\n")
    payload = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n\xff\xfe not json\n{"partial": ' * 50
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolreplay",
            "record-mcp",
            "-o",
            str(tmp_path / "log.jsonl"),
            "--",
            sys.executable,
            str(echo),
        ],
        input=payload,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.stdout == payload[::-1]
    assert proc.returncode == 3


def _killed_proxy_has_logged_every_answered_call(tmp_path: Path, load: contextlib.AbstractContextManager[None]) -> None:
    """Twelve calls answered through the proxy, ``load`` around them and the kill, then SIGKILL."""
    log = tmp_path / "mcp.jsonl"
    proxy = subprocess.Popen(proxied(log, server=QUICK_SERVER), stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    client = RawClient(proxy)
    try:
        client.initialize()
        with load:
            answered = [client.call(i, "disk_usage", {"host": "build-04"})["id"] for i in range(1, 13)]
            os.kill(proxy.pid, signal.SIGKILL)
            proxy.wait(timeout=30)
    finally:
        if proxy.poll() is None:
            proxy.kill()
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["request"]["id"] for e in logged if method_of(e) == "tools/call"] == answered


def test_a_killed_proxy_has_logged_every_answered_call(tmp_path: Path) -> None:
    _killed_proxy_has_logged_every_answered_call(tmp_path, contextlib.nullcontext())


def test_the_proxy_ends_when_the_client_closes(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    proxy = subprocess.Popen(proxied(log, server=QUICK_SERVER), stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    client = RawClient(proxy)
    client.initialize()
    assert client.call(1, "disk_usage", {"host": "build-04"})["result"]["isError"] is False
    assert proxy.stdin is not None
    proxy.stdin.close()
    assert proxy.wait(timeout=30) == 0


def test_a_server_that_cannot_start_is_one_line(tmp_path: Path) -> None:
    result = run_cli("record-mcp", "-o", str(tmp_path / "log.jsonl"), "--", "/nonexistent/server")
    assert result.code == 2
    assert result.stderr.startswith("toolreplay: error: cannot start the server")


def test_the_log_never_lands_in_the_server_script(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    server.write_text("print('hello')\n")
    result = run_cli("record-mcp", "-o", str(server), "--", sys.executable, str(server))
    assert result.code == 2
    assert "refusing to append the log" in result.stderr
    assert server.read_text() == "print('hello')\n"


@contextlib.contextmanager
def busy_cores() -> Iterator[None]:
    """Both cores kept busy by other processes while it lasts: races show up only under load."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


@pytest.fixture(name="busy_cores")
def _busy_cores() -> Iterator[None]:
    with busy_cores():
        yield


@pytest.mark.usefixtures("busy_cores")
def test_under_load_no_answered_call_goes_unlogged(tmp_path: Path) -> None:
    """2,500 calls, sent without waiting, to a server that answers at once (serve), with every core busy."""
    log = tmp_path / "mcp.jsonl"
    command = [sys.executable, "-m", "toolreplay", "record-mcp", "-o", str(log), "--"]
    command += [sys.executable, "-m", "toolreplay", "serve", "samples/ops/session.json"]
    proxy = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT
    )
    client = RawClient(proxy)
    client.initialize()
    calls = 2_500

    def send_all() -> None:
        for number in range(1, calls + 1):
            client.send(
                {
                    "jsonrpc": "2.0",
                    "id": number,
                    "method": "tools/call",
                    "params": {"name": "disk_usage", "arguments": {"host": "build-04"}},
                }
            )

    sender = threading.Thread(target=send_all)
    sender.start()
    answered = [client.receive()["id"] for _ in range(calls)]
    sender.join()
    assert proxy.stdin is not None
    proxy.stdin.close()
    assert proxy.wait(timeout=120) == 0
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert sorted(answered) == list(range(1, calls + 1))
    assert [e["request"]["id"] for e in logged if method_of(e) == "tools/call"] == answered


def test_a_killed_proxy_under_load_has_logged_every_answered_call(tmp_path: Path) -> None:
    """The load comes once the server is up: the race is between answering, logging and the kill, not in the
    server's start (with every core kept busy the whole time)."""
    _killed_proxy_has_logged_every_answered_call(tmp_path, busy_cores())
