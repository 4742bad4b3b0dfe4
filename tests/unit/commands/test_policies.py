"""``policies suggest``: the file it writes loads as policies, and it never writes over what exists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import SAMPLES
from toolreplay.cli.policies import command
from toolreplay.commands.base import Quiet
from toolreplay.commands.policies import SuggestRequest, suggest
from toolreplay.core.errors import UsageError
from toolreplay.core.files import write_new
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


def _transcript(path: Path, *calls: tuple[str, dict[str, object]]) -> str:
    path.write_text("".join(json.dumps({"index": n, "tool": t, "args": a, "response": {"ok": True}}) + "\n"
                            for n, (t, a) in enumerate(calls)))  # fmt: skip
    return str(path)


def test_suggestions_read_back_whatever_the_recordings_tools_are_called(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rules]]\ntool = "rm*"\nclass = "destructive"\n')
    shapes: list[list[tuple[str, dict[str, object]]]] = [
        [("rm", {}), ("rm!", {}), ("rm-2", {})],  # ids that read alike once made plain
        [("ls", {"": "/a"}), ("rm", {"": "/a"}), ("ls", {"": "/b"}), ("rm", {"": "/b"})],  # an empty argument name
        [("rm\x1b]0;pwn\x07", {}), ("rm\nid = 'x'", {})],  # a control character and a line break in a name
    ]
    for number, calls in enumerate(shapes):
        source = _transcript(tmp_path / f"t{number}.jsonl", *calls)
        output = tmp_path / f"p{number}.toml"
        suggest(SuggestRequest((source,), str(output), str(rules)), Quiet())
        ids = [policy.id for policy in read_policies(output).policies]
        assert ids
        assert len(ids) == len(set(ids))
        assert "\x1b" not in output.read_text()


def test_a_file_made_meanwhile_or_a_dangling_link_is_never_written_over(tmp_path: Path) -> None:
    session = str(SAMPLES / "ops" / "session.json")
    dangling = tmp_path / "link.toml"
    dangling.symlink_to(tmp_path / "nowhere.toml")
    with pytest.raises(UsageError, match="exists"):
        suggest(SuggestRequest((session,), str(dangling)), Quiet())
    assert dangling.is_symlink()
    assert not (tmp_path / "nowhere.toml").exists()
    made = tmp_path / "made.toml"
    write_new(made, [b"first"])
    with pytest.raises(UsageError, match="exists"):  # what write_new does when the name is taken at the last moment
        write_new(made, [b"second"])
    assert made.read_bytes() == b"first"
