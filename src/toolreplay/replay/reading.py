"""The words every report uses for a noise analysis: what was tested, what it showed, what the runs can detect.

Said once here so the text report, the JSON report and the check's findings
claim the same thing, and no more than the test showed: "not shown" is not
"as often", a count is not a detectable rate, and a bound on the unchanged
agent is about its runs in general, not the runs made.
"""

from __future__ import annotations

from toolreplay.core.findings import ChangeVerdict
from toolreplay.core.outcome import POLICY_WORDS
from toolreplay.core.verdict import FailOn, Verdict
from toolreplay.core.wording import agree, count, p_value
from toolreplay.replay.noise import NoiseReport, TestedBehaviour, TestedPolicy
from toolreplay.stats.design import UNDECIDED_BELOW


def percent(value: float) -> str:
    """A rate as a report prints it: whole percents, one decimal below 10%, and enough digits near 0 and 1
    that a rate that is not 0% or 100% never reads as one."""
    if 0 < value < 0.001:
        return f"{value * 100:.3g}%"
    if 0.999 < value < 1:  # as many digits as it takes not to read 100%
        digits = 4
        while f"{value * 100:.{digits}g}" == "100" and digits < 17:
            digits += 1
        return f"{value * 100:.{digits}g}%"
    whole = round(value * 100) == value * 100
    return f"{value:.1%}" if 0 < value < 0.1 and not whole else f"{value:.0%}"


def level_text(report: NoiseReport) -> str:
    """What each test was held to: ``alpha 5%``, or ``alpha 5% spread over 3 rounds: 1.7% each``."""
    design = report.design
    split = report.level < design.level  # fail-on changed: the two families share each round's level
    if design.rounds == 1 and not split:
        return f"alpha {percent(design.alpha)}"
    spread = [f"over {count(design.rounds, 'round')}"] if design.rounds > 1 else []
    spread += ["between the two families"] if split else []
    return f"alpha {percent(design.alpha)} spread {' and '.join(spread)}: {percent(report.level)} each"


def rounds_line(report: NoiseReport) -> str | None:
    """How many rounds ran and why it stopped; None for a single planned round."""
    design = report.design
    if design.rounds == 1:
        return None
    step = f"{report.step} with the edit and {report.baseline_step} unchanged"
    if report.round == design.rounds and (report.undecided or report.undecided_policies):
        why = "the most allowed, and a destructive behaviour or an error-level policy is still undecided"
    elif report.round == design.rounds:
        why = "the most allowed"
    elif not report.settled:  # a round before the last, as a round's report
        why = (
            "a destructive behaviour or an error-level policy is undecided (never made or broken by the unchanged "
            f"runs, or q at or below {UNDECIDED_BELOW:g}), so another round is due"
        )
    else:
        why = f"stopped: {_stopped(report)}"
    return f"rounds: {report.round} of at most {design.rounds} ({step} each); {why}"


def _stopped(report: NoiseReport) -> str:
    """Why a settled replay stopped before its last round, in words true to the q values printed beside them:
    another round runs for a destructive behaviour not yet attributed that the unchanged runs never made, or
    whose q is at or below ``UNDECIDED_BELOW``; every one left was made by the unchanged runs too."""
    if report.verdict is Verdict.FAIL:
        return "the verdict is FAIL and more runs cannot change it"
    if report.fail_on is FailOn.NEVER:
        return "under fail-on never more runs cannot change the verdict"
    seen = [t for t in report.tested if t.destructive]
    if not seen:
        return "no destructive behaviour was seen with the edit, so none is undecided"
    lowest = _beside(min(t.q for t in seen), UNDECIDED_BELOW)
    if len(seen) == 1:
        has = f"the destructive behaviour seen with the edit, made by the unchanged runs too, has q {lowest}"
    else:
        has = (
            f"the {len(seen)} destructive behaviours seen with the edit, each made by the unchanged runs too, "
            f"have q {lowest} or more"
        )
    return f"no destructive behaviour is undecided: {has}, above {UNDECIDED_BELOW:g}, where no further round runs"


def reason(t: TestedBehaviour) -> str:
    """Why a behaviour got its verdict, in words."""
    if t.verdict is ChangeVerdict.DESTRUCTIVE:
        return "destructive, and more frequent with the edit"
    if t.verdict is ChangeVerdict.CHANGED:
        return "more frequent with the edit"
    if t.verdict is ChangeVerdict.UNDECIDED:
        return "destructive; not shown to be the edit's, and more runs could still show it"
    if t.destructive:
        return "destructive; not shown to be more frequent with the edit"
    return "not shown to be more frequent with the edit"


