"""``toolreplay diff``: what B did that A did not, call by call."""

from __future__ import annotations

import click

from toolreplay.analysis.diff import compare_recordings
from toolreplay.cli.options import fail_on_option, load_policy, policy_options
from toolreplay.cli.output import emit
from toolreplay.cli.report_options import Outputs, outputs_options
from toolreplay.core.model import Session
from toolreplay.core.verdict import FailOn
from toolreplay.formats.kinds import Kind, detect_kind
from toolreplay.formats.recording import kept_still, load_session
from toolreplay.formats.session.stream import read_calls
from toolreplay.results.statements import diff_verdict


def read_recording(path: str) -> Session:
    """A recording as diff reads it: whole, but for a session's messages, which no report of a diff shows (a
    session is read for its calls, tools and final reply, each message let go once read)."""
    kind = detect_kind(path)
    return read_calls(path) if kind is Kind.SESSION else load_session(path, kind)


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
@outputs_options
@policy_options
def command(a: str, b: str, fail_on: str, outputs: Outputs, rules_file: str | None, strict: bool) -> int:
    outputs.guard([a, b, rules_file])
    policy = load_policy(rules_file, strict)
    recording_a, recording_b = read_recording(a), read_recording(b)
    with kept_still():
        result = compare_recordings(recording_a, recording_b, policy, FailOn(fail_on))
        if outputs.asked:
            from toolreplay.core.outcome import Statement  # noqa: PLC0415
            from toolreplay.results.diff import diff_result, single_report  # noqa: PLC0415 - reports only
            from toolreplay.results.locate import Paths  # noqa: PLC0415

            paths = Paths(outputs.root)  # files named from the repository root, as check names them
            stated = Statement("diff", diff_verdict(result))
            report = single_report(diff_result(result, paths.show(a), paths.show(b)), FailOn(fail_on), stated)
            outputs.write(report)
        emit(result, outputs.as_json)
    return result.verdict.exit_code
