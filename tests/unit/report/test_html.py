"""The HTML page as bytes: deterministic, small, and hostile text kept as text whatever it holds."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from bench.bench_html import large_report
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import GOLDEN
from toolreplay.analysis.diff import diff_calls
from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import InputError
from toolreplay.core.findings import ChangeVerdict
from toolreplay.core.model import Call, CallClass, Origin, PairKind
from toolreplay.core.outcome import (
    Analysis,
    CallView,
    ChangeRow,
    CheckReport,
    DiffRow,
    DiffView,
    FieldView,
    RunView,
    Side,
    UnitResult,
)
from toolreplay.core.verdict import FailOn
from toolreplay.formats.check_report import check_document, read_check_report, results_digest
from toolreplay.report.html import render_html, run_ranges
from toolreplay.results.views import side_by_side

# Every tag and attribute the template writes: anything else in a page came from a recording.
TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "strong", "span", "main",
    "section", "div", "table", "thead", "tbody", "tr", "th", "td", "code", "br", "ol", "li", "ul",
}  # fmt: skip
ATTRIBUTES = {
    "lang", "charset", "http-equiv", "content", "name", "class", "id", "aria-labelledby", "aria-label",
    "aria-hidden", "tabindex", "role", "title", "scope", "rowspan", "colspan", "data-class",
}  # fmt: skip


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)
        self.text.extend(value or "" for _, value in attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _call(
    tool: str, args: JSONObject, klass: CallClass = CallClass.READ_ONLY, answered: Origin = Origin.RECORDED
) -> CallView:
    return CallView(tool, args, klass, 0, answered)


def _report(tool: str, value: str) -> CheckReport:
    """A replay of one hostile call, drawn everywhere the page draws a call: timeline, grid, diff, tables."""
    call = _call(tool, {"path": value, value: [value]}, CallClass.DESTRUCTIVE, Origin.STUB)
    row = ChangeRow(
        PairKind.ADDED,
        tool,
        call.args,
        CallClass.DESTRUCTIVE,
        1,
        1,
        0,
        1,
        0.5,
        0.5,
        ChangeVerdict.NOT_SHOWN,
        1,
        2,
        (1,),
    )
    diff = DiffView(value, tool, (DiffRow(PairKind.CHANGED, call, call, (FieldView(value, value, None),)),))
    result = UnitResult(
        key=f"replay {value}",
        analysis=Analysis.REPLAY,
        subject=value,
        summary=value,
        inputs=(value,),
        changes=(row,),
        recording=(call,),
        runs=(RunView(Side.EDITED, 1, value, value, (call,)), RunView(Side.UNCHANGED, 1, value, "", ())),
        diff=diff,
    )
    return CheckReport(value, "", FailOn.DESTRUCTIVE, (result.key,), (result,))


@given(st.text(), st.text())
def test_any_text_from_a_recording_stays_text(tool: str, value: str) -> None:
    """Markup, quotes, controls, bidi overrides, lone surrogates: the page encodes, and parses into the
    template's own tags and attributes only, with the text there to read."""
    page = render_html(_report(tool, value))
    data = page.encode("utf-8")  # a lone surrogate is written out, never an encoding error
    parsed = _Tags()
    parsed.feed(data.decode("utf-8"))
    assert parsed.tags <= TAGS
    assert parsed.attributes <= ATTRIBUTES
    for char in ("\x00", "\x1b", "\u202e", "\u2066"):
        assert char not in page
    visible = "".join(parsed.text)
    # Controls are written out (as \x1f, say), so each printable stretch between them is there to read as is.
    for stretch in re.split(r"[\x00-\x1f\x7f]", value):
        if stretch and stretch.isprintable() and stretch.isascii():
            assert stretch in visible


