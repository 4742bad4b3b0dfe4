"""Benchmark: tools/call round trips through record-mcp against a direct connection.

    python bench/bench_mcp_proxy.py [--calls 400]
    python bench/bench_mcp_proxy.py --large-mb 40

The real mcp SDK client opens two sessions to the sample server at once, one
direct and one through `toolreplay record-mcp`, and alternates calls between
them, so both see the same machine at the same moment. Prints the median round
trip of each and their ratio (target: at most 1.10).

``--large-mb N`` times instead one answer of N MB: a bare pipe client asks a
server that answers with one line that size, directly and through the proxy,
alternating three times, and prints the best of each and their ratio (target:
within 2x; the proxy must cost time in proportion to a message's size).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
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


# A server that answers every request with one line of about N MB.
_LARGE_SERVER = """
import json, sys
size = int(sys.argv[1]) << 20
for line in sys.stdin.buffer:
    request = json.loads(line)
    text = "x" * size
    result = {"content": [{"type": "text", "text": text}], "isError": False}
    sys.stdout.buffer.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode() + b"\\n")
    sys.stdout.buffer.flush()
"""


def time_large(command: list[str]) -> float:
    """Seconds for one request and its large answer, read to the end."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if process.stdin is None or process.stdout is None:
        raise SystemExit("cannot talk to the server over pipes")
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "big", "arguments": {}}}
    start = time.perf_counter()
    process.stdin.write(json.dumps(request).encode() + b"\n")
    process.stdin.flush()
    answer = process.stdout.readline()
    elapsed = time.perf_counter() - start
    process.stdin.close()
    process.wait()
    if not answer.endswith(b"\n"):
        raise SystemExit("the large answer did not arrive whole")
    return elapsed


def large(megabytes: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = [sys.executable, "-c", _LARGE_SERVER, str(megabytes)]
        proxied = [sys.executable, "-m", "toolreplay", "record-mcp", "-o", str(Path(tmp) / "mcp.jsonl"), "--", *server]
        direct_times, proxy_times = [], []
        for _ in range(3):
            direct_times.append(time_large(server))
            proxy_times.append(time_large(proxied))
        logged = (Path(tmp) / "mcp.jsonl").stat().st_size / (1 << 20)
    d, p = min(direct_times), min(proxy_times)
    print(f"one answer of {megabytes} MB, best of 3 each; the log holds {logged:.0f} MB")
    print(f"direct   {d:.3f} s")
    print(f"proxied  {p:.3f} s")
    print(f"ratio    {p / d:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--large-mb", type=int, help="time one answer of this many MB instead")
    options = parser.parse_args()
    if options.large_mb:
        large(options.large_mb)
        return
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
