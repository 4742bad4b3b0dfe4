"""The emitter a command hands its outcomes to, as the command line or a test provides it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from toolreplay.analysis.classify import Policy
from toolreplay.formats.rules import read_rules

if TYPE_CHECKING:
    from pathlib import Path

    from toolreplay.core.outcome import CheckReport


class Emitter(Protocol):
    """Where a command's outcomes go."""

    def show(self, outcome: object) -> None:
        """The command's report of ``outcome``, in the form asked for (text, or JSON)."""

    def say(self, text: str) -> None:
        """A line of what the command did, beside its report."""

    @property
    def wants_reports(self) -> bool:
        """Whether report files (or annotations) are asked for: a command makes a whole report only then."""

    @property
    def root(self) -> Path:
        """The repository the command runs in: reports name files from its root."""

    def write(self, report: CheckReport) -> None:
        """The report files (and annotations) asked for."""


def load_policy(rules_file: str | None, strict: bool) -> Policy:
    """The classification a command runs with: a rules file's, else the annotations' and the defaults'."""
    return read_rules(rules_file, strict) if rules_file else Policy(strict=strict)
