"""The command line's one emitter: each outcome printed through the registry, made safe for a terminal; the report
files guarded against the inputs before anything runs; notes and warnings on stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolreplay.analysis.audit import AuditReport
from toolreplay.cli.emitter import Printer
from toolreplay.cli.output import emit, write_json
from toolreplay.cli.report_options import KINDS, Outputs, named_reports
from toolreplay.core.errors import UsageError
from toolreplay.results.shown import FileAudit
from toolreplay.results.tools import LintShown


def test_an_outcome_is_printed_as_text_made_safe(capsys: pytest.CaptureFixture[str]) -> None:
    Printer().show(FileAudit("a\x1b[2Jb.jsonl", AuditReport(0, None, ()), 0, 2))
    printed = capsys.readouterr().out
    assert "\x1b" not in printed
    assert printed.startswith("== a")
    emit(LintShown(()))
    assert capsys.readouterr().out == "tools lint: nothing found\n"
    write_json('{"said": "\\u001b[31m"}\n')
    assert capsys.readouterr().out == '{"said": "\\u001b[31m"}\n'


def test_notes_and_warnings_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    printer = Printer()
    printer.note("kept 2 run directories")
    printer.warn("skipped a FIFO")
    assert capsys.readouterr().err == "toolreplay: kept 2 run directories\ntoolreplay: warning: skipped a FIFO\n"


def test_a_report_over_an_input_is_refused_before_anything_runs(tmp_path: Path) -> None:
    recording = tmp_path / "s.json"
    recording.write_text("{}")
    printer = Printer(outputs=Outputs(False, {"markdown": str(recording), "sarif": None, "html": None}, False))
    assert printer.wants_reports
    with pytest.raises(UsageError, match="--markdown"):
        printer.guard([str(recording)], tmp_path)
    with pytest.raises(UsageError, match="--runs-out"):
        Printer(runs_out=str(recording)).guard([str(recording)])


def test_a_configs_html_is_written_only_where_the_command_line_named_none() -> None:
    reports: dict[str, str | None] = {kind.name: None for kind in KINDS}
    printer = Printer(outputs=Outputs(False, reports, False), whole=True)
    printer.default_report("html", "from-config.html")
    printer.default_report("html", "second.html")
    assert reports["html"] == "from-config.html"
    assert named_reports(reports)["--html"] == "from-config.html"


def test_an_empty_html_on_the_command_line_is_none_given() -> None:
    reports: dict[str, str | None] = {kind.name: None for kind in KINDS}
    reports["html"] = ""
    printer = Printer(outputs=Outputs(False, reports, False), whole=True)
    printer.default_report("html", None)
    assert reports["html"] is None  # ignored, as check always ignored it
    reports["html"] = ""
    printer.default_report("html", "from-config.html")
    assert reports["html"] == "from-config.html"
