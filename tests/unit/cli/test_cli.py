from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from tests.conftest import ROOT, run_cli, run_cli_process
from toolreplay.cli import COMMANDS, cli

HEAVY = ("scipy", "anthropic", "mcp", "yaml", "numpy")


@pytest.mark.parametrize(
    "args",
    [["version"], ["seal", "samples/session-dirty.jsonl"], ["replay", "samples/session-dirty.jsonl"]],
)
def test_light_commands_do_not_import_heavy_modules(args: list[str]) -> None:
    code = (
        "import sys, json\n"
        "from toolreplay.cli import main\n"
        f"main({args!r})\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=_root()
    ).stdout.splitlines()[-1]
    assert json.loads(out) == []


def _root() -> str:
    return str(ROOT)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_listed_command_loads_with_matching_name(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert isinstance(command, click.Command)
    assert command.name == name
    assert command.help


def test_group_help_lists_every_command_with_its_summary() -> None:
    ctx = click.Context(cli, info_name="toolreplay")
    text = " ".join(cli.get_help(ctx).split())  # the help wraps to the terminal's width
    for name, (_, summary) in COMMANDS.items():
        assert f" {name} {summary}" in text


def _loaded_after(statement: str) -> set[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=_root())
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_reading_a_config_loads_no_analysis() -> None:
    loaded = _loaded_after("import toolreplay.formats.config.model")
    analyses = (
        "toolreplay.replay",
        "toolreplay.analysis.diff",
        "toolreplay.stats.exact",
        "toolreplay.agents",
        "toolreplay.analysis.audit",
    )
    assert sorted(m for m in loaded if m.startswith(analyses)) == []
    assert "toolreplay.settings" in loaded  # the check can fail: the settings are what a config fills


def test_the_runtime_dependencies_are_what_the_runtime_imports() -> None:
    """pyproject's dependencies are exactly the third-party packages src/ imports outside the optional SDKs."""
    import ast  # noqa: PLC0415
    import tomllib  # noqa: PLC0415

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {requirement.split(">")[0].split("=")[0].strip().lower() for requirement in project["dependencies"]}
    extras = {name for name in project["optional-dependencies"] if name != "dev"}
    imported: set[str] = set()
    for path in (ROOT / "src" / "toolreplay").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {name for name in imported - set(sys.stdlib_module_names) if name != "toolreplay"}
    # the python: agent's worker uses anyio as the mcp SDK does (its own dependency); the plugin is pytest's
    distributions = {"yaml": "pyyaml", "tomli_w": "tomli-w", "anyio": "mcp"}
    assert {distributions.get(name, name) for name in third_party} - extras == declared


@pytest.mark.parametrize(
    "args",
    [
        ["replay", "session-dirty.jsonl"],
        ["replay", "ops/session.json", "--system", "ops/prompt-v2.txt", "--on-unrecorded", "stub", "--stubs",
         "ops/stubs.json"],
        ["verify", "session-dirty.jsonl"],
        ["diff", "ops/session.json", "no-such-file.json"],
        ["replay", "--repeat", "0", "ops/session.json"],
    ],
    ids=["audit", "headline", "unsealed", "missing file", "bad option"],
)  # fmt: skip
def test_the_suite_runs_the_cli_in_process_as_a_process_would(args: list[str]) -> None:
    """Most tests run the CLI in-process: that holds only while it gives what a real process gives, byte for
    byte, exit code included (findings, a clean run, bad input)."""
    assert run_cli(*args) == run_cli_process(*args)


def test_the_headline_replay_loads_only_what_it_runs() -> None:
    """The start-up budget (bench/bench_startup.py): a scripted replay loads neither the check, nor the program
    runner, nor the recorders, nor what hashes or redacts."""
    loaded = _loaded_after(
        "from toolreplay.cli import main\n"
        "import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['replay', 'samples/ops/session.json', '--system', 'samples/ops/prompt-v2.txt', '--repeat', '3',"
        " '--noise', '3', '--on-unrecorded', 'stub', '--stubs', 'samples/ops/stubs.json'])"
    )
    assert "toolreplay.replay.noise" in loaded  # it did run the replay
    unused = ("toolreplay.check", "toolreplay.record", "toolreplay.replay.command", "toolreplay.report.html",
              *(f"toolreplay.agents.providers.{name}" for name in ("anthropic", "bedrock", "vertex", "openai")),
              "openai", "anthropic", "httpx", "httpx2", "pytest", "_pytest", "toolreplay.api",
              "toolreplay.pytest_plugin", "toolreplay.agents.function")  # fmt: skip
    assert not [name for name in loaded if name in unused or name.startswith(tuple(f"{u}." for u in unused))]
    assert (
        not {
            "hashlib",
            "toolreplay.integrity.chain",
            "toolreplay.formats.mcp_log.log",
            "tempfile",
            "concurrent.futures",
        }
        & loaded
    )
