from __future__ import annotations

from pathlib import Path

import pytest

from toolreplay.canonical import JSONObject
from toolreplay.classify import CallClass, Classifier, ClassRule, Policy, class_from_annotations
from toolreplay.errors import InputError
from toolreplay.formats.rules import read_rules
from toolreplay.matching import Matcher
from toolreplay.model import Call, ToolDef


def call(tool: str, args: JSONObject | None = None) -> Call:
    return Call(0, tool, args or {}, {}, 1)


def tool(name: str, annotations: JSONObject | None) -> ToolDef:
    return ToolDef(name, "", {"type": "object"}, annotations)


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        (None, CallClass.UNKNOWN),
        ({}, CallClass.DESTRUCTIVE),  # readOnlyHint defaults to false, destructiveHint to true
        ({"title": "Purge"}, CallClass.DESTRUCTIVE),
        ({"readOnlyHint": True}, CallClass.READ_ONLY),
        ({"readOnlyHint": True, "destructiveHint": True}, CallClass.READ_ONLY),
        ({"readOnlyHint": False}, CallClass.DESTRUCTIVE),
        ({"destructiveHint": False}, CallClass.WRITE),
        ({"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True}, CallClass.WRITE),
    ],
)
def test_annotations_are_read_as_the_mcp_specification_defines_them(
    annotations: JSONObject | None, expected: CallClass
) -> None:
    assert class_from_annotations(tool("t", annotations)) is expected


HTTP = (
    ClassRule("http_request", CallClass.READ_ONLY, (("method", "GET"),), 2),
    ClassRule("http_request", CallClass.DESTRUCTIVE, (("method", "DELETE"),), 6),
    ClassRule("deploy_*", CallClass.DESTRUCTIVE, (), 9),
)


def test_rules_come_first_then_annotations_then_nothing() -> None:
    classifier = Classifier(
        Policy(HTTP), [tool("deploy_app", {"readOnlyHint": True}), tool("list", {"readOnlyHint": True})]
    )
    assert classifier.classify(call("http_request", {"method": "GET"})).klass is CallClass.READ_ONLY
    assert classifier.classify(call("http_request", {"method": "DELETE"})).klass is CallClass.DESTRUCTIVE
    assert classifier.classify(call("http_request", {"method": "PUT"})).klass is CallClass.UNKNOWN
    assert classifier.classify(call("http_request", {})).klass is CallClass.UNKNOWN
    assert classifier.classify(call("list")).origin == "annotations"
    found = classifier.classify(call("deploy_app"))
    assert (found.klass, found.origin, found.mismatch) == (CallClass.DESTRUCTIVE, "rule", True)


def test_strict_treats_unknown_as_destructive() -> None:
    assert Classifier(Policy(strict=True)).classify(call("mystery")).klass is CallClass.DESTRUCTIVE
    assert Classifier(Policy(strict=False)).classify(call("mystery")).klass is CallClass.UNKNOWN


def test_nested_argument_paths_and_non_string_values() -> None:
    rule = ClassRule("api", CallClass.WRITE, (("request.method", "P*"), ("request.dry_run", False)))
    assert rule.matches(call("api", {"request": {"method": "POST", "dry_run": False}}))
    assert not rule.matches(call("api", {"request": {"method": "POST", "dry_run": True}}))
    assert not rule.matches(call("api", {"request": {"method": "GET", "dry_run": False}}))


def test_mutators_come_from_the_class_else_the_default_list() -> None:
    classifier = Classifier(
        Policy((ClassRule("git_push", CallClass.WRITE),)), [tool("read_file", {"readOnlyHint": True})]
    )
    assert classifier.is_mutator(call("git_push"))
    assert not classifier.is_mutator(call("read_file"))  # annotated read-only overrides the default list
    assert classifier.is_mutator(call("write_file"))  # unclassified: the auditor's default list
    assert not classifier.is_mutator(call("fetch"))


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text(text)
    return path


def test_reads_the_documented_example(tmp_path: Path) -> None:
    policy = read_rules(
        write(
            tmp_path,
            '[[rules]]\ntool = "http_request"\nargs = { method = "GET" }\nclass = "read-only"\n\n'
            '[[rules]]\ntool = "http_request"\nargs = { method = "DELETE" }\nclass = "destructive"\n\n'
            '[matching]\nignore = ["timestamp", "*_id"]\n\n[matching.tools.create_ticket]\nignore = ["client_token"]\n',
        )
    )
    assert [(r.tool, r.klass, r.args, r.line) for r in policy.rules] == [
        ("http_request", CallClass.READ_ONLY, (("method", "GET"),), 1),
        ("http_request", CallClass.DESTRUCTIVE, (("method", "DELETE"),), 6),
    ]
    assert policy.matcher == Matcher(("timestamp", "*_id"), {"create_ticket": ("client_token",)})


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ('[[rules]]\ntool = "x"\nclass = "dangerous"\n', "unknown class 'dangerous'", 3),
        ('[[rules]]\ntool = "x"\nclass = "write"\nwhen = "always"\n', "unknown key 'when' in a rule", 4),
        ('[[rules]]\ntool = 3\nclass = "write"\n', "rules[0].tool: must be a non-empty string, found an integer", 2),
        ('[[rules]]\ntool = "x"\n', "rules[0]: a rule needs 'class'", 1),
        ('[[rules]]\ntool = "x"\nclass = "write"\nargs = ["a"]\n', "rules[0].args: must be a table, found an array", 4),
        (
            '[[rules]]\ntool = "x"\nclass = "write"\nargs = { a = [1] }\n',
            "rules[0].args.a: must be a string (a glob), a number or a boolean, found an array",
            4,
        ),
        ('[[rules]]\ntool = "a"\nclass = "write"\n\n[[rules]]\ntool = "b"\nclass = 1\n', "found an integer", 7),
        ('[matching]\nignore = "x"\n', "matching.ignore: must be an array, found a string", 2),
        ("[matching]\nskip = []\n", "unknown key 'skip' in [matching]", 2),
        ("[matching.tools.t]\nignore = [1]\n", "matching.tools.t.ignore[0]: must be a string, found an integer", 2),
        ("strict = true\n", "unknown key 'strict'", 1),
        ("[[rules]\n", "not valid TOML", 1),
    ],
)
def test_malformed_rules_name_the_file_and_line(tmp_path: Path, text: str, message: str, line: int) -> None:
    with pytest.raises(InputError) as info:
        read_rules(write(tmp_path, text))
    assert message in info.value.message
    assert info.value.line == line
    assert info.value.path is not None
    assert info.value.path.endswith("rules.toml")
