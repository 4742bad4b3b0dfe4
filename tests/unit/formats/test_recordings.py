"""Telling the formats apart, sealed sessions, and MCP logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, run_cli
from toolreplay.core.canonical import canonical_bytes
from toolreplay.core.errors import InputError, UsageError
from toolreplay.formats.kinds import Kind, detect_kind
from toolreplay.formats.mcp_log.importer import ImportOptions, session_from_log
from toolreplay.formats.recording import load_session
from toolreplay.formats.session.sealed import session_parts, streamed_parts
from toolreplay.formats.session.writer import header_document, message_document, ordered, tool_document
from toolreplay.integrity.chain import seal_records

OPS = SAMPLES / "ops" / "session.json"


def sealed_lines() -> list[str]:
    context = load_session(OPS).context
    assert context is not None
    return [line.decode() for line in seal_records(session_parts(context))]


def write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_detects_every_kind(tmp_path: Path) -> None:
    assert detect_kind(SAMPLES / "session-dirty.jsonl") is Kind.TRANSCRIPT
    assert detect_kind(OPS) is Kind.SESSION
    assert detect_kind(write(tmp_path, "s.jsonl", sealed_lines())) is Kind.SEALED_SESSION
    compact = tmp_path / "compact.json"
    compact.write_text(json.dumps(json.loads(OPS.read_text())))
    assert detect_kind(compact) is Kind.SESSION
    on_one_line = load_session(compact).calls
    assert [(c.tool, c.args) for c in on_one_line] == [(c.tool, c.args) for c in load_session(OPS).calls]
    assert {c.line for c in on_one_line} == {1}
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    assert detect_kind(empty) is Kind.TRANSCRIPT


def test_a_sealed_session_reads_back_as_its_session(tmp_path: Path) -> None:
    sealed = load_session(write(tmp_path, "s.jsonl", sealed_lines()))
    original = load_session(OPS)
    assert sealed.context == original.context
    assert [(c.tool, c.args, c.result) for c in sealed.calls] == [(c.tool, c.args, c.result) for c in original.calls]
    # Lines 1-6 hold the header, the prompt and four tools; messages[i] is on line 7 + i.
    assert [c.line for c in sealed.calls] == [8, 10, 12, 14, 14, 16]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda lines: lines[:-1], "before its 'final_reply' part"),
        (lambda lines: [lines[1], lines[0], *lines[2:]], "index 1 is out of order: expected 0"),
        (lambda lines: [lines[0], *lines[2:]], "index 2 is out of order: expected 1"),
        (lambda lines: [*lines[:-1], lines[-1].replace('"part":"final_reply"', '"part":"epilogue"')], "out of place"),
        (lambda lines: [lines[0].replace('"part":"session"', '"part":"session","x":1')], "unknown field 'x'"),
    ],
)
def test_malformed_sealed_sessions_are_refused(tmp_path: Path, edit: object, message: str) -> None:
    lines = edit(sealed_lines())  # type: ignore[operator]
    with pytest.raises(InputError, match=message):
        load_session(write(tmp_path, "s.jsonl", lines))


def log_lines(*calls: dict[str, object]) -> list[str]:
    lines = [json.dumps({"event": "start", "command": ["server"], "v": 1})]
    for number, call in enumerate(calls, start=1):
        request = {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": call["params"]}
        lines.append(json.dumps({"event": "tools/call", "request": request, "response": call["response"], "v": 1}))
    return lines


def test_json_rpc_errors_become_error_results(tmp_path: Path) -> None:
    log = write(
        tmp_path,
        "log.jsonl",
        log_lines(
            {
                "params": {"name": "t", "arguments": {}},
                "response": {"id": 1, "error": {"code": -32602, "message": "bad"}},
            },
            {"params": {"name": "t"}, "response": {"id": 2, "result": {"content": [{"type": "text", "text": "ok"}]}}},
        ),
    )
    context, runs = session_from_log(log, ImportOptions())
    assert runs == 1
    assert context.messages[2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_mcp_0001",
            "content": "JSON-RPC error -32602: bad",
            "is_error": True,
        }
    ]
    assert context.final_reply is None


def test_runs_are_chosen_and_counted(tmp_path: Path) -> None:
    one = log_lines({"params": {"name": "a"}, "response": {"id": 1, "result": {"content": []}}})
    two = log_lines({"params": {"name": "b"}, "response": {"id": 1, "result": {"content": []}}})
    log = write(tmp_path, "log.jsonl", one + two)
    last, runs = session_from_log(log, ImportOptions())
    first, _ = session_from_log(log, ImportOptions(run=1))
    assert runs == 2
    assert last.messages[1]["content"][0]["name"] == "b"  # type: ignore[index,call-overload]
    assert first.messages[1]["content"][0]["name"] == "a"  # type: ignore[index,call-overload]
    with pytest.raises(UsageError, match="the log holds 2 run"):
        session_from_log(log, ImportOptions(run=3))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"event": "tools/call", "v": 2}', "not a record-mcp log line"),
        ('{"event": "other", "v": 1}', "not a record-mcp log line"),
        ('{"event": "tools/call", "request": 1, "response": {}, "v": 1}', "needs a 'request' and a 'response'"),
        ('{"event": "tools/call", "request": {"params": {}}, "response": {}, "v": 1}', "without a tool name"),
    ],
)
def test_malformed_logs_are_refused(tmp_path: Path, line: str, message: str) -> None:
    log = write(tmp_path, "log.jsonl", [line])
    with pytest.raises(InputError, match=message) as info:
        session_from_log(log, ImportOptions())
    assert info.value.line == 1


def test_import_redacts_what_an_unredacted_log_holds(tmp_path: Path) -> None:
    secret = "sk-ant-api03-" + "Q" * 40
    log = write(
        tmp_path,
        "log.jsonl",
        log_lines(
            {
                "params": {"name": "get_config", "arguments": {}},
                "response": {"id": 1, "result": {"content": [{"type": "text", "text": f"key={secret}"}]}},
            }
        ),
    )
    assert secret in log.read_text()
    out = tmp_path / "session.json"
    result = run_cli("import", str(log), "--from", "mcp", "-o", str(out), cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert secret not in out.read_text()
    assert "[REDACTED:anthropic-key:" in out.read_text()


def test_a_session_is_sealed_as_its_file_holds_it() -> None:
    """Each part's value is, canonically, the document the session's writer gives for it, read whole or streamed."""
    for path in (OPS, SAMPLES / "rules" / "session.json"):
        context = load_session(path).context
        assert context is not None
        documents = [
            header_document(context),
            ordered(context.system),
            *(tool_document(tool) for tool in context.tools),
            *(message_document(message) for message in context.messages),
            context.final_reply,
        ]
        parts = [canonical_bytes(part["value"]) for part in session_parts(context)]
        assert parts == [canonical_bytes(document) for document in documents]
        streamed = [canonical_bytes(part) for part in streamed_parts(path)]
        assert streamed == [canonical_bytes(part) for part in session_parts(context)]
