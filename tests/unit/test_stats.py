"""toolreplay's statistics against SciPy's, on a grid of counts."""

from __future__ import annotations

import math

import pytest

from toolreplay.stats import (
    benjamini_hochberg,
    clopper_pearson,
    fisher_greater,
    smallest_flagged,
    upper_bound_never_seen,
)

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
    bound = upper_bound_never_seen(20)
    assert bound == pytest.approx(1 - 0.05 ** (1 / 20))
    assert 0.13 < bound < 0.14
    # the same bound as the one-sided exact interval for 0 of 20
    one_sided = scipy_stats.binomtest(0, 20).proportion_ci(confidence_level=0.90, method="exact").high
    assert bound == pytest.approx(one_sided, abs=1e-9)


def test_smallest_flagged_is_the_threshold_of_the_test() -> None:
    k = smallest_flagged(20, 0, 20, 0.05)
    assert k is not None
    assert fisher_greater(k, 20, 0, 20) < 0.05 <= fisher_greater(k - 1, 20, 0, 20)
    assert smallest_flagged(1, 0, 1, 0.05) is None
    assert math.isclose(fisher_greater(0, 20, 0, 20), 1.0)
