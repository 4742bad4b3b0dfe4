"""Every reader names the line of the offending value: its first, a middle and its last value, in each format.

Each case takes a valid document, spoils one value with a marker the rest of
the document does not contain, and expects the error at the line that marker
is written on.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GOLDEN, SAMPLES
from toolreplay.core.errors import InputError
from toolreplay.formats.check_report import read_check_report
from toolreplay.formats.config.read import read_config
from toolreplay.formats.recording import load_session, read_links
from toolreplay.formats.rules import read_rules
from toolreplay.formats.scope import read_scope
from toolreplay.formats.stubs import read_stubs
from toolreplay.formats.transcript import iter_transcript

MARK = "SPOILED-9137"


def line_of_mark(text: str) -> int:
    (line,) = [number for number, line in enumerate(text.splitlines(), start=1) if MARK in line]
    return line


def read_whole(read: Callable[[Path], object], path: Path) -> None:
    result = read(path)
    if isinstance(result, Iterator):
        list(result)  # streaming readers fail as they go


def refused_at(read: Callable[[Path], object], path: Path) -> int | None:
    with pytest.raises(InputError) as caught:
        read_whole(read, path)
    assert caught.value.path == str(path)
    return caught.value.line


def spoil(doc: Any, where: tuple[str | int, ...], value: Any = MARK) -> Any:
    copy = json.loads(json.dumps(doc))
    target = copy
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    return copy


# JSON documents: (file to start from, reader, [paths of the first, a middle and the last value]).
SESSION_DOC = json.loads((SAMPLES / "ops" / "session.json").read_text())
JSON_CASES: dict[str, tuple[Any, Callable[[Path], object], list[tuple[str | int, ...]]]] = {
    "session": (
        SESSION_DOC,
        load_session,
        [("format",), ("messages", 3, "content", 0, "input"), ("final_reply",)],
    ),
    "scope": (
        {
            "agent": "a",
            "allowed_tools": ["read_file", "list_dir", "search"],
            "allowed_args": {"read_file": {"p": ["x"]}},
        },
        read_scope,
        [("agent",), ("allowed_tools", 1), ("allowed_args", "read_file", "p")],
    ),
    "stubs": (
        {
            "stubs": [
                {"tool": "a", "result": 1},
                {"tool": "b", "args": {"p": 1}, "result": 2},
                {"tool": "c", "result": 3, "is_error": True},
            ]
        },
        read_stubs,
        [("stubs", 0, "tool"), ("stubs", 1, "args"), ("stubs", 2, "is_error")],
    ),
    "shard report": (
        json.loads((GOLDEN / "check.json").read_text()),
        read_check_report,
        [("config_digest",), ("results", 10, "runs", 3, "calls", 2, "line"), ("shard",)],
    ),
}
# Non-string values where a string is needed, and strings where something else is.
WRONG = {str: 404040, int: MARK, bool: MARK, list: MARK, dict: MARK}


@pytest.mark.parametrize("kind", JSON_CASES)
@pytest.mark.parametrize("which", [0, 1, 2], ids=["first", "middle", "last"])
def test_json_readers(tmp_path: Path, kind: str, which: int) -> None:
    doc, read, places = JSON_CASES[kind]
    where = places[which]
    original: Any = doc
    for step in where:
        original = original[step]
    bad = WRONG.get(type(original), MARK)
    path = tmp_path / "doc.json"
    text = json.dumps(spoil(doc, where, bad), indent=2)
    path.write_text(text)
    marker = MARK if bad == MARK else str(bad)
    expected = [n for n, line in enumerate(text.splitlines(), start=1) if marker in line]
    assert refused_at(read, path) == expected[0]


@pytest.mark.parametrize("which", [0, 1, 2], ids=["first", "middle", "last"])
def test_transcripts(tmp_path: Path, which: int) -> None:
    lines = (SAMPLES / "session-clean.jsonl").read_text().splitlines()
    lines[[0, len(lines) // 2, -1][which]] = '{"index": 0, "tool": 7, "args": {}, "response": {}}'
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert refused_at(iter_transcript, path) == [1, len(lines) // 2 + 1, len(lines)][which]


@pytest.mark.parametrize("which", [0, 1, 2], ids=["first", "middle", "last"])
def test_sealed_files(tmp_path: Path, which: int) -> None:
    lines = (GOLDEN / "seal-dirty.jsonl").read_text().splitlines()
    spoilt = [0, len(lines) // 2, len(lines) - 1][which]
    record = json.loads(lines[spoilt])
    record["digest"] = "not hex"
    lines[spoilt] = json.dumps(record)
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert refused_at(lambda p: read_links(str(p))[0], path) == spoilt + 1


def test_a_torn_last_line_is_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"index": 0, "tool": "t", "args": {}, "response": {}}\n{"index": 1, "tool": "t",\n')
    assert refused_at(iter_transcript, path) == 2


RULES = """\
# classification
[[rules]]
tool = "read_*"
class = "read-only"

[[rules]]
tool = "http_request"
args = { method = "DELETE" }
class = "destructive"

[matching]
ignore = ["timestamp", "request_id"]
"""


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('tool = "read_*"', "tool = 3  # SPOILED-9137"),
        ('args = { method = "DELETE" }', "args = { method = [1] }  # SPOILED-9137"),
        ('ignore = ["timestamp", "request_id"]', 'ignore = [\n  "timestamp",\n  5,  # SPOILED-9137\n]'),
    ],
    ids=["first", "middle", "last"],
)
def test_rules(tmp_path: Path, before: str, after: str) -> None:
    text = RULES.replace(before, after)
    path = tmp_path / "rules.toml"
    path.write_text(text)
    assert refused_at(read_rules, path) == line_of_mark(text)


CONFIG = """\
sessions: session.json
strict: false
replay:
  system: prompt.txt
  repeat: 3
compare:
  recorded: session.json
  candidates: candidate.json
  baseline: baseline.json
  alpha: 0.1
"""


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("sessions: session.json", "sessions: 12  # SPOILED-9137"),
        ("repeat: 3", "repeat: three  # SPOILED-9137"),
        ("alpha: 0.1", "alpha: .inf  # SPOILED-9137"),
    ],
    ids=["first", "middle", "last"],
)
def test_config(tmp_path: Path, before: str, after: str) -> None:
    for name in ("session.json", "candidate.json", "baseline.json"):  # three roles, three sessions
        shutil.copy(SAMPLES / "ops" / "session.json", tmp_path / name)
    shutil.copy(SAMPLES / "ops" / "prompt-v2.txt", tmp_path / "prompt.txt")
    text = CONFIG.replace(before, after)
    path = tmp_path / ".toolreplay.yml"
    path.write_text(text)
    assert refused_at(lambda p: read_config(str(p)), path) == line_of_mark(text)


def test_a_duplicate_key_is_named_at_its_second_value(tmp_path: Path) -> None:
    path = tmp_path / "scope.json"
    path.write_text('{\n  "agent": "a",\n  "allowed_tools": [],\n  "agent": "b"\n}\n')
    assert refused_at(read_scope, path) == 4


def test_nan_is_named_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "stubs.json"
    path.write_text('{"stubs": [\n  {"tool": "a", "result": 1},\n  {"tool": "b", "result": NaN}\n]}\n')
    assert refused_at(read_stubs, path) == 3
