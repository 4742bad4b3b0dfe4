"""The relay a program's server runs as under ``--isolate-user``: the standard library only, run by path, and its
standard streams joined to the check's socket both ways."""

from __future__ import annotations

import ast
import socket
import subprocess
import sys
import threading
from pathlib import Path

from toolreplay.processes import relay


def test_the_relay_imports_nothing_but_the_standard_library() -> None:
    tree = ast.parse(Path(relay.__file__).read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    imported |= {
        node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported <= set(sys.stdlib_module_names)


def test_what_the_program_writes_reaches_the_socket_and_the_answer_comes_back(tmp_path: Path) -> None:
    path = str(tmp_path / "relay.sock")
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listening.bind(path)
    listening.listen(1)

    def answer() -> None:
        connection, _ = listening.accept()
        with connection:
            said = b""
            while chunk := connection.recv(65536):
                said += chunk
            connection.sendall(said.upper())  # the program's end is closed: the server answers what it read

    server = threading.Thread(target=answer, daemon=True)
    server.start()
    done = subprocess.run([sys.executable, "-I", relay.__file__, path], input=b'{"id": 1}\n', capture_output=True,
                          timeout=30, check=False)  # fmt: skip
    server.join(10)
    listening.close()
    assert (done.returncode, done.stdout) == (0, b'{"ID": 1}\n')