def test_the_page_is_the_same_bytes_every_time_and_after_a_json_round_trip(tmp_path: Path) -> None:
    report = _report("delete_path", "/var/log <b>")
    first = render_html(report)
    assert render_html(report) == first
    path = tmp_path / "r.json"
    path.write_text(json.dumps(check_document(report)), encoding="utf-8")
    assert render_html(read_check_report(path)) == first


def test_the_samples_report_is_well_under_a_megabyte() -> None:
    assert len((GOLDEN / "check.html").read_bytes()) < 100_000


@pytest.mark.parametrize("note", [0, 100])
def test_a_100_run_500_call_report_where_every_run_differs_stays_under_5_mb(note: int) -> None:
    """The worst case for size: no two runs alike, so none are drawn once for several. However long the
    arguments (and full of characters that escape to five bytes), the runs' hover text is cut to fit; the
    recording's keeps its full length."""
    page = render_html(large_report(100, 500, note))
    assert page.count("<li class=") == 500 * 101  # every call drawn: 100 distinct runs and the recording
    assert len(page.encode()) < 5_000_000
    lines = page.split('<ol class="tl"')[1:]
    assert len(lines) == 101
    assert all(line.count("…") == 500 for line in lines[1:])  # every run's hover text cut to fit
    assert "…" not in lines[0] if not note else len(lines[0]) > 2 * len(lines[1])  # the recording: up to 300 bytes


def test_run_numbers_read_as_ranges() -> None:
    assert run_ranges([5, 1, 2, 3, 9, 11, 10]) == "1-3, 5, 9-11"
    assert run_ranges([4]) == "4"
    assert run_ranges([]) == ""


def test_a_call_only_a_made_sits_after_the_row_of_as_call_before_it() -> None:
    def calls(*names: str) -> list[Call]:
        return [Call(i, name, {}, None, i + 1) for i, name in enumerate(names)]

    pairs = diff_calls(calls("a", "x", "b", "y", "c"), calls("a", "b", "new", "c"))
    order = [(p.kind, p.a.tool if p.a else None, p.b.tool if p.b else None) for p in side_by_side(pairs)]
    assert order == [
        (PairKind.SAME, "a", "a"),
        (PairKind.REMOVED, "x", None),
        (PairKind.SAME, "b", "b"),
        (PairKind.REMOVED, "y", None),
        (PairKind.ADDED, None, "new"),
        (PairKind.SAME, "c", "c"),
    ]


def _replay_result(doc: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in doc["results"] if r["analysis"] == "replay")
    return found


FORGED: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("negative baseline", lambda d: _replay_result(d)["changes"][0].update(baseline_hits=-5), "between 0 and"),
    ("more hits than runs", lambda d: _replay_result(d)["changes"][0].update(hits=99), "at most runs"),
    ("made_in not the hits", lambda d: _replay_result(d)["changes"][0].update(made_in=[1, 3]), "must name the 9"),
    ("a run it lacks", lambda d: _replay_result(d)["changes"][4].update(made_in=[1, 2, 6, 8, 17, 500]), "run 500"),
    ("a run twice", lambda d: _replay_result(d)["runs"].append(_replay_result(d)["runs"][0]), "appears twice"),
    ("a huge turn", lambda d: _replay_result(d)["changes"][0].update(turn=10**30), "between 1 and"),
    ("an empty diff row", lambda d: _replay_result(d)["diff"]["rows"][0].update(a=None, b=None), "one side"),
    ("a unit twice", lambda d: d["units"].append(d["units"][0]), "appears twice in the check's units"),
]


@pytest.mark.parametrize(("name", "forge", "expected"), FORGED, ids=[case[0] for case in FORGED])
def test_a_report_that_cannot_be_true_is_refused_even_with_its_digest_redone(
    tmp_path: Path, name: str, forge: Callable[[dict[str, Any]], None], expected: str
) -> None:
    doc = json.loads((GOLDEN / "check.json").read_text(encoding="utf-8"))
    forge(doc)
    doc["results_digest"] = results_digest(doc)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    with pytest.raises(InputError, match=expected):
        read_check_report(path)
