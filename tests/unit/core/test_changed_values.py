"""A changed argument too long to print whole is cut where the two values differ, in every report that shows it."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from toolreplay.core.findings import ChangeVerdict
from toolreplay.core.model import CallClass, PairKind
from toolreplay.core.outcome import Analysis, ChangeRow, CheckReport, FieldView, UnitResult
from toolreplay.core.verdict import FailOn
from toolreplay.core.wording import format_changed
from toolreplay.formats.check_report import read_check_report, render_check_json
from toolreplay.report.check_text import render_check
from toolreplay.report.markdown import render_markdown

_ELLIPSIS = "…"
_LOG = '"/var/log/ci/' + "x" * 140  # a long shared start: a plain cut at 60 would hide where they differ


def _inner(shown: str) -> str:
    """What a shortened text shows of its value, without the ellipses of its cuts."""
    return shown.removeprefix(_ELLIPSIS).removesuffix(_ELLIPSIS)


@given(
    shared=st.text(max_size=200),
    before=st.text(max_size=120),
    after=st.text(max_size=120),
    width=st.integers(min_value=40, max_value=100),
)
def test_the_first_difference_shows_in_both_at_the_same_place(shared: str, before: str, after: str, width: int) -> None:
    one, two = shared + before, shared + after
    shown = format_changed(one, two, width)
    assert all(len(text) <= width for text in shown)
    assert _inner(shown[0]) in one
    assert _inner(shown[1]) in two
    if one == two:
        assert shown[0] == shown[1]
        return
    assert shown[0] != shown[1]
    first = next((i for i, (a, b) in enumerate(zip(one, two, strict=False)) if a != b), min(len(one), len(two)))
    inner = [_inner(text) for text in shown]

    def in_view(at: int, value: str, part: str) -> bool:
        # Shown from ``at``, the part reaches past the first difference or to the value's end.
        return value.startswith(part, at) and (first < at + len(part) or at + len(part) == len(value))

    assert any(in_view(at, one, inner[0]) and in_view(at, two, inner[1]) for at in range(first + 1)), (
        "the two are not cut to one window that holds their first difference"
    )


def test_short_values_are_left_whole() -> None:
    assert format_changed('"a.txt"', '"b.txt"') == ('"a.txt"', '"b.txt"')


def test_a_difference_past_the_cut_is_shown_with_what_precedes_it() -> None:
    before, after = format_changed(_LOG + '/2026-07-01"', _LOG + '/2026-07-02"')
    assert before.startswith(_ELLIPSIS)
    assert after.startswith(_ELLIPSIS)
    assert before.endswith('2026-07-01"')
    assert after.endswith('2026-07-02"')


def _report(fields: tuple[FieldView, ...]) -> CheckReport:
    row = ChangeRow(
        kind=PairKind.CHANGED, tool="write_file", args={"path": "notes.md", "content": "x"}, klass=CallClass.WRITE,
        hits=3, runs=5, baseline_hits=None, baseline_runs=None, p=None, q=None, verdict=ChangeVerdict.CHANGED,
        behaviour=1, made_in=(1, 2, 3), fields=fields,
    )  # fmt: skip
    result = UnitResult(
        key="replay 1 s.json", analysis=Analysis.REPLAY, subject="s.json", summary="1 change", changes=(row,)
    )
    return CheckReport(None, "0" * 64, FailOn.DESTRUCTIVE, (result.key,), (result,))


def test_the_check_reports_show_each_changed_field_where_it_differs(tmp_path: Path) -> None:
    fields = (
        FieldView("content", json.dumps(_LOG + "/old"), json.dumps(_LOG + "/new")),
        FieldView("mode", None, '"a"'),
    )
    report = _report(fields)
    for text in (render_check(report), render_markdown(report)):
        assert "/old" in text, text
        assert "/new" in text, text
        assert "mode: (absent) → " in text, text
    (tmp_path / "check.json").write_text(render_check_json(report), encoding="utf-8")
    assert read_check_report(tmp_path / "check.json").results[0].changes[0].fields == fields
