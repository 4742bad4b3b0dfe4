"""A tools module's data, held to JSON's rules at the line where each value is written."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from toolreplay.core.errors import InputError
from toolreplay.formats.parsing.module_data import module_data


def test_each_value_is_placed_where_the_module_writes_it(tmp_path: Path) -> None:
    path = tmp_path / "tools.py"
    path.write_text('TOOLS = [\n    {"name": "read"},\n    dict(name="write", schema=(1, 2)),\n]\n', encoding="utf-8")
    value = [{"name": "read"}, {"name": "write", "schema": (1, 2)}]
    node = module_data(value, "TOOLS", path)
    assert node.value == [{"name": "read"}, {"name": "write", "schema": [1, 2]}]  # a tuple is an array
    assert [node.element(0).line, node.element(1).member("name").line] == [2, 3]


@pytest.mark.parametrize(("value", "found"), [([math.nan], "NaN"), ([{1: "a"}], "key"), ([{"a"}], "set")])
def test_what_json_cannot_hold_is_refused_at_its_place(tmp_path: Path, value: object, found: str) -> None:
    path = tmp_path / "tools.py"
    path.write_text("TOOLS = []\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"TOOLS\[0\]") as raised:
        module_data(value, "TOOLS", path)
    assert found.lower() in str(raised.value).lower()
