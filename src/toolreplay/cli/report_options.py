"""The report options ``check`` and ``merge`` share, and writing the reports they ask for."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import click

from toolreplay.check.model import CheckReport
from toolreplay.cli.output import guard_outputs, write_text, write_workflow_commands
from toolreplay.formats.files import write_atomic
from toolreplay.verdict import Verdict

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
) -> None:
    """Refuse, before the check runs, a report path that is an input or another report's path."""
    guard_outputs(
        {"--markdown": markdown_file, "--sarif": sarif_file, "--json": json_file, "--html": html_file}, inputs
    )


def write_html(
    report: CheckReport, html_file: str | None, command: str, verdict: Verdict | None = None, why: str | None = None
) -> None:
    """Write the HTML page of ``report`` when one is asked for (with the command's own verdict, if not check's)."""
    if html_file is not None:
        from toolreplay.report.html import render_html  # noqa: PLC0415 - Jinja2 only when a page is asked for

        write_atomic(html_file, [render_html(report, command, verdict, why).encode()])


def emit_reports(
    report: CheckReport,
    markdown_file: str | None,
    sarif_file: str | None,
    json_file: str | None,
    html_file: str | None,
    github_annotations: bool,
) -> int:
    """Write every report asked for (guarded by :func:`guard_reports`), print the text one, return the exit code."""
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
    for target, render in outputs:
        if target is not None:
            write_atomic(target, [render(report).encode()])
    write_html(report, html_file, "check")
    write_text(render_check(report))
    if github_annotations:
        write_workflow_commands(render_annotations(report))
    return report.verdict.exit_code
