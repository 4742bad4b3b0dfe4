"""``toolreplay compare``: the noise analysis on sessions already recorded, with no model call."""

from __future__ import annotations

import click

from toolreplay.cli.emitter import Printer
from toolreplay.cli.options import ReadWords, fail_on_option, policies_option, policy_options, refused
from toolreplay.cli.report_options import Outputs, outputs_options
from toolreplay.commands import compare
from toolreplay.core.verdict import FailOn
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
@policies_option
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
    policies_file: str | None,
) -> int:
    compare.once_each(compare.CompareRequest(recorded, candidates, baselines))  # before any file is read
    outputs.guard([recorded, *candidates, *baselines, rules_file, policies_file])
    try:
        design = Design(parse_alpha(alpha), parse_test(test))
    except SettingError as exc:
        raise refused(exc) from None
    request = compare.CompareRequest(
        recorded, candidates, baselines, design, FailOn(fail_on), rules_file, strict, policies_file
    )
    return compare.execute(request, Printer(outputs=outputs))
