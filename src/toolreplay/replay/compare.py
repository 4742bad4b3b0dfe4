"""The noise analysis on sessions already recorded: no model call, each session one run."""

from __future__ import annotations

from collections.abc import Sequence

from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.core.model import Origin, Session
from toolreplay.core.verdict import FailOn
from toolreplay.core.wording import count
from toolreplay.replay.engine import ReplaySetup, Run
from toolreplay.replay.noise import NoiseReport, weigh_changes
from toolreplay.replay.report import summarize
from toolreplay.settings import Unrecorded
from toolreplay.stats.design import Design


def as_run(number: int, session: Session) -> Run:
    """A recorded session seen as one run of a replay."""
    final = session.context.final_reply if session.context is not None else None
    ending = "final reply" if final is not None else "no final reply"
    return Run(number, None, session.calls, (Origin.RECORDED,) * len(session.calls), ending, final)


def compare_sessions(
    reference: Session,
    edited: Sequence[Session],
    unchanged: Sequence[Session],
    policy: Policy,
    design: Design,
    fail_on: FailOn,
) -> NoiseReport:
    """Test each difference between the ``edited`` sessions and ``reference`` against the ``unchanged`` ones."""
    if reference.context is None:
        raise ValueError("the reference must be a session")
    setup = ReplaySetup(
        reference, reference.context.system, reference.context.tools, Unrecorded.ERROR, (), 1, policy.matcher
    )
    recorded_classes = Classifier.of(policy, reference.context)
    edited_tools = next((s.context.tools for s in edited if s.context is not None), reference.context.tools)
    candidate = summarize(
        setup,
        count(len(edited), "recorded session"),
        [as_run(n, s) for n, s in enumerate(edited, 1)],
        recorded_classes,
        Classifier.of(policy, reference.context, edited_tools),
        fail_on,
    )
    baseline = summarize(
        setup,
        count(len(unchanged), "recorded session"),
        [as_run(n, s) for n, s in enumerate(unchanged, 1)],
        recorded_classes,
        recorded_classes,
        fail_on,
    )
    return weigh_changes(candidate, baseline, Design(design.alpha, design.test), fail_on)
