"""Boschloo's exact test against SciPy's, on small tables and on a sample up to 40 runs a side.

SciPy finds the maximum over the common rate with a global optimiser from 32
starting points; on about one table in a hundred it stops a little short of it
(or, near p = 1, returns exactly 1 where the maximum is below it). There the
test holds ours to the true maximum, found by brute force on a fine grid.

SciPy takes about 7 ms a table, so the grids of tables (every table up to six
runs a side, every table of twenty against twenty) are walked whole under
``HYPOTHESIS_PROFILE=thorough``; the everyday loop checks a quarter of each grid,
drawn afresh each run (a failure names its table).
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import THOROUGH
from toolreplay.stats.boschloo import _FLOAT_SAFE, _probability, _region_weights, boschloo_at_most, boschloo_greater
from toolreplay.stats.exact import fisher_greater, tail_row

scipy_stats = pytest.importorskip("scipy.stats")


def scipy_boschloo(a: int, n: int, b: int, m: int) -> float:
    p = float(scipy_stats.boschloo_exact([[a, b], [n - a, m - b]], alternative="greater").pvalue)
    return 1.0 if math.isnan(p) else p


def brute_maximum(a: int, n: int, b: int, m: int, points: int = 100_000) -> float:
    """The region's probability, the sum of ``weights[s] pi^s (1 - pi)^(N - s)``, at every common rate
    ``pi = i / points``, and the largest: all the points at once, by Horner's rule (in powers of
    ``pi / (1 - pi)`` up to one half, of ``(1 - pi) / pi`` above, so no power overflows)."""
    weights = [float(w) for w in _region_weights(a, n, b, m)]
    total = len(weights) - 1
    pi = np.arange(points + 1) / points
    low, high = pi[(pi > 0) & (pi <= 0.5)], pi[pi > 0.5]
    low_sum, high_sum = np.zeros_like(low), np.zeros_like(high)
    low_ratio, high_ratio = low / (1 - low), (1 - high) / high
    for w in reversed(weights):
        low_sum = low_sum * low_ratio + w
    for w in weights:
        high_sum = high_sum * high_ratio + w
    ends = max(weights[0], weights[total])  # pi = 0 and pi = 1: only the all-miss or the all-hit table
    return max(ends, float((low_sum * (1 - low) ** total).max()), float((high_sum * high**total).max()))


def assert_matches(a: int, n: int, b: int, m: int) -> None:
    ours, theirs = boschloo_greater(a, n, b, m), scipy_boschloo(a, n, b, m)
    if ours == pytest.approx(theirs, rel=1e-9, abs=1e-15):
        return
    # SciPy's optimiser is off on about 1% of tables: it stops short of the maximum, or near p = 1 returns
    # exactly 1 where the maximum is below it. There ours must be the true maximum, found by brute force.
    assert ours == pytest.approx(brute_maximum(a, n, b, m), rel=1e-9, abs=1e-15), (a, n, b, m, theirs)


_DRAW = random.Random()  # seeded afresh in each process


def sample(tables: list[tuple[int, int]], always: tuple[tuple[int, int], ...] = ()) -> list[tuple[int, int]]:
    """The tables of a grid to check against SciPy: every one under ``HYPOTHESIS_PROFILE=thorough``; otherwise
    ``always`` and one in four of the rest, drawn afresh each run, so that run after run the whole grid is
    covered (a failure names its table)."""
    if THOROUGH:
        return tables
    rest = [table for table in tables if table not in always]
    return [*always, *_DRAW.sample(rest, math.ceil(len(rest) / 4))]


SIDES = [(n, m) for n in range(1, 7) for m in range(1, 7)]


@pytest.mark.parametrize(("n", "m"), SIDES, ids=[f"{n}v{m}" for n, m in SIDES])
def test_every_table_up_to_six_runs_a_side(n: int, m: int) -> None:
    tables = [(a, b) for a in range(n + 1) for b in range(m + 1)]
    for a, b in sample(tables, always=((n, 0),)):  # every hit with the edit and none without: the smallest p
        assert_matches(a, n, b, m)


@pytest.mark.parametrize("edited", range(21))
def test_every_table_of_twenty_against_twenty(edited: int) -> None:
    row = [(edited, b) for b in range(21)]
    for a, b in sample(row):
        assert_matches(a, 20, b, 20)


@given(st.integers(1, 40), st.integers(1, 40), st.data())
def test_any_table_up_to_forty_runs_a_side(n: int, m: int, data: st.DataObject) -> None:
    a, b = data.draw(st.integers(0, n)), data.draw(st.integers(0, m))
    assert_matches(a, n, b, m)


@pytest.mark.parametrize(("n", "m"), [(20, 20), (8, 8), (13, 7), (40, 40), (3, 30)])
def test_it_flags_every_table_fisher_flags_and_is_monotone(n: int, m: int) -> None:
    p = [[boschloo_greater(a, n, b, m) for b in range(m + 1)] for a in range(n + 1)]
    for a in range(n + 1):
        for b in range(m + 1):
            assert p[a][b] <= fisher_greater(a, n, b, m)
            # more edited hits, or fewer unchanged ones, never make the evidence weaker
            if a < n:
                assert p[a + 1][b] <= p[a][b]
            if b > 0:
                assert p[a][b - 1] <= p[a][b]


@pytest.mark.parametrize(("a", "n", "b", "m"), [(8, 12, 2, 12), (12, 16, 0, 16), (1, 15, 39, 40)])
def test_where_scipy_is_off_ours_is_the_true_maximum(a: int, n: int, b: int, m: int) -> None:
    ours, theirs = boschloo_greater(a, n, b, m), scipy_boschloo(a, n, b, m)
    assert ours != pytest.approx(theirs, rel=1e-9)  # SciPy is off here (found by bench/check_boschloo.py)
    assert ours == pytest.approx(brute_maximum(a, n, b, m), rel=1e-12)


def test_the_cases_the_issue_names() -> None:
    assert boschloo_greater(20, 20, 1, 20) < 1e-9  # twenty of twenty against one of twenty
    assert boschloo_greater(1, 20, 0, 20) > 0.3  # one deletion in twenty runs is not evidence
    assert boschloo_greater(0, 20, 0, 20) == 1.0
    with pytest.raises(ValueError, match="out of range"):
        boschloo_greater(21, 20, 0, 20)


@pytest.mark.parametrize(("n", "m"), [(20, 20), (10, 30)])
def test_it_holds_its_size_at_every_common_rate(n: int, m: int) -> None:
    # the chance of p <= alpha when the edit changes nothing, over a grid of common rates
    p = {(a, b): boschloo_greater(a, n, b, m) for a in range(n + 1) for b in range(m + 1)}
    for alpha in (0.01, 0.05):
        region = [(a, b) for (a, b), value in p.items() if value <= alpha]
        assert region  # the test can reject at this level: the size below is not vacuous
        for step in range(1, 100):
            rate = step / 100
            edited, unchanged = (
                scipy_stats.binom.pmf(range(n + 1), n, rate),
                scipy_stats.binom.pmf(range(m + 1), m, rate),
            )
            size = math.fsum(float(edited[a] * unchanged[b]) for a, b in region)
            assert size <= alpha + 1e-12


@pytest.mark.parametrize(
    ("a", "n", "b", "m"), [(9, 20, 0, 20), (30, 150, 12, 150), (3, 40, 1, 200), (60, 200, 80, 100)]
)
def test_the_sum_in_logs_for_large_tables_agrees_with_the_direct_one(a: int, n: int, b: int, m: int) -> None:
    from toolreplay.stats.boschloo import _maximum, _maximum_in_logs  # noqa: PLC0415

    weights = _region_weights(a, n, b, m)
    assert _maximum_in_logs(weights, n + m) == pytest.approx(_maximum([float(w) for w in weights]), rel=1e-10)


@pytest.mark.parametrize(
    ("a", "n", "b", "m"),
    [
        (100, 1000, 0, 10),
        # 1,040 runs evenly split: the same sums, with integers of 300 digits at every margin (9 s here)
        pytest.param(10, 520, 2, 520, marks=pytest.mark.skipif(not THOROUGH, reason="HYPOTHESIS_PROFILE=thorough")),
    ],
)
def test_tables_past_a_thousand_runs_in_all_are_computed_and_past_the_limit_refused(
    a: int, n: int, b: int, m: int
) -> None:
    assert max(_region_weights(a, n, b, m)) >= _FLOAT_SAFE  # weights of over 1000 runs overflow a float
    p = boschloo_greater(a, n, b, m)
    assert 0 < p <= fisher_greater(a, n, b, m)
    with pytest.raises(ValueError, match="at most 1,000 runs a side"):
        boschloo_greater(1, 1001, 0, 20)


def bisected_weights(a: int, n: int, b: int, m: int) -> list[int]:
    """The region's weights as first written: each margin's whole row of tails, bisected for the first count
    whose p value is at most the observed one (compared by cross-multiplication)."""
    total = n + m
    observed, observed_total = tail_row(n, m, a + b)[a], math.comb(total, a + b)
    weights = []
    for s in range(total + 1):
        row, row_total = tail_row(n, m, s), math.comb(total, s)
        low, high = max(0, s - m), min(n, s) + 1
        while low < high:
            middle = (low + high) // 2
            if row[middle] * observed_total <= observed * row_total:
                high = middle
            else:
                low = middle + 1
        weights.append(row[low])
    return weights


@pytest.mark.parametrize("n", range(1, 11))
def test_the_region_is_the_same_as_bisecting_whole_rows(n: int) -> None:
    for m in range(1, 11):
        for a in range(n + 1):
            for b in range(m + 1):
                assert _region_weights(a, n, b, m) == bisected_weights(a, n, b, m), (a, n, b, m)


@given(st.integers(1, 120), st.integers(1, 120), st.data())
def test_the_region_of_any_table_up_to_120_runs_a_side_is_the_same(n: int, m: int, data: st.DataObject) -> None:
    a, b = data.draw(st.integers(0, n)), data.draw(st.integers(0, m))
    assert _region_weights(a, n, b, m) == bisected_weights(a, n, b, m)


def grid_best(a: int, n: int, b: int, m: int) -> float:
    """The best value of the search's grid, before any refinement (as ``_search`` computes it)."""
    weights = [float(w) for w in _region_weights(a, n, b, m)]
    points = 10 * math.isqrt(n + m) + 30
    step = (math.pi / 2) / points
    return max(_probability(weights, i * step) for i in range(points + 1))


