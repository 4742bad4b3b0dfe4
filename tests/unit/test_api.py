"""The Python API: what is public is deliberate, each function is its command, and a refusal is the command's own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import toolreplay
from tests.conftest import ROOT, SAMPLES, run_cli
from toolreplay import api
from toolreplay.agent_spec import FunctionSpec
from toolreplay.core.errors import ToolreplayError
from toolreplay.core.verdict import Verdict
from toolreplay.settings import Unrecorded

OPS = SAMPLES / "ops"
PUBLIC = ["Error", "Live", "ReplayResult", "ReplaySettings", "Result", "check", "compare", "diff", "load", "record",
          "replay", "settings"]  # fmt: skip


def test_the_public_names_are_these_and_each_is_documented() -> None:
    assert sorted(toolreplay.__all__) == PUBLIC
    guide = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    for name in PUBLIC:
        assert callable(getattr(toolreplay, name))
        assert f"`{name}" in guide or f"toolreplay.{name}" in guide, name
    assert (ROOT / "src" / "toolreplay" / "py.typed").is_file()
    with pytest.raises(AttributeError):
        toolreplay.nothing_public  # noqa: B018


def test_the_functions_win_over_the_packages_of_the_same_name() -> None:
    """``toolreplay.replay`` and ``toolreplay.check`` are functions even once their packages are imported, as every
    module of toolreplay imports them, by their full names."""
    import toolreplay.check.run  # noqa: PLC0415
    import toolreplay.record.programs  # noqa: PLC0415
    import toolreplay.replay.drive  # noqa: PLC0415

    assert toolreplay.replay is api.replay
    assert toolreplay.check is api.check
    assert toolreplay.record is api.record
    assert sys.modules["toolreplay.replay.drive"].__name__ == "toolreplay.replay.drive"


def test_import_toolreplay_loads_nothing_of_the_api() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, toolreplay; print(' '.join(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert not [name for name in loaded if name.startswith("toolreplay.")]


def test_a_replay_through_the_api_gives_the_json_the_command_line_prints() -> None:
    """The done-when: the same replay through the CLI and through the API gives the same JSON report; and the edited
    prompt fails the assertion with the report's words while the unchanged one passes."""
    options: dict[str, Any] = {"repeat": 20, "noise": 20, "on_unrecorded": "stub", "stubs": OPS / "stubs.json"}
    agent = FunctionSpec("ops_agent", "run", str(SAMPLES / "python"))
    edited = toolreplay.replay(OPS / "session.json", agent=agent, system=OPS / "prompt-v2.txt", **options)
    shown = run_cli(
        "replay", "ops/session.json", "--agent", "python:ops_agent:run", "--system", "ops/prompt-v2.txt",
        "--on-unrecorded", "stub", "--stubs", "ops/stubs.json", "--noise", "20", "--repeat", "20", "--json",
        cwd=SAMPLES,
        env={"PYTHONPATH": str(SAMPLES / "python")},
    )  # fmt: skip
    assert shown.code == edited.exit_code == 1
    through_api, through_cli = edited.json(), json.loads(shown.stdout)
    for report in (through_api, through_cli):  # the recording's path, as each was given
        report["recording"]["path"] = "session.json"
    assert through_api == through_cli
    assert edited.verdict is Verdict.FAIL
    assert not edited.passed
    with pytest.raises(AssertionError) as failed:
        edited.assert_no_destructive()
    said = str(failed.value)
    assert "DESTRUCTIVE destructive, and more frequent with the edit" in said
    assert "edited 9/20" in said
    assert "p 0.00021" in said
    assert said == edited.text
    unchanged = toolreplay.replay(OPS / "session.json", agent=agent, **options)
    unchanged.assert_no_destructive()
    unchanged.assert_passes()
    assert len(unchanged.runs) == len(unchanged.baseline_runs) == 20


def test_every_report_format_renders_from_the_result() -> None:
    result = toolreplay.replay(
        OPS / "session.json", agent=f"scripted:{OPS / 'agent.py'}", system=OPS / "prompt-v2.txt", repeat=4
    )
    assert result.formats() == ("text", "json", "markdown", "sarif", "html", "annotations")
    assert result.render("markdown").startswith("## toolreplay replay: ❌ FAIL")
    assert json.loads(result.render("sarif"))["version"] == "2.1.0"
    assert "<html" in result.render("html")
    assert result.render() == str(result) == result.text
    with pytest.raises(ValueError, match="no pdf report of this result; it has text, json"):
        result.render("pdf")
    audit = toolreplay.replay(SAMPLES / "session-dirty.jsonl")  # a transcript: its self-audit, as replay prints it
    assert audit.exit_code == 1
    assert audit.formats() == ("text",)


