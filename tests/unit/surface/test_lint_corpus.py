"""The lint held to a corpus, both ways: poisoned texts of every family (the part the rules were written against,
the part they were tuned on, and a part written apart and never read while they were made), ordinary texts, and
the real surfaces of thirteen published servers, pinned. Prints the figures docs/checks.md gives, and holds them."""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from toolreplay.core.canonical import JSONObject
from toolreplay.surface.lint import LintFinding, lint_surface, lint_text
from toolreplay.surface.model import Surface, SurfaceTool
from toolreplay.surface.sources import read_surface

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "lint"
# The figures measured (docs/checks.md): what each part's cases are caught at, at least.
HELD = {
    "seen.toml": 79,
    "tuning.toml": 62,
    "tuning-2.toml": 119,
    "tuning-3.toml": 126,
    "tuning-4.toml": 48,
    "held-out.toml": 58,
    "held-out-2.toml": 27,
}
# The families each part holds: the third tuning part, written later, holds the eight behaviour families only.
FAMILIES = {"tuning-3.toml": 8}


def _cases(name: str) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = tomllib.loads((CORPUS / name).read_text(encoding="utf-8"))["case"]
    return cases


def _placed(field: str, text: str) -> JSONObject:
    """A tool holding the text where the case says: its description or title, a schema keyword, a property name."""
    value: JSONObject = {"type": "string"}
    tool: JSONObject = {"name": "probe", "description": "A tool.", "inputSchema": {"type": "object"}}
    properties: JSONObject = {"value": value}
    if field in ("description", "title"):
        tool[field] = text
    elif field in ("default", "$comment"):
        value[field] = text
    elif field in ("examples", "enum"):
        value[field] = [text]
    elif field == "property-name":
        properties = {text: value}
    else:
        raise ValueError(f"no field {field}")
    tool["inputSchema"] = {"type": "object", "properties": properties}
    return tool


def findings(case: dict[str, Any]) -> list[Any]:
    if case["field"] == "instructions":
        return list(lint_text(case["text"], kind="instructions"))
    tool = SurfaceTool("probe-server", _placed(case["field"], case["text"]), "corpus.toml", 1)
    return lint_surface(Surface("corpus.toml", (tool,)))


@pytest.mark.parametrize("part", sorted(HELD))
def test_each_part_of_the_poisoned_corpus_is_caught_at_its_figure(
    part: str, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = _cases(part)
    caught: Counter[str] = Counter()
    total: Counter[str] = Counter(case["family"] for case in cases)
    for case in cases:
        caught[case["family"]] += bool(findings(case))
    with capsys.disabled():
        print(f"\n{part}: {sum(caught.values())} of {len(cases)} caught")
        for family in total:
            print(f"  {family:<14} {caught[family]}/{total[family]}")
    assert len(total) == FAMILIES.get(part, 16)  # every family the lint is held to
    assert sum(caught.values()) >= HELD[part]


def test_no_ordinary_text_is_flagged() -> None:
    flagged = [(case["text"], findings(case)) for case in _cases("benign.toml")]
    assert len(flagged) >= 40
    assert [pair for pair in flagged if pair[1]] == []


# Ordinary texts written apart from the rules: how many there are, and the false alarms measured, held to no more.
@pytest.mark.parametrize(
    ("part", "count", "most"), [("benign-2.toml", 40, 0), ("benign-3.toml", 50, 0), ("benign-4.toml", 50, 0)]
)
def test_ordinary_texts_written_apart_are_flagged_no_more_than_measured(
    part: str, count: int, most: int, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = _cases(part)
    flagged = [case["text"] for case in cases if findings(case)]
    with capsys.disabled():
        print(f"\n{part}: {len(flagged)} of {len(cases)} flagged")
    assert len(cases) == count
    assert len(flagged) <= most, flagged


def test_no_tool_prompt_or_resource_of_thirteen_published_servers_is_flagged(
    capsys: pytest.CaptureFixture[str],
) -> None:
    locks = sorted((CORPUS / "surfaces").glob("*.lock"))
    assert len(locks) == 13
    tools = listed = 0
    found: list[LintFinding] = []
    for lock in locks:
        surface = read_surface(str(lock))
        tools += len(surface.tools)
        listed += len(surface.listed)
        found += lint_surface(surface)
    with capsys.disabled():
        print(
            f"\nreal surfaces: {len(locks)} servers, {tools} tools, {listed} prompts and resources, "
            f"{len(found)} flagged"
        )
    assert (tools, listed) == (114, 24)
    assert found == []


def test_reading_only_the_alternatives_a_text_could_match_finds_what_reading_them_all_finds() -> None:
    from toolreplay.surface.lint import _READ_RULES, _WORD, _first_match, _pattern  # noqa: PLC0415
    from toolreplay.surface.reading import views  # noqa: PLC0415

    texts = [
        case["text"]
        for part in (*HELD, "benign.toml", "benign-2.toml", "benign-3.toml", "benign-4.toml")
        for case in _cases(part)
    ]
    for lock in sorted((CORPUS / "surfaces").glob("*.lock")):
        texts += [tool.description for tool in read_surface(str(lock)).tools]
    compared = 0
    for text in texts:
        for view in views(text):
            stems = {word[:4] for word in _WORD.findall(view.text)}
            for rule in _READ_RULES:
                whole = _pattern(rule).search(view.text)
                filtered = _first_match(rule, view.text, stems)
                assert (whole is None) == (filtered is None), (rule, view.text)
                compared += 1
    assert compared > 4000
