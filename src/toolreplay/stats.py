"""Small, exact statistics for counts of runs, in plain Python.

Checked against SciPy in the tests (``fisher_exact(alternative="greater")``,
``false_discovery_control``, ``binomtest(...).proportion_ci``), and written out
here because importing SciPy costs more than a whole replay of the sample: the
commands stay as fast to start as Python.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


@functools.lru_cache(maxsize=4096)
def fisher_greater(hits_a: int, runs_a: int, hits_b: int, runs_b: int) -> float:
    """One-sided Fisher exact p: is the rate in A (the edit) greater than in B (the baseline)?

    The 2x2 table is ``[[hits_a, runs_a - hits_a], [hits_b, runs_b - hits_b]]``;
    the p value is the probability, with the margins fixed, of ``hits_a`` or more
    hits in A.
    """
    total_hits = hits_a + hits_b
    total = runs_a + runs_b
    if total == 0 or total_hits == 0:
        return 1.0
    low = max(0, total_hits - runs_b)
    high = min(runs_a, total_hits)
    denominator = _log_comb(total, total_hits)
    terms = [
        math.exp(_log_comb(runs_a, k) + _log_comb(runs_b, total_hits - k) - denominator)
        for k in range(max(hits_a, low), high + 1)
    ]
    return min(1.0, math.fsum(terms))


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p values (q values), in the order given."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        index = order[rank - 1]
        running = min(running, p_values[index] * m / rank)
        adjusted[index] = running
    return adjusted


def _binomial_tail_ge(k: int, n: int, p: float, log_combs: Sequence[float] | None = None) -> float:
    """P(X >= k) for X ~ Binomial(n, p); ``log_combs[i]`` is log C(n, i), when the caller has them."""
    if k <= 0:
        return 1.0
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    combs = log_combs if log_combs is not None else [_log_comb(n, i) for i in range(n + 1)]
    log_p, log_q = math.log(p), math.log1p(-p)
    return min(1.0, math.fsum(math.exp(combs[i] + i * log_p + (n - i) * log_q) for i in range(k, n + 1)))


def _solve(function: Callable[[float], float], target: float) -> float:
    """The p in [0, 1] where an increasing ``function(p)`` reaches ``target`` (bisection)."""
    low, high = 0.0, 1.0
    for _ in range(60):  # 2**-60: far below any digit a report prints
        middle = (low + high) / 2
        if function(middle) < target:
            low = middle
        else:
            high = middle
    return (low + high) / 2


@functools.lru_cache(maxsize=1024)
def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact two-sided confidence interval of a binomial proportion."""
    if n == 0:
        return 0.0, 1.0
    alpha = 1 - confidence
    combs = [_log_comb(n, i) for i in range(n + 1)]  # the bisection asks for the same terms sixty times
    low = 0.0 if k == 0 else _solve(lambda p: _binomial_tail_ge(k, n, p, combs), alpha / 2)
    high = 1.0 if k == n else _solve(lambda p: _binomial_tail_ge(k + 1, n, p, combs), 1 - alpha / 2)
    return low, high


def upper_bound_never_seen(n: int, confidence: float = 0.95) -> float:
    """How rare an event never seen in ``n`` runs can still be: the one-sided upper bound."""
    return 1.0 if n == 0 else 1 - (1 - confidence) ** (1 / n)


def smallest_flagged(runs_a: int, hits_b: int, runs_b: int, alpha: float) -> int | None:
    """The fewest hits in A that a one-sided Fisher test at ``alpha`` flags, given B's count."""
    for hits_a in range(runs_a + 1):
        if fisher_greater(hits_a, runs_a, hits_b, runs_b) < alpha:
            return hits_a
    return None
