"""A file of another kind than a command reads: one line that says what it is, and the command that reads it."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, run_cli

LOG = [
    {"v": 2, "event": "start", "command": ["server"]},
    {
        "v": 2,
        "event": "request",
        "request": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        "response": {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "read", "inputSchema": {}}]}},
    },
    {
        "v": 2,
        "event": "request",
        "request": {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read", "arguments": {}}},
        "response": {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "ok"}]}},
    },
]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "my run.mcp.jsonl").write_text("".join(json.dumps(line) + "\n" for line in LOG))
    shutil.copy(SAMPLES / "claude-code" / "transcript.jsonl", tmp_path / "claude.jsonl")
    shutil.copy(SAMPLES / "ops" / "session.json", tmp_path / "session.json")
    shutil.copy(SAMPLES / "ops" / "session.json", tmp_path / "other.json")
    shutil.copy(SAMPLES / "session-dirty.jsonl", tmp_path / "transcript.jsonl")
    shutil.copy(SAMPLES / "scope.json", tmp_path / "scope.json")
    return tmp_path


def _commands(name: str, replayed: bool = True) -> list[list[str]]:
    """Every command that reads a recording, given ``name`` where it wants one (``replayed``: replay too, which
    takes a record-mcp log as it is)."""
    return [
        *([["replay", name]] if replayed else []),
        ["audit", name],
        ["scope", name, "scope.json"],
        ["seal", name],
        ["verify", name],
        ["show", name],
        ["diff", "session.json", name],
        ["compare", "session.json", name, "--baseline", "other.json"],
        ["rules", "init", name, "-o", "rules.toml"],
    ]


def _suggested(stderr: str) -> list[str]:
    """The command a one-line error says to run, as words."""
    assert stderr.startswith("toolreplay: error: "), stderr
    assert stderr.count("\n") == 1, stderr
    return shlex.split(stderr.split("import it first: ", 1)[1])


@pytest.mark.parametrize(("name", "source"), [("my run.mcp.jsonl", "mcp"), ("claude.jsonl", "claude-code")])
def test_a_file_to_import_is_refused_with_the_command_that_imports_it(files: Path, name: str, source: str) -> None:
    for args in _commands(name, replayed=source != "mcp"):
        result = run_cli(*args, cwd=files)
        assert result.code == 2, (args, result.stdout, result.stderr)
        assert _suggested(result.stderr) == ["toolreplay", "import", "--from", source, name, "-o", "SESSION"], args
    # the command said is the real one: it imports the file, and the session it writes replays
    said = _suggested(run_cli("audit", name, cwd=files).stderr)
    imported = run_cli(*[("imported.json" if word == "SESSION" else word) for word in said[1:]], cwd=files)
    assert imported.code == 0, imported.stderr
    assert run_cli("show", "imported.json", cwd=files).code == 0


def test_a_config_naming_a_transcript_to_import_is_refused_the_same_way(files: Path) -> None:
    (files / ".toolreplay.yml").write_text('sessions: "claude.jsonl"\n')  # a record-mcp log it reads as it is
    result = run_cli("check", "--config", ".toolreplay.yml", cwd=files)
    assert result.code == 2
    assert "toolreplay import --from claude-code claude.jsonl -o SESSION" in result.stderr


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("session.json", "a toolreplay session, not a record-mcp log: a session needs no import"),
        ("transcript.jsonl", "a toolreplay transcript, not a record-mcp log: a transcript needs no import"),
        ("claude.jsonl", "a Claude Code transcript, not a record-mcp log: import it with --from claude-code"),
    ],
)
def test_what_is_not_a_log_is_named_where_a_log_is_wanted(files: Path, name: str, said: str) -> None:
    for args in (
        ["import", "--from", "mcp", name, "-o", "out.json"],
        ["import-mcp", name, "-o", "out.json"],
        ["import", "--from", "claude-code", "claude.jsonl", "--mcp-log", name, "-o", "out.json"],
    ):
        if name == "claude.jsonl" and "--mcp-log" in args:
            continue  # given twice, which the command refuses first
        result = run_cli(*args, cwd=files)
        assert (result.code, result.stderr) == (2, f"toolreplay: error: {name}: {said}\n"), args
        assert not (files / "out.json").exists()


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("my run.mcp.jsonl", "a record-mcp log, not {what}: import it with --from mcp"),
        ("session.json", "a toolreplay session, not {what}: a session needs no import"),
        ("transcript.jsonl", "a toolreplay transcript, not {what}: a transcript needs no import"),
        ("claude.jsonl", "a Claude Code transcript, not {what}: import it with --from claude-code"),
    ],
)
@pytest.mark.parametrize(
    ("source", "what"),
    [
        ("claude-code", "a Claude Code transcript"),
        ("otel", "an OpenTelemetry trace"),
        ("openai", "an OpenAI conversation"),
    ],
)
def test_what_is_not_the_format_asked_for_is_named_for_what_it_is(
    files: Path, name: str, said: str, source: str, what: str
) -> None:
    result = run_cli("import", "--from", source, name, "-o", "out.json", cwd=files)
    if name == "claude.jsonl" and source == "claude-code":
        assert result.code == 0, result.stderr  # the right format: it imports
        return
    assert (result.code, result.stderr) == (2, f"toolreplay: error: {name}: {said.format(what=what)}\n")
    assert not (files / "out.json").exists()
