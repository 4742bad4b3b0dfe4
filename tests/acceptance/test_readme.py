"""The README's and the tours' transcripts are the real output: each ``$ toolreplay ...`` block is run and compared.

A block's lines must be what the command prints, line for line, except that a
line ending in ``...`` stands for any line that begins with what comes before
it, and a line that is only ``...`` for any number of lines. Blocks that work
on files an earlier block made (``sealed.jsonl``) are left to the tests of
those commands.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

REPORTS = ("--markdown", "--sarif", "--json", "-o", "--output")
BLOCK = re.compile(r"^( *)```\n\1\$ (toolreplay .*?)^\1```", re.S | re.M)  # a block, maybe indented in a list


# The files whose transcripts are run: the README, and the tours it moved out of itself (the transcript tour is
# the auditor's own, its outputs byte for byte).
TOURS = ("README.md", "docs/transcripts.md", "docs/sessions.md", "docs/ci.md")


def transcripts() -> list[tuple[list[str], list[str]]]:
    found = []
    blocks = [b for doc in TOURS for b in BLOCK.findall((ROOT / doc).read_text(encoding="utf-8"))]
    for indent, block in blocks:
        lines = [line.removeprefix(indent) for line in block.split("\n")]
        command, rest = lines[0], lines[1:]
        while command.endswith("\\"):
            command = command[:-1] + " " + rest.pop(0).strip()
        args = shlex.split(command)[1:]
        if ">" in args or any("$ " in line[:2] for line in rest):
            continue
        inputs = [a for prev, a in zip(["", *args], args, strict=False) if prev not in REPORTS]
        if not all((ROOT / arg).exists() for arg in inputs if "/" in arg or arg.endswith((".jsonl", ".json"))):
            continue  # a file an earlier step of the tour made
        found.append((args, rest[:-1] if rest and rest[-1] == "" else rest))
    return found


def matches(expected: list[str], actual: list[str]) -> bool:
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(matches(rest, actual[skip:]) for skip in range(len(actual) + 1))
    if not actual:
        return False
    line = actual[0]
    same = line.startswith(head[:-3]) if head.endswith("...") else line == head
    return same and matches(rest, actual[1:])


CASES = transcripts()


def test_the_tour_has_transcripts_to_check() -> None:
    assert len(CASES) >= 9
    transcript_tour = (ROOT / "docs" / "transcripts.md").read_text(encoding="utf-8")
    for command in ("replay samples/session-dirty.jsonl", "scope samples/session-dirty.jsonl samples/scope.json"):
        assert f"$ toolreplay {command}\n" in transcript_tour  # the auditor's tour, still run and compared


def test_the_readme_shows_the_reports_as_they_are_and_a_config_that_reads() -> None:
    """The PR comment quoted in the README is the samples' markdown report, line for line (a line ending in
    '…' is the start of one); the config it shows uses only keys a config has."""
    import yaml  # noqa: PLC0415

    from toolreplay.formats.config.entries import REPLAY_KEYS  # noqa: PLC0415
    from toolreplay.formats.config.read import TOP_KEYS  # noqa: PLC0415

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    report = (ROOT / "tests" / "golden" / "check.md").read_text(encoding="utf-8").splitlines()
    quoted = [line.removeprefix("> ").removeprefix(">") for line in readme.splitlines() if line.startswith(">")]
    assert len(quoted) >= 5
    for line in quoted:
        if line.endswith(" …"):
            assert any(shown.startswith(line[:-2]) for shown in report), line
        else:
            assert line in report, line
    config = next(block for block in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "# .toolreplay.yml" in block)
    document = yaml.safe_load(config)
    assert set(document) <= set(TOP_KEYS)
    assert set(document["replay"]) <= set(REPLAY_KEYS)


@pytest.mark.parametrize(("args", "expected"), CASES, ids=[" ".join(a[:2]) for a, _ in CASES])
def test_a_readme_transcript_is_the_real_output(args: list[str], expected: list[str], tmp_path: Path) -> None:
    # reports the command writes go to a scratch directory, not into the repository
    given = [str(tmp_path / Path(a).name) if prev in REPORTS else a for prev, a in zip(["", *args], args, strict=False)]
    result = run_cli(*given, cwd=ROOT)
    # the outputs' scratch paths read as the README names them
    shown = result.stdout
    for prev, arg in zip(["", *args], args, strict=False):
        if prev in REPORTS:
            shown = shown.replace(str(tmp_path / Path(arg).name), arg)
    assert matches(expected, shown.splitlines()), result.stdout


def test_the_matching_is_strict_where_the_readme_is() -> None:
    assert matches(["a: ...", "...", "z"], ["a: 1", "b", "c", "z"])
    assert not matches(["a: 1"], ["a: 2"])
    assert not matches(["a", "..."], ["b", "c"])
    assert not matches(["a"], ["a", "extra line"])
