"""A faults file: each fault by tool and arguments, in order, its kind's settings checked at their line."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolreplay.core.errors import InputError
from toolreplay.core.model import Call
from toolreplay.formats.faults import FaultKind, read_faults


def test_the_first_matching_fault_is_found_in_order(tmp_path: Path) -> None:
    path = tmp_path / "faults.json"
    path.write_text(
        '{"faults": [\n'
        '  {"tool": "delete_*", "args": {"path": "/var/*"}, "fault": "error", "code": -32000, "message": "busy"},\n'
        '  {"tool": "*", "fault": "delay", "seconds": 0.5, "times": 2}\n'
        "]}\n",
        encoding="utf-8",
    )
    first, second = read_faults(path)
    assert (first.kind, first.code, first.message) == (FaultKind.ERROR, -32000, "busy")
    assert first.matches(Call(0, "delete_path", {"path": "/var/log"}, None, 0))
    assert not first.matches(Call(0, "delete_path", {"path": "/home"}, None, 0))
    assert (second.kind, second.seconds, second.times) == (FaultKind.DELAY, 0.5, 2)


def test_an_unknown_kind_names_the_kinds_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "faults.json"
    path.write_text('{"faults": [\n  {"tool": "a", "fault": "explode"}\n]}\n', encoding="utf-8")
    with pytest.raises(InputError, match="must be one of error, is_error, delay") as raised:
        read_faults(path)
    assert raised.value.line == 2
