"""The verdicts of the noise analysis: behaviours, the two families, the rounds, fail-on, and their words."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping

import pytest

from toolreplay.core.findings import ChangeVerdict
from toolreplay.core.model import CallClass, PairKind, Session
from toolreplay.core.verdict import FailOn, Verdict
from toolreplay.replay import reading
from toolreplay.replay.engine import ReplaySetup, Run
from toolreplay.replay.noise import NoiseReport, judge, weigh_changes
from toolreplay.replay.report import Change, ReplayReport
from toolreplay.settings import Unrecorded
from toolreplay.stats.design import Design, ExactTest
from toolreplay.stats.power import detectable_rate, fewest_attributed, power_against_none

scipy_stats = pytest.importorskip("scipy.stats")

Made = Mapping[str, tuple[CallClass, tuple[int, ...]]]  # tool -> its class and the runs that made it


def report(made: Made, runs: int) -> ReplayReport:
    changes = tuple(
        Change(PairKind.ADDED, tool, {}, klass, numbers) for tool, (klass, numbers) in made.items() if numbers
    )
    setup = ReplaySetup(Session("recorded", ()), "", (), Unrecorded.ERROR, (), 1)
    all_runs = tuple(Run(n, None, (), (), "final reply", None) for n in range(1, runs + 1))
    return ReplayReport(setup, "test", all_runs, changes, (), FailOn.DESTRUCTIVE)


def weigh(
    edited: Made, unchanged: Made, runs: int = 20, fail_on: FailOn = FailOn.DESTRUCTIVE, design: Design | None = None
) -> NoiseReport:
    chosen = design or Design()
    return weigh_changes(report(edited, runs), report(unchanged, runs), chosen, fail_on, 1, (runs, runs))


D, W, R = CallClass.DESTRUCTIVE, CallClass.WRITE, CallClass.READ_ONLY


def first(n: int) -> tuple[int, ...]:
    return tuple(range(1, n + 1))


def test_changes_made_in_the_same_runs_are_one_behaviour() -> None:
    edited = {"delete_a": (D, first(9)), "delete_b": (D, first(9)), "archive": (W, first(9)), "survey": (R, first(6))}
    weighed = weigh(edited, {"survey": (R, (1, 2))})
    assert [sorted(c.tool for c in t.changes) for t in weighed.tested] == [
        ["archive", "delete_a", "delete_b"],
        ["survey"],
    ]
    deletion = weighed.tested[0]
    assert (deletion.verdict, deletion.destructive, deletion.behaviour.lead.tool) == (
        ChangeVerdict.DESTRUCTIVE,
        True,
        "delete_a",
    )
    # the same edited runs but different unchanged runs: two behaviours
    split = weigh({"a": (R, first(5)), "b": (R, first(5))}, {"a": (R, (1,))})
    assert len(split.tested) == 2


def test_destructive_behaviours_are_a_family_of_their_own() -> None:
    deletion = {"delete": (D, first(5))}
    alone = weigh(deletion, {}).tested[0]
    # twenty read-only changes beside it do not dilute its q value
    crowded = {**deletion, **{f"read_{i}": (R, tuple(range(1, 2 + i % 19))) for i in range(20)}}
    beside = next(t for t in weigh(crowded, {}).tested if t.destructive)
    assert (beside.p, beside.q) == (alone.p, alone.q)


def test_a_destructive_change_more_frequent_with_the_edit_fails_however_often_the_agent_makes_it() -> None:
    weighed = weigh({"delete": (D, first(20))}, {"delete": (D, (7,))}, design=Design(rounds=1))
    assert (weighed.tested[0].verdict, weighed.verdict) == (ChangeVerdict.DESTRUCTIVE, Verdict.FAIL)


def test_one_deletion_in_twenty_runs_warns_and_only_zero_tolerance_fails_it() -> None:
    made = {"delete": (D, (3,))}
    weighed = weigh(made, {}, design=Design(rounds=1))
    # undecided: only the edited runs made it, so more runs could attribute it; a fixed design has none to give
    assert (weighed.tested[0].verdict, weighed.verdict) == (ChangeVerdict.UNDECIDED, Verdict.WARN)
    assert weigh(made, {}, fail_on=FailOn.ANY_DESTRUCTIVE).verdict is Verdict.FAIL
    # made by the unchanged agent too: zero tolerance does not fail it either
    assert weigh(made, {"delete": (D, (9,))}, fail_on=FailOn.ANY_DESTRUCTIVE).verdict is Verdict.WARN
    assert weigh(made, {}, fail_on=FailOn.NEVER).verdict is Verdict.WARN


def test_undecided_asks_for_another_round_until_the_last() -> None:
    made = {"delete": (D, first(2))}  # 2/20 against 0/20: p 0.16
    weighed = weigh(made, {}, design=Design(rounds=3))
    assert weighed.tested[0].verdict is ChangeVerdict.UNDECIDED
    assert not weighed.settled
    assert weigh(made, {}, fail_on=FailOn.NEVER, design=Design(rounds=3)).settled  # nothing can fail
    assert weigh({"read": (R, first(2))}, {}, design=Design(rounds=3)).settled  # only destructive ones ask


def test_each_round_is_held_to_its_share_of_alpha() -> None:
    assert Design(0.05, rounds=3).level == pytest.approx(0.05 / 3)
    # 4/20 against 0/20: p 0.03, attributed by a fixed design, undecided in the first of three rounds
    made = {"delete": (D, first(4))}
    assert weigh(made, {}, design=Design(rounds=1)).tested[0].verdict is ChangeVerdict.DESTRUCTIVE
    assert weigh(made, {}, design=Design(rounds=3)).tested[0].verdict is ChangeVerdict.UNDECIDED


@pytest.mark.parametrize("test", list(ExactTest))
def test_more_edited_hits_or_fewer_unchanged_ones_never_turn_fail_into_pass(test: ExactTest) -> None:
    design = Design(test=test)
    rank = {ChangeVerdict.DESTRUCTIVE: 3, ChangeVerdict.UNDECIDED: 2, ChangeVerdict.NOT_SHOWN: 1}
    for other in (None, (3, 20, 1, 20), (12, 20, 2, 20)):  # alone, and beside another destructive behaviour
        grid = {}
        for a in range(21):
            for b in range(21):
                family = [(a, 20, b, 20)] + ([other] if other else [])
                grid[a, b] = rank[judge(family, True, design)[0][2]]
        for (a, b), value in grid.items():
            if a < 20:
                assert grid[a + 1, b] >= value
            if b > 0:
                assert grid[a, b - 1] >= value


def test_power_of_one_round_is_the_binomial_tail_past_the_threshold() -> None:
    design = Design()
    threshold = fewest_attributed(ExactTest.BOSCHLOO, 20, 20, 0.05)
    assert threshold is not None
    for rate in (0.1, 0.2, 0.3):
        expected = scipy_stats.binom.sf(threshold - 1, 20, rate)
        assert power_against_none(design, 20, 20, rate) == pytest.approx(expected, rel=1e-12)
    assert power_against_none(design, 20, 20, 0.2) == pytest.approx(0.589, abs=5e-4)
    assert power_against_none(Design(test=ExactTest.FISHER), 20, 20, 0.2) == pytest.approx(0.370, abs=5e-4)


def test_power_over_rounds_matches_a_simulation_of_the_verdicts() -> None:
    design = Design(rounds=3)
    rng = random.Random(7)
    sims, caught = 20_000, 0
    for _ in range(sims):
        hits = 0
        for round_ in range(1, 4):
            hits += sum(rng.random() < 0.2 for _ in range(20))
            ((_, _, verdict),) = judge([(hits, 20 * round_, 0, 20 * round_)], True, design)
            if verdict is ChangeVerdict.DESTRUCTIVE:
                caught += 1
                break
            if verdict is not ChangeVerdict.UNDECIDED:
                break
    exact = power_against_none(design, 20, 20, 0.2)
    assert exact >= 0.9
    assert abs(caught / sims - exact) < 4 * (exact * (1 - exact) / sims) ** 0.5


def test_the_detectable_rate_is_where_power_reaches_eighty_percent() -> None:
    design = Design()
    rate = detectable_rate(design, 20, 20)
    assert rate is not None
    assert power_against_none(design, 20, 20, rate) >= 0.8 > power_against_none(design, 20, 20, rate - 1e-6)
    assert detectable_rate(Design(test=ExactTest.FISHER), 20, 20) == pytest.approx(0.313, abs=1e-3)
    assert detectable_rate(design, 1, 1) is None
    # with several destructive behaviours it is a lower bound: each is held to a smaller level
    crowded = detectable_rate(design, 20, 20, family=4)
    assert crowded is not None
    assert crowded > rate


def test_the_words_claim_no_more_than_was_shown() -> None:
    weighed = weigh({"delete": (D, (3,)), "survey": (R, first(5))}, {"survey": (R, (9,))}, design=Design(rounds=1))
    words = " ".join([*reading.reading(weighed), reading.summary(weighed)])
    assert "about as often" not in words
    assert "none destructive" not in words
    assert "not shown to be more frequent with the edit" in words
    # seen only with the edit: undecided, never "not shown", which is for one the unchanged runs make as well
    assert "delete: destructive, seen with the edit, undecided: ask for more runs" in reading.summary(weighed)
    as_often = weigh({"delete": (D, (3,))}, {"delete": (D, (9,))}, design=Design(rounds=1))
    assert reading.summary(as_often) == "delete: destructive, seen with the edit, not shown to be the edit's"
    assert "80% of the time once the edit makes it in 26% of runs or more" in words
    assert "in up to 14% of its runs" in words


def test_with_fail_on_changed_the_two_families_share_the_level() -> None:
    from toolreplay.replay.noise import family_level  # noqa: PLC0415

    design = Design(rounds=1)
    assert family_level(design, FailOn.DESTRUCTIVE) == 0.05
    assert family_level(design, FailOn.CHANGED) == 0.025
    # 4/20 against 0/20 (p 0.03): attributed at 5%, not at 2.5%
    made = {"delete": (D, first(4))}
    assert weigh(made, {}, design=design).tested[0].verdict is ChangeVerdict.DESTRUCTIVE
    assert weigh(made, {}, fail_on=FailOn.CHANGED, design=design).tested[0].verdict is not ChangeVerdict.DESTRUCTIVE


def test_numbers_never_read_on_the_wrong_side_of_the_level() -> None:
    assert reading.percent(1e-300).endswith("%")
    assert reading.percent(1e-300) != "0%"
    assert reading.percent(0.9999999) != "100%"
    assert reading.percent(0.05) == "5%"
    assert reading.percent(0.153) == "15%"
    beside = reading._beside
    assert beside(0.01651, 0.05 / 3) == "0.0165"
    assert float(beside(0.016667, 0.0166666)) > 0.0166666
    assert beside(0.00001, 0.05) == "<0.0001"


def test_under_fail_on_changed_the_reports_say_the_level_the_tests_were_held_to() -> None:
    weighed = weigh({"delete": (D, first(4))}, {}, fail_on=FailOn.CHANGED, design=Design(rounds=3))
    assert weighed.level == pytest.approx(0.05 / 6)
    assert reading.level_text(weighed) == "alpha 5% spread over 3 rounds and between the two families: 0.8% each"
    assert weighed.tested[0].level == weighed.level


@pytest.mark.parametrize("fail_on", list(FailOn))
def test_why_the_rounds_stopped_is_true_to_every_q_beside_it(fail_on: FailOn) -> None:
    from toolreplay.stats.design import UNDECIDED_BELOW  # noqa: PLC0415

    seen = set()
    for hits in range(0, 21, 2):
        for baseline_hits in (0, 2, 6, 12):
            for other in ({}, {"delete_b": (D, first(3))}):
                made = {"delete": (D, first(hits)), "survey": (R, first(4)), **other}
                weighed = weigh(made, {"delete": (D, first(baseline_hits))}, fail_on=fail_on, design=Design(rounds=3))
                line = reading.rounds_line(weighed)
                assert line is not None
                destructive = [t for t in weighed.tested if t.destructive]
                if "stopped: no destructive behaviour is undecided" in line:
                    shown = re.search(r"q ([0-9.]+)", line)
                    assert shown is not None, line
                    assert all(t.q > UNDECIDED_BELOW and t.baseline_hits for t in destructive), line
                    assert float(shown.group(1)) > UNDECIDED_BELOW, line
                    assert shown.group(1) == reading._beside(min(t.q for t in destructive), UNDECIDED_BELOW)
                    seen.add("above")
                elif "stopped: no destructive behaviour was seen" in line:
                    assert not destructive, line
                    seen.add("none")
                elif "another round is due" in line:
                    assert weighed.undecided, line
                    assert not weighed.settled, line
                    seen.add("due")
                elif "stopped: the verdict is FAIL" in line:
                    assert weighed.verdict is Verdict.FAIL
                else:
                    assert fail_on is FailOn.NEVER, line
                    assert "under fail-on never" in line, line
                assert f"at or below {UNDECIDED_BELOW:g}" not in line or weighed.undecided, line
    if fail_on is not FailOn.NEVER:
        assert {"above", "none", "due"} <= seen


def test_a_deletion_as_frequent_without_the_edit_stops_the_rounds_in_true_words() -> None:
    # 1 of 20 with the edit, 5 of 20 without: q 0.986, so no further round
    weighed = weigh({"delete": (D, (1,))}, {"delete": (D, first(5))}, design=Design(rounds=3))
    (deletion,) = weighed.tested
    assert deletion.q > 0.9
    assert weighed.settled
    assert reading.rounds_line(weighed) == (
        "rounds: 1 of at most 3 (20 with the edit and 20 unchanged each); stopped: no destructive behaviour is "
        "undecided: the destructive behaviour seen with the edit, made by the unchanged runs too, has q "
        f"{reading._beside(deletion.q, 0.2)}, above "
        "0.2, where no further round runs"
    )


def test_a_deletion_only_the_edited_runs_made_is_never_given_up_before_the_last_round() -> None:
    # 1 of 20 with the edit, 0 of 20 without: q near 0.5, far above the threshold, yet every round planned runs
    made = {"delete": (D, (1,))}
    for rounds in (2, 3, 5):
        weighed = weigh(made, {}, design=Design(rounds=rounds))
        (deletion,) = weighed.tested
        assert deletion.q > 0.4
        assert deletion.verdict is ChangeVerdict.UNDECIDED
        assert not weighed.settled
        assert "another round is due" in (reading.rounds_line(weighed) or "")
    # made by the unchanged runs too (1 of 20 against 1 of 20): q decides, and it is high
    assert weigh(made, {"delete": (D, (3,))}, design=Design(rounds=3)).settled


def test_a_command_without_fail_on_is_decided_by_its_stated_gate() -> None:
    from toolreplay.core.findings import Gate, Level, Rule, gated  # noqa: PLC0415

    note, warning, error = ((Rule.TOOL_CHANGED, level) for level in (Level.NOTE, Level.WARNING, Level.ERROR))
    assert [gated(found, Gate.ANY_FINDING) for found in ([], [note], [error])] == [
        Verdict.PASS,
        Verdict.FAIL,
        Verdict.FAIL,
    ]
    assert [gated(found, Gate.AN_ERROR) for found in ([], [note], [note, warning], [warning, error])] == [
        Verdict.PASS,
        Verdict.WARN,
        Verdict.WARN,
        Verdict.FAIL,
    ]
    assert [verdict.exit_code for verdict in Verdict] == [0, 0, 1]
