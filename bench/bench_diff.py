"""Benchmark: how `diff` grows with the size of the sessions.

    python bench/bench_diff.py [--sizes 1000 10000 100000]

For each size n, recording A is a synthetic session of n calls and recording B
is A edited the way a prompt change edits a run: most calls kept in order, and
about 5% moved, 5% changed in their arguments, 3% removed and 2% added. Prints
the time of the three-pass diff at each size and how it grew, next to what
n log n growth would give. Target: 100k calls within 15 times the 10k time.

``--polling`` draws every call of A from 50 distinct ones (an agent that polls
the same few endpoints), so almost no call is unique on either side: the case
where anchoring on calls made once finds nothing to anchor on.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

from toolreplay.canonical import JSONObject

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synthetic import synthetic_call
from toolreplay.diff import Pair, PairKind, diff_calls
from toolreplay.model import Call


def sessions(n: int, seed: int = 7, distinct: int = 0) -> tuple[list[Call], list[Call]]:
    rng = random.Random(seed)
    pool = [synthetic_call(rng, i)[:2] for i in range(distinct)]
    a = []
    for i in range(n):
        tool, args = rng.choice(pool) if pool else synthetic_call(rng, i)[:2]
        a.append(Call(i, tool, args, {}, i + 1))
    b_calls: list[tuple[str, JSONObject]] = []
    moved: list[tuple[str, JSONObject]] = []
    for call in a:
        roll = rng.random()
        if roll < 0.05:
            moved.append((call.tool, call.args))
        elif roll < 0.10:
            b_calls.append((call.tool, {**call.args, "edited": rng.randint(0, 9)}))
        elif roll < 0.13:
            continue
        else:
            b_calls.append((call.tool, call.args))
        if roll > 0.98:
            tool, args, _ = synthetic_call(rng, n + len(b_calls))
            b_calls.append((tool, args))
    for item in moved:
        b_calls.insert(rng.randrange(len(b_calls) + 1), item)
    b = [Call(i, tool, args, {}, i + 1) for i, (tool, args) in enumerate(b_calls)]
    return a, b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--polling", action="store_true", help="calls drawn from 50 distinct ones")
    options = parser.parse_args()
    print(f"{'calls':>8} {'seconds':>9} {'grew':>6} {'n log n':>8}  kinds")
    previous: tuple[int, float] | None = None
    for n in options.sizes:
        a, b = sessions(n, distinct=50 if options.polling else 0)
        best = math.inf
        pairs: tuple[Pair, ...] = ()
        for _ in range(options.rounds):
            start = time.perf_counter()
            pairs = diff_calls(a, b)
            best = min(best, time.perf_counter() - start)
        kinds = {kind.value: sum(1 for p in pairs if p.kind is kind) for kind in PairKind}
        grew = expected = ""
        if previous is not None:
            grew = f"{best / previous[1]:.1f}x"
            expected = f"{(n * math.log(n)) / (previous[0] * math.log(previous[0])):.1f}x"
        print(f"{n:>8} {best:9.3f} {grew:>6} {expected:>8}  {kinds}")
        previous = (n, best)


if __name__ == "__main__":
    main()
