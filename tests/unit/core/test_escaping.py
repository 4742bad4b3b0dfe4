"""Text from a recording is hostile wherever it is shown: a property test over every renderer.

Arbitrary strings stand in for tool names, argument keys and values, file
names and finding messages. Whatever they hold:
- a terminal report gets no control character or escape sequence, and keeps its line count;
- no line of any report a GitHub runner reads starts a workflow command but the annotations' own;
- the markdown report, rendered by a GFM parser, keeps its table rows, opens no HTML, mentions no one
  and never holds the sticky comment's marker;
- SARIF stays valid JSON with one-line messages.
"""

from __future__ import annotations

import json
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolreplay.analysis.audit import AuditReport
from toolreplay.core.escape import (
    for_html,
    for_markdown,
    for_terminal,
    json_for_terminal,
    markdown_code,
    one_line,
    workflow_data,
    workflow_property,
)
from toolreplay.core.findings import ChangeVerdict, Rule
from toolreplay.core.model import Call, CallClass, Finding, FindingKind, Origin, PairKind, Session
from toolreplay.core.outcome import Analysis, ChangeRow, CheckFinding, CheckReport, Location, UnitResult, UnrecordedRow
from toolreplay.core.verdict import FailOn
from toolreplay.report.check_text import render_check
from toolreplay.report.github import render_annotations
from toolreplay.report.markdown import render_markdown
from toolreplay.report.sarif import render_sarif
from toolreplay.report.text import render_audit, render_show

MARKER = "<!-- toolreplay-check -->"
ATTACKS = [
    "\n::error::forged",
    "\r::stop-commands::x",
    "x\r\n::warning file=a::b",
    "\x1b[2J\x1b[31mred",
    "\x9b31m",
    "| broken | row |",
    "<!-- toolreplay-check -->",
    "<img src=x onerror=alert(1)>",
    "<details><summary>",
    "@octocat and @org/team",
    "[click](https://example.com)",
    "``` ` `` `",
    "\u2028::error::x",
    "\\|",
    "**bold** _em_ ~~s~~",
    "  ::error::indented",
    "\u3000\t::add-mask::wide space",
    "text then ##[error]the first form, anywhere in a line",
    ":",
    "/var/log/ci\u200b",
    "delete\u202eevil",
    "rm\U000e0020\U000e002d\U000e0072\U000e0066",
    "\ufeffsoft\u00adhyphen\u2060joiner\u200dzwj",
]
hostile = st.one_of(st.sampled_from(ATTACKS), st.text(max_size=40))


def obeyed(text: str) -> list[str]:
    """The lines of ``text`` a GitHub runner would take for a workflow command: ``::`` once leading whitespace
    is trimmed, or ``##[`` anywhere."""
    return [line for line in text.split("\n") if line.lstrip().startswith("::") or "##[" in line]


# Terminal control characters (C0 but newline, DEL, C1), and what changes how text reads without being seen
# (bidirectional controls, zero-width and other invisible format characters, tags); a report's own newlines end
# its lines.
INVISIBLE = "\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f"
CONTROL = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{INVISIBLE}]")


