"""``toolreplay merge``: the shards' JSON reports combined into the whole check's reports."""

from __future__ import annotations

import click

from toolreplay.check.merge import merge_reports
from toolreplay.cli.report_options import ReportFiles, emit_reports, guard_reports, report_options
from toolreplay.core.files import repository_root
from toolreplay.formats.check_report import read_check_report


@click.command(
    "merge",
    help="""Combine the JSON reports of 'check --shard K/N' into one report.

    Every shard of one check must be given, each once. The text, markdown,
    SARIF and JSON reports, and the exit code, are those an unsharded check
    gives.
    """,
)
@click.argument("shards", metavar="REPORT.json...", nargs=-1, required=True)
@report_options()
def command(shards: tuple[str, ...], reports: ReportFiles, github_annotations: bool) -> int:
    root = repository_root(".")  # a report's missing directories are made inside the repository
    guard_reports(reports, shards, root)
    merged = merge_reports([(path, read_check_report(path)) for path in shards])
    return emit_reports(merged, reports, github_annotations, root)
