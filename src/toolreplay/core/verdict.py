"""Turning what a command found into a verdict and an exit code, in one place.

``--fail-on destructive`` (the default) fails on a destructive call the
reference never made, and with a noise baseline on one shown to be the edit's;
``any-destructive`` is the zero-tolerance rule, which with a noise baseline
also fails on a destructive call the unchanged runs never made, shown to be the
edit's or not; ``changed`` also fails on any other difference; ``never`` only
reports. A run that fails nothing but found differences reads WARN.
"""

from __future__ import annotations

import enum


class Exit(enum.IntEnum):
    """The exit codes: 0 clean, 1 findings (and nothing else), 2 the command could not do its job."""

    CLEAN = 0
    FINDINGS = 1
    ERROR = 2


class FailOn(enum.Enum):
    DESTRUCTIVE = "destructive"
    ANY_DESTRUCTIVE = "any-destructive"
    CHANGED = "changed"
    NEVER = "never"


class Verdict(enum.Enum):
    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"

    @property
    def exit_code(self) -> Exit:
        return Exit.FINDINGS if self is Verdict.FAIL else Exit.CLEAN
