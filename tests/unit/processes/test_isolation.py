"""Isolation's parts that need no second user: who is asked for, and every process a run left found and ended."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from toolreplay.core.errors import UsageError
from toolreplay.processes.isolation import descendants, end_descendants, run_as


def test_the_user_asked_for_is_never_root() -> None:
    if os.geteuid() != 0:
        with pytest.raises(UsageError, match="needs the check to run as root"):
            run_as("12345")
        return
    with pytest.raises(UsageError, match="give a user other than root"):
        run_as("0")
    with pytest.raises(UsageError, match="give a user other than root"):
        run_as("root")


def test_a_process_left_behind_is_found_and_ended() -> None:
    left = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert left.pid in descendants()
        ended, still = end_descendants()
        assert ended >= 1
        assert still == []
        with pytest.raises(ProcessLookupError):  # ended and reaped: the pid names no process now
            os.kill(left.pid, 0)
    finally:
        if left.poll() is None:
            left.kill()
