"""Benchmark: concurrent model replays, and `serve` under the real mcp client.

    python bench/bench_replay.py [--runs 12] [--latency 0.2] [--calls 300]

1. Replays of samples/ops/session.json against a local stand-in for the
   Messages API that answers each request after --latency seconds (two requests
   a run: one tool call, then the final reply). Each concurrency is timed against
   the ideal, runs / concurrency x turns x latency (target: within 1.5 times).
2. tools/call round trips from the real mcp SDK client to `toolreplay serve`,
   and, in the same run, to the sample server built with the mcp SDK; also the
   server's own time per call, measured with a bare pipe client that sends one
   request and waits for its answer (target: under 0.3 ms).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from tests.fakes.anthropic_server import message, serve  # noqa: E402
from tests.fakes.mcp_raw import RawClient  # noqa: E402


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """One tool call, then the final reply: two turns a run."""
    if len(request["messages"]) == 1:
        use = {"type": "tool_use", "id": "b1", "name": "disk_usage", "input": {"host": "build-04"}}
        return message([use], "tool_use")
    return message([{"type": "text", "text": "Done."}])


def replay_time(url: str, runs: int, concurrency: int) -> float:
    env = dict(os.environ, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-bench-0000000000000000000000")
    command = [
        sys.executable,
        "-m",
        "toolreplay",
        "replay",
        "samples/ops/session.json",
        "--agent",
        "claude-bench",
        "--repeat",
        str(runs),
        "--concurrency",
        str(concurrency),
        "--fail-on",
        "never",
    ]
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


async def client_round_trips(command: list[str], calls: int) -> list[float]:
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
    times: list[float] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for _ in range(20):
            await session.call_tool("disk_usage", {"host": "build-04"})
        for _ in range(calls):
            start = time.perf_counter()
            await session.call_tool("disk_usage", {"host": "build-04"})
            times.append(time.perf_counter() - start)
    return times


def raw_round_trips(command: list[str], calls: int) -> list[float]:
    process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    client = RawClient(process)
    client.initialize()
    times: list[float] = []
    for number in range(calls + 20):
        start = time.perf_counter()
        client.call(number + 1, "disk_usage", {"host": "build-04"})
        if number >= 20:
            times.append(time.perf_counter() - start)
    assert process.stdin is not None
    process.stdin.close()
    process.wait()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--calls", type=int, default=300)
    options = parser.parse_args()

    print(f"model replays: {options.runs} runs, 2 turns each, {options.latency * 1000:.0f} ms a request")
    with serve() as api:
        api.respond = answer
        fixed = min(replay_time(api.url, 1, 1) for _ in range(3))  # start-up and one run, no latency
        api.latency = options.latency
        print(f"fixed cost (CLI and SDK start-up, one run without latency): {fixed:.2f} s, taken off each time below")
        print(f"{'concurrency':>11} {'seconds':>8} {'ideal':>7} {'ratio':>6} {'speed-up':>9}")
        sequential = None
        for concurrency in sorted({1, 4, options.runs}):
            took = replay_time(api.url, options.runs, concurrency) - fixed
            ideal = math.ceil(options.runs / concurrency) * 2 * options.latency
            sequential = sequential or took
            print(f"{concurrency:>11} {took:8.2f} {ideal:7.2f} {took / ideal:6.2f} {sequential / took:8.1f}x")

    serve_command = [sys.executable, "-m", "toolreplay", "serve", "samples/ops/session.json"]
    sdk_server = [sys.executable, "samples/mcp/server.py"]
    replayed = anyio.run(client_round_trips, serve_command, options.calls)
    direct = anyio.run(client_round_trips, sdk_server, options.calls)
    raw_serve = raw_round_trips(serve_command, options.calls)
    raw_sdk = raw_round_trips(sdk_server, options.calls)
    print(f"\ntools/call round trips, {options.calls} each, mean (median):")
    for name, times in [
        ("mcp client -> toolreplay serve", replayed),
        ("mcp client -> sample server (mcp SDK)", direct),
        ("bare pipe client -> toolreplay serve", raw_serve),
        ("bare pipe client -> sample server (mcp SDK)", raw_sdk),
    ]:
        print(f"  {name:<44} {statistics.fmean(times) * 1000:7.3f} ms ({statistics.median(times) * 1000:.3f} ms)")


if __name__ == "__main__":
    main()
