"""A tool surface read from each kind of source, told apart by what the file holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from toolreplay.core.errors import InputError
from toolreplay.surface.sources import read_surface, read_tools_file


def test_a_session_a_tools_file_and_a_listing_give_their_tools(tmp_path: Path) -> None:
    session = read_surface(str(ROOT / "samples" / "ops" / "session.json"))
    names = sorted(tool.name for tool in session.tools)
    assert "delete_path" in names
    assert names == sorted(set(names))
    listing = tmp_path / "tools.json"
    listing.write_text('{"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}', encoding="utf-8")
    assert [tool.name for tool in read_tools_file(str(listing)).tools] == ["a"]
    plain = tmp_path / "plain.json"
    plain.write_text('[{"name": "b", "input_schema": {"type": "object"}}]', encoding="utf-8")
    assert [(tool.name, tool.line) for tool in read_surface(str(plain)).tools] == [("b", 1)]


def test_a_file_that_is_no_surface_says_so(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(InputError):
        read_surface(str(other))
