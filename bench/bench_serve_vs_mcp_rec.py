"""Benchmark: `toolreplay serve LOG` against mcp-rec's replay, under the same real mcp client.

    pip install mcp-rec   # another recorder, for the comparison only
    python bench/bench_serve_vs_mcp_rec.py [--calls 300] [--rounds 3]

The sample server is recorded once by each tool (`toolreplay record-mcp` and
`mcp-rec record`) over the same workload: the handshake, `tools/list`, then `--calls` + 20
identical `tools/call` requests. Then the real `mcp` SDK client times
`tools/call` round trips against each replay, rounds alternating between the
two, and prints the median of each and their ratio (target: `serve` no slower
than mcp-rec, a ratio at or below 1.0).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import tempfile
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_replay import client_round_trips  # noqa: E402 - the same client round trips as serve's other bench

SERVER = [sys.executable, str(ROOT / "samples" / "mcp" / "server.py")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    if importlib.util.find_spec("mcp_rec") is None:
        raise SystemExit("mcp-rec is not installed: pip install mcp-rec")
    with tempfile.TemporaryDirectory() as temporary:
        ours, theirs = Path(temporary) / "toolreplay.jsonl", Path(temporary) / "mcp-rec.jsonl"
        # Each recorded with the very client that will replay it, so both replays can match every request.
        anyio.run(
            client_round_trips,
            [sys.executable, "-m", "toolreplay", "record-mcp", "-o", str(ours), "--", *SERVER],
            options.calls,
        )
        anyio.run(
            client_round_trips,
            [sys.executable, "-m", "mcp_rec.cli", "record", "-o", str(theirs), "--", *SERVER],
            options.calls,
        )
        serve = [sys.executable, "-m", "toolreplay", "serve", str(ours)]
        replay = [sys.executable, "-m", "mcp_rec.cli", "replay", str(theirs)]
        served: list[float] = []
        replayed: list[float] = []
        for _ in range(options.rounds):
            served += anyio.run(client_round_trips, serve, options.calls)
            replayed += anyio.run(client_round_trips, replay, options.calls)
    ours_median, theirs_median = statistics.median(served), statistics.median(replayed)
    print(f"tools/call round trips from the mcp SDK client, {options.rounds} x {options.calls} each, alternating")
    print(f"toolreplay serve LOG   median {ours_median * 1000:.3f} ms   mean {statistics.fmean(served) * 1000:.3f} ms")
    print(
        f"mcp-rec replay FILE    median {theirs_median * 1000:.3f} ms   mean {statistics.fmean(replayed) * 1000:.3f} ms"
    )
    print(f"ratio (serve / mcp-rec) median {ours_median / theirs_median:.3f}")


if __name__ == "__main__":
    main()