def levels_near(a: int, n: int, b: int, m: int) -> list[float]:
    """Levels where a shortcut could go wrong: the p value itself and its neighbours, Fisher's and its
    neighbours, the grid's best before refinement (a refined peak above it must still say no), the levels a
    design uses, and the ends."""
    p, fisher = boschloo_greater(a, n, b, m), fisher_greater(a, n, b, m)
    levels = [p, fisher, 0.05, 0.05 / 3, 0.2, 0.2 / 3, 0.0, 1.0, p * 1.25, p / 1.25]
    if n and m and fisher < 1.0:
        best = grid_best(a, n, b, m)
        levels += [best, (best + p) / 2]
    return [*levels, *(math.nextafter(x, 0.0) for x in levels), *(math.nextafter(x, 1.0) for x in levels)]


def assert_same_answer(a: int, n: int, b: int, m: int, levels: list[float] | None = None) -> None:
    p = boschloo_greater(a, n, b, m)
    for level in levels_near(a, n, b, m) if levels is None else levels:
        assert boschloo_at_most(a, n, b, m, level) is (p <= level), (a, n, b, m, level, p)


@pytest.mark.parametrize(("n", "m"), SIDES, ids=[f"{n}v{m}" for n, m in SIDES])
def test_at_most_answers_as_the_p_value_does_on_every_small_table(n: int, m: int) -> None:
    for a in range(n + 1):
        for b in range(m + 1):
            assert_same_answer(a, n, b, m)


@pytest.mark.parametrize("runs", [20, 40, 60])
def test_at_most_answers_as_the_p_value_does_where_the_thresholds_are(runs: int) -> None:
    # the tables a design's thresholds ask about: none of the unchanged runs made the call
    for a in range(1, 9):
        assert_same_answer(a, runs, 0, runs)


@given(st.integers(0, 40), st.integers(0, 40), st.data())
def test_at_most_answers_as_the_p_value_does_on_any_table_up_to_forty_runs_a_side(
    n: int, m: int, data: st.DataObject
) -> None:
    a, b = data.draw(st.integers(0, n)), data.draw(st.integers(0, m))
    drawn = data.draw(st.lists(st.floats(0.0, 1.0), max_size=3))
    assert_same_answer(a, n, b, m, [*levels_near(a, n, b, m), *drawn])


def test_at_most_answers_as_the_p_value_does_past_a_thousand_runs_in_all() -> None:
    p = boschloo_greater(100, 1000, 0, 10)  # the sums in logs (about a second: the same table as above)
    assert_same_answer(100, 1000, 0, 10, [p, math.nextafter(p, 0.0), 0.01])
