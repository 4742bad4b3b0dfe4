"""The MCP server a program runs as, under ``check --isolate-user``: a relay from its standard streams to a socket.

Run by path (``python -I relay.py SOCKET``), as the isolated user, with nothing of toolreplay imported: it only joins
the program's standard input and output to the Unix socket the check listens on. On the check's side of the socket
``toolreplay serve`` answers as the check's own user and writes the run's log where the program cannot, so what the
check reads of a run is what was answered, whatever the program does. Python's standard library only.
"""

import contextlib
import os
import socket
import sys
import threading


def _pump_in(connection: socket.socket) -> None:
    try:
        while chunk := os.read(0, 65536):
            connection.sendall(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            connection.shutdown(socket.SHUT_WR)  # the server reads its end, answers what it read, and ends


def main() -> int:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(sys.argv[1])
    threading.Thread(target=_pump_in, args=(connection,), daemon=True).start()
    out = sys.stdout.buffer
    try:
        while chunk := connection.recv(65536):
            out.write(chunk)
            out.flush()
    except OSError:
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
