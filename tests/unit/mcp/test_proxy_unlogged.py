"""What the proxy passes on but cannot log is said, once, on stderr: never left out of the log without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolreplay.formats.mcp_log.log import LogWriter, read_log
from toolreplay.mcp.stdio.proxy import ExchangeLog
from toolreplay.redact import Redactor

REQUEST = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}}'


def test_a_response_with_nan_passes_unlogged_and_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = ExchangeLog(LogWriter(tmp_path / "log.jsonl", Redactor.default(), "toolreplay record-mcp"))
    log.start(["server"])
    log.from_client(REQUEST)
    log.from_server(b'{"jsonrpc": "2.0", "id": 1, "result": {"content": [], "x": NaN}}')
    log.from_client(REQUEST.replace(b'"id": 1', b'"id": 2'))
    log.from_server(b'{"jsonrpc": "2.0", "id": 2, "result": {"x": 1e999}}')
    log.from_client(REQUEST.replace(b'"id": 1', b'"id": 3'))
    log.from_server(b'{"jsonrpc": "2.0", "id": 3, "result": {"content": []}}')
    log.close()
    said = capsys.readouterr().err
    assert said.count("not strict JSON") == 1
    assert "passed through unchanged but is not in the log" in said
    (run,) = read_log(tmp_path / "log.jsonl")  # the log stays readable, with the one exchange it could hold
    assert [json.dumps(exchange.response["id"]) for exchange in run.exchanges] == ["3"]
