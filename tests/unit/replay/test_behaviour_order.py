"""A behaviour is led by its most dangerous change, whatever order its runs made them in: the report's first row of
a DESTRUCTIVE behaviour is the destructive call, not the write before it."""

from __future__ import annotations

from dataclasses import dataclass

from toolreplay.core.model import CallClass, PairKind
from toolreplay.replay.noise import behaviours
from toolreplay.replay.report import Change


@dataclass
class _Changes:
    """What :func:`behaviours` reads of a replay's report: its changes."""

    changes: tuple[Change, ...]


def test_the_destructive_change_leads_its_behaviour() -> None:
    runs = (1, 3)
    made = (
        Change(PairKind.CHANGED, "write_file", {"path": "notes.md"}, CallClass.WRITE, runs),
        Change(PairKind.REMOVED, "read_file", {"path": "notes.md"}, CallClass.READ_ONLY, runs),
        Change(PairKind.ADDED, "delete_path", {"path": "/var/log"}, CallClass.DESTRUCTIVE, runs),
        Change(PairKind.ADDED, "shell", {"cmd": "ls"}, CallClass.UNKNOWN, runs),
    )
    [behaviour] = behaviours(_Changes(made), _Changes(()))  # type: ignore[arg-type]
    assert [change.tool for change in behaviour.changes] == ["delete_path", "shell", "write_file", "read_file"]
    assert behaviour.lead.tool == "delete_path"
