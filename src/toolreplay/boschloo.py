"""Boschloo's exact test, one-sided: is a call more frequent in runs with the edit than without it?

Two independent counts: ``hits_a`` of ``runs_a`` runs with the edit, ``hits_b``
of ``runs_b`` without it. The test statistic is the one-sided Fisher p value of
the table; Boschloo's p value is the largest probability, over every common
rate ``pi`` the two sides may share when the edit changes nothing, of a table
whose Fisher p value is at most the observed one. It is never above Fisher's
p value, so it flags every table Fisher flags, and it holds its size: under no
common rate does it flag more than ``alpha`` of the tables.

Exact where it matters:

- Fisher p values are compared as fractions of integers, so two tables whose p
  values are equal are in or out of the region together (in floating point
  they differ by about 1e-16, which moves the maximum by up to 0.04);
- the maximum over ``pi`` is found on a grid even in the arcsine scale (where
  every binomial term is about equally wide, so the grid can be fine enough for
  the narrowest), then refined by golden section around each local peak to
  1e-10 in that scale (which moves the value by less than 1e-15 of itself).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

from toolreplay.stats import check_counts, fisher_greater, tail_row

# A weight below this converts to a float with room to spare in the sums; beyond it the sums go in logs.
_FLOAT_SAFE = 1e300
# Golden-section refinement: the interval shrinks by this factor per step.
_GOLDEN = (math.sqrt(5) - 1) / 2


def _region_weights(hits_a: int, runs_a: int, hits_b: int, runs_b: int) -> list[int]:
    """For each margin s, the weight of the tables whose Fisher p value is at most the observed one.

    Within a margin the p value falls as the edited count rises, so the region
    is the tail from some count up; the count is found by bisection, comparing
    p values exactly by cross-multiplication.
    """
    total = runs_a + runs_b
    margin = hits_a + hits_b
    observed, observed_total = tail_row(runs_a, runs_b, margin)[hits_a], math.comb(total, margin)
    weights: list[int] = []
    for s in range(total + 1):
        row, row_total = tail_row(runs_a, runs_b, s), math.comb(total, s)
        low, high = max(0, s - runs_b), min(runs_a, s) + 1  # high: the empty tail, always inside
        # the first count whose tail p value is at most the observed one: p falls as the count rises
        while low < high:
            middle = (low + high) // 2
            if row[middle] * observed_total <= observed * row_total:
                high = middle
            else:
                low = middle + 1
        weights.append(row[low])
    return weights


def _probability(weights: Sequence[float], theta: float) -> float:
    """The sum of ``weights[s] * pi^s * (1 - pi)^(N - s)`` at ``pi = sin(theta)^2``, by Horner's rule."""
    pi = math.sin(theta) ** 2
    n = len(weights) - 1
    if pi <= 0.0:
        return weights[0]
    if pi >= 1.0:
        return weights[n]
    if pi <= 0.5:  # powers of pi / (1 - pi) <= 1 cannot overflow
        ratio, acc = pi / (1 - pi), 0.0
        for w in reversed(weights):
            acc = acc * ratio + w
        return acc * (1 - pi) ** n
    ratio, acc = (1 - pi) / pi, 0.0
    for w in weights:
        acc = acc * ratio + w
    return acc * pi**n


def _maximum(weights: Sequence[float]) -> float:
    return _search(lambda theta: _probability(weights, theta), len(weights) - 1)


def _search(probability: Callable[[float], float], n: int) -> float:
    """The largest value of the region's probability over every common rate.

    In the arcsine scale every binomial term near its peak is about ``1 / (2 sqrt(N))``
    wide, so a grid ten times finer than ``1 / sqrt(N)`` puts points on every peak's
    slopes; each local peak of the grid is then refined.
    """
    points = 10 * math.isqrt(n) + 30
    step = (math.pi / 2) / points
    values = [probability(i * step) for i in range(points + 1)]
    best = max(values)
    # Between grid points a peak rises by at most exp(2N step^2), about 5%: a peak lower than the best
    # grid value by more than 10% cannot win, and is not refined.
    contenders = best / 1.1
    for i in range(1, points):
        if values[i] >= max(values[i - 1], values[i + 1], contenders) and values[i] > 0:
            best = max(best, _refine(probability, (i - 1) * step, (i + 1) * step))
    return best


def _refine(probability: Callable[[float], float], low: float, high: float) -> float:
    """Golden-section search for the peak between ``low`` and ``high`` (in the arcsine scale)."""
    c = high - _GOLDEN * (high - low)
    d = low + _GOLDEN * (high - low)
    fc, fd = probability(c), probability(d)
    while high - low > 1e-10:
        if fc >= fd:
            high, d, fd = d, c, fc
            c = high - _GOLDEN * (high - low)
            fc = probability(c)
        else:
            low, c, fc = c, d, fd
            d = low + _GOLDEN * (high - low)
            fd = probability(d)
    return max(fc, fd)


@functools.lru_cache(maxsize=8192)
def boschloo_greater(hits_a: int, runs_a: int, hits_b: int, runs_b: int) -> float:
    """Boschloo's one-sided exact p value: is the rate with the edit (A) greater than without it (B)?"""
    check_counts(hits_a, runs_a, hits_b, runs_b)
    if runs_a == 0 or runs_b == 0:
        return 1.0
    fisher = fisher_greater(hits_a, runs_a, hits_b, runs_b)
    if fisher >= 1.0:
        return 1.0
    weights = _region_weights(hits_a, runs_a, hits_b, runs_b)
    total = runs_a + runs_b
    # past about 1,000 runs in all a weight no longer fits a float: the same sum, term by term in logs
    fits = max(weights) < _FLOAT_SAFE
    found = _maximum([float(w) for w in weights]) if fits else _maximum_in_logs(weights, total)
    # Never above Fisher's p value (a theorem); the bound only absorbs the last bit of rounding.
    return min(fisher, found)


def _maximum_in_logs(weights: Sequence[int], n: int) -> float:
    """The maximum of the same sum, each term ``q_s * C(n, s) pi^s (1 - pi)^(n - s)`` taken in logs, where
    ``q_s = weights[s] / C(n, s)`` is at most 1 (a conditional probability)."""
    terms = [
        (math.log(q) + math.lgamma(n + 1) - math.lgamma(s + 1) - math.lgamma(n - s + 1), s)
        for s, w in enumerate(weights)
        if w and (q := w / math.comb(n, s)) > 0
    ]

    def probability(theta: float) -> float:
        pi = math.sin(theta) ** 2
        if pi <= 0.0 or pi >= 1.0:  # only the all-miss or all-hit table: its weight is 0 or 1
            return float(min(1, weights[0] if pi <= 0.0 else weights[n]))
        log_pi, log_rest = math.log(pi), math.log1p(-pi)
        return math.fsum(math.exp(c + s * log_pi + (n - s) * log_rest) for c, s in terms)

    return _search(probability, n)
