"""``toolreplay compare``: the noise analysis on sessions already recorded, with no model call."""

from __future__ import annotations

import os

import click

from toolreplay.cli.options import ReadWords, fail_on_option, load_policy, policy_options, refused
from toolreplay.cli.output import emit
from toolreplay.cli.report_options import Outputs, outputs_options
from toolreplay.core.errors import UsageError
from toolreplay.core.verdict import FailOn
from toolreplay.formats.recording import load_session
from toolreplay.replay.compare import compare_sessions
from toolreplay.results.shown import NoiseShown
from toolreplay.results.statements import noise_verdict
from toolreplay.settings import SettingError, parse_alpha, parse_test
from toolreplay.stats.design import DEFAULT_ALPHA, Design, ExactTest


@click.command(
    "compare",
    cls=ReadWords,
    several=("--baseline",),
    help="""Compare recorded CANDIDATE sessions with RECORDED, against --baseline sessions.

    The same analysis as 'replay --noise', on sessions already recorded (for
    example by an MCP client through record-mcp, some with the edited prompt and
    some without), with no model call: each difference between a candidate and
    RECORDED is tested against how often the baseline sessions differ in the
    same way. The sessions given are one round, tested at the full --alpha; a
    destructive behaviour more sessions could still decide is reported as
    undecided (see docs/verdicts.md).

    --baseline takes every file up to the next option (--baseline unchanged-*.json),
    or repeat it; put it after the candidates, or end its files with --. A
    session given twice, in one role or two, is refused.
    """,
)
@click.argument("recorded", metavar="RECORDED")
@click.argument("candidates", metavar="CANDIDATE...", nargs=-1, required=True)
@click.option(
    "--baseline",
    "baselines",
    multiple=True,
    required=True,
    metavar="SESSION...",
    help="Sessions recorded without the edit: every file up to the next option (or repeat the option).",
)
@click.option(
    "--alpha",
    type=str,
    metavar="Q",
    default=str(DEFAULT_ALPHA),
    show_default=True,
    help="The false-FAIL rate: how often, at most, a change the edit did not cause is called the edit's.",
)
@click.option(
    "--test",
    type=str,
    default=ExactTest.BOSCHLOO.value,
    show_default=True,
    metavar="[boschloo|fisher]",
    help="The exact test of 'more frequent with the edit'.",
)
@fail_on_option
@outputs_options
@policy_options
def command(
    recorded: str,
    candidates: tuple[str, ...],
    baselines: tuple[str, ...],
    alpha: str,
    test: str,
    fail_on: str,
    outputs: Outputs,
    rules_file: str | None,
    strict: bool,
) -> int:
    _once_each(recorded, candidates, baselines)
    outputs.guard([recorded, *candidates, *baselines, rules_file])
    try:
        design = Design(parse_alpha(alpha), parse_test(test))
    except SettingError as exc:
        raise refused(exc) from None
    policy = load_policy(rules_file, strict)
    reference = load_session(recorded)
    if reference.context is None:
        raise UsageError(f"{recorded} is a transcript: compare needs sessions")
    edited = [load_session(path) for path in candidates]
    unchanged = [load_session(path) for path in baselines]
    report = compare_sessions(reference, edited, unchanged, policy, design, FailOn(fail_on))
    if outputs.asked:
        from toolreplay.core.outcome import Statement  # noqa: PLC0415
        from toolreplay.results.diff import single_report  # noqa: PLC0415 - reports only
        from toolreplay.results.locate import Paths  # noqa: PLC0415
        from toolreplay.results.replay import compare_result  # noqa: PLC0415 - reports only

        paths = Paths(outputs.root)  # files named from the repository root, as check names them
        shown = paths.show(recorded)
        result = compare_result(
            f"compare {shown}",
            shown,
            reference,
            report,
            policy,
            [paths.show(path) for path in candidates],
            [paths.show(path) for path in baselines],
        )
        stated = Statement("compare", noise_verdict(report))
        outputs.write(single_report(result, FailOn(fail_on), stated))
    line = f"edited: {', '.join(candidates)} · unchanged: {', '.join(baselines)}"
    emit(NoiseShown(report, None, None, (), line, "compare"), outputs.as_json)
    return report.verdict.exit_code


def _once_each(recorded: str, candidates: tuple[str, ...], baselines: tuple[str, ...]) -> None:
    """Refuse a session given twice: counted twice, or on both sides, it would make the verdict, not the runs."""
    roles: dict[str, str] = {}
    named = [("RECORDED", recorded)] + [("a candidate", path) for path in candidates]
    for role, path in named + [("a baseline", path) for path in baselines]:
        key = os.path.realpath(path)
        if key in roles:
            raise UsageError(f"{path} is given twice (as {roles[key]} and as {role}); give each session once")
        roles[key] = role
