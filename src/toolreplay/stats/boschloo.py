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

A design's thresholds only ask whether the p value is at most a level
(:func:`boschloo_at_most`): every probability the search computes is at most
the maximum it returns, so the first one above the level answers no, and only
a yes takes the whole search. The answer is the comparison of that very p
value with the level, to the last bit.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence

from toolreplay.stats.exact import check_counts, fisher_greater, tail_row

# A weight below this converts to a float with room to spare in the sums; beyond it the sums go in logs.
_FLOAT_SAFE = 1e300
# Golden-section refinement: the interval shrinks by this factor per step.
_GOLDEN = (math.sqrt(5) - 1) / 2


def _region_weights(hits_a: int, runs_a: int, hits_b: int, runs_b: int) -> list[int]:
    """For each margin s, the weight of the tables whose Fisher p value is at most the observed one."""
    weights = [0] * (runs_a + runs_b + 1)
    _fill_region(weights, hits_a, runs_a, hits_b, runs_b, range(runs_a + runs_b + 1))
    return weights


def _fill_region(
    weights: list[int], hits_a: int, runs_a: int, hits_b: int, runs_b: int, margins: Iterable[int]
) -> None:
    """The region's weights of ``margins`` (see :func:`_region_weights`), into ``weights``.

    Within a margin the p value falls as the edited count rises, so the region
    is the tail from some count up: it is summed from the top count down, one
    table at a time, while its p value stays at most the observed one. Exactly:
    a tail of weight ``w`` is in when ``w / C(N, s) <= observed / C(N, margin)``,
    that is when ``w`` is at most ``observed * C(N, s) // C(N, margin)`` (integers).
    Only the region's tables are computed, never the rest of the margin.
    """
    observed = tail_row(runs_a, runs_b, hits_a + hits_b)[hits_a]
    edited, unchanged, totals = _combinations(runs_a, runs_b)
    observed_total = totals[hits_a + hits_b]
    for s in margins:
        most, tail = observed * totals[s] // observed_total, 0
        for k in range(min(runs_a, s), max(0, s - runs_b) - 1, -1):
            wider = tail + edited[k] * unchanged[s - k]
            if wider > most:
                break
            tail = wider
        weights[s] = tail


