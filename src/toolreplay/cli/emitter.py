"""The one emitter of the command line: each outcome a command hands over is rendered by the registry to stdout (as
text, or as JSON where asked), and the report files asked for are written."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolreplay.cli.output import emit, write_text
from toolreplay.core.files import repository_root

if TYPE_CHECKING:
    from pathlib import Path

    from toolreplay.cli.report_options import Outputs
    from toolreplay.core.outcome import CheckReport


class Printer:
    """Prints each outcome; with ``outputs``, writes the report files and annotations they ask for."""

    def __init__(self, as_json: bool = False, outputs: Outputs | None = None) -> None:
        self.as_json = as_json if outputs is None else outputs.as_json
        self.outputs = outputs

    def show(self, outcome: object) -> None:
        emit(outcome, self.as_json)

    def say(self, text: str) -> None:
        write_text(text)

    @property
    def wants_reports(self) -> bool:
        return self.outputs is not None and self.outputs.asked

    @property
    def root(self) -> Path:
        return self.outputs.root if self.outputs is not None else repository_root(".")

    def write(self, report: CheckReport) -> None:
        if self.outputs is not None:
            self.outputs.write(report)
