from __future__ import annotations

from pathlib import Path

import pytest

from toolreplay.analysis.scope import Scope, check_scope
from toolreplay.core.errors import InputError
from toolreplay.core.model import Call
from toolreplay.formats.scope import read_scope


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scope.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_a_scope(tmp_path: Path) -> None:
    scope = read_scope(write(tmp_path, '{"agent": "a", "allowed_tools": ["x", "y"]}'))
    assert scope == Scope("a", frozenset({"x", "y"}))


def test_match_is_exact_and_case_sensitive() -> None:
    scope = Scope("reader", frozenset({"read_file"}))
    calls = [Call(0, "read_file", {}, {}, 1), Call(1, "Read_File", {}, {}, 2), Call(2, "read_file ", {}, {}, 3)]
    report = check_scope(calls, scope)
    assert report.calls == 3
    assert [f.index for f in report.findings] == [1, 2]
    assert report.findings[0].detail == "tool 'Read_File' is not in the declared scope for agent 'reader'"


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ('{"allowed_tools": []}', "missing field 'agent'", 1),
        ('{"agent": "a"}', "missing field 'allowed_tools'", 1),
        ('{\n  "agent": 7,\n  "allowed_tools": []\n}', "agent: must be a string, found an integer", 2),
        ('{"agent": "a",\n "allowed_tools": "x"}', "allowed_tools: must be an array, found a string", 2),
        ('{"agent": "a", "allowed_tools": ["x", 3]}', "allowed_tools[1]: must be a string, found an integer", 1),
        (
            '{"agent": "a", "allowed_tools": [],\n"tools": []}',
            "unknown field 'tools' in a scope; expected one of: agent, allowed_tools, allowed_args",
            2,
        ),
        ("[]", "the scope: must be an object, found an array", 1),
        ('{"agent": "a",\n "allowed_tools": [}', "not valid JSON: Expecting value (column 20)", 2),
    ],
)
def test_malformed_scope_is_refused(tmp_path: Path, text: str, message: str, line: int) -> None:
    with pytest.raises(InputError) as info:
        read_scope(write(tmp_path, text))
    assert (info.value.message, info.value.line) == (message, line)


def test_argument_aware_scope(tmp_path: Path) -> None:
    scope = read_scope(
        write(
            tmp_path,
            '{"agent": "docs-reader", "allowed_tools": ["read_file", "search"],\n'
            ' "allowed_args": {"read_file": {"path": ["docs/**", "README.md"]}}}',
        )
    )
    calls = [
        Call(0, "read_file", {"path": "docs/guide/intro.md"}, {}, 1),
        Call(1, "read_file", {"path": "README.md"}, {}, 2),
        Call(2, "read_file", {"path": "/etc/passwd"}, {}, 3),
        Call(3, "search", {"query": "x"}, {}, 4),
    ]
    report = check_scope(calls, scope)
    assert [(f.index, f.detail) for f in report.findings] == [
        (2, "tool 'read_file' argument 'path' = \"/etc/passwd\" is outside the declared scope for agent 'docs-reader'")
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"agent": "a", "allowed_tools": ["x"], "allowed_args": []}',
            "allowed_args: must be an object, found an array",
        ),
        ('{"agent": "a", "allowed_tools": ["x"], "allowed_args": {"y": {"p": ["*"]}}}', "names 'y', which is not in"),
        ('{"agent": "a", "allowed_tools": ["x"], "allowed_args": {"x": {"p": []}}}', "must be a non-empty array"),
        (
            '{"agent": "a", "allowed_tools": ["x"], "allowed_args": {"x": ["p"]}}',
            "allowed_args.x: must be an object, found an array",
        ),
    ],
)
def test_malformed_argument_scope(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        read_scope(write(tmp_path, text))
