"""Turning what a comparison found into a verdict and an exit code, in one place.

``--fail-on destructive`` (the default) fails on a destructive call the
reference never made; ``changed`` also fails on any other difference; ``never``
only reports. A run that fails nothing but found differences reads WARN.
"""

from __future__ import annotations

import enum


class FailOn(enum.Enum):
    DESTRUCTIVE = "destructive"
    CHANGED = "changed"
    NEVER = "never"


class Verdict(enum.Enum):
    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"

    @property
    def exit_code(self) -> int:
        return 1 if self is Verdict.FAIL else 0


def decide(fail_on: FailOn, destructive: bool, changed: bool) -> Verdict:
    """``destructive``: a new destructive call was found; ``changed``: any difference was."""
    if fail_on is FailOn.DESTRUCTIVE and destructive:
        return Verdict.FAIL
    if fail_on is FailOn.CHANGED and (destructive or changed):
        return Verdict.FAIL
    return Verdict.WARN if destructive or changed else Verdict.PASS
