"""Each command's own module: its help renders in process, and names the options the docs promise it takes."""

from __future__ import annotations

import importlib

import click
import pytest
from click.testing import CliRunner

PROMISED = [
    ("toolreplay.cli.audit", ["--rules", "--strict"]),
    (
        "toolreplay.cli.check",
        ["--config", "--base", "--policy", "--shard", "--isolate", "--isolate-user", "--no-code", "--sarif"],
    ),
    ("toolreplay.cli.compare", ["--baseline", "--alpha", "--test", "--fail-on", "--json", "--html"]),
    ("toolreplay.cli.diff", ["--fail-on", "--json", "--markdown", "--github-annotations"]),
    ("toolreplay.cli.import_log", ["--from", "--task", "--system", "--every-process"]),
    ("toolreplay.cli.import_mcp", ["--task"]),
    ("toolreplay.cli.merge", ["--markdown", "--sarif"]),
    ("toolreplay.cli.record", ["--agent", "--server", "--runs", "--server-env", "--before-run", "--keep-going"]),
    ("toolreplay.cli.record_mcp", ["--upstream", "--stderr-copy"]),
    (
        "toolreplay.cli.replay",
        ["--agent", "--system", "--tools", "--noise", "--repeat", "--keep-runs", "--runs-out", "--no-cache"],
    ),
    ("toolreplay.cli.run", ["--system"]),
    ("toolreplay.cli.scope", []),
    ("toolreplay.cli.seal", ["--sign"]),
    ("toolreplay.cli.serve", ["--on-unrecorded", "--record", "--http", "--log", "--faults"]),
    ("toolreplay.cli.show", ["--rules"]),
    ("toolreplay.cli.verify", ["--allowed-signers", "--identity", "--signature"]),
    ("toolreplay.cli.version", []),
]


@pytest.mark.parametrize(("module", "options"), PROMISED, ids=lambda value: value if isinstance(value, str) else "")
def test_each_commands_help_names_its_options(module: str, options: list[str]) -> None:
    command = importlib.import_module(module).command  # the module: toolreplay.cli.run is also a function's name
    assert isinstance(command, click.Command)
    shown = CliRunner().invoke(command, ["--help"], terminal_width=100)
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith("Usage: ")
    missing = [option for option in options if option not in shown.output]
    assert missing == []


@pytest.mark.parametrize(
    ("group", "subcommands"), [("toolreplay.cli.tools", ["diff", "lint", "pin"]), ("toolreplay.cli.rules", ["init"])]
)
def test_the_groups_list_their_subcommands(group: str, subcommands: list[str]) -> None:
    command = importlib.import_module(group).command
    assert isinstance(command, click.Group)
    assert sorted(command.commands) == subcommands
