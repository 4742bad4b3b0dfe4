"""Benchmark: would h11 or httpcore (both already in the `mcp` extra's tree) make the HTTP proxy cheaper?

    python bench/bench_http_libraries.py [--requests 3000]

The proxy's own cost is HTTP on its two sides: reading the client's request (``http.server``) and asking the
upstream (``http.client``). Each side is measured here alone, the standard library against the alternative, on
the bench's own request (a ``tools/call`` of the HTTP proxy bench, its headers as the SDK's client sends them):

- the server side: parsing one request and writing its answer, ``http.server``'s handler against an ``h11``
  server connection, both over a socket pair, in one thread (no network, no scheduling);
- the client side: one kept-alive POST and its answer read, ``http.client`` against ``httpcore``'s connection
  pool (over ``h11``), against a loopback server that answers from memory at once.

Prints the median microseconds a request of each and their ratios, measured in one run.
"""

from __future__ import annotations

import argparse
import http.client
import http.server
import io
import json
import socket
import statistics
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

BODY = json.dumps(
    {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "disk_report", "arguments": {"host": "b"}}}
).encode()
HEADERS = {
    "Host": "127.0.0.1:8000",
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "Mcp-Protocol-Version": "2025-11-25",
    "User-Agent": "python-httpx/0.28",
}
REQUEST = (
    b"POST /mcp HTTP/1.1\r\n"
    + b"".join(f"{name}: {value}\r\n".encode() for name, value in HEADERS.items())
    + f"Content-Length: {len(BODY)}\r\n\r\n".encode()
    + BODY
)
ANSWER_BODY = json.dumps({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "ok"}]}}).encode()
ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
    len(ANSWER_BODY),
    ANSWER_BODY,
)


def _median_us(run: Callable[[], None], count: int) -> float:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(ANSWER_BODY)))
        self.end_headers()
        self.wfile.write(ANSWER_BODY)


def server_stdlib(count: int) -> float:
    """``http.server``'s handler reading each request from a buffer and writing its answer to another."""

    def one() -> None:
        handler = _Handler.__new__(_Handler)
        handler.rfile, handler.wfile = io.BytesIO(REQUEST), io.BytesIO()
        handler.client_address, handler.server = ("127.0.0.1", 0), None  # type: ignore[assignment]
        handler.close_connection = True
        handler.handle_one_request()

    return _median_us(one, count)


def server_h11(count: int) -> float:
    """An ``h11`` server connection reading each request from bytes and writing its answer."""
    import h11  # noqa: PLC0415

    def one() -> None:
        connection = h11.Connection(h11.SERVER)
        connection.receive_data(REQUEST)
        request = connection.next_event()
        assert isinstance(request, h11.Request)
        body = b""
        while not isinstance(event := connection.next_event(), h11.EndOfMessage):
            if isinstance(event, h11.Data):
                body += event.data
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(ANSWER_BODY)))]
        out = connection.send(h11.Response(status_code=200, headers=headers))
        out = (out or b"") + (connection.send(h11.Data(data=ANSWER_BODY)) or b"")
        out += connection.send(h11.EndOfMessage()) or b""

    return _median_us(one, count)


def _answering_server() -> tuple[socket.socket, int]:
    """A loopback server answering every request on a connection at once, from memory."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve(connection: socket.socket) -> None:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buffered = b""
        while chunk := connection.recv(65536):
            buffered += chunk
            while b"\r\n\r\n" in buffered:
                head, _, rest = buffered.partition(b"\r\n\r\n")
                length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
                             .split(b":")[1])  # fmt: skip
                if len(rest) < length:
                    break
                buffered = rest[length:]
                connection.sendall(ANSWER)

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return listener, int(listener.getsockname()[1])


def client_stdlib(port: int, count: int) -> float:
    connection = http.client.HTTPConnection("127.0.0.1", port)

    def one() -> None:
        connection.request("POST", "/mcp", BODY, HEADERS)
        connection.getresponse().read()

    try:
        return _median_us(one, count)
    finally:
        connection.close()


def client_httpcore(port: int, count: int) -> float:
    try:
        import httpcore  # type: ignore[import-not-found]  # noqa: PLC0415
    except ImportError:
        import httpcore2 as httpcore  # noqa: PLC0415 - the SDK's fork
    pool = httpcore.ConnectionPool()
    url = f"http://127.0.0.1:{port}/mcp"
    headers = [(name.encode(), value.encode()) for name, value in HEADERS.items() if name != "Host"]

    def one() -> None:
        pool.request("POST", url, headers=headers, content=BODY).read()

    try:
        return _median_us(one, count)
    finally:
        pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000)
    count = parser.parse_args().requests
    listener, port = _answering_server()
    try:
        rows = [
            ("server: http.server", server_stdlib(count)),
            ("server: h11", server_h11(count)),
            ("client: http.client", client_stdlib(port, count)),
            ("client: httpcore (h11)", client_httpcore(port, count)),
        ]
    finally:
        listener.close()
    print(f"Python {sys.version.split()[0]}, {count} requests each, median microseconds a request")
    for name, micros in rows:
        print(f"  {name:<24} {micros:8.1f} us")
    print(f"  h11 / http.server      {rows[1][1] / rows[0][1]:8.2f}x")
    print(f"  httpcore / http.client {rows[3][1] / rows[2][1]:8.2f}x")


if __name__ == "__main__":
    main()
