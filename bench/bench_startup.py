"""Benchmark: the headline command as a whole process, against a bare interpreter.

    python bench/bench_startup.py [--rounds 9]

Each round runs `python -c pass` and then the README's headline (20 edited and
20 unchanged replays of the sample with the scripted agent, and the statistics),
both as fresh processes, and takes the ratio of the two; the median ratio is
printed (target: at most 2). Also prints what `toolreplay version` and
`python -c "import click"` cost in the same rounds, since the command line's
own start-up sets a floor no command can go under.
"""

from __future__ import annotations

import argparse
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


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9)
    options = parser.parse_args()
    for command in COMMANDS.values():  # warm the file cache
        timed(command)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    ratios: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(options.rounds):
        bare = timed(COMMANDS["python -c pass"])
        times["python -c pass"].append(bare)
        for name, command in COMMANDS.items():
            if name != "python -c pass":
                took = timed(command)
                times[name].append(took)
                ratios[name].append(took / bare)
    print(f"{options.rounds} rounds; median time, and median of each round's ratio to `python -c pass`")
    for name in COMMANDS:
        ratio = f"{statistics.median(ratios[name]):6.1f}x" if ratios[name] else "   1.0x"
        print(f"  {name:<26} {statistics.median(times[name]) * 1000:7.0f} ms {ratio}")


if __name__ == "__main__":
    main()
