"""Benchmark: seal, verify and audit against the plainest stdlib loop.

    python bench/bench_chain.py [--calls 1000000] [--rounds 1]
    python bench/bench_chain.py --noisy [--calls 200000]

Writes a synthetic transcript, then times each command as the CLI runs it (in
this process, output to /dev/null) and, in the same run, the floor: a loop that
reads each line, parses it with ``json.loads``, encodes it canonically with
``json.dumps`` and hashes it with SHA-256. Each command's time is printed as a
ratio to the floor over the same file, so the machine's speed cancels out.
Rounds alternate floor and command and keep the best of each. Peak memory is
the maximum resident set of the real CLI, run as a child process.

``--noisy`` writes instead a transcript whose calls are drawn from about 30%
as many distinct calls, each repeat answered at random from a few responses:
many non-determinism findings, the audit's most expensive case.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synthetic import synthetic_call, write_transcript
from toolreplay.cli import main


def write_noisy_transcript(path: Path, calls: int, seed: int = 5) -> int:
    """``calls`` calls drawn from ``calls * 0.3`` distinct ones, each answered by one of three responses."""
    rng = random.Random(seed)
    distinct = max(1, calls * 3 // 10)
    pool = [synthetic_call(rng, index)[:2] for index in range(distinct)]
    with path.open("w", encoding="utf-8") as handle:
        for index in range(calls):
            tool, args = pool[rng.randrange(distinct)]
            response = {"status": rng.choice(["ok", "busy", "late"]), "n": rng.randrange(3)}
            record = {"index": index, "tool": tool, "args": args, "response": response}
            handle.write(json.dumps(record) + "\n")
    return path.stat().st_size


def floor(path: Path) -> int:
    """The plainest loop: parse, canonically encode and hash every line."""
    count = 0
    with path.open("rb") as handle:
        for line in handle:
            value = json.loads(line)
            hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).digest()
            count += 1
    return count


@contextlib.contextmanager
def stdout_to_devnull() -> Iterator[None]:
    saved = sys.stdout
    with open(os.devnull, "wb") as sink:
        sys.stdout = io.TextIOWrapper(sink, encoding="utf-8")
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stdout = saved


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def run_cli(*args: str) -> int:
    with stdout_to_devnull():
        return main(list(args))


_MEASURE = """
import sys
sys.path[:0] = {paths!r}
{setup}
with open("/proc/self/status") as status:
    peak = next(line for line in status if line.startswith("VmHWM:"))
print(int(peak.split()[1]) / 1024, file=sys.stderr)
"""


def peak_rss_mb(setup: str) -> float:
    """Peak resident memory (VmHWM) of a fresh interpreter that runs ``setup``, in MB.

    Read inside the child: a fork's own maximum-RSS counter would include this
    process's memory at the time of the fork.
    """
    root = str(Path(__file__).resolve().parent.parent)
    code = _MEASURE.format(paths=[root, str(Path(root) / "src")], setup=setup)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return float(proc.stderr.strip().splitlines()[-1])


def command_peak(*args: str) -> float:
    return peak_rss_mb(
        "import io, os\n"
        "from toolreplay.cli import main\n"
        "sys.stdout = io.TextIOWrapper(open(os.devnull, 'wb'))\n"
        f"main({list(args)!r})\n"
        "sys.stdout.flush()"
    )


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--noisy", action="store_true", help="repeated calls with differing answers")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        transcript = Path(tmp) / "transcript.jsonl"
        sealed = Path(tmp) / "sealed.jsonl"
        write = write_noisy_transcript if options.noisy else write_transcript
        size = write(transcript, options.calls)
        if main(["seal", str(transcript), "-o", str(sealed)]) != 0:
            raise SystemExit("seal failed")
        print(f"{options.calls:,} calls, transcript {size / 1e6:.0f} MB, sealed {sealed.stat().st_size / 1e6:.0f} MB")

        commands: list[tuple[str, Path, tuple[str, ...]]] = [
            ("seal", transcript, ("seal", str(transcript))),
            ("verify", sealed, ("verify", str(sealed))),
            ("audit", transcript, ("audit", str(transcript))),
        ]
        best: dict[str, tuple[float, float]] = {}
        for _ in range(options.rounds):
            for name, source, args in commands:
                base = timed(lambda source=source: floor(source))  # type: ignore[misc]
                took = timed(lambda args=args: run_cli(*args))  # type: ignore[misc]
                old = best.get(name, (float("inf"), float("inf")))
                best[name] = (min(old[0], base), min(old[1], took))

        floor_rss = peak_rss_mb(
            f"from bench.bench_chain import floor\nfrom pathlib import Path\nfloor(Path({str(transcript)!r}))"
        )
        print(f"{'command':<8} {'floor s':>8} {'command s':>10} {'ratio':>6} {'peak MB':>8}")
        for name, _, args in commands:
            base, took = best[name]
            print(f"{name:<8} {base:8.2f} {took:10.2f} {took / base:6.2f} {command_peak(*args):8.1f}")
        print(f"peak MB of the floor loop: {floor_rss:.1f}; of 'toolreplay version': {command_peak('version'):.1f}")


if __name__ == "__main__":
    main_bench()
