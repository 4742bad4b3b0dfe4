"""Benchmark: a session's calls against the same calls as a transcript, for every command that reads them.

    python bench/bench_sessions.py [--calls 100000] [--rounds 5] [--memory 10000 100000] [--only seal,diff]

Writes N synthetic calls (bench/synthetic.py) twice, as a transcript and as a
session file the way toolreplay writes one (one call per assistant turn, each
result as its JSON text), then times `show`, `audit`, `seal` and `diff` on each
as the CLI runs them (in this process, output to /dev/null, in CPU time), the
two formats one after the other in each round; it prints the median of the
rounds' times and of their ratios. `diff` compares each file with a
copy of itself; the diff algorithm (`diff_calls`, given the same calls whatever
the format) is timed alone and taken off, and the reading alone (both
recordings read as `diff` reads them, a session for its calls alone) is timed
too, and both read whole (`load_session`, as the commands that need a
session's messages read it). A ratio is the session's time over the
transcript's in the same round, so the machine's speed cancels out.

Then the peak resident memory of `show` on a session of each size in
--memory, and on the transcript of the same calls, each run as the only child
of a fresh process (the kernel's ru_maxrss for its children), next to
`python -c "import toolreplay.cli"` as the floor.

``--only`` times only the commands named (``show``, ``audit``, ``seal``, ``diff``; ``diff`` brings its reading
and ``diff_calls`` with it), and skips the memory unless ``--memory`` is given, to iterate faster.

Targets: every ratio at most 2; `show` streams, so its peak for 100,000 calls is
close to its peak for 10,000.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_chain import run_cli
from bench.synthetic import write_session, write_transcript
from toolreplay.analysis.classify import Policy
from toolreplay.analysis.diff import diff_calls
from toolreplay.commands.diff import read_recording
from toolreplay.formats.recording import load_session

_MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.stderr[-300:])\n"
)


def peak_mb(command: list[str]) -> float:
    """The peak resident memory of ``command``, run as the only child of a fresh process (so no other counts)."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, *command], capture_output=True, text=True, check=True)
    code, peak, stderr = out.stdout.split(" ", 2)
    if int(code) != 0:
        raise SystemExit(f"{' '.join(command)} failed: {stderr}")
    return int(peak) / 1024


def write_both(root: Path, calls: int) -> tuple[Path, Path]:
    """The same ``calls`` calls as a transcript and as a session, each with a copy for `diff`."""
    transcript, session = root / f"t{calls}.jsonl", root / f"s{calls}.json"
    write_transcript(transcript, calls)
    write_session(session, calls)
    for path in (transcript, session):
        shutil.copyfile(path, path.with_name("copy-" + path.name))
    return transcript, session


def cpu_time(action: Callable[[], object]) -> float:
    """The CPU time ``action`` takes (this machine is shared: wall time would measure the neighbours)."""
    start = time.process_time()
    action()
    return time.process_time() - start


def copy_of(path: Path) -> str:
    return str(path.with_name("copy-" + path.name))


def actions(path: Path) -> dict[str, Callable[[], object]]:
    """What is timed for one recording: each command as the CLI runs it, and diff's reading alone."""
    return {
        "show": lambda: run_cli("show", str(path)),
        "audit": lambda: run_cli("audit", str(path)),
        "seal": lambda: run_cli("seal", str(path)),
        "diff": lambda: run_cli("diff", str(path), copy_of(path)),
        "diff, reading A and B": lambda: (read_recording(str(path)), read_recording(copy_of(path))),
        "diff, A and B whole": lambda: (load_session(path), load_session(copy_of(path))),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory", type=int, nargs="*", default=None, help="sizes to measure show at")
    parser.add_argument("--only", default="", help="commands to time, comma-separated (default: all)")
    options = parser.parse_args()
    only = {name.strip() for name in options.only.split(",") if name.strip()}
    unknown = only - {"show", "audit", "seal", "diff"}
    if unknown:
        parser.error(f"--only: no such command: {', '.join(sorted(unknown))}")
    if options.memory is None:
        options.memory = [] if only else [10_000, 100_000]
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        transcript, session = write_both(root, options.calls)
        sizes = f"transcript {transcript.stat().st_size / 1e6:.0f} MB, session {session.stat().st_size / 1e6:.0f} MB"
        print(f"{options.calls:,} calls: {sizes}")
        by_transcript, by_session = actions(transcript), actions(session)
        names = [name for name in by_transcript if not only or name.split(",")[0] in only]
        rounds: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
        for _ in range(options.rounds):
            for name, times in rounds.items():
                times.append((cpu_time(by_transcript[name]), cpu_time(by_session[name])))
        # The diff algorithm, timed alone on the same calls read from each format (best of all), is taken off
        # diff's time: what is left is diff's reading, classifying and reporting, which the format decides.
        algorithm = float("inf")
        if "diff" in rounds:
            for path in (transcript, session):
                a, b = load_session(path).calls, load_session(copy_of(path)).calls
                for _ in range(options.rounds):
                    algorithm = min(algorithm, cpu_time(partial(diff_calls, a, b, Policy().matcher)))
                del a, b
            rounds["diff, less diff_calls"] = [
                (plain - algorithm, whole - algorithm) for plain, whole in rounds["diff"]
            ]
        print(f"{'':<22} {'transcript s':>12} {'session s':>10} {'ratio':>6}   (medians of {options.rounds} rounds)")
        for name, times in rounds.items():
            plain, whole = median(time for time, _ in times), median(time for _, time in times)
            ratio = median(whole / plain for plain, whole in times)
            print(f"{name:<22} {plain:12.2f} {whole:10.2f} {ratio:6.2f}")
        if "diff" in rounds:
            print(f"(diff_calls alone: {algorithm:.2f} s)")
        if not options.memory:
            return
        print("peak memory of show:")
        for calls in options.memory:
            files = (transcript, session) if calls == options.calls else write_both(root, calls)
            peaks = [peak_mb([sys.executable, "-m", "toolreplay", "show", str(path)]) for path in files]
            print(f"  {calls:>9,} calls: transcript {peaks[0]:6.1f} MB, session {peaks[1]:6.1f} MB")
        floor = peak_mb([sys.executable, "-c", "import toolreplay.cli"])
        print(f"  python -c 'import toolreplay.cli': {floor:.1f} MB")


if __name__ == "__main__":
    main()
