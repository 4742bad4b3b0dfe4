"""What ``tools diff`` and ``tools lint`` report: a surface's changes with the sources compared, and the lint's
findings, each an outcome the registry renders."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolreplay.core.records import record

if TYPE_CHECKING:
    from toolreplay.surface.drift import Drift
    from toolreplay.surface.lint import LintFinding


@record
class SurfaceChanges:
    """How a tool surface changed between two sources: each source as named and how many tools it lists."""

    old: str
    new: str
    old_tools: int
    new_tools: int
    changes: tuple[Drift, ...]


@record
class LintShown:
    """What ``tools lint`` found, in order."""

    findings: tuple[LintFinding, ...]
