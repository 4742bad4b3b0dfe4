"""toolreplay's statistics against SciPy's, on a grid of counts."""

from __future__ import annotations

import math

import pytest

from toolreplay.stats.exact import benjamini_hochberg, clopper_pearson, fisher_greater, upper_bound

scipy_stats = pytest.importorskip("scipy.stats")

GRID = [
    (a, n, b, m)
    for n in (1, 5, 20)
    for m in (1, 5, 20)
    for a in range(0, n + 1, max(1, n // 5))
    for b in range(0, m + 1, max(1, m // 5))
]


@pytest.mark.parametrize(("hits_a", "runs_a", "hits_b", "runs_b"), GRID)
def test_fisher_matches_scipy(hits_a: int, runs_a: int, hits_b: int, runs_b: int) -> None:
    table = [[hits_a, runs_a - hits_a], [hits_b, runs_b - hits_b]]
    expected = scipy_stats.fisher_exact(table, alternative="greater").pvalue
    assert fisher_greater(hits_a, runs_a, hits_b, runs_b) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    "p_values",
    [[0.01], [0.01, 0.04, 0.03, 0.2], [0.5, 0.5, 0.001, 0.049, 0.9, 0.0001], [1.0, 1.0], [0.02, 0.02, 0.02]],
)
def test_benjamini_hochberg_matches_scipy(p_values: list[float]) -> None:
    expected = scipy_stats.false_discovery_control(p_values, method="bh")
    assert benjamini_hochberg(p_values) == pytest.approx(list(expected), rel=1e-12)


@pytest.mark.parametrize(("k", "n"), [(k, n) for n in (1, 2, 5, 10, 20, 40) for k in range(0, n + 1, max(1, n // 4))])
def test_clopper_pearson_matches_scipy(k: int, n: int) -> None:
    interval = scipy_stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    low, high = clopper_pearson(k, n)
    assert low == pytest.approx(interval.low, abs=1e-9)
    assert high == pytest.approx(interval.high, abs=1e-9)


def test_never_seen_in_twenty_runs_bounds_the_rate_below_fourteen_percent() -> None:
    bound = upper_bound(0, 20)
    assert bound == pytest.approx(1 - 0.05 ** (1 / 20))
    assert 0.13 < bound < 0.14


@pytest.mark.parametrize(("k", "n"), [(k, n) for n in (1, 2, 5, 20, 40) for k in range(0, n + 1, max(1, n // 5))])
def test_one_sided_upper_bound_matches_scipy(k: int, n: int) -> None:
    # the one-sided 95% bound is the upper end of the two-sided 90% exact interval
    expected = scipy_stats.binomtest(k, n).proportion_ci(confidence_level=0.90, method="exact").high
    assert upper_bound(k, n) == pytest.approx(expected, abs=1e-9)


def test_fisher_p_values_that_tie_are_equal_to_the_last_bit() -> None:
    # 1/20 against 0/20 and 19/20 against 18/20... tables of one margin and their mirror images tie exactly
    assert fisher_greater(1, 20, 0, 20) == 0.5
    assert fisher_greater(20, 20, 19, 20) == fisher_greater(1, 20, 0, 20)
    assert math.isclose(fisher_greater(0, 20, 0, 20), 1.0)
