"""The report options ``check`` and ``merge`` share, and writing the reports they ask for."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import click

from toolreplay.canonical import json_utf8
from toolreplay.cli.output import guard_outputs, write_text, write_workflow_commands
from toolreplay.errors import UsageError
from toolreplay.formats.files import make_directories, missing_directories, write_atomic
from toolreplay.verdict import Verdict

if TYPE_CHECKING:
    from pathlib import Path

    from toolreplay.check.model import CheckReport

HTML_HELP = "Write the report as one HTML page: the run grid, each run's calls, a diff (docs/html-report.md)."
html_option = click.option("--html", "html_file", metavar="FILE", help=HTML_HELP)


def report_options(function: Callable[..., Any]) -> Callable[..., Any]:
    options = (
        click.option(
            "--github-annotations",
            is_flag=True,
            help="Also print the findings as GitHub workflow commands (ten per level at most).",
        ),
        click.option("--json", "json_file", metavar="FILE", help="Write the report as JSON (what merge reads)."),
        click.option("--sarif", "sarif_file", metavar="FILE", help="Write the findings as SARIF 2.1.0."),
        click.option("--markdown", "markdown_file", metavar="FILE", help="Write the report as markdown."),
        html_option,
    )
    for option in options:
        function = option(function)
    return function


def guard_reports(
    markdown_file: str | None,
    sarif_file: str | None,
    json_file: str | None,
    html_file: str | None,
    inputs: Iterable[str | None],
    root: Path | None = None,
) -> None:
    """Refuse, before the check runs, a report path that is an input or another report's path; with ``root``,
    one whose missing directories would not lie inside the repository (they are made there when it is written)."""
    named = {"--markdown": markdown_file, "--sarif": sarif_file, "--json": json_file, "--html": html_file}
    guard_outputs(named, inputs)
    for option, path in named.items():
        if root is not None and path is not None and missing_directories(path, root) is None:
            raise UsageError(
                f"{option} {path}: cannot write: its directory does not exist, and a report's directories are made "
                f"only inside the repository ({root}), never under .git"
            )


def write_html(
    report: CheckReport, html_file: str | None, command: str, verdict: Verdict | None = None, why: str | None = None
) -> None:
    """Write the HTML page of ``report`` when one is asked for (with the command's own verdict, if not check's)."""
    if html_file is not None:
        write_atomic(html_file, [_page(report, command, verdict, why)])


def _page(report: CheckReport, command: str, verdict: Verdict | None = None, why: str | None = None) -> bytes:
    from toolreplay.report.html import render_html  # noqa: PLC0415 - Jinja2 only when a page is asked for

    return render_html(report, command, verdict, why).encode()


def emit_reports(
    report: CheckReport,
    markdown_file: str | None,
    sarif_file: str | None,
    json_file: str | None,
    html_file: str | None,
    github_annotations: bool,
    root: Path | None = None,
) -> int:
    """Write every report asked for (guarded by :func:`guard_reports`), print the text one, return the exit code.

    Every report is rendered before any is written, and with ``root`` each one's missing directories are made
    (inside the repository, as :func:`guard_reports` checked): a fresh checkout has no ``reports/`` yet.
    """
    from toolreplay.report.check_json import render_check_json  # noqa: PLC0415 - each renderer only when asked for
    from toolreplay.report.check_text import render_check  # noqa: PLC0415
    from toolreplay.report.github import render_annotations  # noqa: PLC0415
    from toolreplay.report.markdown import render_markdown  # noqa: PLC0415
    from toolreplay.report.sarif import render_sarif  # noqa: PLC0415

    outputs = [
        (markdown_file, render_markdown),
        (sarif_file, render_sarif),
        (json_file, render_check_json),
    ]
    # markdown has no lone surrogate left; JSON escapes it
    rendered = [(target, json_utf8(render(report))) for target, render in outputs if target is not None]
    if html_file is not None:
        rendered.append((html_file, _page(report, "check")))
    for target, data in rendered:
        if root is not None:
            make_directories(target, root)
        write_atomic(target, [data])
    write_text(render_check(report))
    if github_annotations:
        write_workflow_commands(render_annotations(report))
    return report.verdict.exit_code
