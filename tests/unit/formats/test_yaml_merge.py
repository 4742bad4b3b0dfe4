"""YAML anchors, aliases and merge keys, with every value at the line where it is written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from toolreplay.agent_spec import ScriptSpec
from toolreplay.core.errors import InputError
from toolreplay.formats.config.read import read_config
from toolreplay.formats.parsing.yaml_text import parse_yaml

DOCUMENT = """\
base: &base
  a: 1
  b: [x, y]
more: &more
  b: [z]
  c: 3
first:
  <<: [*base, *more]
  a: 2
last:
  a: 0
  <<: *base
scalar: &word hello
again: *word
"""


def test_merge_keys_take_what_the_mapping_does_not_say_with_its_lines() -> None:
    node = parse_yaml(DOCUMENT, "doc.yml")
    assert node is not None
    assert node.value["first"] == {"a": 2, "b": ["x", "y"], "c": 3}  # its own a; b from the first that gives it
    assert node.value["last"] == {"a": 0, "b": ["x", "y"]}  # its own keys win wherever the merge is written
    first = node.member("first")
    assert [first.member(key).line for key in ("a", "b", "c")] == [9, 3, 6]
    assert first.member("b").element(1).line == 3
    assert node.member("last").member("a").line == 11
    assert node.member("again").value == "hello"
    assert node.member("again").line == 13  # an alias is where its value is written
    assert node.member("again").text == "hello"


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("m:\n  <<: 3\n", 2, "'<<' merges a mapping or a list of mappings, found an integer"),
        ("a: &x [1]\nm:\n  <<: *x\n", 3, "'<<' merges a mapping or a list of mappings, found an integer"),
        ("a: &x {k: 1}\nm:\n  <<: [*x, 2]\n", 3, "found an integer"),
        ("a: &x {k: 1}\nm:\n  <<: *x\n  <<: *x\n", 4, 'key "<<" appears twice in one mapping'),
        ("a: &x {k: 1}\nm:\n  <<: *x\n  k: 2\n  k: 3\n", 5, 'key "k" appears twice in one mapping'),
    ],
)
def test_a_wrong_merge_is_named_at_its_line(text: str, line: int, says: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_yaml(text, "doc.yml")
    assert says in caught.value.message
    assert caught.value.line == line


SHARED = """\
sessions: session.json
replay:
  - &defaults
    agent: scripted:agent.py
    repeat: 3
    noise: 3
    seed: 1
  - <<: *defaults
    system: prompt.txt
    seed: 7
"""


@pytest.fixture
def here(tmp_path: Path) -> Path:
    shutil.copy(SAMPLES / "ops" / "session.json", tmp_path / "session.json")
    shutil.copy(SAMPLES / "ops" / "agent.py", tmp_path / "agent.py")
    shutil.copy(SAMPLES / "ops" / "prompt-v2.txt", tmp_path / "prompt.txt")
    shutil.copy(SAMPLES / "ops" / "stubs.json", tmp_path / "stubs.json")
    return tmp_path


def test_replays_share_settings_through_a_merge_key(here: Path) -> None:
    path = here / ".toolreplay.yml"
    path.write_text(SHARED, encoding="utf-8")
    first, second = read_config(str(path)).replays
    assert (first.settings.repeat, first.settings.noise, first.settings.seed) == (3, 3, 1)
    assert (second.settings.repeat, second.settings.noise, second.settings.seed) == (3, 3, 7)
    assert first.settings.agent == second.settings.agent == ScriptSpec(str(here / "agent.py"))
    assert second.settings.system == str(here / "prompt.txt")
    assert first.settings.system is None
    assert (first.line, second.line) == (3, 8)
    assert second.agent_line == 4  # where the shared agent is written: a finding without a changed input points here


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        (  # valid where it is written, refused where it is merged: named at the line that writes it
            SHARED.replace("    seed: 1\n", "    seed: 1\n    on-unrecorded: stub\n    stubs: stubs.json\n").replace(
                "    seed: 7\n", "    seed: 7\n    on-unrecorded: error\n"
            ),
            9,
            "'stubs' are used only with on-unrecorded stub",
        ),
        (SHARED.replace("agent: scripted:agent.py", "agent: scripted:nowhere.py"), 4, "no such file: nowhere.py"),
        (SHARED.replace("  - <<: *defaults", "  - <<: defaults"), 8, "'<<' merges a mapping or a list of mappings"),
        (SHARED.replace("    system: prompt.txt", "    sytem: prompt.txt"), 9, "unknown key 'sytem' in a replay"),
    ],
)
def test_an_error_in_a_shared_setting_names_the_line_that_writes_it(
    here: Path, text: str, line: int, says: str
) -> None:
    path = here / ".toolreplay.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_config(str(path))
    assert caught.value.path == str(path)
    assert caught.value.line == line, caught.value
    assert says in caught.value.message
