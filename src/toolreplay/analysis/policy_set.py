"""A policy file's policies as every analysis carries them, and what a replay found of each: kept apart from the
judging (:mod:`toolreplay.analysis.policies`), which is loaded only by a command given policies."""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from toolreplay.core.records import record

if TYPE_CHECKING:
    from toolreplay.analysis.policies import CallPolicy, Violation


@record
class PolicySet:
    """The policies a policy file states, in its order, and the file (as reports name it)."""

    policies: tuple[CallPolicy, ...] = ()
    source: str | None = None

    def __bool__(self) -> bool:
        return bool(self.policies)


NO_POLICIES = PolicySet()


@record
class PolicyViolations:
    """A policy, the runs of a replay that broke it, and what the first of them did."""

    policy: CallPolicy
    runs: tuple[int, ...]
    example: Violation | None = field(default=None)
