"""An output that is a FIFO: written to when something reads it, refused in one line when nothing does, and never
waited for forever; a proxy's log is a regular file or nothing."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli
from toolreplay.core import files
from toolreplay.core.errors import OutputError
from toolreplay.core.files import write_atomic


def test_a_fifo_nothing_reads_is_given_up_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    monkeypatch.setattr(files, "FIFO_WAIT", 0.3)
    with pytest.raises(OutputError) as failed:
        write_atomic(fifo, [b"report\n"])  # given up on after the wait, not waited for forever
    assert "is a FIFO nothing read within 0.3 s" in failed.value.message
    assert fifo.exists()
    assert not fifo.is_file()  # the FIFO is left as it was


def test_a_fifo_read_gets_the_whole_report(tmp_path: Path) -> None:
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        time.sleep(0.2)  # a reader that comes a little after the writer
        with open(fifo, "rb") as handle:
            got.append(handle.read())

    reader = threading.Thread(target=read)
    reader.start()
    write_atomic(fifo, [b"a" * 100_000, b"b\n"])
    reader.join(timeout=30)
    assert got == [b"a" * 100_000 + b"b\n"]


def test_a_proxys_log_must_be_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "log"
    os.mkfifo(fifo)
    result = run_cli("record-mcp", "-o", str(fifo), "--name", "a", "--", "true", cwd=ROOT)
    assert result.code == 2
    assert result.stderr == f"toolreplay: error: the log {fifo} must be a regular file, not a FIFO\n"
