"""``record-mcp --upstream URL``: the real `mcp` SDK client through the proxy, in front of the SDK's own
Streamable HTTP server, sees what it sees directly, and the log is the one format: imported and served over
stdio, or served over HTTP (``serve --http``, the log or its session), it gives the client the same again.

Each run gets a fresh server (the sample host's state changes as the workload archives a directory), for both
protocol eras and for answers as event streams and as JSON.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections import Counter
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, run_cli
from tests.fakes.mcp_raw import RawClient
from tests.fixtures.features_http import asgi_on_loopback, features_over_http
from tests.fixtures.listening import free_port, saying_url, wait_for

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from tests.acceptance.test_serve_fidelity import TOOLREPLAY, workload
from toolreplay.formats.mcp_log.log import read_log

pytestmark = [
    pytest.mark.xdist_group("http-proxy"),
    # the sample server, here in the test's process, logs to its client as the workload asks, which the SDK
    # calls deprecated in the newest era (its own process is started with warnings off)
    pytest.mark.filterwarnings("ignore:The logging capability is deprecated"),
]


def _server(options: list[str], asked: list[dict[str, str]] | None = None) -> AbstractContextManager[str]:
    """A fresh sample server over Streamable HTTP (``json``: answers as JSON, ``stateless``: no sessions); each
    request's headers appended to ``asked``."""
    return features_over_http(json_response="json" in options, stateless="stateless" in options, headers=asked)


def _proxy(upstream: str, log: Path, *more: str) -> AbstractContextManager[str]:
    """record-mcp in front of ``upstream``; the URL it says to use."""
    command = [*TOOLREPLAY, "record-mcp", "-o", str(log), "--upstream", upstream, *more]
    return saying_url(command, "toolreplay record-mcp:")


def _served(*args: str) -> AbstractContextManager[str]:
    """``toolreplay serve ARGS --http``; the URL it says to use."""
    return saying_url([*TOOLREPLAY, "serve", *args, "--http"], "toolreplay serve:")


# sessions and event streams; the modern era; JSON answers without sessions
CASES = [("legacy", []), ("2026-07-28", []), ("auto", ["json", "stateless"])]


@pytest.mark.parametrize(("mode", "options"), CASES, ids=["-".join([m, *o]) for m, o in CASES])
def test_the_client_sees_the_same_through_the_proxy_and_from_its_log(
    mode: str, options: list[str], tmp_path: Path
) -> None:
    asked: tuple[list[dict[str, str]], list[dict[str, str]]] = ([], [])
    with _server(options, asked[0]) as upstream:
        direct = workload(mode, upstream)
    log = tmp_path / "mcp.jsonl"
    with _server(options, asked[1]) as upstream, _proxy(upstream, log, "--name", "ops") as url:
        proxied = workload(mode, url)
    assert proxied == direct
    # every request forwarded once: the server is POSTed to (and sent DELETE) through the proxy as often as
    # directly (the client's standalone GET stream opens beside its POSTs, when its timing lets it: not counted)
    sent = [Counter(said[":method"] for said in side if said[":method"] != "GET") for side in asked]
    assert sent[1] == sent[0]
    assert sent[0]["POST"] >= 13  # the handshake, the listings, the reads and every call
    runs = read_log(log)
    assert [run.name for run in runs] == ["ops"]
    methods = [exchange.event for exchange in runs[0].exchanges]
    assert methods.count("tools/call") == 5  # every call of the workload, each with its answer
    if mode == "legacy":  # a session opened with its handshake (the modern era needs none)
        assert methods[0] == "initialize"
    # one log, whatever the transport: its import served over stdio gives the client the same again
    session = tmp_path / "session.json"
    assert run_cli("import", "--from", "mcp", str(log), "-o", str(session), "--task", "Look.").code == 0
    assert workload(mode, [*TOOLREPLAY, "serve", str(session), "--server", "ops"]) == direct
    # and served over HTTP, the log and the session alike
    with _served(str(log)) as url:
        assert workload(mode, url) == direct
    with _served(str(session), "--server", "ops") as url:
        assert workload(mode, url) == direct


