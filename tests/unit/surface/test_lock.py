"""A lock pins a surface and reads back as it was pinned; a lock edited by hand is refused at the entry's line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolreplay.core.errors import InputError
from toolreplay.surface.lock import read_lock, write_lock
from toolreplay.surface.model import Surface, SurfaceTool
from toolreplay.surface.sources import read_surface


def _surface() -> Surface:
    tools = (
        SurfaceTool(
            "files", {"name": "read", "description": "Read a file.", "inputSchema": {"type": "object"}}, "x", 1
        ),
        SurfaceTool("files", {"name": "remove", "annotations": {"destructiveHint": True}}, "x", 2),
    )
    return Surface("x", tools)


def test_a_pinned_surface_reads_back_tool_for_tool(tmp_path: Path) -> None:
    data, pinned = write_lock([_surface()])
    (tmp_path / "tools.lock").write_bytes(data)
    lock = read_lock(str(tmp_path / "tools.lock"))
    assert pinned == 2
    assert [(tool.server, tool.name, tool.raw) for tool in lock.tools] == [
        (tool.server, tool.name, tool.raw) for tool in _surface().tools
    ]
    assert read_surface(str(tmp_path / "tools.lock")).tools == lock.tools  # the lock is a source like any other


def test_a_reworded_description_is_refused_at_its_entry(tmp_path: Path) -> None:
    data, _ = write_lock([_surface()])
    text = data.decode("utf-8").replace('"description": "Read a file."', '"description": "Read any file."', 1)
    assert text != data.decode("utf-8")
    (tmp_path / "tools.lock").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        read_lock(str(tmp_path / "tools.lock"))
    assert raised.value.line is not None
    assert json.loads(text)["tools"][0]["name"] == "read"
