"""``policies suggest``: the file it writes loads as policies, and it never writes over what exists."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import SAMPLES
from toolreplay.cli.policies import command
from toolreplay.commands.base import Quiet
from toolreplay.commands.policies import SuggestRequest, suggest
from toolreplay.core.errors import UsageError
from toolreplay.formats.policies import read_policies


def test_the_suggestions_load_and_an_existing_file_is_never_written_over(tmp_path: Path) -> None:
    output = tmp_path / "policies.toml"
    session = str(SAMPLES / "ops" / "session.json")
    suggest(SuggestRequest((session,), str(output), str(SAMPLES / "rules" / "rules.toml")), Quiet())
    ids = [policy.id for policy in read_policies(output).policies]
    assert ids == ["disk_usage-before-archive_path", "list_dir-before-archive_path", "at-most-2-archive_path"]
    before = output.read_bytes()
    with pytest.raises(UsageError, match="exists"):
        suggest(SuggestRequest((session,), str(output)), Quiet())
    assert output.read_bytes() == before


def test_the_command_line_names_what_it_proposes() -> None:
    shown = CliRunner().invoke(command, ["suggest", "--help"]).output
    assert "--policies" in shown
    assert "-o, --output FILE" in shown
