"""Boschloo's exact test against SciPy's on every table up to N runs a side (not a benchmark: a one-off audit).

    python bench/check_boschloo.py --max 40 [--jobs 2]

For every pair of run counts (n, m) with 1 <= n, m <= N and every table of
them, compares ``toolreplay.stats.boschloo.boschloo_greater`` with
``scipy.stats.boschloo_exact(alternative="greater")``. SciPy maximises over the
common rate with an optimiser, which can stop short of the maximum (and on some
tables with p near 1 returns exactly 1). Where the two differ by more than 1e-9
(relative), the table is settled by a third, independent search: the same sum
on a grid of 5,000 points in the arcsine scale, then refined. Ours must match
that search; a table where it does not is broken. Prints the worst deviations
and how many tables SciPy was off on; exit 1 if any table is broken. Takes about
5 ms a table, more where SciPy is off.
"""

from __future__ import annotations

import argparse
import math
import sys
from concurrent.futures import ProcessPoolExecutor


def _check_pair(
    sides: tuple[int, int],
) -> tuple[int, float, float, int, list[tuple[int, int, int, int, float, float, float]]]:
    from scipy.stats import boschloo_exact  # type: ignore[import-untyped]  # noqa: PLC0415 - each worker imports its own

    from toolreplay.stats.boschloo import boschloo_greater  # noqa: PLC0415

    n, m = sides
    tables, worst_small, worst_below, off, broken = 0, 0.0, 0.0, 0, []
    for a in range(n + 1):
        for b in range(m + 1):
            ours = boschloo_greater(a, n, b, m)
            theirs = float(boschloo_exact([[a, b], [n - a, m - b]], alternative="greater").pvalue)
            theirs = 1.0 if math.isnan(theirs) else theirs
            tables += 1
            if theirs < 0.5:
                worst_small = max(worst_small, abs(ours - theirs) / theirs if theirs else abs(ours))
            else:
                worst_below = max(worst_below, theirs - ours)
            if abs(ours - theirs) <= 1e-9 * max(theirs, 1e-300):
                continue
            off += 1
            settled = _fine_maximum(a, n, b, m)
            if abs(ours - settled) > 1e-9 * max(settled, 1e-300):
                broken.append((a, n, b, m, ours, theirs, settled))
    return tables, worst_small, worst_below, off, broken


def _fine_maximum(a: int, n: int, b: int, m: int) -> float:
    """The region's largest probability by a search of its own: 5,000 grid points, the best three refined."""
    from toolreplay.stats.boschloo import _probability, _region_weights  # noqa: PLC0415

    if fisher(a, n, b, m) >= 1.0:
        return 1.0
    weights = [float(w) for w in _region_weights(a, n, b, m)]
    points = 5000
    step = (math.pi / 2) / points
    values = [(_probability(weights, i * step), i) for i in range(points + 1)]
    best = max(value for value, _ in values)
    for _, i in sorted(values, reverse=True)[:3]:
        low, high = max(0, i - 1) * step, min(points, i + 1) * step
        for _ in range(200):  # ternary search to the last bit
            left, right = low + (high - low) / 3, high - (high - low) / 3
            if _probability(weights, left) < _probability(weights, right):
                low = left
            else:
                high = right
        best = max(best, _probability(weights, (low + high) / 2))
    return min(best, fisher(a, n, b, m))


def fisher(a: int, n: int, b: int, m: int) -> float:
    from toolreplay.stats.exact import fisher_greater  # noqa: PLC0415

    return fisher_greater(a, n, b, m)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max", type=int, default=40, help="the most runs a side")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    args = parser.parse_args()
    pairs = [(n, m) for n in range(1, args.max + 1) for m in range(1, args.max + 1)]
    tables, worst_small, worst_below, off, broken = 0, 0.0, 0.0, 0, []
    with ProcessPoolExecutor(args.jobs) as pool:
        for result in pool.map(_check_pair, pairs, chunksize=4):
            tables += result[0]
            worst_small = max(worst_small, result[1])
            worst_below = max(worst_below, result[2])
            off += result[3]
            broken += result[4]
    print(f"tables: {tables:,} (every table of 1..{args.max} runs a side)")
    print(f"SciPy p < 0.5: worst relative deviation {worst_small:.2e}")
    print(f"SciPy p >= 0.5: ours below SciPy's by at most {worst_below:.2e}")
    settled = "on every one ours is the fine search's maximum" if not broken else f"BROKEN on {len(broken):,}"
    print(f"SciPy off by more than 1e-9 on {off:,} tables; {settled}")
    for row in broken[:20]:
        print("broken:", row)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
