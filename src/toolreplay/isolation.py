"""Keeping what a check runs for a pull request from outliving it: every process it started is gone before any report
is written, checked, not assumed.

A program agent runs in a process group of its own, and its group is ended after each run; a program that leaves a
process in another session (``setsid``, a double fork) escapes its group. On Linux the check makes itself a child
subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``), so every orphan of its descendants becomes its own child instead of
init's; :func:`end_descendants` then kills every process below it and waits until ``/proc`` shows none, before the
check writes a byte of its reports. Where that cannot be done (another system), :func:`become_subreaper` says so and
the check reports that the pull request's code ran unisolated.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from dataclasses import dataclass

_PR_SET_CHILD_SUBREAPER = 36
ENDED_WAIT = 5.0  # seconds every killed descendant has to be gone


def become_subreaper() -> bool:
    """Make this process the subreaper of everything it starts; False where the system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


@dataclass(frozen=True)
class Process:
    """One process as ``/proc/PID/stat`` gives it: its id, its parent's, its group's, and whether it has ended (a
    zombie, which has, whoever is to reap it)."""

    pid: int
    parent: int
    group: int
    ended: bool


def processes() -> list[Process] | None:
    """Every process ``/proc`` shows; None where there is no ``/proc`` to read."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    found: list[Process] = []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[-1].split()  # the name, in parentheses, may hold anything
        except OSError:
            continue  # ended since the listing
        if len(fields) > 2:
            found.append(Process(int(entry), int(fields[1]), int(fields[2]), fields[0] == "Z"))
    return found


def descendants(root: int | None = None) -> list[int]:
    """Every live process below ``root`` (this one), by the parent each names in ``/proc``."""
    root = os.getpid() if root is None else root
    children: dict[int, list[int]] = {}
    for process in processes() or []:
        if not process.ended:
            children.setdefault(process.parent, []).append(process.pid)
    found: list[int] = []
    waiting = [root]
    while waiting:
        for child in children.get(waiting.pop(), []):
            found.append(child)
            waiting.append(child)
    return found


def _reap() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] != 0:
            pass


def end_descendants() -> tuple[int, list[int]]:
    """Kill every process below this one and wait until none is left: how many were killed, and those still there
    when the wait ran out (none, unless a process cannot be killed)."""
    killed = 0
    deadline = time.monotonic() + ENDED_WAIT
    left = descendants()
    while left and time.monotonic() < deadline:
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
        time.sleep(0.01)
        _reap()
        left = descendants()
    _reap()
    return killed, left
