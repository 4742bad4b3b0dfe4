"""Benchmark: how `diff` grows with the size of the sessions, for every shape of session we know to be hard.

    python bench/bench_diff.py [--sizes 1000 10000 90000 100000] [--shapes varied cyclic ...] [--rounds 3]

For each shape and size n, it builds recordings A and B of about n calls each,
times `diff_calls(A, B)` (best of the rounds, and of as many more as fill a second) and prints each time, its growth
from the size before, and the ratio of the largest size to 10,000 calls.
Target: 100,000 calls within 15x the 10,000-call time, for every shape; a
linear diff grows 10x, an n log n one about 12.5x.

The shapes:

- varied: calls mostly made once; B is A edited as a prompt change edits a run
  (5% moved, 5% changed in their arguments, 3% removed, 2% added);
- polling: the same edits, over calls drawn from 50 distinct ones, so almost
  no call is made once on either side;
- cyclic: an agent walking the same 1,000 files again and again, one argument
  changed each cycle in B (no run of up to 64 calls is unique);
- repeated: one call made throughout, a single one changed in B;
- identical: A against itself;
- disjoint: two sessions with no call in common;
- shuffled: B is A in a random order;
- reversed: B is A backwards.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synthetic import synthetic_call
from toolreplay.analysis.diff import Pair, diff_calls
from toolreplay.core.canonical import JSONObject
from toolreplay.core.model import Call, PairKind

Spec = tuple[str, JSONObject]


def _numbered(specs: list[Spec]) -> list[Call]:
    return [Call(i, tool, args, {}, i + 1) for i, (tool, args) in enumerate(specs)]


def _edited(rng: random.Random, a: list[Spec], fresh: Callable[[int], Spec]) -> list[Spec]:
    """A as a prompt change edits it: most calls kept in order, some moved, changed, removed or added."""
    b: list[Spec] = []
    moved: list[Spec] = []
    for tool, args in a:
        roll = rng.random()
        if roll < 0.05:
            moved.append((tool, args))
        elif roll < 0.10:
            b.append((tool, {**args, "edited": rng.randint(0, 9)}))
        elif roll < 0.13:
            continue
        else:
            b.append((tool, args))
        if roll > 0.98:
            b.append(fresh(len(a) + len(b)))
    for item in moved:
        b.insert(rng.randrange(len(b) + 1), item)
    return b


def _fresh(rng: random.Random) -> Callable[[int], Spec]:
    def make(index: int) -> Spec:
        tool, args, _ = synthetic_call(rng, index)
        return tool, args

    return make


def varied(n: int, rng: random.Random) -> tuple[list[Spec], list[Spec]]:
    make = _fresh(rng)
    a = [make(i) for i in range(n)]
    return a, _edited(rng, a, make)


def polling(n: int, rng: random.Random) -> tuple[list[Spec], list[Spec]]:
    make = _fresh(rng)
    pool = [make(i) for i in range(50)]
    a = [rng.choice(pool) for _ in range(n)]
    return a, _edited(rng, a, make)


def cyclic(n: int, rng: random.Random) -> tuple[list[Spec], list[Spec]]:
    files = [f"src/file_{k:04}.py" for k in range(1000)]
    a: list[Spec] = [("lint_file", {"path": files[i % len(files)], "strict": True}) for i in range(n)]
    b = list(a)
    for cycle in range(0, n, len(files)):
        at = cycle + rng.randrange(min(len(files), n - cycle))
        b[at] = ("lint_file", {"path": b[at][1]["path"], "strict": False})
    return a, b


def repeated(n: int, rng: random.Random) -> tuple[list[Spec], list[Spec]]:
    a: list[Spec] = [("status", {"service": "api"})] * n
    b = list(a)
    b[rng.randrange(n)] = ("status", {"service": "db"})
    return a, b


def identical(n: int, rng: random.Random) -> tuple[list[Spec], list[Spec]]:
    a, _ = varied(n, rng)
    return a, a


def disjoint(n: int, rng: random.Random) -> tuple[list[Spec], list[Spec]]:
    a, _ = varied(n, rng)
    return a, [(tool, {**args, "side": "b"}) for tool, args in a]


def shuffled(n: int, rng: random.Random) -> tuple[list[Spec], list[Spec]]:
    a, _ = varied(n, rng)
    b = list(a)
    rng.shuffle(b)
    return a, b


def reversed_(n: int, rng: random.Random) -> tuple[list[Spec], list[Spec]]:
    a, _ = varied(n, rng)
    return a, a[::-1]


SHAPES: dict[str, Callable[[int, random.Random], tuple[list[Spec], list[Spec]]]] = {
    "varied": varied,
    "polling": polling,
    "cyclic": cyclic,
    "repeated": repeated,
    "identical": identical,
    "disjoint": disjoint,
    "shuffled": shuffled,
    "reversed": reversed_,
}


def sessions(shape: str, n: int, seed: int = 7) -> tuple[list[Call], list[Call]]:
    a, b = SHAPES[shape](n, random.Random(seed))
    return _numbered(a), _numbered(b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 90_000, 100_000])
    parser.add_argument("--shapes", nargs="+", choices=sorted(SHAPES), default=list(SHAPES))
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    print(f"{'shape':<10} {'calls':>8} {'seconds':>9} {'grew':>6} {'n log n':>8}  kinds")
    summary: list[str] = []
    for shape in options.shapes:
        previous: tuple[int, float] | None = None
        times: dict[int, float] = {}
        for n in options.sizes:
            a, b = sessions(shape, n)
            best, spent, rounds = math.inf, 0.0, 0
            pairs: tuple[Pair, ...] = ()
            while rounds < options.rounds or spent < 1.0:  # small sizes run more rounds: their best is noisier
                start = time.perf_counter()
                pairs = diff_calls(a, b)
                took = time.perf_counter() - start
                best, spent, rounds = min(best, took), spent + took, rounds + 1
            times[n] = best
            kinds = {kind.value: sum(1 for p in pairs if p.kind is kind) for kind in PairKind}
            grew = expected = ""
            if previous is not None:
                grew = f"{best / previous[1]:.1f}x"
                expected = f"{(n * math.log(n)) / (previous[0] * math.log(previous[0])):.1f}x"
            print(f"{shape:<10} {n:>8} {best:9.3f} {grew:>6} {expected:>8}  {kinds}", flush=True)
            previous = (n, best)
        if 10_000 in times and len(times) > 1:
            largest = max(times)
            ratio = times[largest] / times[10_000]
            verdict = "within" if ratio <= 15 * largest / 100_000 else "OVER"
            summary.append(f"{shape:<10} {largest:>8} calls / 10,000: {ratio:5.1f}x  ({verdict} target)")
    if summary:
        print()
        print("\n".join(summary))


if __name__ == "__main__":
    main()
