"""Policy files: each kind read into its policy, and every mistake refused at its line in one sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli
from toolreplay.analysis.policies import PolicyKind
from toolreplay.core.errors import InputError
from toolreplay.core.findings import Level
from toolreplay.formats.policies import parse_policies


def test_each_kind_reads_with_its_patterns_and_bindings() -> None:
    text = """
[[policy]]
id = "backup-before-delete"
why = "a deletion must follow a backup of the same path"
[policy.before]
first = { tool = "archive_path", args = { path = "{path}" } }
then = { tool = "delete_path", args = { path = "{path}", host = "build-*" } }

[[policy]]
id = "mail"
level = "note"
why = "once is enough"
at-most = { tool = "send_email", count = 1 }

[[policy]]
id = "secrets"
level = "warning"
why = "w"
flow = { from = { tool = "read_secret" }, to = { tool = "http_*" }, min-length = 16 }
"""
    policies = parse_policies(text, "p.toml").policies
    backup, mail, secrets = policies
    assert (backup.kind, backup.level, backup.line) == (PolicyKind.BEFORE, Level.ERROR, 2)
    assert backup.then.args == (("host", "build-*"),)
    assert backup.then.binds == (("path", "path"),)
    assert backup.shared == ("path",)
    assert backup.text() == 'archive_path(path={path}) before delete_path(host="build-*", path={path})'
    assert (mail.kind, mail.count, mail.level) == (PolicyKind.AT_MOST, 1, Level.NOTE)
    assert (secrets.kind, secrets.min_length, secrets.first and secrets.first.tool) == (
        PolicyKind.FLOW,
        16,
        "read_secret",
    )


@pytest.mark.parametrize(
    ("body", "said", "line"),
    [
        ('id = "a"\nwhy = "w"', "needs exactly one of never, require", 2),
        ('id = "a"\nwhy = "w"\nnever = { tool = "x" }\nrequire = { tool = "y" }', "it has never and require", 2),
        ('why = "w"\nnever = { tool = "x" }', "needs 'id'", 2),
        ('id = "a b"\nwhy = "w"\nnever = { tool = "x" }', "must be 1 to 100 letters", 3),
        ('id = "a"\nnever = { tool = "x" }', "needs 'why'", 2),
        ('id = "a"\nwhy = "w"\nlevel = "fatal"\nnever = { tool = "x" }', "unknown level 'fatal'", 5),
        ('id = "a"\nwhy = "w"\nnever = { args = { p = 1 } }', "needs 'tool'", 5),
        ('id = "a"\nwhy = "w"\nnever = { tool = "x", color = "red" }', "color", 5),
        ('id = "a"\nwhy = "w"\nat-most = { tool = "x" }', "needs 'count'", 5),
        ('id = "a"\nwhy = "w"\nat-most = { tool = "x", count = -1 }', "must be from 0", 5),
        ('id = "a"\nwhy = "w"\nbefore = { first = { tool = "x" } }', "needs 'first' and 'then'", 5),
        ('id = "a"\nwhy = "w"\nflow = { from = { tool = "x" }, to = { tool = "y" }, min-length = 2 }', "from 4 to", 5),
        (
            'id = "a"\nwhy = "w"\nflow = { from = { tool = "x", args = { p = "{v}" } }, to = { tool = "y" } }',
            "bind no",
            5,
        ),
        ('id = "a"\nwhy = "w"\nnever = { tool = "x", args = { p = [1] } }', "must be a string", 5),
        ('id = "a"\nwhy = "w"\nnever = { tool = "x", args = { p = "{file-path}" } }', "is no name a pattern binds", 5),
        ('id = "a"\nwhy = "w"\nnever = { tool = "x", args = { p = "{1p}" } }', "is no name a pattern binds", 5),
        ('id = "a"\nwhy = "   "\nnever = { tool = "x" }', "not blanks", 4),
    ],
)
def test_a_mistake_is_refused_at_its_line(body: str, said: str, line: int) -> None:
    with pytest.raises(InputError) as caught:
        parse_policies(f"\n[[policy]]\n{body}\n", "p.toml")
    assert said in caught.value.message
    assert caught.value.line == line


def test_an_id_stated_twice_names_the_first() -> None:
    one = '[[policy]]\nid = "a"\nwhy = "w"\nnever = { tool = "x" }\n\n'
    text = one + one.replace('"x"', '"y"')
    with pytest.raises(InputError) as caught:
        parse_policies(text, "p.toml")
    assert "stated twice (first at line 1)" in caught.value.message


def test_the_cli_refuses_a_bad_policy_file_in_one_line_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[policy]]\nid = "a"\nwhy = "w"\nnever = "delete"\n')
    done = run_cli("audit", "--policies", str(bad), "ops/session.json")
    assert done.code == 2
    assert done.stderr.count("\n") == 1
    assert "bad.toml:4" in done.stderr


def test_a_byte_order_mark_is_read_past() -> None:
    assert [
        p.id for p in parse_policies('\ufeff[[policy]]\nid = "a"\nwhy = "w"\nnever = { tool = "x" }\n', "p").policies
    ] == ["a"]
