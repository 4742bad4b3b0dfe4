from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from tests.conftest import ROOT
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
