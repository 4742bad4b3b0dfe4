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

from toolreplay.stats.design import MAX_EXACT_RUNS


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


# Up to this many runs in all, a pair of run counts keeps every row of its tails (the power of a design asks for
# the same rows again and again); beyond it each row is computed when needed, in memory linear in the runs.
_CACHED_TOTAL = 400


def tail_row(runs_a: int, runs_b: int, s: int) -> tuple[int, ...]:
    """``row[x]``: the sum of C(runs_a, k) * C(runs_b, s - k) over k >= x, for the margin of ``s`` hits in all.

    Divided by C(runs_a + runs_b, s) it is the one-sided Fisher p value of ``x``
    hits with the edit among ``s`` hits in all: integers, so p values can be
    compared exactly. Entries run to ``min(runs_a, s) + 1`` (an empty tail, 0).
    """
    if runs_a + runs_b <= _CACHED_TOTAL:
        return _cached_row(runs_a, runs_b, s)
    return _row(runs_a, runs_b, s)


@functools.lru_cache(maxsize=65_536)
def _cached_row(runs_a: int, runs_b: int, s: int) -> tuple[int, ...]:
    return _row(runs_a, runs_b, s)


def _row(runs_a: int, runs_b: int, s: int) -> tuple[int, ...]:
    low, high = max(0, s - runs_b), min(runs_a, s)
    row = [0] * (high + 2)
    for k in range(high, low - 1, -1):
        row[k] = row[k + 1] + math.comb(runs_a, k) * math.comb(runs_b, s - k)
    for k in range(low):  # below the lowest possible count, every table of the margin is in the tail
        row[k] = row[low]
    return tuple(row)


def check_counts(hits_a: int, runs_a: int, hits_b: int, runs_b: int) -> None:
    """Counts of hits out of runs on both sides, at most ``MAX_EXACT_RUNS`` a side, or a ValueError."""
    if not (0 <= hits_a <= runs_a and 0 <= hits_b <= runs_b):
        raise ValueError(f"counts out of range: {hits_a}/{runs_a} against {hits_b}/{runs_b}")
    if max(runs_a, runs_b) > MAX_EXACT_RUNS:
        raise ValueError(f"the exact tests take at most {MAX_EXACT_RUNS:,} runs a side, not {max(runs_a, runs_b):,}")


@functools.lru_cache(maxsize=4096)
def fisher_greater(hits_a: int, runs_a: int, hits_b: int, runs_b: int) -> float:
    """One-sided Fisher exact p: is the rate in A (the edit) greater than in B (the baseline)?

    The 2x2 table is ``[[hits_a, runs_a - hits_a], [hits_b, runs_b - hits_b]]``;
    the p value is the probability, with the margins fixed, of ``hits_a`` or more
    hits in A: a fraction of integers, rounded once.
    """
    check_counts(hits_a, runs_a, hits_b, runs_b)
    margin = hits_a + hits_b
    return tail_row(runs_a, runs_b, margin)[hits_a] / math.comb(runs_a + runs_b, margin)


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


@functools.lru_cache(maxsize=1024)
def upper_bound(k: int, n: int, confidence: float = 0.95) -> float:
    """How often an event seen in ``k`` of ``n`` runs may still happen: the exact one-sided upper bound.

    For ``k = 0`` it is ``1 - (1 - confidence) ** (1 / n)``.
    """
    if n == 0 or k >= n:
        return 1.0
    if k == 0:
        return float(1 - (1 - confidence) ** (1 / n))
    combs = [_log_comb(n, i) for i in range(n + 1)]
    # the rate at which k or fewer events are as unlikely as 1 - confidence
    return _solve(lambda p: _binomial_tail_ge(k + 1, n, p, combs), confidence)