def report_from(texts: list[str]) -> CheckReport:
    name, tool, key, value, message = (texts + [""] * 5)[:5]
    findings = tuple(
        CheckFinding(
            rule=rule,
            message=f"{message} {tool}",
            location=Location(f"{name}.jsonl", 3),
            related=(Location(name, 1),),
            fingerprint="0" * 32,
        )
        for rule in (Rule.DESTRUCTIVE_CALL, Rule.NON_DETERMINISM, Rule.REDUNDANT_CALL)
    )
    destructive = CallClass.DESTRUCTIVE
    changes = (
        ChangeRow(PairKind.ADDED, tool, {key: value}, destructive, 2, 4, 0, 4, 0.2, 0.3, ChangeVerdict.DESTRUCTIVE, 1),
    )
    unrecorded = (UnrecordedRow(tool, {key: value}, CallClass.WRITE, 1, 4, Origin.STUB),)
    result = UnitResult(
        key=f"replay 1 {name}",
        analysis=Analysis.REPLAY,
        subject=name,
        summary=f"summary {message}",
        findings=findings,
        changes=changes,
        unrecorded=unrecorded,
    )
    return CheckReport(name, "0" * 64, FailOn.DESTRUCTIVE, (result.key,), (result,))


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(hostile, min_size=5, max_size=5))
def test_the_check_reports_hold_under_any_text(texts: list[str]) -> None:
    report = report_from(texts)
    text = render_check(report)
    assert not CONTROL.search(text)
    assert text.count("\n") == len(render_check(report_from(["a"] * 5)).splitlines())
    assert not obeyed(text)

    annotations = render_annotations(report).splitlines()
    assert len(annotations) == 3
    assert all(
        re.match(r"::(error|warning|notice) file=[^:]*,line=3,title=toolreplay [a-z-]+::", a) for a in annotations
    )
    assert not any(CONTROL.search(a.replace("\t", " ")) for a in annotations)  # a tab is only a tab

    markdown = render_markdown(report)
    assert MARKER not in markdown
    html = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    # A bare URL is autolinked as GitHub does anywhere; it shows its own address, so it is no disguised link.
    visible = re.sub(r'<a href="([^"]*)">\1</a>', "", html)
    tags = set(re.findall(r"<([a-zA-Z!][a-zA-Z0-9-]*)", visible))
    assert tags <= {"h2", "h3", "p", "strong", "em", "table", "thead", "tbody", "tr", "th", "td", "code"}, tags
    # Findings, changes, unrecorded calls and analyses: one header and its rows each, plus the counts table.
    assert html.count("<tr>") == (1 + 3) + (1 + 3) + (1 + 1) + (1 + 1) + (1 + 1)
    assert not re.search(r"@[A-Za-z0-9]", re.sub(r"<code>.*?</code>", "", html, flags=re.DOTALL))

    sarif = json.loads(render_sarif(report))
    for result in sarif["runs"][0]["results"]:
        assert not CONTROL.search(result["message"]["text"])


@settings(max_examples=150, deadline=None)
@given(hostile, hostile, hostile)
def test_the_terminal_reports_hold_under_any_text(tool: str, key: str, path: str) -> None:
    calls = (Call(0, tool, {key: tool}, {"r": key}, 1), Call(1, tool, {key: tool}, {"r": path}, 2))
    show = render_show(Session(path, calls), ["read-only", "unknown"])
    assert not CONTROL.search(show)
    assert show.count("\n") == 3
    finding = Finding(1, FindingKind.NON_DETERMINISM, f"tool '{tool}' returned {key}", 2)
    audit = render_audit(AuditReport(2, 1, (finding,)))
    assert not CONTROL.search(audit)
    assert audit.count("\n") == 4
    assert not obeyed(show + audit)


@pytest.mark.parametrize("attack", ATTACKS)
def test_each_escape_on_its_own(attack: str) -> None:
    for escaped in (one_line(attack), for_terminal(attack), for_html(attack), json_for_terminal(json.dumps(attack))):
        assert not re.search(f"[{INVISIBLE}]", escaped)  # nothing that reads differently from what it is
    assert json.loads(json_for_terminal(json.dumps(attack, ensure_ascii=False))) == attack
    assert "\n" not in one_line(attack)
    assert not obeyed(one_line(attack))
    assert "\x1b" not in for_terminal(attack)
    assert not obeyed(for_terminal(attack))
    assert "\n" not in workflow_data(attack)
    assert "\r" not in workflow_data(attack)
    cell = f"| {for_markdown(attack)} | {markdown_code(attack)} |"
    html = cmarkgfm.github_flavored_markdown_to_html(
        f"| a | b |\n|---|---|\n{cell}\n", options=Options.CMARK_OPT_UNSAFE
    )
    assert html.count("<td>") == 2
    for opened in ("<img", "<!--", "<details"):
        assert opened not in html


def test_workflow_fields_encode_only_what_the_runner_decodes() -> None:
    """A command's data and properties are read after the command is parsed: no backslash is added to them."""
    assert workflow_property("::error::a,b.jsonl") == "%3A%3Aerror%3A%3Aa%2Cb.jsonl"
    assert workflow_data("##[error] 100%\nnext") == "##[error] 100%25%0Anext"
