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
the edit, not yet attributed to it, and either never made by the unchanged
runs or with a q value at or below :data:`UNDECIDED_BELOW`, so more runs could
still attribute it. A deletion only the edited runs made is never given up for
being unlikely to be attributed: one in twenty edited runs against none runs
every round planned. Anything else stops the replay: the verdict cannot change. ``compare`` is one round at the
full ``alpha``, and says when its runs could not decide.

This module only names the design (settings and configs read it without
loading any statistics); :mod:`toolreplay.stats.power` computes with it.
"""

from __future__ import annotations

import enum

from toolreplay.core.records import record

DEFAULT_ALPHA = 0.05
# The most runs a side the exact tests take: their integers grow with the runs, and their time with the square.
MAX_EXACT_RUNS = 1000
DEFAULT_ROUNDS = 3
# A destructive behaviour not yet attributed that the unchanged runs made too is worth more runs while its q
# value is at or below this. Lower saves runs when the edit changes nothing; higher catches rarer deletions.
# 0.2 keeps the expected cost within 1.5 times one round at every base rate (bench/bench_verdicts.py measures
# it). One the unchanged runs never made is worth more runs whatever its q.
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


@record
class Design:
    """The test, the false-FAIL rate, and how many rounds of runs it may be spread over."""

    alpha: float = DEFAULT_ALPHA
    test: ExactTest = ExactTest.BOSCHLOO
    rounds: int = 1

    @property
    def level(self) -> float:
        """What each round's tests are held to: ``alpha`` spent evenly over the rounds."""
        return self.alpha / self.rounds
