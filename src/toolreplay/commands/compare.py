"""``compare``: the noise analysis on sessions already recorded, with no model call."""

from __future__ import annotations

import os

from toolreplay.commands.base import Emitter, load_policy
from toolreplay.core.errors import UsageError
from toolreplay.core.records import record
from toolreplay.core.verdict import Exit, FailOn
from toolreplay.formats.recording import load_session
from toolreplay.replay.compare import compare_sessions
from toolreplay.results.shown import NoiseShown
from toolreplay.results.statements import noise_verdict
from toolreplay.stats.design import Design


@record
class CompareRequest:
    recorded: str
    candidates: tuple[str, ...]
    baselines: tuple[str, ...]
    design: Design = Design()
    fail_on: FailOn = FailOn.DESTRUCTIVE
    rules: str | None = None
    strict: bool = False
    policies: str | None = None


def once_each(request: CompareRequest) -> None:
    """Refuse a session given twice: counted twice, or on both sides, it would make the verdict, not the runs."""
    roles: dict[str, str] = {}
    named = [("RECORDED", request.recorded)] + [("a candidate", path) for path in request.candidates]
    for role, path in named + [("a baseline", path) for path in request.baselines]:
        key = os.path.realpath(path)
        if key in roles:
            raise UsageError(f"{path} is given twice (as {roles[key]} and as {role}); give each session once")
        roles[key] = role


def execute(request: CompareRequest, emitter: Emitter) -> Exit:
    once_each(request)
    policy = load_policy(request.rules, request.strict, request.policies)
    recorded, candidates, baselines = request.recorded, request.candidates, request.baselines
    reference = load_session(recorded)
    if reference.context is None:
        raise UsageError(f"{recorded} is a transcript: compare needs sessions")
    edited = [load_session(path) for path in candidates]
    unchanged = [load_session(path) for path in baselines]
    report = compare_sessions(reference, edited, unchanged, policy, request.design, request.fail_on)
    if emitter.wants_reports:
        from toolreplay.core.outcome import Statement  # noqa: PLC0415
        from toolreplay.results.diff import single_report  # noqa: PLC0415 - reports only
        from toolreplay.results.locate import Paths  # noqa: PLC0415
        from toolreplay.results.replay import compare_result  # noqa: PLC0415 - reports only

        paths = Paths(emitter.root)  # files named from the repository root, as check names them
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
        emitter.write(single_report(result, request.fail_on, stated))
    line = f"edited: {', '.join(candidates)} · unchanged: {', '.join(baselines)}"
    emitter.show(NoiseShown(report, None, None, (), line, "compare"))
    return report.verdict.exit_code
