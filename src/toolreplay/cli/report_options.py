"""Every report kind a command can write, in one table: its option, its renderer, and writing what was asked for.

``check`` and ``merge`` write them all; ``replay``, ``compare`` and ``diff``
write the same kinds (but the check's JSON, their ``--json`` being their own)
from the same renderers, through a report of their one analysis with what the
command said of it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from toolreplay.cli.output import emit, write_workflow_commands
from toolreplay.core.canonical import json_utf8
from toolreplay.core.errors import UsageError
from toolreplay.core.files import guard_outputs, make_directories, missing_directories, repository_root, write_all
from toolreplay.core.records import record

if TYPE_CHECKING:
    from toolreplay.core.outcome import CheckReport


@record
class ReportKind:
    """A report written to a file: its format (rendered by the one registry), its option, and what ``--help`` says."""

    name: str
    option: str
    help: str

    def render(self, report: CheckReport) -> bytes:
        from toolreplay.report.registry import render  # noqa: PLC0415 - a renderer is loaded only when asked for

        return json_utf8(render(self.name, report))  # markdown and the page hold no lone surrogate; JSON escapes one


KINDS = (
    ReportKind("markdown", "--markdown", "Write the report as markdown."),
    ReportKind("sarif", "--sarif", "Write the findings as SARIF 2.1.0."),
    ReportKind("json", "--json", "Write the report as JSON (what merge reads)."),
    ReportKind(
        "html",
        "--html",
        "Write the report as one HTML page: the run grid, each run's calls, a diff (docs/html-report.md).",
    ),
)
_BY_NAME = {kind.name: kind for kind in KINDS}
ANNOTATIONS_HELP = "Also print the findings as GitHub workflow commands (ten per level at most)."

ReportFiles = dict[str, str | None]  # a report kind's name -> the file it is written to, if asked for


def report_options(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The options of the named report kinds (all by default) and ``--github-annotations``; the command gets
    ``reports=`` (each kind's file) and ``github_annotations=``."""
    chosen = [_BY_NAME[name] for name in names] if names else list(KINDS)

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)  # the options given below it stay the command's
        def command(**values: Any) -> Any:
            reports = {kind.name: values.pop(f"{kind.name}_file") for kind in chosen}
            return function(reports=reports, **values)

        wrapped: Callable[..., Any] = click.option("--github-annotations", is_flag=True, help=ANNOTATIONS_HELP)(command)
        for kind in reversed(chosen):
            wrapped = click.option(kind.option, f"{kind.name}_file", metavar="FILE", help=kind.help)(wrapped)
        return wrapped

    return decorate


def named_reports(reports: Mapping[str, str | None]) -> dict[str, str | None]:
    """Each report's file by the option that names it, as the output guard and its errors name them."""
    return {_BY_NAME[name].option: path for name, path in reports.items()}


@record
class Outputs:
    """What ``replay``, ``compare`` and ``diff`` print and write besides their text report: their own JSON in its
    place, and the report kinds of :data:`KINDS` they share with ``check``."""

    as_json: bool
    reports: ReportFiles
    github_annotations: bool

    @property
    def asked(self) -> bool:
        """Whether a report beyond the command's own is asked for."""
        return self.github_annotations or any(path is not None for path in self.reports.values())

    @property
    def root(self) -> Path:
        """The repository the command runs in: reports name files from its root, as check's do, and their
        missing directories are made inside it."""
        return repository_root(".")

    def guard(self, inputs: Iterable[str | None], others: Mapping[str, str | None] | None = None) -> None:
        """Refuse, before anything runs, a report that would overwrite an input or another output (``others``:
        the command's own, by option), or could not be written."""
        guard_reports(self.reports, inputs, self.root, others)

    def write(self, report: CheckReport) -> None:
        write_reports(report, self.reports, self.github_annotations, self.root)


def outputs_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--json`` (the command's own report, printed) and the shared report kinds; the command gets ``outputs=``."""

    @click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
    @report_options("markdown", "sarif", "html")
    @functools.wraps(function)
    def command(as_json: bool, reports: ReportFiles, github_annotations: bool, **values: Any) -> Any:
        if as_json and github_annotations:
            raise UsageError("--json and --github-annotations both print to stdout; write the JSON or the annotations")
        return function(outputs=Outputs(as_json, reports, github_annotations), **values)

    return command


def guard_reports(
    reports: Mapping[str, str | None],
    inputs: Iterable[str | None],
    root: Path | None = None,
    others: Mapping[str, str | None] | None = None,
) -> None:
    """Refuse, before anything runs, a report path that is an input, another output's path (``others``: the
    command's own outputs, by option) or a directory; with ``root``, one whose missing directories would not lie
    inside the repository (they are made there when it is written)."""
    named = named_reports(reports)
    guard_outputs({**(others or {}), **named}, inputs)
    for option, path in named.items():
        if path is not None and os.path.isdir(path):
            raise UsageError(f"{option} {path}: cannot write: it is a directory")
        if root is not None and path is not None and missing_directories(path, root) is None:
            raise UsageError(
                f"{option} {path}: cannot write: its directory does not exist, and a report's directories are made "
                f"only inside the repository ({root}), never under .git"
            )


def write_reports(
    report: CheckReport, reports: Mapping[str, str | None], github_annotations: bool, root: Path | None = None
) -> None:
    """Write every report asked for (guarded by :func:`guard_reports`) and print the annotations when asked.

    Every report is rendered before any is written, and with ``root`` each one's missing directories are made
    (inside the repository, as :func:`guard_reports` checked): a fresh checkout has no ``reports/`` yet.
    """
    rendered = [(path, [_BY_NAME[name].render(report)]) for name, path in reports.items() if path is not None]
    for target, _ in rendered:
        if root is not None:
            make_directories(target, root)
    write_all(rendered)  # every report, or none: a later one that cannot be written leaves no earlier one new
    if github_annotations:
        from toolreplay.report.registry import render  # noqa: PLC0415 - a renderer is loaded only when asked for

        write_workflow_commands(render("annotations", report))


def emit_reports(
    report: CheckReport, reports: Mapping[str, str | None], github_annotations: bool, root: Path | None = None
) -> int:
    """A check's reports: every file asked for, then the text report printed, then the annotations; the exit
    code."""
    write_reports(report, reports, False, root)
    emit(report)
    write_reports(report, {}, github_annotations)
    return report.verdict.exit_code
