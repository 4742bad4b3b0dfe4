"""``toolreplay merge``: the shards' JSON reports combined into the whole check's reports."""

from __future__ import annotations

import click

from toolreplay.cli.emitter import Printer
from toolreplay.cli.report_options import Outputs, ReportFiles, report_options
from toolreplay.commands import merge


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
    return merge.execute(
        merge.MergeRequest(shards), Printer(outputs=Outputs(False, reports, github_annotations), whole=True)
    )
