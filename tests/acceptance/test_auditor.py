"""The auditor's documented commands, run on samples/ as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, run_cli
from toolreplay import __version__

ZEROS = "0" * 64


def test_replay_on_the_dirty_sample() -> None:
    result = run_cli("replay", "samples/session-dirty.jsonl", cwd=SAMPLES.parent)
    assert result.code == 1
    assert result.stdout.splitlines() == [
        "calls: 6",
        "divergence: index 5",
        "findings: 2",
        "index 2: redundant-call: tool 'read_file' repeats the identical call at index 1 "
        "with no state change between them",
        "index 5: non-determinism: tool 'search' returned a different response than the identical call at index 3",
    ]


def test_scope_on_the_dirty_sample() -> None:
    result = run_cli("scope", "samples/session-dirty.jsonl", "samples/scope.json", cwd=SAMPLES.parent)
    assert result.code == 1
    assert result.stdout.splitlines() == [
        "calls: 6",
        "findings: 1",
        "index 4: permission-overreach: tool 'write_file' is not in the declared scope for agent 'docs-reader'",
    ]


def test_the_clean_sample_is_clean() -> None:
    assert run_cli("replay", "session-clean.jsonl").code == 0
    assert run_cli("scope", "session-clean.jsonl", "scope.json").code == 0


def test_the_dirty_sample_is_as_documented() -> None:
    records = [json.loads(line) for line in (SAMPLES / "session-dirty.jsonl").read_text().splitlines()]
    assert [r["tool"] for r in records] == ["list_dir", "read_file", "read_file", "search", "write_file", "search"]
    assert records[1]["response"] == records[2]["response"] == {"bytes": 214}


def test_seal_prints_the_documented_links() -> None:
    result = run_cli("seal", "session-dirty.jsonl")
    assert result.code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 6
    assert lines[0] == (
        '{"args":{"path":"docs"},"digest":"c1bd7fb3e28ce29e5c9dbd0cf47cafcaa1613295be26d86fb04463fe3d8b40da",'
        f'"index":0,"prev":"{ZEROS}","response":{{"entries":["intro.md","guide.md"]}},"tool":"list_dir"}}'
    )
    assert lines[5] == (
        '{"args":{"query":"install"},"digest":"75ccf1faad88c5ea82c68139b2ec2a02943142dd0133bb0c626ccbff28f5c711",'
        '"index":5,"prev":"327da75f2d491267f1dbeaf5d31b4a61a2ed9e956a71a5c4cbb67a87b4720d6a",'
        '"response":{"hits":7},"tool":"search"}'
    )


def test_seal_verify_and_tamper(tmp_path: Path) -> None:
    sealed = tmp_path / "sealed.jsonl"
    assert run_cli("seal", "session-dirty.jsonl", "-o", str(sealed)).code == 0
    intact = run_cli("verify", str(sealed))
    assert (intact.code, intact.stdout) == (0, "chain: intact\n")

    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text(sealed.read_text().replace('"hits":3', '"hits":4'))
    broken = run_cli("verify", str(tampered))
    assert broken.code == 1
    assert broken.stdout == (
        "chain: broken\n"
        "first broken link: index 3\n"
        "expected: 34d19a9dfb112baa07afa37994ddcbbebe2973674385f3942340653d08d205bd\n"
        "found: 40aadf3b8156217f0b5b1d95010b6b79f82a26ccf5e780aed0f5f311f865028a\n"
    )


def test_version_both_ways() -> None:
    assert run_cli("version").stdout == f"toolreplay {__version__}\n"
    assert run_cli("--version").stdout == f"toolreplay {__version__}\n"


def test_sealed_files_can_be_audited_and_scoped(tmp_path: Path) -> None:
    sealed = tmp_path / "sealed.jsonl"
    run_cli("seal", "session-dirty.jsonl", "-o", str(sealed))
    assert run_cli("audit", str(sealed)).stdout == run_cli("audit", "session-dirty.jsonl").stdout
    assert run_cli("scope", str(sealed), "scope.json").code == 1


def test_audit_of_several_files_names_each() -> None:
    result = run_cli("audit", "session-clean.jsonl", "session-dirty.jsonl")
    assert result.code == 1
    assert result.stdout.startswith("== session-clean.jsonl ==\ncalls: 4\n")
    assert "\n\n== session-dirty.jsonl ==\ncalls: 6\n" in result.stdout


def _write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


LINE = b'{"index": 0, "tool": "t", "args": {}, "response": {}}\n'

BAD_TRANSCRIPTS = {
    "unknown-field": (LINE.replace(b"}\n", b', "x": 1}\n'), "1: unknown field 'x'"),
    "missing-field": (b'{"index": 0, "tool": "t", "args": {}}\n', "1: missing field 'response'"),
    "bool-index": (
        LINE.replace(b'"index": 0', b'"index": false'),
        "1: field 'index' must be an integer, found a boolean",
    ),
    "float-index": (
        LINE.replace(b'"index": 0', b'"index": 0.5'),
        "1: field 'index' must be an integer, found a number",
    ),
    "out-of-order": (LINE + LINE, "2: index 0 is out of order: expected 1"),
    "args-not-object": (
        LINE.replace(b'"args": {}', b'"args": "x"'),
        "1: field 'args' must be an object, found a string",
    ),
    "response-not-object": (LINE.replace(b'"response": {}', b'"response": [1]'), "field 'response' must be an object"),
    "not-json": (LINE + b"{oops\n", "2: not valid JSON"),
    "not-utf8": (LINE + b'{"index": 1, "tool": "\xc3\x28", "args": {}, "response": {}}\n', "2: not valid UTF-8"),
}


@pytest.mark.parametrize("command", ["replay", "audit", "seal", "scope"])
@pytest.mark.parametrize("case", sorted(BAD_TRANSCRIPTS))
def test_bad_transcripts_exit_2_with_one_line(tmp_path: Path, command: str, case: str) -> None:
    data, message = BAD_TRANSCRIPTS[case]
    path = _write(tmp_path, "bad.jsonl", data)
    args = [command, path] + ([str(SAMPLES / "scope.json")] if command == "scope" else [])
    result = run_cli(*args)
    assert result.code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"toolreplay: error: {path}:")
    assert message in result.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"allowed_tools": ["a"]}', "missing field 'agent'"),
        ('{"agent": "a"}', "missing field 'allowed_tools'"),
        ('{"agent": ["a"], "allowed_tools": []}', "agent: must be a string"),
        ('{"agent": "a", "allowed_tools": "read_file"}', "allowed_tools: must be an array"),
        ('{"agent": "a", "allowed_tools": [null]}', "allowed_tools[0]: must be a string"),
        ("{not json", "not valid JSON"),
    ],
)
def test_bad_scope_exits_2_with_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, "scope.json", text.encode())
    result = run_cli("scope", "session-clean.jsonl", path)
    assert result.code == 2
    assert result.stderr.count("\n") == 1
    assert f"{path}:1: {message}" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("replay", "missing.jsonl"),
        ("audit", "missing.jsonl"),
        ("seal", "missing.jsonl"),
        ("verify", "missing.jsonl"),
        ("scope", "missing.jsonl", "scope.json"),
        ("scope", "session-clean.jsonl", "missing.json"),
    ],
)
def test_missing_files_exit_2(args: tuple[str, ...]) -> None:
    missing = next(arg for arg in args if arg.startswith("missing"))
    result = run_cli(*args)
    assert result.code == 2
    assert result.stderr == f"toolreplay: error: {missing}: no such file\n"


def test_verify_of_a_malformed_sealed_file_exits_2(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.jsonl", LINE)
    result = run_cli("verify", path)
    assert result.code == 2
    assert "missing field 'prev'" in result.stderr


@pytest.mark.parametrize("args", [(), ("bogus",), ("seal",), ("seal", "--nope", "x"), ("scope", "a.jsonl")])
def test_usage_errors_exit_2_with_one_line(args: tuple[str, ...]) -> None:
    result = run_cli(*args)
    if not args:
        # Bare `toolreplay` shows the help, like git.
        assert result.code in (0, 2)
        assert "Commands" in result.stdout + result.stderr
        return
    assert result.code == 2
    assert result.stderr.startswith("toolreplay: error: ")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_seal_output_never_overwrites_its_input(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    original = (SAMPLES / "session-dirty.jsonl").read_bytes()
    path.write_bytes(original)
    result = run_cli("seal", str(path), "-o", str(path))
    assert result.code == 2
    assert "refusing to write over it" in result.stderr
    assert path.read_bytes() == original


def test_seal_to_a_file_leaves_nothing_on_bad_input(tmp_path: Path) -> None:
    bad = _write(tmp_path, "bad.jsonl", LINE + b"not json\n")
    out = tmp_path / "out.jsonl"
    out.write_text("previous content\n")
    result = run_cli("seal", bad, "-o", str(out))
    assert result.code == 2
    assert out.read_text() == "previous content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "out.jsonl"]