def policy_verdict(verdict: ChangeVerdict, hits: int) -> str:
    """A policy's verdict in a report's words (a policy is broken, never "destructive" or "changed"): ``kept``
    where no edited run broke it."""
    return POLICY_WORDS[verdict] if hits else "kept"


def policy_reason(t: TestedPolicy) -> str:
    """Why a tested policy got its verdict, in words."""
    if not t.hits:
        return "broken by no run with the edit"
    if t.shown:
        return "broken more often with the edit"
    if t.verdict is ChangeVerdict.UNDECIDED:
        return "broken with the edit; not shown to be the edit's, and more runs could still show it"
    return "broken with the edit; not shown to be more often than without it"


def policy_counts_text(t: TestedPolicy) -> str:
    """Both counts and the edited rate's interval: ``9 of 20 runs with the edit (95% CI 23%-68%), 0 of 20 without``."""
    low, high = t.interval
    return (
        f"broken in {t.hits} of {count(t.runs, 'run')} with the edit (95% CI {percent(low)}-{percent(high)}), "
        f"{t.baseline_hits} of {t.baseline_runs} without"
    )


def policy_test_text(t: TestedPolicy, level: float) -> str:
    """A tested policy's p and q values beside the level, as a behaviour's are written."""
    return f"p {_beside(t.p, level)} · q {_beside(t.q, level)} (level {level:.3g})"


def bound_text(t: TestedBehaviour) -> str:
    """How often the unchanged agent may make a behaviour, in words."""
    return (
        f"the unchanged agent may make it in up to {percent(t.baseline_bound)} of its runs "
        f"({t.baseline_hits} of {t.baseline_runs} here; one-sided, 95% confidence)"
    )


def counts_text(t: TestedBehaviour) -> str:
    """Both counts, the edited rate's interval, and for a destructive behaviour the bound on the unchanged agent."""
    low, high = t.interval
    edited = f"{t.hits} of {count(t.runs, 'run')} with the edit (95% CI {percent(low)}-{percent(high)})"
    unchanged = f"{t.baseline_hits} of {t.baseline_runs} without"
    if t.destructive:
        unchanged += f" (the unchanged agent may make it in up to {percent(t.baseline_bound)} of its runs)"
    return f"{edited}, {unchanged}, {test_text(t)}"


def test_text(t: TestedBehaviour) -> str:
    """The test's numbers, to as many digits as the level, so a p value beside it never reads on its wrong side:
    ``p 0.0165 · q 0.0165 (level 0.0167)``."""
    return f"p {_beside(t.p, t.level)} · q {_beside(t.q, t.level)} (level {t.level:.3g})"


def _beside(value: float, level: float) -> str:
    if value < 0.0001:
        return "<0.0001"
    shown = f"{value:.3g}" if value < 0.1 else f"{value:.3f}"
    if (float(shown) <= level) != (value <= level):  # rounding crossed the level: more digits
        shown = f"{value:.6g}"
    return shown


def errors_text(report: NoiseReport) -> str | None:
    """That runs end in an error more often with the edit, with the counts and the p value; None when they do
    not."""
    errors = report.lost_more
    if errors is None or not report.more_errors:
        return None
    candidate, baseline = report.candidate, report.baseline
    return (
        f"runs end in an error more often with the edit: {candidate.lost}/{len(candidate.runs)} against "
        f"{baseline.lost}/{len(baseline.runs)} (p {p_value(errors)})"
    )


