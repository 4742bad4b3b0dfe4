"""``merge``: the shards' JSON reports combined into the whole check's reports."""

from __future__ import annotations

from toolreplay.check.merge import merge_reports
from toolreplay.commands.base import Emitter
from toolreplay.core.records import record
from toolreplay.core.verdict import Exit
from toolreplay.formats.check_report import read_check_report


@record
class MergeRequest:
    shards: tuple[str, ...]


def execute(request: MergeRequest, emitter: Emitter) -> Exit:
    emitter.guard(request.shards, emitter.root)  # a report's missing directories are made inside the repository
    merged = merge_reports([(path, read_check_report(path)) for path in request.shards])
    emitter.report(merged, emitter.root)
    return merged.verdict.exit_code
