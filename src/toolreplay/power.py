"""What a design can detect: each test's p value, its threshold, and its power, computed exactly.

The power a report states is for a destructive call the unchanged agent never
makes: the count of edited runs that make it is followed round by round through
the design's own decisions (see :mod:`toolreplay.design`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from toolreplay.boschloo import boschloo_greater
from toolreplay.design import STATED_POWER, UNDECIDED_BELOW, Design, ExactTest
from toolreplay.stats import fisher_greater


def p_value(test: ExactTest, hits: int, runs: int, baseline_hits: int, baseline_runs: int) -> float:
    """The one-sided p value of "more frequent with the edit" under ``test``."""
    chosen = boschloo_greater if test is ExactTest.BOSCHLOO else fisher_greater
    return chosen(hits, runs, baseline_hits, baseline_runs)


@functools.lru_cache(maxsize=1024)
def fewest_attributed(test: ExactTest, runs: int, baseline_runs: int, level: float) -> int | None:
    """The fewest edited hits whose p value is at most ``level`` when the unchanged runs never made the call."""
    low, high = 1, runs + 1  # p falls as hits rise: bisect Fisher's for the first at or below the level
    while low < high:
        middle = (low + high) // 2
        if fisher_greater(middle, runs, 0, baseline_runs) <= level:
            high = middle
        else:
            low = middle + 1
    if test is ExactTest.BOSCHLOO:
        # Boschloo's p value is never above Fisher's: its threshold is at or below, usually by one or two
        while low > 1 and boschloo_greater(low - 1, runs, 0, baseline_runs) <= level:
            low -= 1
    return low if low <= runs else None


def power_against_none(design: Design, step: int, baseline_step: int, rate: float, family: int = 1) -> float:
    """How often the design attributes a call the unchanged agent never makes and the edit makes at ``rate``.

    Exact: the count of edited runs that make it is followed round by round
    (the unchanged runs never do). ``family``: how many behaviours share the
    destructive family; each round's test is taken at ``level / family`` and
    another round at ``q <= family * p``, which is what Benjamini-Hochberg
    guarantees the least of, so the result is a lower bound for every member.
    """
    level = design.level / family
    alive = [1.0]  # alive[x]: the chance of x hits so far with no decision yet
    caught = 0.0
    for look in range(1, design.rounds + 1):
        runs, baseline_runs = look * step, look * baseline_step
        alive = _add_binomial(alive, step, rate)
        threshold = fewest_attributed(design.test, runs, baseline_runs, level)
        if threshold is not None:
            caught += math.fsum(alive[threshold:])
            alive = alive[:threshold]
        if look == design.rounds:
            break
        # undecided, so another round: at least this many hits (p falls as hits rise)
        fewest = fewest_attributed(design.test, runs, baseline_runs, UNDECIDED_BELOW / family)
        alive = [chance if fewest is not None and hits >= max(1, fewest) else 0.0 for hits, chance in enumerate(alive)]
    return min(1.0, caught)


def _add_binomial(alive: list[float], runs: int, rate: float) -> list[float]:
    """The distribution of the count after ``runs`` more runs, each a hit at ``rate``."""
    step = [math.comb(runs, k) * rate**k * (1 - rate) ** (runs - k) for k in range(runs + 1)]
    out = [0.0] * (len(alive) + runs)
    for x, chance in enumerate(alive):
        if chance:
            for k, p in enumerate(step):
                out[x + k] += chance * p
    return out


def detectable_rate(design: Design, step: int, baseline_step: int, family: int = 1) -> float | None:
    """The lowest rate with the edit that the design attributes :data:`STATED_POWER` of the time (None: none)."""
    power: Callable[[float], float] = lambda rate: power_against_none(design, step, baseline_step, rate, family)  # noqa: E731
    if power(1.0) < STATED_POWER:
        return None
    low, high = 0.0, 1.0
    for _ in range(40):
        middle = (low + high) / 2
        if power(middle) < STATED_POWER:
            low = middle
        else:
            high = middle
    return high
