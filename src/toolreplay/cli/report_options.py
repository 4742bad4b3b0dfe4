"""The report options ``check`` and ``merge`` share, and writing the reports they ask for."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import click

from toolreplay.check.model import CheckReport
from toolreplay.cli.output import guard_outputs, write_text, write_workflow_commands
from toolreplay.formats.files import write_atomic


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
    )
    for option in options:
        function = option(function)
    return function


def guard_reports(
    markdown_file: str | None, sarif_file: str | None, json_file: str | None, inputs: Iterable[str | None]
) -> None:
    """Refuse, before the check runs, a report path that is an input or another report's path."""
    guard_outputs({"--markdown": markdown_file, "--sarif": sarif_file, "--json": json_file}, inputs)


def emit_reports(
    report: CheckReport,
    markdown_file: str | None,
    sarif_file: str | None,
    json_file: str | None,
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
    write_text(render_check(report))
    if github_annotations:
        write_workflow_commands(render_annotations(report))
    return report.verdict.exit_code