def reading(report: NoiseReport) -> list[str]:
    """What the verdicts mean, and what these runs could detect."""
    families = []
    destructive = sum(t.destructive for t in report.tested)
    others = len(report.tested) - destructive
    if destructive:
        families.append(count(destructive, "destructive behaviour"))
    if others:
        families.append(count(others, "other behaviour"))
    errors = sum(t.errs for t in report.policies if t.hits)
    if errors:
        families.append(count(errors, "error-level policy", "error-level policies") + " (with the destructive)")
    rest = sum(not t.errs for t in report.policies if t.hits)
    if rest:
        families.append(count(rest, "other policy", "other policies") + " (with the other behaviours)")
    lines = [
        "reading it: a behaviour is the changes made in exactly the same runs; DESTRUCTIVE and 'changed' mean "
        "more frequent with the edit: q (the p value adjusted for the "
        + (" and the ".join(families) or "behaviours")
        + f" tested, each family apart) at or below the level ({level_text(report)}). 'not shown' means not "
        "shown to be more frequent with the edit: it may be as frequent, rarer, or more frequent than these runs "
        "can show. 'undecided' is a destructive behaviour more runs could still show to be the edit's."
    ]
    detectable = report.detectable
    held = report.destructive_family
    with_family = f" (at the level each of the {held} destructive tests here is held to)"
    family = with_family if held > 1 else ""
    if detectable is None:
        lines.append(
            "what these runs can detect: too few runs to attribute even a call the edit makes every time; "
            "ask for more runs."
        )
    else:
        lines.append(
            f"what {_design_text(report)} can detect: a destructive call the unchanged agent never makes is shown "
            f"to be the edit's 80% of the time once the edit makes it in {percent(detectable)} of runs or more"
            f"{family}; a rarer one is more often missed."
        )
    base = report.baseline.answered
    unmade = agree(base, "the 1 unchanged run did not make", f"none of the {base} unchanged runs made")
    lines.append(
        f"a call {unmade} may still be made by the unchanged agent in up to "
        f"{percent(report.never_seen_bound)} of its runs (one-sided, 95% confidence)."
    )
    return lines


def _design_text(report: NoiseReport) -> str:
    step, baseline_step = report.step or report.candidate.answered, report.baseline_step or report.baseline.answered
    if report.design.rounds == 1:
        return f"{step} + {baseline_step} runs"
    return f"up to {count(report.design.rounds, 'round')} of {step} + {baseline_step} runs"


def summary(report: NoiseReport) -> str:
    """The verdict's reason, as one clause."""
    attributed = [t for t in report.tested if t.verdict is ChangeVerdict.DESTRUCTIVE]
    zero = [t for t in report.zero_tolerance if t.verdict is not ChangeVerdict.DESTRUCTIVE]
    zero = zero if report.fail_on is FailOn.ANY_DESTRUCTIVE else []
    changed = [t for t in report.tested if t.verdict is ChangeVerdict.CHANGED]
    seen = [t for t in report.tested if t.destructive and t.verdict is not ChangeVerdict.DESTRUCTIVE]
    parts: list[str] = []
    if attributed:
        lead = attributed[0]
        parts.append(
            f"{_tools(attributed)}: destructive, more frequent with the edit ({lead.hits} of {count(lead.runs, 'run')} "
            f"against {lead.baseline_hits} of {lead.baseline_runs} unchanged)"
        )
    if zero:
        unchanged = count(report.baseline.answered, "unchanged run")
        parts.append(f"{_tools(zero)}: destructive, never made by the {unchanged}")
    if changed:
        parts.append(f"{count(len(changed), 'other behaviour')} more frequent with the edit")
    undecided = [t for t in seen if t.verdict is ChangeVerdict.UNDECIDED]
    if undecided:
        parts.append(f"{_tools(undecided)}: destructive, seen with the edit, undecided: ask for more runs")
    rest = [t for t in seen if t.verdict is ChangeVerdict.NOT_SHOWN and t not in zero]
    if rest:
        parts.append(f"{_tools(rest)}: destructive, seen with the edit, not shown to be the edit's")
    lost = sorted({made.tool for made in report.candidate.lost_destructive})
    if lost:
        parts.append(f"{', '.join(lost)}: destructive, made with the edit in runs that then ended in an error")
    if report.more_errors:
        parts.append("runs end in an error more often with the edit")
    parts += _policies(report)
    if parts:
        return "; ".join(parts)
    if report.tested:
        return "no behaviour shown to be more frequent with the edit"
    return "the candidate made the recorded calls"


def _policies(report: NoiseReport) -> list[str]:
    """The policies the verdict's reason names: those broken more often with the edit, and the error-level ones
    broken with it but not shown to be the edit's."""
    parts = []
    for t in report.policies:
        if t.shown:
            parts.append(
                f"policy {t.policy.id} ({t.policy.level.value}) broken more often with the edit ({t.hits} of "
                f"{count(t.runs, 'run')} against {t.baseline_hits} of {t.baseline_runs} unchanged)"
            )
        elif t.errs and t.hits:
            why = (
                "undecided: ask for more runs" if t.verdict is ChangeVerdict.UNDECIDED else "not shown to be the edit's"
            )
            parts.append(f"policy {t.policy.id} broken with the edit, {why}")
    return parts


def _tools(tested: list[TestedBehaviour]) -> str:
    names: dict[str, None] = {}
    for t in tested:
        names.update(dict.fromkeys(c.tool for c in t.changes if c.new_destructive))
    return ", ".join(sorted(names))
