"""Benchmark: what ``check --isolate`` costs, on a ``cmd:`` replay and on the samples' headline check.

    python bench/bench_isolation.py [--runs 10] [--rounds 3]

Each check is a process of its own (``python -m toolreplay check``), as the subreaper must be: a ``cmd:`` replay of
the sample ops session by a small program agent that speaks MCP to its served recording through the MCP SDK
(``--runs`` runs), and the samples' own check (a scripted agent, 20 + 20 runs). With and without ``--isolate``,
interleaved so a slow spell of the machine weighs on each alike; best wall time of ``--rounds``. Prints each time
and the ratio isolated over plain (target: at most 1.10 on the cmd: replay).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def _timed(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "toolreplay", "check", *args], cwd=cwd, capture_output=True, check=False
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"check failed: {done.stderr.decode(errors='replace')}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        repo = Path(temp)
        (repo / ".git").mkdir()
        agent = f"cmd:{sys.executable} {SAMPLES / 'ops' / 'mcp_agent.py'} --mcp-config {{mcp_config}} "
        agent += "--system {system} --seed {seed} {task}"
        (repo / ".toolreplay.yml").write_text(
            f"sessions: {SAMPLES / 'ops' / 'session.json'}\nreplay:\n  agent: {json.dumps(agent)}\n"
            f"  system: {SAMPLES / 'ops' / 'prompt-v2.txt'}\n  repeat: {options.runs}\n"
            f"  on-unrecorded: stub\n  stubs: {SAMPLES / 'ops' / 'stubs.json'}\n",
            encoding="utf-8",
        )
        cases = {
            "cmd: replay": (["--allow-outside-root"], repo),
            "headline": (["--config", str(SAMPLES / ".toolreplay.yml")], ROOT),
        }
        for name, (args, cwd) in cases.items():
            plain, isolated = [], []
            for _ in range(options.rounds):
                plain.append(_timed(args, cwd))
                isolated.append(_timed([*args, "--isolate"], cwd))
            best, isolated_best = min(plain), min(isolated)
            print(f"{name}: plain {best:.2f} s, isolated {isolated_best:.2f} s, ratio {isolated_best / best:.2f}")


if __name__ == "__main__":
    main()
