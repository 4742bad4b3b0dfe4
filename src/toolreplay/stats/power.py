"""What a design can detect: each test's p value, its threshold, and its power, computed exactly.

The power a report states is for a destructive call the unchanged agent never
makes: the count of edited runs that make it is followed round by round through
the design's own decisions (see :mod:`toolreplay.stats.design`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from toolreplay.stats.boschloo import boschloo_at_most, boschloo_greater
from toolreplay.stats.design import STATED_POWER, Design, ExactTest
from toolreplay.stats.exact import fisher_greater


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
        while low > 1 and boschloo_at_most(low - 1, runs, 0, baseline_runs, level):
            low -= 1
    return low if low <= runs else None


def power_against_none(design: Design, step: int, baseline_step: int, rate: float, family: int = 1) -> float:
    """How often the design attributes a call the unchanged agent never makes and the edit makes at ``rate``.

    Exact: the count of edited runs that make it is followed round by round
    (the unchanged runs never do). ``family``: how many behaviours share the
    destructive family; each round's test is taken at ``level / family``, which
    is what Benjamini-Hochberg guarantees the least of, so the result is a lower
    bound for every member. Another round runs after any hit: a deletion the
    unchanged runs never made is never given up on.
    """
    return _power(_looks(design, step, baseline_step, family), step, rate)


# A round of the design, for the power: the fewest hits so far it attributes (None: no count does), and the
# fewest it runs another round with (the last round runs none: more hits than its runs).
_Look = tuple[int | None, int]


def _looks(design: Design, step: int, baseline_step: int, family: int) -> list[_Look]:
    """Each round's thresholds: they do not depend on the rate, so a bisection over the rate asks for them once."""
    level = design.level / family
    looks: list[_Look] = []
    for look in range(1, design.rounds + 1):
        runs, baseline_runs = look * step, look * baseline_step
        threshold = fewest_attributed(design.test, runs, baseline_runs, level)
        # undecided, so another round, with any hit; the last round runs none
        looks.append((threshold, 1 if look < design.rounds else runs + 1))
    return looks


def _power(looks: list[_Look], step: int, rate: float) -> float:
    """The power of the rounds ``looks`` at ``rate``: every sum and product in the same order as ever, so the
    same value to the last bit."""
    caught = 0.0
    # the chances of 0 to step hits in a round, the same in every round (a float times the binomial
    # coefficient as a float is what the coefficient as an integer gives: it is converted, rounded once)
    rest = 1 - rate
    one_round = [comb * rate**k * rest ** (step - k) for k, comb in enumerate(_binomial_coefficients(step))]
    alive = one_round  # after the first round: adding it to no hits so far (a chance of 1) gives its own chances
    for look, (threshold, go_on) in enumerate(looks, 1):
        if look > 1:
            alive = _add_round(alive, one_round)
        if threshold is not None:
            caught += math.fsum(alive[threshold:])
            alive = alive[:threshold]
        if look == len(looks):
            break
        alive = [0.0] * min(go_on, len(alive)) + alive[go_on:]  # undecided, so another round
    return min(1.0, caught)


@functools.lru_cache(maxsize=64)
def _binomial_coefficients(runs: int) -> tuple[float, ...]:
    return tuple(float(math.comb(runs, k)) for k in range(runs + 1))


def _add_round(alive: list[float], one_round: list[float]) -> list[float]:
    """The distribution of the count after one more round, whose hits are distributed as ``one_round``."""
    width = len(one_round)
    out = [0.0] * (len(alive) + width - 1)
    for x, chance in enumerate(alive):
        if chance:
            out[x : x + width] = [before + chance * p for before, p in zip(out[x : x + width], one_round, strict=True)]
    return out


def detectable_rate(design: Design, step: int, baseline_step: int, family: int = 1) -> float | None:
    """The lowest rate with the edit that the design attributes :data:`STATED_POWER` of the time (None: none).

    Bisection to 2**-40, each step the exact power at the middle: far finer than the four decimals a report
    prints, and kept so that the rate is the same to the last bit as it always was.
    """
    looks = _looks(design, step, baseline_step, family)
    power: Callable[[float], float] = lambda rate: _power(looks, step, rate)  # noqa: E731
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
