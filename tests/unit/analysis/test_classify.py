from __future__ import annotations

from pathlib import Path

import pytest

from toolreplay.analysis.classify import Classifier, ClassRule, Policy, class_from_annotations
from toolreplay.analysis.matching import Matcher
from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import InputError
from toolreplay.core.model import Call, CallClass, McpServer, SessionContext, ToolDef
from toolreplay.formats.rules import read_rules


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
        ('[[rules]]\ntool = "x"\nserver = ""\nclass = "write"\n', "rules[0].server: must be a non-empty string", 3),
        ('[[rules]]\ntool = "x"\nserver = ["a"]\nclass = "write"\n', "rules[0].server: must be a non-empty string", 3),
    ],
)
def test_malformed_rules_name_the_file_and_line(tmp_path: Path, text: str, message: str, line: int) -> None:
    with pytest.raises(InputError) as info:
        read_rules(write(tmp_path, text))
    assert message in info.value.message
    assert info.value.line == line
    assert info.value.path is not None
    assert info.value.path.endswith("rules.toml")


def _server(name: str, *tools: str) -> McpServer:
    """A recorded server that listed ``tools`` (in two pages, as a server may)."""
    pages = [list(tools[:1]), list(tools[1:])]
    exchanges: tuple[JSONObject, ...] = tuple(
        {"request": {"method": "tools/list", **({"params": {"cursor": "1"}} if number else {})},
         "response": {"result": {"tools": [{"name": t, "inputSchema": {"type": "object"}} for t in page]}}}
        for number, page in enumerate(pages)
    )  # fmt: skip
    return McpServer(name, exchanges)


def test_a_rule_that_names_a_server_holds_for_that_servers_tools_only(tmp_path: Path) -> None:
    policy = read_rules(
        write(tmp_path, '[[rules]]\ntool = "delete_*"\nserver = "files"\nclass = "destructive"\n'
                        '[[rules]]\ntool = "*"\nserver = "d?"\nclass = "read-only"\n')
    )  # fmt: skip
    assert [(rule.server, rule.line) for rule in policy.rules] == [("files", 1), ("d?", 5)]
    servers = (_server("files", "read_file", "delete_file"), _server("db", "query", "delete_rows"))
    classify = Classifier(policy, servers=servers)
    assert classify.classify(call("delete_file")).klass is CallClass.DESTRUCTIVE
    assert classify.classify(call("delete_rows")).klass is CallClass.READ_ONLY  # the db's, by the second rule
    assert classify.classify(call("read_file")).klass is CallClass.UNKNOWN  # no rule names it for files
    # a tool no recorded server listed is no server's: a rule that names one does not hold for it
    assert classify.classify(call("delete_all")).klass is CallClass.UNKNOWN
    assert Classifier(policy).classify(call("delete_file")).klass is CallClass.UNKNOWN
    # a session's classifier knows its servers, and a candidate's tools are classified by them too
    context = SessionContext("m", {"kind": "run"}, "", (tool("delete_file", None),), (), None, None, servers)
    assert Classifier.of(policy, context).classify(call("delete_file")).klass is CallClass.DESTRUCTIVE
    given = Classifier.of(policy, context, (tool("delete_file", {"readOnlyHint": True}),))
    assert given.classify(call("delete_file")).klass is CallClass.DESTRUCTIVE


def test_a_tool_two_servers_listed_is_as_dangerous_as_its_most_dangerous_server(tmp_path: Path) -> None:
    policy = read_rules(
        write(tmp_path, '[[rules]]\ntool = "remove"\nserver = "cache"\nclass = "write"\n'
                        '[[rules]]\ntool = "remove"\nserver = "files"\nclass = "destructive"\n')
    )  # fmt: skip
    for order in (
        (_server("cache", "remove"), _server("files", "remove")),
        (_server("files", "remove"), _server("cache", "remove")),
    ):
        found = Classifier(policy, servers=order).classify(call("remove"))
        assert (found.klass, found.rule.line if found.rule else None) == (CallClass.DESTRUCTIVE, 5)


def test_under_base_a_rule_narrowed_to_another_server_is_a_loosening(tmp_path: Path) -> None:
    from toolreplay.check.loosening import loosenings  # noqa: PLC0415
    from toolreplay.formats.config.read import read_config  # noqa: PLC0415
    from toolreplay.formats.session.writer import write_session  # noqa: PLC0415

    servers = (_server("files", "read_file", "remove"), _server("cache", "get", "evict"))
    tools = tuple(tool(name, None) for name in ("read_file", "remove", "get", "evict"))
    context = SessionContext(
        "m", {"kind": "run"}, "", tools, ({"role": "user", "content": "go"},), "done", None, servers
    )
    held = '[[rules]]\ntool = "remove"\nserver = "files"\nclass = "destructive"\n'
    configs = []
    for side, rules in (("base", held), ("same", held), ("pr", held.replace('"files"', '"cache"'))):
        (tmp_path / side).mkdir()
        write_session(tmp_path / side / "s.json", context)
        (tmp_path / side / "rules.toml").write_text(rules, encoding="utf-8")
        (tmp_path / side / "c.yml").write_text("sessions: s.json\nrules: rules.toml\n", encoding="utf-8")
        configs.append(read_config(str(tmp_path / side / "c.yml")))
    base, same, pr = configs
    assert [item for item in loosenings(base, same) if item.setting.startswith("rules")] == []
    found = [(item.setting, item.was, item.now) for item in loosenings(base, pr) if item.setting.startswith("rules")]
    assert found == [("rules remove", "destructive", "unknown")], found
