"""The one emitter of the command line: each outcome a command hands over is rendered by the registry to stdout (as
text, or as JSON where asked), and the report files asked for are written."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from toolreplay.cli.output import emit, emit_stream, warn, write_lines, write_text
from toolreplay.cli.report_options import Outputs, emit_reports, guard_reports
from toolreplay.commands.base import Emitter
from toolreplay.core.escape import one_line
from toolreplay.core.files import guard_outputs, repository_root

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from toolreplay.core.outcome import CheckReport


class Printer(Emitter):
    """Prints each outcome; with ``outputs``, writes the report files and annotations they ask for; with
    ``runs_out``, every run's calls. A report's missing directories must lie inside the repository: checked on
    every guard (``replay``, ``compare``, ``diff``), or (``whole``: ``check``) where the command names the root."""

    def __init__(
        self, as_json: bool = False, outputs: Outputs | None = None, runs_out: str | None = None, whole: bool = False
    ) -> None:
        self.as_json = as_json if outputs is None else outputs.as_json
        self.outputs = outputs
        self.runs_out = runs_out
        self.whole = whole

    def show(self, outcome: object) -> None:
        emit(outcome, self.as_json)

    def stream(self, outcome: object) -> None:
        emit_stream(outcome)

    def say(self, text: str) -> None:
        write_text(text)

    def note(self, text: str) -> None:
        click.echo(f"toolreplay: {one_line(text)}", err=True)

    def warn(self, text: str) -> None:
        warn(text)

    @property
    def wants_json(self) -> bool:
        return self.as_json

    @property
    def wants_reports(self) -> bool:
        return self.outputs is not None and self.outputs.asked

    @property
    def wants_runs(self) -> bool:
        return self.runs_out is not None

    @property
    def root(self) -> Path:
        return self.outputs.root if self.outputs is not None else repository_root(".")

    def guard(self, inputs: Iterable[str | None], root: Path | None = None) -> None:
        others = {"--runs-out": self.runs_out} if self.runs_out is not None else None
        if self.outputs is not None:
            inside = root if root is not None or self.whole else self.outputs.root
            guard_reports(self.outputs.reports, inputs, inside, others)
        elif others:
            guard_outputs(others, inputs)

    def default_report(self, name: str, path: str | None) -> None:
        if self.outputs is not None:  # an empty name on the command line is none given, as it always was
            self.outputs.reports[name] = self.outputs.reports.get(name) or path

    def write(self, report: CheckReport) -> None:
        if self.outputs is not None:
            self.outputs.write(report)

    def report(self, report: CheckReport, root: Path | None = None) -> None:
        outputs = self.outputs or Outputs(False, {}, False)
        emit_reports(report, outputs.reports, outputs.github_annotations, root if root is not None else self.root)

    def runs(self, outcome: object) -> None:
        if self.runs_out is None:
            return
        from toolreplay.report.registry import render  # noqa: PLC0415 - only when the runs are asked for

        text = render("runs", outcome)
        write_lines((line.encode("utf-8") for line in text.split("\n")[:-1]), self.runs_out)
