"""The emitter a command hands its outcomes to, as the command line or a test provides it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from toolreplay.analysis.classify import Policy
from toolreplay.formats.rules import read_rules

if TYPE_CHECKING:
    from collections.abc import Iterable
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
        """The report files (and annotations) asked for, of a command whose report is one analysis."""

    def report(self, report: CheckReport) -> None:
        """A check's whole report: the files asked for, then its text, then its annotations."""

    def guard(self, inputs: Iterable[str | None], root: Path | None = None) -> None:
        """Refuse, before anything runs, an output that would overwrite one of ``inputs`` or could not be written
        (with ``root``, one whose missing directories would lie outside it)."""

    def default_report(self, name: str, path: str | None) -> None:
        """A report file the command's input names (a config's ``html:``), written where none was asked for."""

    @property
    def wants_json(self) -> bool:
        """Whether the report is printed as JSON."""

    @property
    def wants_runs(self) -> bool:
        """Whether every run's calls are asked for (``replay --runs-out``)."""

    def runs(self, outcome: object) -> None:
        """Every run's calls, where asked for."""

    def note(self, text: str) -> None:
        """A line on stderr of what the command did: ``toolreplay: TEXT``."""

    def warn(self, text: str) -> None:
        """A line on stderr the user should know: never a failure."""


def load_policy(rules_file: str | None, strict: bool) -> Policy:
    """The classification a command runs with: a rules file's, else the annotations' and the defaults'."""
    return read_rules(rules_file, strict) if rules_file else Policy(strict=strict)


class Quiet:
    """An emitter that prints nothing and asks for no report: for a caller that keeps the outcomes itself."""

    def show(self, outcome: object) -> None:
        return None

    def say(self, text: str) -> None:
        return None

    def note(self, text: str) -> None:
        return None

    def warn(self, text: str) -> None:
        return None

    @property
    def wants_json(self) -> bool:
        return False

    @property
    def wants_reports(self) -> bool:
        return False

    @property
    def wants_runs(self) -> bool:
        return False

    @property
    def root(self) -> Path:
        from toolreplay.core.files import repository_root  # noqa: PLC0415

        return repository_root(".")

    def guard(self, inputs: Iterable[str | None], root: Path | None = None) -> None:
        return None

    def default_report(self, name: str, path: str | None) -> None:
        return None

    def write(self, report: CheckReport) -> None:
        return None

    def report(self, report: CheckReport) -> None:
        return None

    def runs(self, outcome: object) -> None:
        return None