def test_the_legacy_sse_transport_is_recorded_as_the_same_log(tmp_path: Path) -> None:
    """The old two-endpoint transport (a GET event stream that announces where to POST, each answer on the stream):
    through the proxy the client sees what it sees directly, the log holds every request with its answer, and
    served back (over stdio, or over the same transport) it gives the client the same again."""
    with features_over_http(sse=True) as upstream:
        direct = workload("legacy", upstream, sse=True)
    log = tmp_path / "mcp.jsonl"
    with features_over_http(sse=True) as upstream, _proxy(upstream, log) as url:
        proxied = workload("legacy", url, sse=True)
    assert proxied == direct
    methods = [exchange.event for exchange in read_log(log)[0].exchanges]
    assert methods[0] == "initialize"
    assert methods.count("tools/call") == 5
    assert workload("legacy", [*TOOLREPLAY, "serve", str(log)]) == direct  # the one format: served over stdio
    with _served(str(log)) as url:  # and over HTTP, on the legacy transport's stream beside /mcp
        assert workload("legacy", url.replace("/mcp", "/sse"), sse=True) == direct


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_a_servers_request_to_the_client_is_logged_with_the_clients_answer(tmp_path: Path, transport: str) -> None:
    """A tool of the SDK's server that asks the client to confirm (elicitation, a request of the server's: over
    HTTP sent on the stream of the call's POST and answered by the client in a later POST of the session): through
    either proxy the client answers as it would directly, and the log pairs the server's request with the client's
    answer, then the call with its result."""
    import anyio  # noqa: PLC0415
    from mcp.client.client import Client  # noqa: PLC0415
    from mcp_types import ElicitResult  # noqa: PLC0415

    from tests.fixtures.asking_server import asking  # noqa: PLC0415
    from tests.fixtures.mcp_clients import client_params  # noqa: PLC0415

    async def confirming(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"sure": True})

    async def run(server: str | list[str]) -> Any:
        async with Client(client_params(server), mode="legacy", elicitation_callback=confirming) as client:
            return (await client.call_tool("remove", {"path": "/var/tmp/x"})).model_dump(mode="json")

    log = tmp_path / "mcp.jsonl"
    if transport == "http":
        with asgi_on_loopback(asking.streamable_http_app()) as base, _proxy(f"{base}/mcp", log) as url:
            direct = anyio.run(run, f"{base}/mcp")
            proxied = anyio.run(run, url)
    else:
        command = [sys.executable, "-W", "ignore", str(ROOT / "tests" / "fixtures" / "asking_server.py")]
        direct = anyio.run(run, command)
        proxied = anyio.run(run, [*TOOLREPLAY, "record-mcp", "-o", str(log), "--", *command])
    assert proxied == direct
    assert "accept" in json.dumps(proxied)
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    asked = [line for line in lines if line["event"] == "server-request"]
    assert [line["request"]["method"] for line in asked] == ["elicitation/create"]
    assert asked[0]["response"]["result"] == {"action": "accept", "content": {"sure": True}}
    calls = [line for line in lines if line["event"] == "request" and line["request"]["method"] == "tools/call"]
    assert [call["response"]["result"]["isError"] for call in calls] == [False]
    assert lines.index(asked[0]) < lines.index(calls[0])  # asked and answered before the call's result came


