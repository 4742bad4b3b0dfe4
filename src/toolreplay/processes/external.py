"""Running a program toolreplay relies on (git, ssh-keygen): bytes in, bytes out, and one line when it fails."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping

from toolreplay.core.errors import InputError


def run_program(
    argv: list[str],
    data: bytes | None,
    timeout: float,
    unanswered: str,
    unrunnable: str,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` with ``data`` on its standard input (nothing, where None), its output captured. A program that
    does not end in ``timeout`` seconds is ``unanswered`` (words ending the error); one that cannot start,
    ``unrunnable`` followed by why."""
    try:
        return subprocess.run(
            argv,
            input=data,
            stdin=None if data is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise InputError(f"{unanswered} in {timeout:.0f} s") from None
    except OSError as exc:
        raise InputError(f"{unrunnable}: {exc.strerror or exc}") from None
