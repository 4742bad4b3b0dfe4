"""Operating characteristics of the noise verdicts, on the real verdict code: false FAIL, power, runs spent.

    python bench/bench_verdicts.py [--sims 2000] [--seed 1]

Not a timing benchmark: it measures how often the verdicts are right.

Part 1 is exact: one destructive behaviour, its count followed round by round
through every table it can reach (``toolreplay.replay.noise.judge`` decides
each), for the default replay (Boschloo, rounds of 20 + 20, at most 3), a
fixed 20 + 20 (``compare``, and ``--rounds 1``), Fisher's test on 20 + 20, and
the zero-tolerance rule (``--fail-on any-destructive``: FAIL when the unchanged
runs never made it); and, to show what the rule costs and buys, the replay's
rule before it never gave up a deletion only the edited runs made (it stopped
once the q value was above 0.2). "vs 0%" is the unchanged agent's rate.

Part 2 is simulated: 20 calls that vary from run to run at a common base rate
when the edit changes nothing, each run drawing each call independently. Every
replay goes through ``weigh_changes`` (grouping into behaviours, the two
families, Benjamini-Hochberg) and the replay's own stopping rule
(``NoiseReport.settled``). It prints the share of replays that FAIL and the
mean runs spent (both sides), with all 20 calls destructive (the worst case
for false FAIL) and with 3 of them.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from toolreplay.core.findings import ChangeVerdict
from toolreplay.core.model import CallClass, PairKind, Session
from toolreplay.core.verdict import FailOn, Verdict
from toolreplay.replay.engine import ReplaySetup, Run
from toolreplay.replay.noise import judge, weigh_changes
from toolreplay.replay.report import Change, ReplayReport
from toolreplay.settings import Unrecorded
from toolreplay.stats.design import UNDECIDED_BELOW, Design, ExactTest

STEP = 20
NULL_RATES = (0.0, 0.01, 0.03, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6)
ALTERNATIVES = ((0.1, 0.0), (0.2, 0.0), (0.3, 0.0), (0.45, 0.0), (0.2, 0.1), (0.3, 0.1), (0.45, 0.1))

# A round's decision from the counts so far: "fail", "more" (another round) or "stop".
Decide = Callable[[int, int, int, int, int], str]


def by_design(design: Design, give_up: bool = False) -> Decide:
    """The replay's own rule; ``give_up``: the rule before, which let a deletion only the edited runs made go
    once its q was above UNDECIDED_BELOW, kept to show what never giving it up costs and buys."""

    def decide(hits: int, runs: int, base: int, base_runs: int, round_: int) -> str:
        if hits == 0:
            return "stop"  # nothing destructive with the edit: nothing to attribute
        ((_, q, verdict),) = judge([(hits, runs, base, base_runs)], True, design)
        if verdict is ChangeVerdict.DESTRUCTIVE:
            return "fail"
        if give_up and q > UNDECIDED_BELOW:
            return "stop"
        return "more" if verdict is ChangeVerdict.UNDECIDED and round_ < design.rounds else "stop"

    return decide


def zero_tolerance(hits: int, runs: int, base: int, base_runs: int, round_: int) -> str:
    return "fail" if hits and not base else "stop"


def _binomial(n: int, p: float) -> list[float]:
    return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def exact(decide: Decide, rounds: int, edited: float, unchanged: float) -> tuple[float, float]:
    """The chance the verdict is FAIL and the expected runs (both sides), by following every reachable table."""
    alive = {(0, 0): 1.0}
    fail = runs_spent = 0.0
    step_a, step_b = _binomial(STEP, edited), _binomial(STEP, unchanged)
    for round_ in range(1, rounds + 1):
        runs = round_ * STEP
        grown: dict[tuple[int, int], float] = {}
        for (hits, base), chance in alive.items():
            for i, pa in enumerate(step_a):
                for j, pb in enumerate(step_b):
                    if pa and pb:
                        key = (hits + i, base + j)
                        grown[key] = grown.get(key, 0.0) + chance * pa * pb
        alive = {}
        for (hits, base), chance in grown.items():
            outcome = decide(hits, runs, base, runs, round_)
            if outcome == "more":
                alive[(hits, base)] = chance
                continue
            runs_spent += chance * 2 * runs
            fail += chance if outcome == "fail" else 0.0
    return fail, runs_spent


def _report(runs: list[frozenset[int]], first: int, classes: list[CallClass], count: int) -> ReplayReport:
    """A replay report whose run ``first + i`` made the calls in ``runs[i]`` (as added calls)."""
    made: dict[int, list[int]] = {}
    for offset, calls in enumerate(runs):
        for call in calls:
            made.setdefault(call, []).append(first + offset)
    changes = tuple(
        Change(PairKind.ADDED, f"call_{call}", {}, classes[call], tuple(numbers)) for call, numbers in made.items()
    )
    setup = ReplaySetup(Session("recorded", ()), "", (), Unrecorded.ERROR, (), 1)
    all_runs = tuple(Run(first + n, None, (), (), "final reply", None) for n in range(count))
    return ReplayReport(setup, "simulated", all_runs, changes, (), FailOn.DESTRUCTIVE)


def simulate(rate: float, destructive: int, sims: int, rng: random.Random, rounds: int = 3) -> tuple[float, float]:
    """Share of replays that FAIL, and mean runs, with 20 calls at ``rate`` on both sides (the edit changes nothing)."""
    classes = [CallClass.DESTRUCTIVE if i < destructive else CallClass.READ_ONLY for i in range(20)]
    design = Design(rounds=rounds)
    fails = spent = 0
    for _ in range(sims):
        edited: list[frozenset[int]] = []
        unchanged: list[frozenset[int]] = []
        for round_ in range(1, rounds + 1):
            for side in (edited, unchanged):
                side.extend(frozenset(c for c in range(20) if rng.random() < rate) for _ in range(STEP))
            candidate = _report(edited, 1, classes, len(edited))
            baseline = _report(unchanged, 1, classes, len(unchanged))
            report = weigh_changes(candidate, baseline, design, FailOn.DESTRUCTIVE, round_, (STEP, STEP))
            if report.settled:
                break
        fails += report.verdict is Verdict.FAIL
        spent += len(edited) + len(unchanged)
    return fails / sims, spent / sims


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sims", type=int, default=2000, help="simulated replays per base rate in part 2")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    rules: list[tuple[str, Decide, int]] = [
        ("replay default: Boschloo, up to 3 rounds of 20+20", by_design(Design(rounds=3)), 3),
        ("the same, a deletion given up at q above 0.2 (before)", by_design(Design(rounds=3), give_up=True), 3),
        ("fixed 20+20, Boschloo (compare, --rounds 1)", by_design(Design()), 1),
        ("fixed 20+20, Fisher (--test fisher --rounds 1)", by_design(Design(test=ExactTest.FISHER)), 1),
        ("zero tolerance on 20+20 (--fail-on any-destructive)", zero_tolerance, 1),
    ]
    print("Part 1, exact: one destructive behaviour")
    print()
    header = "| rule | " + " | ".join(f"{r:.0%}" for r in NULL_RATES) + " |"
    for title, cell, form in (
        ("False FAIL when the edit changes nothing, by the unchanged agent's rate:", 0, ".3f"),
        ("Expected runs per verdict (both sides) when the edit changes nothing:", 1, ".1f"),
    ):
        print(title)
        print()
        print(header)
        print("|---|" + "---:|" * len(NULL_RATES))
        for name, decide, rounds in rules:
            cells = [exact(decide, rounds, rate, rate)[cell] for rate in NULL_RATES]
            print(f"| {name} | " + " | ".join(f"{c:{form}}" for c in cells) + " |")
        print()
    print("Power (chance of FAIL) and expected runs, with the edit at the first rate and without it at the second:")
    print()
    print("| rule | " + " | ".join(f"{a:.0%} vs {b:.0%}" for a, b in ALTERNATIVES) + " |")
    print("|---|" + "---:|" * len(ALTERNATIVES))
    for name, decide, rounds in rules:
        powers = [exact(decide, rounds, a, b) for a, b in ALTERNATIVES]
        print(f"| {name} | " + " | ".join(f"{p:.3f} ({n:.0f})" for p, n in powers) + " |")
    print()
    rng = random.Random(args.seed)
    print(f"Part 2, simulated ({args.sims} replays a cell): 20 varying calls, the edit changing nothing")
    print()
    print("| destructive calls | " + " | ".join(f"{r:.0%}" for r in NULL_RATES[1:]) + " |")
    print("|---|" + "---:|" * (len(NULL_RATES) - 1))
    for destructive in (20, 3):
        simulated = [simulate(rate, destructive, args.sims, rng) for rate in NULL_RATES[1:]]
        print(f"| {destructive} of 20 | " + " | ".join(f"{f:.3f} ({n:.0f})" for f, n in simulated) + " |")
    print()
    print("(cells: false-FAIL share, and mean runs in parentheses)")
    print(f"measured in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