def test_credentials_pass_through_and_never_reach_the_log(tmp_path: Path) -> None:
    """A bearer token and a key in the URL's query reach the server (which ignores them) and never the log."""
    log = tmp_path / "mcp.jsonl"
    secret = "sk-ant-api03-" + "Q" * 40
    with _server(["json"]) as upstream, _proxy(upstream + "?key=" + secret, log) as url:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _hello()}).encode()
        request = urllib.request.Request(
            url + "?key=" + secret,
            body,
            {
                "Authorization": f"Bearer {secret}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            said = json.loads(answer.read())
    assert said["result"]["serverInfo"]["name"] == "build-host-features"
    text = log.read_text(encoding="utf-8")
    assert secret not in text
    assert "Authorization" not in text
    assert "Bearer" not in text
    assert json.loads(text.splitlines()[0])["command"] == [upstream]  # the URL without its query


def _hello() -> dict[str, Any]:
    return {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


def test_hostile_requests_get_an_http_error_and_the_proxy_stays_up(tmp_path: Path) -> None:
    log = tmp_path / "mcp.jsonl"
    hostile = [
        ({"Origin": "https://evil.example"}, b"{}", 403),  # a page elsewhere reaching a local server
        ({"Content-Type": "application/json"}, b"not json", 400),  # the server's own refusal, passed on
        ({"Content-Type": "application/json"}, b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', 400),  # a batch
    ]
    with _server(["json"]) as upstream, _proxy(upstream, log) as url:
        for headers, body, status in hostile:
            request = urllib.request.Request(url, body, {"Accept": "application/json, text/event-stream", **headers})
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=30)
            assert refused.value.code == status
            assert "error" in json.loads(refused.value.read())
        huge = urllib.request.Request(url, b"{}", {"X-Padding": "x" * 70_000})  # past a header line's limit
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(huge, timeout=30)
        assert refused.value.code == 431
        hello = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _hello()}).encode()
        again = urllib.request.Request(
            url, hello, {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        )
        with urllib.request.urlopen(again, timeout=30) as answer:  # still up, still forwarding
            assert answer.status == 200
    assert [json.loads(line)["event"] for line in log.read_text(encoding="utf-8").splitlines()] == [
        "start",
        "request",
    ]


def test_the_proxy_refuses_what_it_cannot_use_in_one_line(tmp_path: Path) -> None:
    log = str(tmp_path / "mcp.jsonl")
    for args, says in [
        (["--upstream", "ftp://host/mcp"], "give an http:// or https:// URL with a host"),
        (["--upstream", "http://127.0.0.1:1/mcp", "--listen", "nowhere"], "give HOST:PORT"),
        (["--upstream", "http://127.0.0.1:1/mcp", "--", sys.executable], "not both"),
        (["--listen", "127.0.0.1:0", "--", sys.executable], "--listen is for --upstream"),
        ([], "give the server command after --, or --upstream URL"),
    ]:
        result = run_cli("record-mcp", "-o", log, *args)
        assert result.code == 2, (args, result.stderr)
        assert result.stderr.count("\n") == 1 or "Usage" in result.stderr, result.stderr
        assert says in result.stderr, (args, result.stderr)


def _post(url: str, message: dict[str, Any], **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(
        url,
        json.dumps(message).encode(),
        {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read()


def test_a_proxy_killed_mid_run_keeps_every_call_it_answered(tmp_path: Path) -> None:
    """kill -9 between two calls of a run: every call whose answer reached the client is in the log, whole."""
    log = tmp_path / "mcp.jsonl"
    with _server(["json", "stateless"]) as upstream:
        proxy = subprocess.Popen(
            [*TOOLREPLAY, "record-mcp", "-o", str(log), "--upstream", upstream], stderr=subprocess.PIPE, text=True
        )
        assert proxy.stderr is not None
        url = proxy.stderr.readline().split()[2]
        answered = 0
        try:
            for number in range(1, 10_000):
                call = {"name": "disk_report", "arguments": {"host": "build-04"}}
                status, _, _ = _post(url, {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": call})
                assert status == 200
                answered += 1
                if answered == 60:
                    proxy.kill()
        except (urllib.error.URLError, ConnectionError):
            pass
        finally:
            proxy.kill()
            proxy.wait(timeout=30)
    assert answered == 60  # no answer came from a killed proxy
    runs = read_log(log)  # whole lines only: a strict read
    assert [exchange.event for exchange in runs[0].exchanges] == ["tools/call"] * 60


@pytest.mark.parametrize("json_response", [True, False], ids=["json", "event-stream"])
def test_live_over_http_answers_what_the_log_lacks_and_keeps_the_token_out_of_it(
    tmp_path: Path, json_response: bool
) -> None:
    """``serve LOG --on-unrecorded live --upstream URL``: a call the log lacks goes to the real server over
    Streamable HTTP (answering as JSON, or as an event stream), with the header the command named (its token read
    from the environment), and is appended to the log, where the next replay finds it; the token never reaches the
    log."""
    log = tmp_path / "mcp.jsonl"
    seen: list[dict[str, str]] = []
    token = "sk-ant-api03-" + "T" * 40
    show = {"host": "build-04", "path": "/var/log"}
    with _server(["json"]) as upstream, _proxy(upstream, log) as url:
        assert _post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _hello()})[0] == 200
    with features_over_http(json_response=json_response, headers=seen) as upstream:
        header = "Authorization: Bearer ${TOKEN}"
        live = ["--on-unrecorded", "live", "--upstream", upstream, "--upstream-header", header]
        serve = subprocess.Popen(
            [*TOOLREPLAY, "serve", str(log), *live],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "TOKEN": token},
        )
        client = RawClient(serve)
        client.initialize()
        answered = client.call(2, "show_dir", show)
        assert serve.stdin is not None
        serve.stdin.close()
        assert serve.wait(timeout=30) == 0
    assert "/var/log" in json.dumps(answered["result"])
    assert serve.stderr is not None
    assert "1 call, 0 never recorded, 1 answered live" in serve.stderr.read().decode()
    assert {said.get("authorization") for said in seen} == {f"Bearer {token}"}  # every request, the handshake too
    assert token not in log.read_text(encoding="utf-8")
    assert [exchange.event for exchange in read_log(log)[-1].exchanges][-1] == "tools/call"
    again = subprocess.Popen([*TOOLREPLAY, "serve", str(log)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    client = RawClient(again)
    client.initialize()
    assert client.call(2, "show_dir", show)["result"] == answered["result"]  # from the log now, no server up
    assert again.stdin is not None
    again.stdin.close()
    assert again.wait(timeout=30) == 0


def test_live_over_http_refuses_what_it_cannot_use_in_one_line(tmp_path: Path) -> None:
    log = tmp_path / "mcp.jsonl"
    log.write_text('{"command": ["s"], "event": "start", "v": 2}\n', encoding="utf-8")
    secret = "Bearer sk-ant-api03-" + "U" * 40
    for args, says in [
        (["--upstream", "http://127.0.0.1:1/mcp"], "--upstream is for --on-unrecorded live"),
        (["--on-unrecorded", "live", "--upstream", "u", "--", "x"], "not both"),
        (["--upstream-header", "A: b"], "--upstream-header is for --upstream"),
        (["--on-unrecorded", "live", "--upstream", "file:///x"], "give an http:// or https:// URL"),
        (["--on-unrecorded", "live", "--upstream", "http://h/", "--upstream-header", secret], "give 'NAME: VALUE'"),
        (["--on-unrecorded", "live", "--upstream", "http://h/", "--upstream-header", "A: ${NO_SUCH_VAR}"], "not set"),
    ]:
        result = run_cli("serve", str(log), *args)
        assert result.code == 2, (args, result.stderr)
        assert result.stderr.count("\n") == 1, result.stderr
        assert says in result.stderr, (args, result.stderr)
        assert "sk-ant" not in result.stderr


def test_serve_over_http_answers_hostile_requests_with_http_errors(tmp_path: Path) -> None:
    log = tmp_path / "mcp.jsonl"
    with _server(["json"]) as upstream, _proxy(upstream, log) as url:
        workload("legacy", url)
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _hello()}
    with _served(str(log)) as url:
        status, headers, body = _post(url, hello)
        assert status == 200
        session = headers["Mcp-Session-Id"]
        assert json.loads(body)["result"]["serverInfo"]["name"] == "build-host-features"
        assert _post(url, hello, Origin="https://evil.example")[0] == 403
        assert _post(url, {"jsonrpc": "2.0", "id": 2, "method": "ping"}, **{"Mcp-Session-Id": "forged"})[0] == 404
        listed = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
        status, _, body = _post(url, listed, **{"Mcp-Session-Id": session})
        assert status == 200
        assert "disk_report" in [tool["name"] for tool in json.loads(body)["result"]["tools"]]
        assert _post(url.replace("/mcp", "/other"), listed)[0] == 404
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url, timeout=30)  # a GET: this server never sends on its own
        assert refused.value.code == 405
        status, _, body = _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert (status, body) == (202, b"")


def test_serve_over_http_injects_an_error_status_and_a_stream_cut_mid_answer(tmp_path: Path) -> None:
    """Faults of HTTP's own: a 429 with its Retry-After and a JSON-RPC error as the body; an answer's progress
    sent as an event stream that is then cut before the response (never ended as if whole); a dropped connection.
    Each costs its request only: the server answers the next one."""
    import http.client  # noqa: PLC0415

    log = tmp_path / "mcp.jsonl"
    with _server([]) as upstream, _proxy(upstream, log) as url:
        workload("legacy", url)
    faults = tmp_path / "faults.json"
    faults.write_text(
        json.dumps(
            {
                "faults": [
                    {"tool": "disk_report", "fault": "http", "status": 429, "headers": {"Retry-After": "2"}},
                    {"tool": "archive_path", "fault": "cut"},
                    {"tool": "show_dir", "fault": "drop"},
                ]
            }
        ),
        encoding="utf-8",
    )
    with _served(str(log), "--faults", str(faults)) as url:
        status, headers, body = _post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _hello()})
        session = {"Mcp-Session-Id": headers["Mcp-Session-Id"]}
        call = {"name": "disk_report", "arguments": {"host": "build-04"}}
        message = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}
        status, headers, body = _post(url, message, **session)
        assert status == 429
        assert headers["Retry-After"] == "2"
        refused = {"code": -32603, "message": "Too Many Requests"}
        assert json.loads(body) == {"jsonrpc": "2.0", "id": 2, "error": refused}
        port = int(url.split(":")[2].split("/")[0])
        archive = {
            "name": "archive_path",
            "arguments": {"host": "build-04", "path": "/var/log/ci/2026-07"},
            "_meta": {"progressToken": 7},
        }
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        message = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": archive}
        connection.request("POST", "/mcp", json.dumps(message), {"Content-Type": "application/json", **session})
        answer = connection.getresponse()
        assert answer.status == 200
        assert answer.getheader("Content-Type") == "text/event-stream"
        events = []
        with pytest.raises(http.client.IncompleteRead) as cut:
            answer.read()
        for block in cut.value.partial.split(b"\n\n"):
            if block.strip():
                events.append(json.loads(block.split(b"data: ", 1)[1]))
        # the log message and the progress the archive was recorded with, and no response
        assert [event["method"] for event in events] == ["notifications/message"] + ["notifications/progress"] * 3
        assert all(event["params"]["progressToken"] == 7 for event in events[1:])
        dropped = {"name": "show_dir", "arguments": {"host": "build-04", "path": "/var/log"}}
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        body_text = json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": dropped})
        connection.request("POST", "/mcp", body_text, {"Content-Type": "application/json", **session})
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            connection.getresponse()
        listed = _post(url, {"jsonrpc": "2.0", "id": 5, "method": "tools/list"}, **session)
        assert listed[0] == 200


@pytest.mark.parametrize(("transport", "path"), [("streamableHttp", "/mcp"), ("sse", "/sse")])
def test_the_reference_server_over_http(tmp_path: Path, transport: str, path: str) -> None:
    """npm's reference server with every feature, run with its own Streamable HTTP transport and with the legacy
    SSE one: through the proxy the client sees what it sees against the recording, served over stdio and over
    HTTP (the same transport)."""
    import anyio  # noqa: PLC0415

    from tests.acceptance.test_third_party_mcp import node_server, workload_of  # noqa: PLC0415

    binary = node_server("mcp-server-everything")
    steps: list[Any] = [
        ("call", ("echo", {"message": "hello"})),
        ("call", ("get-sum", {"a": 2, "b": 3})),
        ("call", ("get-tiny-image", {})),
        ("call", ("get-structured-content", {"location": "Chicago"})),
        ("call", ("trigger-long-running-operation", {"duration": 0.3, "steps": 3})),
        ("call", ("no-such-tool", {})),
        ("resources", None),
        ("read", "demo://resource/static/document/architecture.md"),
        ("prompts", None),
    ]
    port = free_port()
    server = subprocess.Popen(
        [*binary, transport],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    log = tmp_path / "mcp.jsonl"
    try:
        wait_for(port)
        with _proxy(f"http://127.0.0.1:{port}{path}", log) as url:
            recorded = anyio.run(workload_of, "legacy", url, steps, transport == "sse")
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert recorded[1]["content"][0]["text"].endswith("hello")
    assert len(recorded[-1]) == 3  # the long operation's progress, through the proxy
    assert anyio.run(workload_of, "legacy", [*TOOLREPLAY, "serve", str(log)], steps) == recorded
    with _served(str(log)) as url:
        assert anyio.run(workload_of, "legacy", url.replace("/mcp", path), steps, transport == "sse") == recorded


def test_a_stream_the_upstream_cuts_is_cut_for_the_client_not_ended_as_whole(tmp_path: Path) -> None:
    """An upstream that sends one event of an answer's stream and drops the connection: the client gets that
    event and then a cut stream (never a clean end it would take for the whole answer); the event is logged."""
    import http.client  # noqa: PLC0415
    import threading  # noqa: PLC0415

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}
    event = b"event: message\ndata: " + json.dumps(progress).encode() + b"\n\n"

    def cutting() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            connection.sendall(head + b"%x\r\n%s\r\n" % (len(event), event))

    threading.Thread(target=cutting, daemon=True).start()
    log = tmp_path / "mcp.jsonl"
    port = int(listener.getsockname()[1])
    with _proxy(f"http://127.0.0.1:{port}/mcp", log) as url:
        client = http.client.HTTPConnection("127.0.0.1", int(url.split(":")[2].split("/")[0]), timeout=30)
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
        client.request("POST", "/mcp", json.dumps(call), {"Content-Type": "application/json"})
        answer = client.getresponse()
        assert answer.status == 200
        assert answer.readline() == b"event: message\n"
        assert json.loads(answer.readline().removeprefix(b"data: ")) == progress
        assert answer.readline() == b"\n"
        with pytest.raises(http.client.IncompleteRead):
            answer.read()
    listener.close()
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [line["event"] for line in lines] == ["start", "notification"]
    assert lines[1]["message"] == progress


def test_concurrent_clients_with_the_same_ids_are_each_paired_with_their_own_answers(tmp_path: Path) -> None:
    """Four clients at once, each numbering its requests from 1 as every client does: each request is logged
    with the answer to it (pairing is by the POST that carried it, not by id across the proxy), none lost."""
    import threading  # noqa: PLC0415

    log = tmp_path / "mcp.jsonl"
    calls = 60
    failures: list[str] = []
    with _server(["json", "stateless"]) as upstream, _proxy(upstream, log) as url:

        def client(host: str) -> None:
            for number in range(1, calls + 1):
                path = f"/var/log/{host}-{number}"
                call = {"name": "show_dir", "arguments": {"host": host, "path": path}}
                status, _, _ = _post(url, {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": call})
                if status != 200:
                    failures.append(f"{host} {number}: {status}")

        threads = [threading.Thread(target=client, args=(f"build-0{n}",)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []
    exchanges = read_log(log)[0].exchanges
    assert len(exchanges) == 4 * calls
    for exchange in exchanges:  # the answer names the host and path the request asked for
        params = exchange.request["params"]
        assert isinstance(params, dict)
        arguments = params["arguments"]
        assert isinstance(arguments, dict)
        assert exchange.request["id"] == exchange.response["id"]
        said = json.dumps(exchange.response)
        assert str(arguments["host"]) in said or str(arguments["path"]) in said, said[:300]


def test_record_runs_a_program_against_a_server_by_url_and_a_replay_serves_it_the_same(tmp_path: Path) -> None:
    """``record --server NAME=URL``: the program is given a loopback proxy's URL in front of the real server (in
    its configuration, as ``"type": "http"``), the run's session holds the server's calls under its name, and the
    replayed program receives what it received live, served over HTTP (over stdio, an HTTP recording serves the
    same: the first test of this module)."""
    witness = f"{sys.executable} -W ignore {ROOT / 'tests' / 'fixtures' / 'mcp_witness.py'}"
    words = f"cmd:{witness} --mcp-config {{mcp_config}} --out {{workdir}}/seen.json"
    out = tmp_path / "runs"
    with features_over_http() as upstream:
        result = run_cli("record", "--agent", words, "--server", f"ops={upstream}", "-o", str(out), "--task", "Disk.")
    assert result.code == 0, result.stdout + result.stderr
    session = out / "run-0001.json"
    assert result.stdout.splitlines() == [f"run 1: 2 calls, final reply → {session}"]
    document = json.loads(session.read_text(encoding="utf-8"))
    assert [server["name"] for server in document["servers"]] == ["ops"]
    config = json.loads((out / "run-0001" / "mcp.json").read_text(encoding="utf-8"))
    assert config["mcpServers"]["ops"]["type"] == "http"
    assert config["mcpServers"]["ops"]["url"].startswith("http://127.0.0.1:")  # the proxy's, not the server's
    assert config["mcpServers"]["ops"]["url"] != upstream
    seen = json.loads((out / "run-0001" / "work" / "seen.json").read_text(encoding="utf-8"))
    assert [len(server["results"]) for server in seen] == [2]
    replayed = f"cmd:{witness} --mcp-config {{mcp_config}} --out {tmp_path}/replayed.json"
    result = run_cli("replay", str(session), "--agent", replayed, "--mcp-transport", "http")
    assert result.code == 0, result.stdout + result.stderr
    assert json.loads((tmp_path / "replayed.json").read_text(encoding="utf-8")) == seen


PROGRAM = """\
import json, sys, urllib.request

url, session = sys.argv[1], None


def post(message):
    global session
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        headers["Mcp-Session-Id"] = session
    request = urllib.request.Request(url, json.dumps(message).encode(), headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        session = answer.headers.get("Mcp-Session-Id") or session
        body = answer.read()
    return json.loads(body) if body else None


hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "p", "version": "1"}}
post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
post({"jsonrpc": "2.0", "method": "notifications/initialized"})
call = {"name": "disk_usage", "arguments": {"host": "build-04"}}
said = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
print("Disk:", said["result"]["content"][0]["text"])
"""


def test_a_program_given_its_servers_url_is_replayed_over_http(tmp_path: Path) -> None:
    """--mcp-transport http: the run's server listens on its own loopback port before the program starts, and the
    program, given the URL by {mcp_url}, is answered from the recording; the call is the run's."""
    program = tmp_path / "program.py"
    program.write_text(PROGRAM, encoding="utf-8")
    result = run_cli(
        "replay",
        "ops/session.json",
        "--mcp-transport",
        "http",
        "--agent",
        f"cmd:{sys.executable} {program} {{mcp_url}}",
        "--json",
    )
    assert result.code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert [(run["calls"], run["ending"]) for run in report["runs"]] == [(1, "final reply")]
    assert report["runs"][0]["final_reply"].startswith("Disk:")
    assert all(change["kind"] == "removed" for change in report["changes"])  # only the calls it left out


def test_serve_over_http_delays_one_answer_not_the_others_and_says_nothing_of_a_client_that_left(
    tmp_path: Path,
) -> None:
    """A delay fault keeps one call's answer back, while another session is answered at once; a cut with no
    notification before the answer still opens its stream before it cuts it; a client that sends half a request
    and leaves costs the server no word on its stderr."""
    import http.client  # noqa: PLC0415
    import threading  # noqa: PLC0415
    import time  # noqa: PLC0415

    faults = tmp_path / "faults.json"
    delayed = {"tool": "list_dir", "fault": "delay", "seconds": 2}
    faults.write_text(json.dumps({"faults": [delayed, {"tool": "delete_path", "fault": "cut"}]}), encoding="utf-8")
    command = [*TOOLREPLAY, "serve", "samples/ops/session.json", "--http", "--faults", str(faults)]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert server.stderr is not None
        url = server.stderr.readline().split()[2]
        port = int(url.split(":")[2].split("/")[0])
        hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _hello()}
        slow = {"name": "list_dir", "arguments": {"host": "build-04", "path": "/var/log"}}
        took: list[float] = []

        def late() -> None:
            started = time.monotonic()
            _post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": slow})
            took.append(time.monotonic() - started)

        waiting = threading.Thread(target=late)
        waiting.start()
        time.sleep(0.3)
        started = time.monotonic()
        assert _post(url, hello)[0] == 200  # another client, meanwhile
        meanwhile = time.monotonic() - started
        waiting.join()
        assert meanwhile < 1.5 < took[0]
        cut = {"name": "delete_path", "arguments": {"host": "build-04", "path": "/var/log/ci/2026-07"}}
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        body = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": cut})
        connection.request("POST", "/mcp", body, {"Content-Type": "application/json"})
        answer = connection.getresponse()
        assert (answer.status, answer.getheader("Content-Type")) == (200, "text/event-stream")
        with pytest.raises(http.client.IncompleteRead):
            answer.read()
        for _ in range(5):  # half a request, then gone
            with socket.create_connection(("127.0.0.1", port)) as half:
                half.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        assert _post(url, hello)[0] == 200  # still up
    finally:
        server.send_signal(signal.SIGTERM)
        _, said = server.communicate(timeout=30)
    assert "Traceback" not in said


def test_an_upstream_refused_is_named_without_its_credentials(tmp_path: Path) -> None:
    for upstream in ("ftp://user:hunter2@host/mcp?key=sekrit", "http://user:hunter2@host:99999/?key=sekrit"):
        result = run_cli("record-mcp", "-o", str(tmp_path / "mcp.jsonl"), "--upstream", upstream)
        assert result.code == 2, result.stderr
        assert result.stderr.count("\n") == 1
        assert "hunter2" not in result.stderr
        assert "sekrit" not in result.stderr


def test_serve_over_http_gives_each_session_a_world_and_a_run_of_its_own(tmp_path: Path) -> None:
    """Two agents' sessions of one ``serve --http``: each is its own run in the log it writes (import sees two
    runs, each with its own calls), answered by a server of its own."""
    traffic = tmp_path / "served.jsonl"
    session = ROOT / "samples" / "ops" / "session.json"
    calls = {"a": ("disk_usage", {"host": "build-04"}), "b": ("list_dir", {"host": "build-04", "path": "/var/log"})}
    with _served(str(session), "--log", str(traffic)) as url:
        opened = {}
        for name in calls:  # both open before either calls: their lines interleave in the log
            status, headers, _ = _post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _hello()})
            assert status == 200
            opened[name] = headers["Mcp-Session-Id"]
        for name, (tool, arguments) in calls.items():
            call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
            status, _, body = _post(url, call, **{"Mcp-Session-Id": opened[name]})
            assert status == 200, body
        # neither a request nor a notification: refused, and kept out of the log, which stays readable
        assert _post(url, {"jsonrpc": "2.0"}, **{"Mcp-Session-Id": opened["a"]})[0] == 200
    runs = read_log(traffic)
    assert len(runs) == 2
    called = [[json.dumps(e.request["params"]) for e in run.exchanges if e.event == "tools/call"] for run in runs]
    called = [[json.loads(params)["name"] for params in run] for run in called]
    assert called == [["disk_usage"], ["list_dir"]]
    imported = run_cli("import", "--from", "mcp", str(traffic), "-o", str(tmp_path / "s.json"), "--task", "t")
    assert imported.code == 0, imported.stderr
    assert "1 tool call from" in imported.stdout
    assert "(run 2 of 2; choose another with --run)" in imported.stdout


def test_sessions_are_answered_at_once_each_one_message_at_a_time() -> None:
    """A session busy answering (its lock held) does not hold another session's answer."""
    import threading  # noqa: PLC0415

    from toolreplay.analysis.classify import Policy  # noqa: PLC0415
    from toolreplay.formats.recording import load_session  # noqa: PLC0415
    from toolreplay.mcp.http.serve import HttpReplay  # noqa: PLC0415
    from toolreplay.mcp.server import session_server  # noqa: PLC0415
    from toolreplay.settings import Unrecorded  # noqa: PLC0415

    recorded = load_session(str(ROOT / "samples" / "ops" / "session.json"))
    with HttpReplay(("127.0.0.1", 0), lambda _: session_server(recorded, Policy(), Unrecorded.ERROR, None)) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _hello()}
        first = _post(server.url, hello)[1]["Mcp-Session-Id"]
        second = _post(server.url, hello)[1]["Mcp-Session-Id"]
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        with server.sessions[first].lock:  # the first session is answering something
            status, _, body = _post(server.url, ping, **{"Mcp-Session-Id": second})
        assert (status, json.loads(body)["result"]) == (200, {})
        assert len(server.made) == 2
        # a burst of clients at once is queued, not reset (a listen backlog of 5 reset them)
        from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

        with ThreadPoolExecutor(64) as pool:
            statuses = list(pool.map(lambda _: _post(server.url, hello)[0], range(128)))
        assert statuses == [200] * 128
        server.shutdown()
