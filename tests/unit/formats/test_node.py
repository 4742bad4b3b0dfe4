"""A parsed value with its place: every type check says the file, the line, the place and what was found."""

from __future__ import annotations

import pytest

from toolreplay.core.errors import InputError
from toolreplay.formats.parsing.json_text import parse_json
from toolreplay.formats.parsing.node import describe, lone_surrogate, nested_past, plain_node
from toolreplay.formats.parsing.yaml_text import parse_yaml


def test_a_wrong_type_is_named_in_each_syntaxs_words() -> None:
    doc = parse_json('{\n  "tools": [\n    {"name": 3}\n  ]\n}', "s.json")
    with pytest.raises(InputError) as raised:
        doc.member("tools").element(0).member("name").string()
    assert (raised.value.line, str(raised.value)) == (3, "s.json:3: tools[0].name: must be a string, found an integer")
    yaml = parse_yaml("replay:\n  - sessions: 3\n", "c.yml")
    assert yaml is not None
    with pytest.raises(InputError, match=r"c.yml:2: replay: must be a mapping, found a list"):
        yaml.member("replay").object()
    assert describe({}, "toml") == "a table"


def test_unknown_keys_are_all_named_and_a_missing_one_is_required() -> None:
    node = parse_json('{"a": 1, "zz": 2, "yy": 3}', "x.json")
    assert [str(e) for e in node.unknown(("a",), "a thing")] == [
        "x.json:1: unknown field 'zz' in a thing; expected one of: a",
        "x.json:1: unknown field 'yy' in a thing; expected one of: a",
    ]
    with pytest.raises(InputError, match="missing field 'b'"):
        node.require("a", "b")


def test_helpers_for_what_no_parser_places() -> None:
    assert plain_node({"TOOLS": []}, "tools.py", 7).member("TOOLS").line == 7
    assert lone_surrogate({"k": ["ok", "\ud800"]}) == "\ud800"
    assert lone_surrogate(["fine"]) is None
    assert nested_past("a: [[[\n[[[1]]]]]]", 4) == 2
    assert nested_past("'[[[[[[' ", 2) is None  # quoted text is skipped
