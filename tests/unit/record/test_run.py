"""``run``'s tools module: its definitions held to the session reader's rules, each call really run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import InputError, UsageError
from toolreplay.record.run import load_toolbox, run_tool


def test_the_samples_tools_load_and_a_tool_that_raises_is_an_error_result() -> None:
    box = load_toolbox(str(ROOT / "samples" / "ops" / "tools.py"))
    assert "delete_path" in [tool.name for tool in box.tools]

    def execute(name: str, args: JSONObject) -> object:
        if name == "boom":
            raise ValueError("no such host")
        return {"name": name, **args}

    assert run_tool(execute, "boom", {}).content == "ValueError: no such host"
    assert run_tool(execute, "boom", {}).is_error
    assert run_tool(execute, "read", {"b": 1, "a": 2}).content == '{"a": 2, "b": 1, "name": "read"}'


def test_a_tool_that_exits_or_returns_what_json_cannot_hold_stops_the_run(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"execute\(\) called exit\(3\)"):
        run_tool(lambda name, args: (_ for _ in ()).throw(SystemExit(3)), "t", {})
    with pytest.raises(UsageError, match="not JSON"):
        run_tool(lambda name, args: {"x": float("nan")}, "t", {})
    bad = tmp_path / "tools.py"
    bad.write_text('TOOLS = [{"name": 3}]\ndef execute(name, args):\n    return ""\n', encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_toolbox(str(bad))
    assert raised.value.line == 1