@functools.lru_cache(maxsize=16)
def _combinations(runs_a: int, runs_b: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """``C(runs_a, k)``, ``C(runs_b, k)`` and ``C(runs_a + runs_b, s)`` for every count: the tests at one pair of
    run counts (the thresholds of a design) ask for them again and again."""
    total = runs_a + runs_b
    return (
        tuple(math.comb(runs_a, k) for k in range(runs_a + 1)),
        tuple(math.comb(runs_b, k) for k in range(runs_b + 1)),
        tuple(math.comb(total, s) for s in range(total + 1)),
    )


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


def _maximum(weights: Sequence[float], above: float = math.inf) -> float:
    return _search(lambda theta: _probability(weights, theta), len(weights) - 1, above)


def _search(probability: Callable[[float], float], n: int, above: float = math.inf) -> float:
    """The largest value of the region's probability over every common rate.

    In the arcsine scale every binomial term near its peak is about ``1 / (2 sqrt(N))``
    wide, so a grid ten times finer than ``1 / sqrt(N)`` puts points on every peak's
    slopes; each local peak of the grid is then refined.

    With ``above``, the first value it computes that is above ``above`` is returned at
    once: the maximum is at least that (the grid's best is kept, and so is the
    refinement's), so it is above too. The grid is walked from its middle out, where
    the maximum of a table that is not significant usually is.
    """
    points, step = _grid(n)
    values = [0.0] * (points + 1)
    for i in _middle_out(points):
        value = values[i] = probability(i * step)
        if value > above:
            return value
    best = max(values)
    # Between grid points a peak rises by at most exp(2N step^2), about 5%: a peak lower than the best
    # grid value by more than 10% cannot win, and is not refined.
    contenders = best / 1.1
    for i in range(1, points):
        if values[i] >= max(values[i - 1], values[i + 1], contenders) and values[i] > 0:
            best = max(best, _refine(probability, (i - 1) * step, (i + 1) * step, above))
            if best > above:
                return best
    return best


def _grid(n: int) -> tuple[int, float]:
    """How many steps the search's grid has for ``n`` runs in all, and each step (in the arcsine scale)."""
    points = 10 * math.isqrt(n) + 30
    return points, (math.pi / 2) / points


@functools.lru_cache(maxsize=64)
def _middle_out(points: int) -> tuple[int, ...]:
    """The indices 0 to ``points``, the middle first, then alternately either side of it."""
    middle = points // 2
    order = [middle]
    for offset in range(1, max(middle, points - middle) + 1):
        order += [i for i in (middle - offset, middle + offset) if 0 <= i <= points]
    return tuple(order)


def _refine(probability: Callable[[float], float], low: float, high: float, above: float = math.inf) -> float:
    """Golden-section search for the peak between ``low`` and ``high`` (in the arcsine scale).

    The better of the two inner points is always kept, so the result is at least
    every value computed: the first above ``above`` is returned at once.
    """
    c = high - _GOLDEN * (high - low)
    d = low + _GOLDEN * (high - low)
    fc, fd = probability(c), probability(d)
    while high - low > 1e-10:
        if fc > above or fd > above:
            break
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
    # Never above Fisher's p value (a theorem); the bound only absorbs the last bit of rounding.
    return min(fisher, _region_maximum(hits_a, runs_a, hits_b, runs_b))


def boschloo_at_most(hits_a: int, runs_a: int, hits_b: int, runs_b: int, level: float) -> bool:
    """Exactly ``boschloo_greater(hits_a, runs_a, hits_b, runs_b) <= level``, mostly without the maximum.

    A Fisher p value at most ``level`` says yes at once (Boschloo's is never
    above it); otherwise the region's probability at any common rate is a lower
    bound of the maximum, so the first grid point above ``level`` says no, and
    only a yes needs the whole search, the same one, to the same last bit.
    """
    check_counts(hits_a, runs_a, hits_b, runs_b)
    if runs_a == 0 or runs_b == 0:
        return level >= 1.0
    fisher = fisher_greater(hits_a, runs_a, hits_b, runs_b)
    if fisher <= level:
        return True
    if fisher >= 1.0:  # the p value is 1.0, above the level as Fisher's is
        return False
    return _region_maximum(hits_a, runs_a, hits_b, runs_b, level) <= level


def _region_maximum(hits_a: int, runs_a: int, hits_b: int, runs_b: int, above: float = math.inf) -> float:
    """The largest probability of the table's region over every common rate; with ``above``, any value
    above ``above`` as soon as one is found (the maximum is at least that)."""
    total = runs_a + runs_b
    weights = [0] * (total + 1)
    if above < math.inf and math.comb(total, total // 2) < _FLOAT_SAFE:  # no weight can leave the floats
        # A first look, at the grid's middle, with only the margins that weigh most there (two standard
        # deviations either side): a part of the region's weights gives a part of the sum, and every step of
        # Horner's rule rounds a smaller sum to a float no larger, so above there means above in the search.
        central = range(max(0, total // 2 - math.isqrt(total)), min(total, total // 2 + math.isqrt(total)) + 1)
        _fill_region(weights, hits_a, runs_a, hits_b, runs_b, central)
        points, step = _grid(total)
        if (value := _probability([float(w) for w in weights], (points // 2) * step)) > above:
            return value
        rest = [s for s in range(total + 1) if s not in central]
        _fill_region(weights, hits_a, runs_a, hits_b, runs_b, rest)
    else:
        _fill_region(weights, hits_a, runs_a, hits_b, runs_b, range(total + 1))
    # past about 1,000 runs in all a weight no longer fits a float: the same sum, term by term in logs
    if max(weights) < _FLOAT_SAFE:
        return _maximum([float(w) for w in weights], above)
    return _maximum_in_logs(weights, total, above)


def _maximum_in_logs(weights: Sequence[int], n: int, above: float = math.inf) -> float:
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

    return _search(probability, n, above)
