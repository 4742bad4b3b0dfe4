"""Benchmark: tools/call round trips through `record-mcp --upstream` against the same server directly.

    python bench/bench_http_proxy.py [--calls 400] [--mcp-recorder PATH]

The sample server built with the `mcp` SDK serves Streamable HTTP (stateless,
JSON answers, the shape where the proxy's own cost shows most: no stream to
hide it); a plain HTTP client alternates calls between the server's URL and
the proxy's, so both see the same machine at the same moment. Prints the
median round trip of each and their ratio (target: at most 1.10, as for stdio),
and the same for `serve --http` of the log the proxy wrote against the SDK's
server answering the same calls. It checks that the log holds every call the
proxy answered. With ``--mcp-recorder PATH`` (the command of PyPI's
mcp-recorder, installed apart: it is no dependency of ours), the same
alternation against mcp-recorder's recording proxy in front of the same server.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fixtures.listening import free_port, saying_url, wait_for  # noqa: E402

from toolreplay.formats.mcp_log.log import read_log  # noqa: E402

FEATURES = [sys.executable, "-W", "ignore", str(ROOT / "samples" / "mcp" / "features.py")]
TOOLREPLAY = [sys.executable, "-m", "toolreplay"]
CALL = {"name": "disk_report", "arguments": {"host": "build-04"}}


def caller(url: str) -> Callable[[int], float]:
    """A function making call number N at ``url`` over one kept-alive connection; its round trip in seconds."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

    def call(number: int) -> float:
        body = json.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": CALL})
        start = time.perf_counter()
        connection.request("POST", parts.path, body, headers)
        answer = connection.getresponse()
        data = answer.read()
        took = time.perf_counter() - start
        if answer.status != 200 or b'"result"' not in data:
            raise SystemExit(f"{url}: {answer.status} {data[:200]!r}")
        return took

    return call


def alternate(calls: int, first: Callable[[int], float], second: Callable[[int], float]) -> tuple[float, float]:
    times: tuple[list[float], list[float]] = ([], [])
    for number in range(1, calls + 1):
        times[0].append(first(number))
        times[1].append(second(number))
    return statistics.median(times[0]), statistics.median(times[1])


@contextlib.contextmanager
def mcp_recorder(command: str, upstream_port: int, scratch: Path) -> Iterator[str]:
    """mcp-recorder's proxy in front of the server (it appends the request's path to its target); its URL."""
    port = free_port()
    target = f"http://127.0.0.1:{upstream_port}"
    cassette = scratch / "cassette.json"
    process = subprocess.Popen(
        [command, "record", "--target", target, "--port", str(port), "--output", str(cassette)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--mcp-recorder", metavar="PATH", help="mcp-recorder's command, to compare with")
    options = parser.parse_args()
    other = None
    port = free_port()
    server = subprocess.Popen(
        [*FEATURES, "--http", str(port), "json", "stateless", *(["any-host"] if options.mcp_recorder else [])],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "mcp.jsonl"
        try:
            wait_for(port)
            upstream = f"http://127.0.0.1:{port}/mcp"
            proxying = [*TOOLREPLAY, "record-mcp", "-o", str(log), "--upstream", upstream]
            with saying_url(proxying, "toolreplay record-mcp:") as proxied:
                alternate(20, caller(upstream), caller(proxied))  # warm both
                direct, through = alternate(options.calls, caller(upstream), caller(proxied))
            logged = sum(exchange.event == "tools/call" for run in read_log(log) for exchange in run.exchanges)
            if logged != 20 + options.calls:
                raise SystemExit(f"the log holds {logged} calls of the {20 + options.calls} the proxy answered")
            if options.mcp_recorder:
                with mcp_recorder(options.mcp_recorder, port, Path(scratch)) as theirs:
                    alternate(20, caller(upstream), caller(theirs))
                    other = alternate(options.calls, caller(upstream), caller(theirs))
            with saying_url([*TOOLREPLAY, "serve", str(log), "--http"], "toolreplay serve:") as served:
                alternate(20, caller(upstream), caller(served))
                sdk, replayed = alternate(options.calls, caller(upstream), caller(served))
        finally:
            server.terminate()
            server.wait()
    print(f"{options.calls} tools/call round trips each, alternated; medians")
    print(f"  direct to the SDK's server   {direct * 1000:7.3f} ms")
    print(f"  through record-mcp --upstream {through * 1000:6.3f} ms  {through / direct:5.2f}x  (target 1.10x)")
    print(f"  logged: {logged} of the {logged} calls the proxy answered")
    if other is not None:
        print(f"  the SDK's server again        {other[0] * 1000:6.3f} ms")
        print(f"  through mcp-recorder record   {other[1] * 1000:6.3f} ms  {other[1] / other[0]:5.2f}x")
    print(f"  the SDK's server again        {sdk * 1000:6.3f} ms")
    print(f"  serve --http of the log       {replayed * 1000:6.3f} ms  {replayed / sdk:5.2f}x")


if __name__ == "__main__":
    main()
