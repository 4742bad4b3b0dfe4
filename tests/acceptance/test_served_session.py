"""A session imported from a proxy log serves its server as itself: what the client receives from ``serve SESSION``
is what it received live and what ``serve LOG`` gives, in every protocol mode.

The real `mcp` SDK client runs the workload of ``test_serve_fidelity`` (the handshake, every listing, a resource,
a prompt, a completion, tool calls with structured content, images, resource links, embedded resources, progress
and log messages, a tool error, an unknown tool) against the sample server through ``record-mcp``; the log is
imported, and the session served back must give the client the same, message for message.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, SAMPLES, run_cli
from tests.fakes.mcp_raw import INITIALIZE, RawClient

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from tests.acceptance.test_serve_fidelity import MODES, TOOLREPLAY, workload

pytestmark = pytest.mark.xdist_group("served-session")

FEATURES = [sys.executable, "-W", "ignore", str(SAMPLES / "mcp" / "features.py")]


@pytest.fixture(scope="module", params=MODES)
def imported(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, list[Any]]:
    """One mode's workload recorded live through the proxy (named as a client's configuration names it), and the
    session imported from its log."""
    mode = str(request.param)
    here = tmp_path_factory.mktemp("session")
    log, session = here / "mcp.jsonl", here / "session.json"
    seen = workload(mode, [*TOOLREPLAY, "record-mcp", "-o", str(log), "--name", "ops", "--", *FEATURES])
    result = run_cli("import", "--from", "mcp", str(log), "-o", str(session), "--task", "Free disk space.")
    assert result.code == 0, result.stderr
    return mode, session, seen


def test_the_session_serves_the_client_what_it_saw_live(imported: tuple[str, Path, list[Any]]) -> None:
    mode, session, seen = imported
    assert workload(mode, [*TOOLREPLAY, "serve", str(session)]) == seen
    tools = {tool["name"]: tool for tool in seen[1]["tools"]}  # what a session once could not carry is all there
    assert tools["disk_report"]["output_schema"]["title"] == "DiskReport"
    assert tools["disk_report"]["title"] == "Disk report"
    assert seen[9]["structured_content"] == {"entries": 4}
    assert [block["type"] for block in seen[9]["content"]] == ["text", "image", "resource_link", "resource"]


def test_the_session_names_its_server_and_keeps_the_messages_as_they_came(
    imported: tuple[str, Path, list[Any]],
) -> None:
    _, session, _ = imported
    document = json.loads(session.read_text(encoding="utf-8"))
    assert document["version"] == 3
    (server,) = document["servers"]
    assert server["name"] == "ops"
    methods = [exchange["request"]["method"] for exchange in server["exchanges"]]
    assert "tools/call" not in methods  # the calls are the conversation's, each answered by its tool_use id
    assert {"tools/list", "resources/read", "prompts/get"} <= set(methods)
    uses = [
        block["id"]
        for message in document["messages"]
        if message["role"] == "assistant"
        for block in message["content"]
        if block["type"] == "tool_use"
    ]
    assert list(server["results"]) == uses


@pytest.mark.parametrize("imported", ["legacy"], indirect=True)
def test_nothing_about_toolreplay_reaches_the_client(imported: tuple[str, Path, list[Any]]) -> None:
    """The handshake is the recorded server's; a session that recorded none says only a plain name."""
    _, session, _ = imported
    for served in (str(session), "samples/ops/session.json"):
        said = _handshake(served)
        assert "toolreplay" not in json.dumps(said).lower()
        assert "instructions" not in said or "nothing is executed" not in str(said["instructions"])
    assert _handshake(str(session))["serverInfo"]["name"] != "tools"  # the server's own name, as it gave it
    assert _handshake("samples/ops/session.json")["serverInfo"] == {"name": "tools", "version": "unknown"}


def _handshake(recording: str) -> dict[str, Any]:
    serve = subprocess.Popen([*TOOLREPLAY, "serve", recording], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    try:
        client = RawClient(serve)
        client.send(INITIALIZE)
        said: dict[str, Any] = client.receive()["result"]
        return said
    finally:
        assert serve.stdin is not None
        serve.stdin.close()
        serve.wait(timeout=30)


@pytest.mark.parametrize("imported", ["legacy"], indirect=True)
def test_an_edited_session_is_refused_where_it_was_edited(
    imported: tuple[str, Path, list[Any]], tmp_path: Path
) -> None:
    """A server's answer to a call the conversation never made is an error at its line, never served."""
    document = json.loads(imported[1].read_text(encoding="utf-8"))
    session = tmp_path / "s.json"
    document["servers"][0]["results"]["toolu_nobody"] = {"response": {"result": {"content": []}}}
    session.write_text(json.dumps(document, indent=2), encoding="utf-8")
    result = run_cli("show", str(session))
    assert result.code == 2
    assert "toolu_nobody" in result.stderr
    assert "the conversation does not make" in result.stderr


@pytest.mark.parametrize("imported", ["legacy"], indirect=True)
@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (
            lambda server: server["exchanges"][0]["response"]["result"].pop("protocolVersion"),
            "names no 'protocolVersion'",
        ),
        (
            lambda server: server["exchanges"].append(
                {"request": {"method": "tools/call"}, "response": {"result": {"content": []}}}
            ),
            "a call is answered in the server's results",
        ),
    ],
    ids=["handshake-without-version", "call-among-exchanges"],
)
def test_a_servers_messages_edited_by_hand_are_refused(
    imported: tuple[str, Path, list[Any]], tmp_path: Path, edit: Any, said: str
) -> None:
    document = json.loads(imported[1].read_text(encoding="utf-8"))
    assert document["servers"][0]["exchanges"][0]["request"]["method"] == "initialize"
    edit(document["servers"][0])
    session = tmp_path / "s.json"
    session.write_text(json.dumps(document, indent=2), encoding="utf-8")
    result = run_cli("show", str(session))
    assert result.code == 2
    assert said in result.stderr
    assert f"{session}:" in result.stderr  # at its line
