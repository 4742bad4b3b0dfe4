"""What a ``python:`` agent's run costs, against the same agent through ``cmd:`` and the policy alone; and how long a
pytest test of the ops sample at 20 + 20 runs takes.

    python bench/bench_python.py [--runs 20] [--rounds 5]

1. Per run, marginal: ``replay --repeat 2*RUNS`` less ``--repeat RUNS``, over RUNS, in one process (the worker is
   started in both, so its start cancels out), for three agents that make the same calls seed for seed:
   - ``python:ops_agent:run`` (samples/python: the build-host policy behind the mcp SDK's ClientSession, in the
     replay's one worker, each message answered from the recording in the replay's process);
   - ``cmd:`` the same policy behind the same SDK as a program (samples/ops/mcp_agent.py), a process per run with
     its own ``toolreplay serve``;
   - ``scripted:`` the policy alone, in process: the agent's own turns, with no MCP at all.
   What a ``python:`` run adds to the agent's own work is its time less the scripted one's: the MCP session (the
   SDK's client in the worker, the messages there and back, the replay server here). The goal: under 5 ms a run.
   Rounds interleaved; medians.
2. The pytest test of the sample (samples/python/test_ops_agent.py, unchanged prompt: 20 + 20 runs), in a
   pytest process of its own: the test's own duration, as ``--durations`` reports it, and the process's wall time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
sys.path.insert(0, str(ROOT))

AGENTS = {
    "python:": "python:ops_agent:run",
    "cmd:": f"cmd:{sys.executable} {SAMPLES / 'ops' / 'mcp_agent.py'} --mcp-config {{mcp_config}} "
    f"--system {{system}} --seed {{seed}} {{task}}",
    "scripted:": f"scripted:{SAMPLES / 'ops' / 'agent.py'}",
}


def _replay(agent: str, repeat: int) -> float:
    from toolreplay.cli import main  # noqa: PLC0415

    here = os.getcwd()
    os.chdir(SAMPLES / "python")  # where python:ops_agent is found
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = main(["replay", "../ops/session.json", "--agent", agent, "--repeat", str(repeat),
                         "--on-unrecorded", "stub", "--stubs", "../ops/stubs.json"])  # fmt: skip
    finally:
        os.chdir(here)
    elapsed = time.perf_counter() - start
    if code not in (0, 1):
        raise SystemExit(f"replay --agent {agent} exited with {code}")
    return elapsed


def _per_run(agent: str, runs: int) -> float:
    """Seconds one more run costs inside a replay of ``agent``."""
    return (_replay(agent, 2 * runs) - _replay(agent, runs)) / runs


def _pytest_test() -> tuple[float, float]:
    """The sample's unchanged-prompt test: its duration as pytest reports it, and its process's wall time."""
    start = time.perf_counter()
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--durations=1",
         "--durations-min=0", f"{SAMPLES / 'python' / 'test_ops_agent.py'}::test_unchanged_prompt_does_nothing_new"],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - start
    found = re.search(r"([0-9.]+)s call", ran.stdout)
    if ran.returncode != 0 or found is None:
        raise SystemExit(f"the sample's test did not pass:\n{ran.stdout[-2000:]}")
    return float(found.group(1)), wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in AGENTS}
    tests: list[tuple[float, float]] = []
    for _ in range(args.rounds):
        for name, agent in AGENTS.items():
            times[name].append(_per_run(agent, args.runs))
        tests.append(_pytest_test())
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"per run, marginal, median of {args.rounds} rounds of {args.runs} and {2 * args.runs} runs:")
    for name in AGENTS:
        print(f"  {name:<10} {median[name] * 1000:8.2f} ms")
    added = median["python:"] - median["scripted:"]
    print(f"a python: run adds {added * 1000:.2f} ms to the agent's own turns (goal: under 5 ms)")
    print(f"cmd: / python: = {median['cmd:'] / median['python:']:.1f}x")
    duration = statistics.median(test[0] for test in tests)
    wall = statistics.median(test[1] for test in tests)
    print(f"the sample's pytest test at 20 + 20 runs: {duration:.2f} s (goal: under 2 s); its process {wall:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
