"""What a picture of a replay, a comparison or a diff needs, as plain records.

The HTML report draws each run as a row of calls and the changes as a grid of
runs; these functions turn the analyses' results into the
:mod:`toolreplay.core.outcome` records it is drawn from, so a shard's JSON
carries them and a merged report draws the same picture.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate

from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.analysis.diff import DiffResult, FieldChange, Pair, compare_with
from toolreplay.core.canonical import canonical_bytes
from toolreplay.core.model import Call, CallClass, Origin, Session
from toolreplay.core.outcome import CallView, DiffRow, DiffView, FieldView, RunView, Side
from toolreplay.replay.engine import Run
from toolreplay.replay.report import ReplayReport


def call_view(call: Call, klass: CallClass, answered: Origin = Origin.RECORDED, line: int | None = None) -> CallView:
    return CallView(call.tool, call.args, klass, call.line if line is None else line, answered)


def recording_view(session: Session, classify: Classifier) -> tuple[CallView, ...]:
    """The recorded calls, each with its class and line."""
    return tuple(call_view(call, classify.classify(call).klass) for call in session.calls)


def run_views(
    report: ReplayReport, side: Side, policy: Policy, sources: Sequence[str] = (), recorded_lines: bool = False
) -> tuple[RunView, ...]:
    """Each run of a replay (or each compared session, named by ``sources``), classified with the tools it had."""
    context = report.setup.recording.context
    classify = Classifier.of(policy, context, report.setup.tools)
    views: list[RunView] = []
    for run in report.runs:
        calls = tuple(
            call_view(call, classify.classify(call).klass, origin, None if recorded_lines else 0)
            for call, origin in zip(run.calls, run.origins, strict=True)
        )
        source = sources[run.number - 1] if run.number <= len(sources) else ""
        views.append(RunView(side, run.number, ending_text(run), source, calls))
    return tuple(views)


def ending_text(run: Run) -> str:
    """How a run ended, in a few words: the engine's ending, and the error when there was one."""
    return f"{run.ending}: {run.error}" if run.error else run.ending


def field_view(change: FieldChange) -> FieldView:
    before = canonical_bytes(change.before).decode() if change.in_before else None
    after = canonical_bytes(change.after).decode() if change.in_after else None
    return FieldView(change.path, before, after)


def side_by_side(pairs: Sequence[Pair]) -> list[Pair]:
    """The pairs in B's order, each call only A made placed after the row of A's call before it."""
    rows = sorted((pair for pair in pairs if pair.b is not None), key=lambda p: p.order)
    shown = sorted((pair.a.index, number) for number, pair in enumerate(rows) if pair.a is not None)
    indexes = [index for index, _ in shown]
    latest = list(accumulate((number for _, number in shown), max))  # the last row holding any of A's calls so far
    placed: list[tuple[float, int, Pair]] = [(float(number), 0, pair) for number, pair in enumerate(rows)]
    for pair in pairs:
        if pair.b is None and pair.a is not None:
            before = bisect_left(indexes, pair.a.index)
            placed.append(((latest[before - 1] if before else -1) + 0.5, pair.a.index, pair))
    return [pair for _, _, pair in sorted(placed, key=lambda item: (item[0], item[1]))]


def diff_view(result: DiffResult, a: str, b: str, b_lines: bool = True) -> DiffView:
    """Every pair of a diff side by side, each call with its class and its line (B's only where ``b_lines``: a
    replayed run's log is not kept, so no line of it is cited)."""
    rows: list[DiffRow] = []
    for pair in side_by_side(result.pairs):
        left = call_view(pair.a, result.classes_a[pair.a.index]) if pair.a is not None else None
        line = None if b_lines else 0
        right = call_view(pair.b, result.classes_b[pair.b.index], line=line) if pair.b is not None else None
        rows.append(DiffRow(pair.kind, left, right, tuple(field_view(f) for f in pair.fields)))
    return DiffView(a, b, tuple(rows))


def run_diff(
    recording: Session,
    run: Run,
    classify_recording: Classifier,
    classify_run: Classifier,
    a: str,
    b: str,
    b_lines: bool = True,
) -> DiffView:
    """The recording against one run, aligned as ``diff`` aligns two recordings; ``b_lines``: the run is a file
    the reader can open (a compared session), so its calls' lines are cited."""
    result = compare_with(recording, run.as_session(), classify_recording, classify_run)
    return diff_view(result, a, b, b_lines)
