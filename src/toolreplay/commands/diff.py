"""``diff``: what recording B did that A did not, call by call."""

from __future__ import annotations

from toolreplay.analysis.diff import compare_recordings
from toolreplay.commands.base import Emitter, load_policy
from toolreplay.core.memory import frozen_for_gc
from toolreplay.core.model import Session
from toolreplay.core.records import record
from toolreplay.core.verdict import Exit, FailOn
from toolreplay.formats.kinds import Kind, detect_kind
from toolreplay.formats.recording import load_session
from toolreplay.formats.session.stream import read_calls
from toolreplay.results.statements import diff_verdict


@record
class DiffRequest:
    a: str
    b: str
    fail_on: FailOn = FailOn.DESTRUCTIVE
    rules: str | None = None
    strict: bool = False
    policies: str | None = None


def read_recording(path: str) -> Session:
    """A recording as diff reads it: whole, but for a session's messages, which no report of a diff shows (a
    session is read for its calls, tools and final reply, each message let go once read)."""
    kind = detect_kind(path)
    return read_calls(path) if kind is Kind.SESSION else load_session(path, kind)


def execute(request: DiffRequest, emitter: Emitter) -> Exit:
    policy = load_policy(request.rules, request.strict, request.policies)
    recording_a, recording_b = read_recording(request.a), read_recording(request.b)
    with frozen_for_gc():
        result = compare_recordings(recording_a, recording_b, policy, request.fail_on)
        if emitter.wants_reports:
            from toolreplay.core.outcome import Statement  # noqa: PLC0415
            from toolreplay.results.diff import diff_result, single_report  # noqa: PLC0415 - reports only
            from toolreplay.results.locate import Paths  # noqa: PLC0415

            paths = Paths(emitter.root)  # files named from the repository root, as check names them
            stated = Statement("diff", diff_verdict(result))
            shown = diff_result(result, paths.show(request.a), paths.show(request.b))
            emitter.write(single_report(shown, request.fail_on, stated))
        emitter.show(result)
    return result.verdict.exit_code
