"""The HTML page as bytes: deterministic, small, and hostile text kept as text whatever it holds."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from bench.bench_html import large_report
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import GOLDEN
from toolreplay.canonical import JSONObject
from toolreplay.check.model import CallView, ChangeRow, CheckReport, DiffRow, DiffView, FieldView, RunView, UnitResult
from toolreplay.check.views import side_by_side
from toolreplay.diff import PairKind, diff_calls
from toolreplay.model import Call
from toolreplay.report.check_json import check_document, read_check_report
from toolreplay.report.html import render_html, run_ranges
from toolreplay.verdict import FailOn

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


def _call(tool: str, args: JSONObject, klass: str = "read-only", answered: str = "recorded") -> CallView:
    return CallView(tool, args, klass, 0, answered)


def _report(tool: str, value: str) -> CheckReport:
    """A replay of one hostile call, drawn everywhere the page draws a call: timeline, grid, diff, tables."""
    call = _call(tool, {"path": value, value: [value]}, "destructive", "stub")
    row = ChangeRow("added", tool, call.args, "destructive", 1, 1, 0, 1, 0.5, 0.5, "not shown", 1, 2, (1,), ())
    diff = DiffView(value, tool, (DiffRow("changed", call, call, (FieldView(value, value, None),)),))
    result = UnitResult(
        f"replay {value}",
        "replay",
        value,
        value,
        (),
        (row,),
        (),
        (value,),
        (call,),
        (RunView("edited", 1, value, (call,), value), RunView("unchanged", 1, value, ())),
        diff,
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
    plain = value.translate(dict.fromkeys(range(32))).translate({0x7F: None})
    if plain and plain.isprintable() and plain.isascii():
        assert plain in visible


def test_the_page_is_the_same_bytes_every_time_and_after_a_json_round_trip(tmp_path: Path) -> None:
    report = _report("delete_path", "/var/log <b>")
    first = render_html(report)
    assert render_html(report) == first
    path = tmp_path / "r.json"
    path.write_text(json.dumps(check_document(report)), encoding="utf-8")
    assert render_html(read_check_report(path)) == first


def test_the_samples_report_is_well_under_a_megabyte() -> None:
    assert len((GOLDEN / "check.html").read_bytes()) < 100_000


def test_a_100_run_500_call_report_where_every_run_differs_stays_under_5_mb() -> None:
    """The worst case for size: no two runs alike, so none are drawn once for several."""
    page = render_html(large_report(100, 500)).encode()
    assert page.count(b"<li class=") == 500 * 101  # every call drawn: 100 distinct runs and the recording
    assert len(page) < 5_000_000


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
