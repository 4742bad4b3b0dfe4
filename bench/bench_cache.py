"""Benchmark: the run cache's cost per run looked up, its size per run, and what it saves over pull requests.

    python bench/bench_cache.py [--rounds 5]

Part 1, in this process, at the runner seam: the headline's 20 edited runs of
the sample's scripted agent driven, given back by a warm cache (a new one each
round, as a new process has), and driven into a cold cache, alternated round by
round; the medians per run (target for the lookup: under 1 ms, and under 2% of
a scripted run), and the bytes an entry takes. A lookup is everything a cached
replay adds: the setup's digests, the keys, reading and checking each entry.

Part 2: three pushes of a pull request, against a cache the base branch warmed
(its check kept the unchanged runs): the first edits the prompt, the second
edits it again, the third changes nothing (a re-run). Counts the runs each push
drives with and without the cache; for an agent on a model, each driven run is
its requests and its dollars, and a cached one is neither.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from toolreplay.analysis.classify import Policy  # noqa: E402
from toolreplay.core.verdict import FailOn  # noqa: E402
from toolreplay.formats.recording import load_session  # noqa: E402
from toolreplay.replay.cache import CachedRunner, RunCache, agent_identity  # noqa: E402
from toolreplay.replay.drive import load_candidate, replay_session  # noqa: E402
from toolreplay.replay.engine import ReplaySetup  # noqa: E402
from toolreplay.replay.progress import Progress  # noqa: E402
from toolreplay.replay.runners import Runner, Workspace, runner_for  # noqa: E402
from toolreplay.settings import parse_settings  # noqa: E402

SAMPLES = ROOT / "samples"


def _replay(prompt: str, cache: RunCache | None) -> tuple[float, int, int]:
    """One headline replay: its seconds, and the runs driven on each side."""
    settings = parse_settings({"system": prompt, "repeat": "20", "noise": "20"})
    session = load_session(str(SAMPLES / "ops" / "session.json"))
    started = time.perf_counter()
    progress = Progress(40, io.StringIO())
    outcome = replay_session(session, settings, Policy(), FailOn.DESTRUCTIVE, None, progress, cache=cache)
    took = time.perf_counter() - started
    driven = sum(not run.cached for run in outcome.runs), sum(not run.cached for run in outcome.baseline_runs)
    return took, driven[0], driven[1]


def _runners(scratch: Path, name: str) -> tuple[ReplaySetup, Runner, CachedRunner]:
    """The headline's edited side: its setup, its scripted runner, and the same behind a cache at ``name``."""
    settings = parse_settings({"system": "ops/prompt-v2.txt", "repeat": "20"})
    session = load_session("ops/session.json")
    candidate = load_candidate(session, settings)
    policy = Policy()
    setup = ReplaySetup(
        session, candidate.system, candidate.tools, settings.on_unrecorded, candidate.stubs, settings.max_turns,
        policy.matcher, settings.run_timeout, {"max_tokens": 4096}, policy,
    )  # fmt: skip
    inner = runner_for(candidate.agent, settings, Workspace(), "edited")
    identity = agent_identity(candidate.agent, os.getcwd(), "stdio", None)
    return setup, inner, CachedRunner(inner, RunCache(scratch / name, 7), identity)


def _timed(runner: Runner, setup: ReplaySetup) -> float:
    """Seconds per run of 20 runs (seeds 1 to 20)."""
    started = time.perf_counter()
    runs = runner.runs(setup, range(1, 21), 1, Progress(20, io.StringIO()))
    assert len(runs) == 20
    return (time.perf_counter() - started) / 20


def main() -> None:
    os.chdir(SAMPLES)  # where the sample's recorded agent is found from
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    prompt = str(SAMPLES / "ops" / "prompt-v2.txt")
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        setup, inner, warm = _runners(scratch, "warm")
        _timed(warm, setup)  # warmed: every run kept, and the code paths loaded
        driven, looked_up, missed = [], [], []
        for number in range(options.rounds):
            driven.append(_timed(inner, setup))
            looked_up.append(_timed(_runners(scratch, "warm")[2], setup))  # a new cache, as a new process has
            cold_setup, _, cold = _runners(scratch, f"cold-{number}")
            missed.append(_timed(cold, cold_setup))
        entries = list((scratch / "warm").glob("*/*.json"))
        size = statistics.mean(entry.stat().st_size for entry in entries)
        run, lookup, miss = statistics.median(driven), statistics.median(looked_up), statistics.median(missed)
        print(f"part 1: the headline's 20 edited runs of the scripted agent, medians of {options.rounds} rounds")
        print(f"  a run driven                 {run * 1000:7.3f} ms")
        print(
            f"  a run given back by the cache {lookup * 1000:6.3f} ms  (target under 1 ms; {lookup / run:.0%} of a run)"
        )
        print(f"  a run driven and kept        {miss * 1000:7.3f} ms  ({miss / run:.2f}x: its key, and its entry")
        print("                                          written and renamed into place)")
        print(f"  an entry                  {size:9,.0f} bytes ({len(entries)} entries)")

        main_cache = scratch / "main"
        _replay(prompt, RunCache(main_cache, 7))  # the base branch's check: its runs kept
        edits = [scratch / "edit-1.txt", scratch / "edit-2.txt"]
        base = Path(prompt).read_text(encoding="utf-8")
        edits[0].write_text(base + "Keep the newest month.\n", encoding="utf-8")
        edits[1].write_text(base + "Keep the newest two months.\n", encoding="utf-8")
        pushes = [("edits the prompt", edits[0]), ("edits it again", edits[1]), ("changes nothing", edits[1])]
        print("part 2: three pushes of a pull request against the base branch's kept runs")
        print("  push                     runs driven without    with the cache")
        total = [0, 0]
        for name, edit in pushes:
            _, *without = _replay(str(edit), None)
            _, *with_cache = _replay(str(edit), RunCache(main_cache, 7))
            total[0] += sum(without)
            total[1] += sum(with_cache)
            print(f"  {name:<24} {sum(without):>12}   {sum(with_cache):>14}   ({with_cache[0]} edited, "
                  f"{with_cache[1]} unchanged)")  # fmt: skip
        print(f"  in all                   {total[0]:>12}   {total[1]:>14}   ({total[1] / total[0]:.0%} of the runs)")


if __name__ == "__main__":
    main()
