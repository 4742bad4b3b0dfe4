"""How a noise analysis decides, and what its runs can detect: the test, the looks, the error spent at each.

A replay with a noise baseline runs in rounds: each round is ``repeat`` runs
with the edit and ``noise`` runs without it. After each round every behaviour
(see :mod:`toolreplay.replay.noise`) is tested with an exact one-sided test,
Boschloo's by default or Fisher's. The false-FAIL rate is spent evenly across
the rounds planned: a test after any round is held to ``alpha / rounds``, so
whichever round the replay stops at, and whatever made it stop, the chance of
calling a change the edit did not cause is at most ``alpha`` (a union bound
over the rounds; it needs nothing of how the rounds depend on each other).

Another round runs only when a destructive behaviour is *undecided*: seen with
the edit, not yet attributed to it, but with a q value below
:data:`UNDECIDED_BELOW`, so more runs could still attribute it. Anything else
stops the replay: the verdict cannot change. ``compare`` is one round at the
full ``alpha``, and says when its runs could not decide.
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_ALPHA = 0.05
DEFAULT_ROUNDS = 3
# A destructive behaviour not yet attributed, whose q value is below this, is worth more runs. Lower saves
# runs when the edit changes nothing; higher catches rarer deletions. 0.2 keeps the expected cost within 1.5
# times one round at every base rate (bench/bench_verdicts.py measures it).
UNDECIDED_BELOW = 0.2
# The power a report states: the rate with the edit that the runs detect this often.
STATED_POWER = 0.8


class ExactTest(enum.Enum):
    """The one-sided exact test of "more frequent with the edit"."""

    BOSCHLOO = "boschloo"
    FISHER = "fisher"

    @property
    def title(self) -> str:
        return "Boschloo's exact test" if self is ExactTest.BOSCHLOO else "Fisher's exact test"

    def p_value(self, hits: int, runs: int, baseline_hits: int, baseline_runs: int) -> float:
        # imported here: settings and configs name a test without loading the statistics
        if self is ExactTest.BOSCHLOO:
            from toolreplay.boschloo import boschloo_greater  # noqa: PLC0415

            return boschloo_greater(hits, runs, baseline_hits, baseline_runs)
        from toolreplay.stats import fisher_greater  # noqa: PLC0415

        return fisher_greater(hits, runs, baseline_hits, baseline_runs)


@dataclass(frozen=True, slots=True)
class Design:
    """The test, the false-FAIL rate, and how many rounds of runs it may be spread over."""

    alpha: float = DEFAULT_ALPHA
    test: ExactTest = ExactTest.BOSCHLOO
    rounds: int = 1

    @property
    def level(self) -> float:
        """What each round's tests are held to: ``alpha`` spent evenly over the rounds."""
        return self.alpha / self.rounds


@functools.lru_cache(maxsize=1024)
def fewest_attributed(test: ExactTest, runs: int, baseline_runs: int, level: float) -> int | None:
    """The fewest edited hits the test attributes at ``level`` when the unchanged runs never made the call."""
    low, high = 1, runs + 1  # p falls as hits rise: bisect for the first at or below the level
    while low < high:
        middle = (low + high) // 2
        if test.p_value(middle, runs, 0, baseline_runs) <= level:
            high = middle
        else:
            low = middle + 1
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
        alive = [
            chance if hits and family * design.test.p_value(hits, runs, 0, baseline_runs) <= UNDECIDED_BELOW else 0.0
            for hits, chance in enumerate(alive)
        ]
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
