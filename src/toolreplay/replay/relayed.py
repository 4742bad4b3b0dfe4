"""The check's side of the relay (:mod:`toolreplay.processes.relay`): each server a program starts, answered from here.

Under ``check --isolate-user`` a program's MCP configuration names the relay, not ``toolreplay serve``: the program,
as the isolated user, starts it as it would start a server, and the relay joins its streams to a Unix socket in the
run's directory. Here, for each connection, ``toolreplay serve`` starts as the check's own user with the connection
as its standard input and output, and writes the run's log in a directory the program cannot write. Each process of
the program that starts the server is a connection of its own, and each is logged, in the order answered.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from toolreplay.processes.isolation import RunAs

RELAY = Path(__file__).resolve().parent.parent / "processes" / "relay.py"
_ENDED_WAIT = 5.0  # seconds a server has to end once its relay hung up


@contextmanager
def relayed(commands: Mapping[str, Sequence[str]], directory: Path, user: RunAs) -> Iterator[dict[str, list[str]]]:
    """For each server's ``serve`` command, the relay's command the program is given, listening until the run is
    over; then every server started for it ended."""
    relay = directory / "relay.py"
    shutil.copyfile(RELAY, relay)
    os.chmod(relay, 0o644)
    started: list[subprocess.Popen[bytes]] = []
    listeners: list[socket.socket] = []
    stop = threading.Event()
    threads: list[threading.Thread] = []
    words: dict[str, list[str]] = {}
    try:
        for number, (name, serve) in enumerate(commands.items(), start=1):
            address = directory / f"server-{number}.sock"
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listeners.append(listener)
            listener.bind(str(address))
            os.chmod(address, 0o777)  # the isolated user connects; it can write nothing else here
            listener.listen(16)
            listener.settimeout(0.05)
            errors = directory / f"server-{number}.stderr"
            thread = threading.Thread(target=_accept, args=(listener, list(serve), errors, started, stop), daemon=True)
            thread.start()
            threads.append(thread)
            words[name] = [user.python, "-I", str(relay), str(address)]
        yield words
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        for listener in listeners:
            listener.close()
        for server in started:
            try:
                server.wait(_ENDED_WAIT)  # each ends once its relay is gone, having written what it answered
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def _accept(
    listener: socket.socket,
    serve: list[str],
    errors: Path,
    started: list[subprocess.Popen[bytes]],
    stop: threading.Event,
) -> None:
    while not stop.is_set():
        try:
            connection, _ = listener.accept()
        except TimeoutError:
            continue
        except OSError:
            return
        with connection, errors.open("ab") as said:
            connection.setblocking(True)
            with contextlib.suppress(OSError):
                descriptor = connection.fileno()
                server = subprocess.Popen(
                    serve, stdin=descriptor, stdout=descriptor, stderr=said, start_new_session=True
                )
                started.append(server)
