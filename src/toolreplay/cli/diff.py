"""``toolreplay diff``: what B did that A did not, call by call."""

from __future__ import annotations

from pathlib import Path

import click

from toolreplay.cli.options import fail_on_option, load_policy, policy_options
from toolreplay.cli.output import guard_outputs, write_json, write_text
from toolreplay.cli.report_options import html_option, write_html
from toolreplay.diff import compare_recordings
from toolreplay.formats.recording import kept_still, load_session
from toolreplay.report.json_report import render_diff_json
from toolreplay.report.text import diff_verdict, render_diff
from toolreplay.verdict import FailOn


@click.command(
    "diff",
    help="""Compare the calls of recording B against recording A.

    Identical calls in the same order anchor the alignment; an identical call
    made at another point is 'moved'; between anchors, two calls to the same
    tool are one 'changed' call, listed argument by argument; the rest is
    'added' (only in B) or 'removed' (only in A). The final replies are
    compared by similarity, as context only.

    Exits 1 when B makes a destructive call A does not (--fail-on destructive,
    the default), on any difference (--fail-on changed), or never.
    """,
)
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@fail_on_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@html_option
@policy_options
def command(
    a: str, b: str, fail_on: str, as_json: bool, html_file: str | None, rules_file: str | None, strict: bool
) -> int:
    guard_outputs({"--html": html_file}, [a, b, rules_file])
    policy = load_policy(rules_file, strict)
    recording_a, recording_b = load_session(a), load_session(b)
    with kept_still():
        result = compare_recordings(recording_a, recording_b, policy, FailOn(fail_on))
        if html_file is not None:
            from toolreplay.check.locate import Paths  # noqa: PLC0415
            from toolreplay.check.run import diff_result, single_report  # noqa: PLC0415 - only for a page

            paths = Paths(Path.cwd())
            page = single_report(diff_result(result, paths.show(a), paths.show(b)), FailOn(fail_on))
            write_html(page, html_file, "diff", result.verdict, diff_verdict(result))
        if as_json:
            write_json(render_diff_json(result))
        else:
            write_text(render_diff(result))
    return result.verdict.exit_code
