"""`run` (and `rules init`) check everything before they write anything: an error names the input and its line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from toolreplay.agents.scripted import load_module
from toolreplay.cli import main
from toolreplay.formats.session.stream import read_session

AGENT = """\
class Agent:
    def __init__(self, seed):
        self.turn = 0

    def respond(self, system, tools, messages):
        self.turn += 1
        if self.turn == 1:
            return [{"type": "tool_use", "name": tools[0]["name"], "input": {"n": 1}}]
        return [{"type": "text", "text": "done"}]
"""

EXECUTE = """
def execute(name, args):
    return {"ok": True}
"""

GOOD = """\
TOOLS = [
    {
        "name": "count",
        "description": "Count.",
        "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
    },
]
"""


def run(capsys: pytest.CaptureFixture[str], tmp_path: Path, tools: str) -> tuple[int, str, str, Path]:
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    module = tmp_path / f"tools_{abs(hash(tools))}.py"  # one module per text: a module is imported once per process
    module.write_text(tools + EXECUTE, encoding="utf-8")
    out = tmp_path / "session.json"
    args = ["run", str(module), "--agent", f"scripted:{tmp_path / 'agent.py'}", "--task", "go", "-o", str(out)]
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err, module


def test_a_run_with_good_tools_writes_a_session_that_loads(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, said, error, _ = run(capsys, tmp_path, GOOD)
    assert (code, error) == (0, "")
    assert said == f"wrote {tmp_path / 'session.json'}: 1 tool call\n"
    session = read_session(tmp_path / "session.json")
    assert [call.args for call in session.calls] == [{"n": 1}]


@pytest.mark.parametrize(
    ("tools", "line", "says"),
    [
        (  # NaN: JSON cannot hold it, so the session written would not load
            GOOD.replace('{"type": "integer"}', '{"type": "integer", "maximum": float("nan")}'),
            5,
            "TOOLS[0].input_schema.properties.n.maximum: must be a finite number, found nan",
        ),
        (
            GOOD.replace('"description": "Count.",', '"description": "Count.",\n        "tags": ["x"],'),
            5,
            "TOOLS[0]: unknown field 'tags' in a tool definition",
        ),
        (
            GOOD.replace('"input_schema": {"type": "object"', '"input_schema": {1: "object"'),
            5,
            "TOOLS[0].input_schema: a key must be a string, found an integer (1)",
        ),
        (
            GOOD.replace('"Count."', '{"Count."}'),
            4,
            "TOOLS[0].description: must be JSON data (a dict, list, string, number, boolean or None), found a set",
        ),
        (GOOD.replace('"name": "count"', '"name": ""'), 3, "TOOLS[0].name: must be a non-empty string"),
        (  # built, not written out: the line that assigns it
            "import math\n\nTOOLS = [dict(name='count', input_schema={'type': 'object', 'maximum': math.inf})]\n",
            3,
            "TOOLS[0].input_schema.maximum: must be a finite number, found inf",
        ),
        (
            GOOD + "TOOLS += [{'name': 'count', 'input_schema': {}}]\n",
            8,
            "TOOLS[1].name: tool 'count' is defined twice",
        ),
    ],
)
def test_tool_definitions_are_refused_at_their_line_and_nothing_is_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tools: str, line: int, says: str
) -> None:
    out = tmp_path / "session.json"
    out.write_text("a session recorded before\n", encoding="utf-8")
    code, said, error, module = run(capsys, tmp_path, tools)
    assert (code, said) == (2, "")
    assert error.count("\n") == 1
    assert error.startswith(f"toolreplay: error: {module}:{line}: {says}"), error
    assert out.read_text(encoding="utf-8") == "a session recorded before\n"  # nothing written over it
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(["agent.py", module.name, "session.json"])


def test_nothing_is_left_behind_when_the_tools_are_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = GOOD.replace('{"type": "integer"}', '{"type": "integer", "minimum": -float("inf")}')
    code, _, error, module = run(capsys, tmp_path, bad)
    assert code == 2
    assert f"{module}:5: " in error
    assert not (tmp_path / "session.json").exists()


def test_rules_init_reads_its_rules_back_before_writing_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rules that TOML reads but the rules reader refuses (a class no rule may have) are never written."""
    import toolreplay.commands.rules as rules_command  # noqa: PLC0415

    broken = {"rules": [{"tool": "delete_path", "class": "harmless"}]}
    monkeypatch.setattr(rules_command, "starter_rules", lambda sessions: (broken, ["a header"]))
    out = tmp_path / "rules.toml"
    code = main(["rules", "init", str(SAMPLES / "ops" / "session.json"), "-o", str(out)])
    error = capsys.readouterr().err
    assert code == 2
    assert "the starter rules would not load" in error
    assert "unknown class 'harmless'" in error
    assert not out.exists()


def test_loading_a_users_file_leaves_no_bytecode_beside_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Whatever the environment says about bytecode, a scripted agent or a tools module is read, never written
    beside: nothing of toolreplay's lands in the user's tree."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    user = tmp_path / "mine.py"
    user.write_text("VALUE = 41 + 1\n", encoding="utf-8")
    module = load_module(user, "the tools module")
    assert module.VALUE == 42
    assert sorted(path.name for path in tmp_path.iterdir()) == ["mine.py"]