def test_settings_are_the_options_by_name_and_refused_in_their_words() -> None:
    chosen = toolreplay.settings(repeat="20", noise=20, on_unrecorded="stub", stubs=OPS / "stubs.json", batch=False)
    assert (chosen.repeat, chosen.noise, chosen.on_unrecorded, chosen.batch) == (20, 20, Unrecorded.STUB, False)
    assert toolreplay.settings(env=["A", "B"]).env == ("A", "B")
    for given, said in (
        ({"repeat": 0}, "repeat must be at least 1, not 0"),
        ({"on_unrecorded": "maybe"}, "on_unrecorded must be one of stop, error, stub, not 'maybe'"),
        ({"stubs": "x.json"}, "stubs are used only with on-unrecorded stub"),
        ({"repeats": 3}, "no setting 'repeats'"),
        ({"agent": "python:nope"}, "agent must be python:MODULE:FUNCTION"),
    ):
        with pytest.raises(toolreplay.Error, match=said.replace("(", r"\(").replace(")", r"\)")):
            toolreplay.settings(**given)
    with pytest.raises(toolreplay.Error, match="fail_on must be one of"):
        toolreplay.replay(OPS / "session.json", fail_on="sometimes")
    with pytest.raises(toolreplay.Error, match="no such file"):
        toolreplay.replay(OPS / "no-such-session.json")
    assert toolreplay.Error is ToolreplayError
    for call, said in (
        (lambda: toolreplay.replay(OPS / "session.json", agent=["x"]), "agent must be text, not ['x']"),
        (lambda: toolreplay.replay(OPS / "session.json", strict="yes"), "strict must be True or False, not 'yes'"),  # type: ignore[arg-type]
        (lambda: toolreplay.replay(None), "recording must be a path (a str or a Path), not None"),  # type: ignore[arg-type]
        (lambda: toolreplay.record("x", agent="cmd:x", servers={"a": "b"}, task="t", runs=0),
         "runs must be between 1 and 1000, not 0"),
        (lambda: toolreplay.record("x", agent="cmd:x", servers=["a"], task="t"),  # type: ignore[arg-type]
         "servers must be a dict, not ['a']"),
        (lambda: toolreplay.record("x", agent="cmd:x", servers={"a": "b"}, task="t", run_timeout=0),
         "run_timeout must be between 1 and 86400 seconds, not 0"),
    ):  # fmt: skip
        with pytest.raises(toolreplay.Error) as refused:
            call()
        assert refused.value.message == said


def test_compare_diff_check_and_load_are_their_commands(tmp_path: Path) -> None:
    compared = toolreplay.compare(
        OPS / "session.json", sorted(OPS.glob("recorded/edited-*.json")), sorted(OPS.glob("recorded/unchanged-*.json"))
    )
    edited = [f"ops/recorded/{path.name}" for path in sorted(OPS.glob("recorded/edited-*.json"))]
    unchanged = [word for path in sorted(OPS.glob("recorded/unchanged-*.json"))
                 for word in ("--baseline", f"ops/recorded/{path.name}")]  # fmt: skip
    shown = run_cli("compare", "ops/session.json", *edited, *unchanged, "--json")
    assert compared.exit_code == shown.code == 1
    assert compared.json()["behaviours"] == json.loads(shown.stdout)["behaviours"]
    changed = toolreplay.diff(OPS / "session.json", OPS / "session-edited.json")
    assert changed.text == run_cli("diff", "ops/session.json", "ops/session-edited.json").stdout.replace(
        "ops/", str(OPS) + "/"
    )
    checked = toolreplay.check(SAMPLES / ".toolreplay.yml")
    assert checked.exit_code == 1
    assert checked.verdict is Verdict.FAIL
    assert checked.json()["verdict"] == "FAIL"
    assert checked.render("markdown").startswith("## toolreplay check: ❌ FAIL")
    session = toolreplay.load(OPS / "session.json")
    assert [call.tool for call in session.calls][:2] == ["disk_usage", "list_dir"]
    assert session.context is not None
    assert session.context.tools


def test_the_fixture_finds_a_function_as_pytest_found_the_test(tmp_path: Path) -> None:
    """The plugin itself, in this process (tests/acceptance/test_pytest_plugin.py runs it inside pytest): a test's
    root is the first directory above it that is no package, and a python: agent's module is found from there."""
    from toolreplay.pytest_plugin import Toolreplay, _test_root  # noqa: PLC0415

    package = tmp_path / "project" / "tests" / "unit"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package.parent / "__init__.py").write_text("")
    assert _test_root(package / "test_agent.py") == tmp_path / "project"
    fixture = Toolreplay(tmp_path, tmp_path / "project")
    assert fixture._found("python:myagent:run") == FunctionSpec("myagent", "run", str(tmp_path / "project"))
    assert fixture._found("scripted:agent.py") == "scripted:agent.py"
    assert fixture._found("python:nope") == "python:nope"  # refused by the replay, in its words
