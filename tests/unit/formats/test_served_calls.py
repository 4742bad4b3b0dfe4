"""A program run's calls, and how each was answered, are read from the log its server wrote, leniently."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import SAMPLES
from toolreplay.analysis.classify import Policy
from toolreplay.core.model import Origin
from toolreplay.formats.mcp_log.log import LogWriter, read_log, served_calls
from toolreplay.formats.recording import load_session
from toolreplay.formats.stubs import Stub
from toolreplay.mcp.server import session_server
from toolreplay.redact import Redactor
from toolreplay.settings import Unrecorded


def _call(number: int, name: str, **arguments: object) -> bytes:
    message = {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    return json.dumps(message).encode()


def test_serve_logs_how_it_answered_each_call_and_the_run_reads_it_back(tmp_path: Path) -> None:
    session = load_session(SAMPLES / "ops" / "session.json")
    stub = Stub("delete_path", (), '{"deleted": true}', False)
    server = session_server(session, Policy(), Unrecorded.STUB, (stub,))
    log = tmp_path / "run.log"
    server.traffic = LogWriter(log, Redactor.default(), "toolreplay serve")
    recorded = session.calls[0]
    server.answer_line(_call(1, recorded.tool, **recorded.args))
    server.answer_line(_call(2, "delete_path", host="build-04", path="/x"))
    server.answer_line(_call(3, "never_heard_of"))
    server.answer_line(b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": 5}}')  # refused
    server.traffic.close()
    with log.open("ab") as torn:  # the program killed its server mid-line, or wrote into the log itself
        torn.write(b'just text\n{"event": "request", "answered": "recorded", "request": {"method": "tools/ca')
    served = served_calls(log)
    assert [(call.tool, origin) for call, origin in served] == [
        (recorded.tool, Origin.RECORDED),
        ("delete_path", Origin.STUB),
        ("never_heard_of", Origin.ERROR),
    ]
    assert served[2][0].is_error
    assert [call.index for call, _ in served] == [0, 1, 2]
    said = [line for line in log.read_bytes().splitlines() if b'"answered"' in line]
    assert len(said) == 4  # the three calls, and the torn line; the refused request says nothing
    assert said[0].startswith(b'{"event": "request", "answered": "recorded", "request": ')


def test_a_stopped_call_is_logged_as_none_and_read_back_so(tmp_path: Path) -> None:
    session = load_session(SAMPLES / "ops" / "session.json")
    server = session_server(session, Policy(), Unrecorded.STOP, ())
    log = tmp_path / "run.log"
    server.traffic = LogWriter(log, Redactor.default(), "toolreplay serve")
    server.answer_line(_call(1, "delete_path", host="h", path="/"))
    server.traffic.close()
    assert [(call.tool, origin) for call, origin in served_calls(log)] == [("delete_path", Origin.STOPPED)]
    assert read_log(log)[0].exchanges[0].event == "tools/call"  # the strict reader takes the field in its stride


def test_no_log_is_no_calls(tmp_path: Path) -> None:
    assert served_calls(tmp_path / "absent.log") == []
