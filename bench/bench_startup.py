"""Benchmark: the headline command as a whole process, against the floor of any click program.

    python bench/bench_startup.py [--rounds 9]

A click command line cannot start faster than `python -c "import click"`, so
that is the floor. Each round runs the floor, a bare interpreter, `toolreplay
version` and the README's headline (20 edited and 20 unchanged replays of the
sample with the scripted agent, and the statistics), each as a fresh process,
and takes each one's ratio to the floor of the same round; the medians are
printed (target for the headline: at most 2.5x the floor).

The children run with bytecode caching on, as an installed package runs (pip
compiles it at install time): a PYTHONDONTWRITEBYTECODE in the environment
would otherwise add compiling every module to every run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADLINE = [
    sys.executable,
    "-m",
    "toolreplay",
    "replay",
    "samples/ops/session.json",
    "--system",
    "samples/ops/prompt-v2.txt",
    "--repeat",
    "20",
    "--noise",
    "20",
    "--on-unrecorded",
    "stub",
    "--stubs",
    "samples/ops/stubs.json",
]
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import click'": [sys.executable, "-c", "import click"],
    "toolreplay version": [sys.executable, "-m", "toolreplay", "version"],
    "headline replay": HEADLINE,
}


FLOOR = "python -c 'import click'"
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, env=ENV, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9)
    options = parser.parse_args()
    for command in COMMANDS.values():  # warm the file cache and write the bytecode caches
        timed(command)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    ratios: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(options.rounds):
        floor = timed(COMMANDS[FLOOR])
        times[FLOOR].append(floor)
        for name, command in COMMANDS.items():
            if name != FLOOR:
                took = timed(command)
                times[name].append(took)
                ratios[name].append(took / floor)
    print(f"{options.rounds} rounds; median time, and median of each round's ratio to {FLOOR}")
    for name in COMMANDS:
        ratio = f"{statistics.median(ratios[name]):6.2f}x" if ratios[name] else "   1.00x"
        print(f"  {name:<26} {statistics.median(times[name]) * 1000:7.0f} ms {ratio}")


if __name__ == "__main__":
    main()
