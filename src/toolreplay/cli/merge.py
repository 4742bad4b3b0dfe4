"""``toolreplay merge``: the shards' JSON reports combined into the whole check's reports."""

from __future__ import annotations

import click

from toolreplay.check.merge import merge_reports
from toolreplay.cli.report_options import emit_reports, guard_reports, report_options
from toolreplay.formats.files import repository_root
from toolreplay.report.check_json import read_check_report


@click.command(
    "merge",
    help="""Combine the JSON reports of 'check --shard K/N' into one report.

    Every shard of one check must be given, each once. The text, markdown,
    SARIF and JSON reports, and the exit code, are those an unsharded check
    gives.
    """,
)
@click.argument("reports", metavar="REPORT.json...", nargs=-1, required=True)
@report_options
def command(
    reports: tuple[str, ...],
    markdown_file: str | None,
    sarif_file: str | None,
    json_file: str | None,
    html_file: str | None,
    github_annotations: bool,
) -> int:
    root = repository_root(".")  # a report's missing directories are made inside the repository
    guard_reports(markdown_file, sarif_file, json_file, html_file, reports, root)
    merged = merge_reports([(path, read_check_report(path)) for path in reports])
    return emit_reports(merged, markdown_file, sarif_file, json_file, html_file, github_annotations, root)
