"""Benchmark: tools/call round trips through record-mcp against a direct connection.

    python bench/bench_mcp_proxy.py [--calls 400]

The real mcp SDK client opens two sessions to the sample server at once, one
direct and one through `toolreplay record-mcp`, and alternates calls between
them, so both see the same machine at the same moment. Prints the median round
trip of each and their ratio (target: at most 1.05).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parent.parent
SERVER = [sys.executable, str(ROOT / "samples" / "mcp" / "server.py")]


async def measure(calls: int, log: Path) -> tuple[list[float], list[float]]:
    direct_params = StdioServerParameters(command=SERVER[0], args=SERVER[1:])
    proxy_params = StdioServerParameters(
        command=sys.executable, args=["-m", "toolreplay", "record-mcp", "-o", str(log), "--", *SERVER]
    )
    direct_times: list[float] = []
    proxy_times: list[float] = []
    async with (
        stdio_client(direct_params) as (dr, dw),
        ClientSession(dr, dw) as direct,
        stdio_client(proxy_params) as (pr, pw),
        ClientSession(pr, pw) as proxied,
    ):
        await direct.initialize()
        await proxied.initialize()
        arguments = {"host": "build-04", "path": "/var/log/ci"}
        for _ in range(20):  # warm up both paths
            await direct.call_tool("list_dir", arguments)
            await proxied.call_tool("list_dir", arguments)
        for i in range(calls):
            order = [(direct, direct_times), (proxied, proxy_times)]
            if i % 2:
                order.reverse()
            for session, times in order:
                start = time.perf_counter()
                await session.call_tool("list_dir", arguments)
                times.append(time.perf_counter() - start)
    return direct_times, proxy_times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=400)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "mcp.jsonl"
        direct, proxied = anyio.run(measure, options.calls, log)
        logged = sum(1 for line in log.read_text().splitlines() if '"tools/call"' in line)
    d, p = statistics.median(direct), statistics.median(proxied)
    print(f"{options.calls} tools/call round trips each way, alternating; {logged} logged through the proxy")
    print(f"direct   median {d * 1000:.3f} ms   mean {statistics.fmean(direct) * 1000:.3f} ms")
    print(f"proxied  median {p * 1000:.3f} ms   mean {statistics.fmean(proxied) * 1000:.3f} ms")
    print(f"ratio    median {p / d:.3f}   mean {statistics.fmean(proxied) / statistics.fmean(direct):.3f}")


if __name__ == "__main__":
    main()
