"""The power of a design, its thresholds and its detectable rate, against the plain computation, to the last bit.

The module computes each design's thresholds once per bisection, the chances of
a round's hits once per rate, and asks Boschloo's test only whether a p value is
at most a level (:func:`toolreplay.stats.boschloo.boschloo_at_most`). The references
here are the computation as first written: every threshold walked down from
Fisher's with Boschloo's p value itself, every round's binomial row built
afresh, every threshold looked up at every rate (the bisection of Boschloo's
region is checked against whole rows in tests/unit/stats/test_boschloo.py). The answers must be identical
floats, not close ones: reports print what these return.
"""

from __future__ import annotations

import functools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolreplay.stats.boschloo import boschloo_greater
from toolreplay.stats.design import STATED_POWER, Design, ExactTest
from toolreplay.stats.exact import fisher_greater
from toolreplay.stats.power import detectable_rate, fewest_attributed, power_against_none


@functools.cache
def plain_fewest(test: ExactTest, runs: int, baseline_runs: int, level: float) -> int | None:
    """The fewest edited hits whose p value is at most ``level``, 0 unchanged hits, as first written: Fisher's
    threshold by bisection, then down from it while Boschloo's p value itself is at most the level."""
    low, high = 1, runs + 1
    while low < high:
        middle = (low + high) // 2
        if fisher_greater(middle, runs, 0, baseline_runs) <= level:
            high = middle
        else:
            low = middle + 1
    if test is ExactTest.BOSCHLOO:
        while low > 1 and boschloo_greater(low - 1, runs, 0, baseline_runs) <= level:
            low -= 1
    return low if low <= runs else None


def plain_power(design: Design, step: int, baseline_step: int, rate: float, family: int = 1) -> float:
    """The power as first written (see :func:`toolreplay.stats.power.power_against_none`)."""
    level = design.level / family
    alive = [1.0]
    caught = 0.0
    for look in range(1, design.rounds + 1):
        runs, baseline_runs = look * step, look * baseline_step
        row = [math.comb(step, k) * rate**k * (1 - rate) ** (step - k) for k in range(step + 1)]
        out = [0.0] * (len(alive) + step)
        for x, chance in enumerate(alive):
            if chance:
                for k, p in enumerate(row):
                    out[x + k] += chance * p
        alive = out
        threshold = plain_fewest(design.test, runs, baseline_runs, level)
        if threshold is not None:
            caught += math.fsum(alive[threshold:])
            alive = alive[:threshold]
        if look == design.rounds:
            break
        alive = [chance if hits >= 1 else 0.0 for hits, chance in enumerate(alive)]  # any hit: undecided
    return min(1.0, caught)


def plain_detectable(design: Design, step: int, baseline_step: int, family: int = 1) -> float | None:
    if plain_power(design, step, baseline_step, 1.0, family) < STATED_POWER:
        return None
    low, high = 0.0, 1.0
    for _ in range(40):
        middle = (low + high) / 2
        if plain_power(design, step, baseline_step, middle, family) < STATED_POWER:
            low = middle
        else:
            high = middle
    return high


LEVELS = [0.05, 0.05 / 2, 0.05 / 3, 0.05 / 6, 0.01, 0.1, 0.2, 0.2 / 2, 0.2 / 4, 0.001]


@pytest.mark.parametrize("test", list(ExactTest), ids=lambda test: test.value)
@pytest.mark.parametrize("baseline_runs", [1, 5, 20, 40, 60])
def test_thresholds_are_those_of_the_p_values(test: ExactTest, baseline_runs: int) -> None:
    for runs in (1, 2, 3, 5, 10, 20, 40, 60):
        for level in LEVELS:
            assert fewest_attributed(test, runs, baseline_runs, level) == plain_fewest(
                test, runs, baseline_runs, level
            ), (runs, baseline_runs, level)


def test_thresholds_at_levels_equal_to_a_p_value() -> None:
    # a level exactly at a table's p value attributes that table; one float below it does not
    for runs in (10, 20, 40):
        for hits in range(1, 8):
            p = boschloo_greater(hits, runs, 0, runs)
            for level in (p, math.nextafter(p, 0.0), math.nextafter(p, 1.0)):
                expected = plain_fewest(ExactTest.BOSCHLOO, runs, runs, level)
                assert fewest_attributed(ExactTest.BOSCHLOO, runs, runs, level) == expected, (hits, runs, level)


DESIGNS = [
    Design(alpha=alpha, test=test, rounds=rounds)
    for alpha in (0.05, 0.01)
    for test in ExactTest
    for rounds in (1, 2, 3)
]


@pytest.mark.parametrize("design", DESIGNS, ids=repr)
@pytest.mark.parametrize(("step", "baseline_step"), [(20, 20), (10, 10), (5, 15), (1, 1), (3, 3), (8, 12)])
def test_the_detectable_rate_and_the_power_are_the_same_floats(design: Design, step: int, baseline_step: int) -> None:
    for family in (1, 2, 4):
        assert detectable_rate(design, step, baseline_step, family) == plain_detectable(
            design, step, baseline_step, family
        )
        for rate in (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.9, 1.0):
            ours, plain = (
                power_against_none(design, step, baseline_step, rate, family),
                plain_power(design, step, baseline_step, rate, family),
            )
            assert ours.hex() == plain.hex(), (family, rate)


@given(st.floats(0.0, 1.0), st.sampled_from(DESIGNS), st.integers(1, 20), st.integers(1, 20), st.integers(1, 4))
def test_the_power_at_any_rate_is_the_same_float(
    rate: float, design: Design, step: int, baseline_step: int, family: int
) -> None:
    ours = power_against_none(design, step, baseline_step, rate, family)
    assert ours.hex() == plain_power(design, step, baseline_step, rate, family).hex()


def test_the_headline_design_detects_what_it_did() -> None:
    # replay's default, 20 edited and 20 unchanged runs a round: the rate its reports print, to the last bit
    assert detectable_rate(Design(rounds=3), 20, 20) == 0.13102655012153264
    assert detectable_rate(Design(rounds=1), 20, 20) == 0.2586352047383116
