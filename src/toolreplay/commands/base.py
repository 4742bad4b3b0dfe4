"""The emitter a command hands its outcomes to (nowhere, by default), and the policy a command classifies with."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from toolreplay.analysis.classify import Policy
from toolreplay.core.files import repository_root
from toolreplay.formats.rules import read_rules

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from toolreplay.core.outcome import CheckReport


class Emitter:
    """Where a command's outcomes go: by default nowhere (a caller that keeps the outcomes itself overrides
    :meth:`show`), and no report, JSON or runs asked for. The command line's is ``toolreplay.cli.emitter.Printer``."""

    def show(self, outcome: object) -> None:
        """The command's report of ``outcome``, in the form asked for (text, or JSON)."""
        return

    def stream(self, outcome: object) -> None:
        """The command's text report of ``outcome``, printed a batch at a time as it is made (``show``)."""
        return

    def say(self, text: str) -> None:
        """A line of what the command did, beside its report."""
        return

    @property
    def wants_reports(self) -> bool:
        """Whether report files (or annotations) are asked for: a command makes a whole report only then."""
        return False

    @property
    def root(self) -> Path:
        """The repository the command runs in: reports name files from its root."""
        return repository_root(".")

    def write(self, report: CheckReport) -> None:
        """The report files (and annotations) asked for, of a command whose report is one analysis."""
        return

    def report(self, report: CheckReport, root: Path | None = None) -> None:
        """A check's whole report: the files asked for (their missing directories made inside ``root``, the
        check's repository), then its text, then its annotations."""
        return

    def guard(self, inputs: Iterable[str | None], root: Path | None = None) -> None:
        """Refuse, before anything runs, an output that would overwrite one of ``inputs`` or could not be written
        (with ``root``, one whose missing directories would lie outside it)."""
        return

    def default_report(self, name: str, path: str | None) -> None:
        """A report file the command's input names (a config's ``html:``), written where none was asked for."""
        return

    @property
    def wants_json(self) -> bool:
        """Whether the report is printed as JSON."""
        return False

    @property
    def wants_runs(self) -> bool:
        """Whether every run's calls are asked for (``replay --runs-out``)."""
        return False

    def runs(self, outcome: object) -> None:
        """Every run's calls, where asked for."""
        return

    def note(self, text: str) -> None:
        """A line on stderr of what the command did: ``toolreplay: TEXT``."""
        return

    def warn(self, text: str) -> None:
        """A line on stderr the user should know: never a failure."""
        return


def load_policy(rules_file: str | None, strict: bool, policies_file: str | None = None) -> Policy:
    """The classification a command runs with (a rules file's, else the annotations' and the defaults'), and the
    policies over its calls a policy file states."""
    policy = read_rules(rules_file, strict) if rules_file else Policy(strict=strict)
    if policies_file:
        from toolreplay.formats.policies import read_policies  # noqa: PLC0415 - only a command given policies

        policy = replace(policy, policies=read_policies(policies_file))
    return policy


class Quiet(Emitter):
    """An emitter that prints nothing and asks for no report: for a caller that keeps the outcomes itself."""
