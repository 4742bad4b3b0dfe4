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
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

_PR_SET_CHILD_SUBREAPER = 36
ENDED_WAIT = 5.0  # seconds every killed descendant has to be gone


def become_subreaper() -> bool:
    """Make this process the subreaper of everything it starts; False where the system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # noqa: PLC0415 - only a check that isolates

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


_PR_SET_DUMPABLE = 4


def keep_unread() -> bool:
    """Make this process's memory and environment unreadable to processes of its own user (``/proc/PID/environ``,
    ``/proc/PID/mem`` become root's), so an agent run as the check's own user cannot read the check's secrets from
    it; False where the system cannot. Its children, on their own programs, are not affected."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # noqa: PLC0415 - only a check that isolates

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def end_runs(reaper: bool, uid: int | None) -> tuple[int, list[int]]:
    """End what the runs started: every descendant where this process is their subreaper, else every process of
    ``uid`` (the user they ran as, where there is one): how many were ended, and any left."""
    ended, left = end_descendants() if reaper else (0, [])
    if uid is not None and not reaper:
        more, still = end_user(uid)
        ended, left = ended + more, left + still
    return ended, left


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


def _kill_until_gone(found: Callable[[], list[int]]) -> tuple[int, list[int]]:
    """Kill every process ``found`` names until it names none: how many were killed, and those still there when the
    wait ran out (none, unless a process cannot be killed)."""
    killed = 0
    deadline = time.monotonic() + ENDED_WAIT
    left = found()
    while left and time.monotonic() < deadline:
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
        time.sleep(0.01)
        _reap()
        left = found()
    _reap()
    return killed, left


def end_descendants() -> tuple[int, list[int]]:
    """Kill every process below this one and wait until none is left."""
    return _kill_until_gone(descendants)


@dataclass(frozen=True)
class RunAs:
    """The user a program agent runs as under ``check --isolate-user``, and an interpreter that user can run (the
    relay's: the check's own may lie where only its user can read)."""

    uid: int
    gid: int
    python: str

    def popen(self) -> dict[str, object]:
        """What ``subprocess.Popen`` is given to start a process as this user, with no group of the check's."""
        return {"user": self.uid, "group": self.gid, "extra_groups": []}


def run_as(given: str) -> RunAs:
    """``UID[:GID]`` or a user's name: the user program agents run as. The check must run as root to start them so;
    the user may have no entry in the password database (a uid no one else has is the point)."""
    import pwd  # noqa: PLC0415
    import subprocess  # noqa: PLC0415

    from toolreplay.core.errors import UsageError  # noqa: PLC0415

    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        raise UsageError("--isolate-user starts programs as another user, which needs the check to run as root")
    name, _, group = given.partition(":")
    try:
        uid = int(name) if name.isdigit() else pwd.getpwnam(name).pw_uid
        gid = int(group) if group.isdigit() else (pwd.getpwuid(uid).pw_gid if not group else -1)
    except KeyError:
        uid, gid = (int(name), int(name)) if name.isdigit() else (-1, -1)
    if uid <= 0 or gid < 0:
        raise UsageError(f"--isolate-user {given}: give a user other than root, as UID[:GID] or a name")
    for python in dict.fromkeys((sys.executable, "/usr/bin/python3")):
        try:
            done = subprocess.run(
                [python, "-I", "-c", "pass"], cwd="/", capture_output=True, timeout=60, check=False,
                user=uid, group=gid, extra_groups=[],
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return RunAs(uid, gid, python)
    raise UsageError(f"--isolate-user {given}: that user can run no Python here, which the relay to its servers needs")


def end_user(uid: int) -> tuple[int, list[int]]:
    """Kill every process of ``uid`` and wait until none is left: how many were killed, and any still there."""

    def of_user() -> list[int]:
        found = []
        for process in processes() or []:
            with contextlib.suppress(OSError):
                if not process.ended and os.stat(f"/proc/{process.pid}").st_uid == uid:
                    found.append(process.pid)
        return found

    return _kill_until_gone(of_user)
