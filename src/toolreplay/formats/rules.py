"""Rules files (TOML): classification rules and argument matching in one place.

    [[rules]]
    tool = "http_request"          # a glob over tool names
    server = "web"                 # optional: a glob over the names of the recorded servers that listed it
    args = { method = "GET" }      # optional: dotted argument paths -> value or glob
    class = "read-only"            # read-only | write | destructive | unknown

    [matching]
    ignore = ["timestamp", "*_id"] # argument paths no tool is compared on

    [matching.tools.create_ticket]
    ignore = ["client_token"]      # and paths one tool is not compared on

Unknown keys, unknown classes and wrong types are errors that name the file and
the line.
"""

from __future__ import annotations

import math
from pathlib import Path

from toolreplay.analysis.classify import ClassRule, Policy
from toolreplay.analysis.matching import Matcher
from toolreplay.core.files import read_text
from toolreplay.core.model import CallClass
from toolreplay.formats.parsing.node import Node

_CLASSES = {klass.value: klass for klass in CallClass}
_RULE_KEYS = ("tool", "server", "class", "args", "note")


def read_rules(path: str | Path, strict: bool = False) -> Policy:
    """Read a rules file into a policy."""
    return parse_rules(read_text(path), path, strict)


def parse_rules(text: str, path: str | Path, strict: bool = False) -> Policy:
    """The policy of a rules file's text (``path`` names it in errors)."""
    from toolreplay.formats.parsing.toml_text import parse_toml  # noqa: PLC0415 - tomllib: 3 ms a replay with no rules saves

    top = parse_toml(text, path).only(("rules", "matching"))
    rules: tuple[ClassRule, ...] = ()
    if (given := top.get("rules")) is not None:
        if not isinstance(given.value, list):
            raise given.fail("must be an array of tables ([[rules]])")
        rules = tuple(_rule(item) for item in given.elements())
    matching = top.get("matching")
    matcher = _matching(matching) if matching is not None else Matcher()
    return Policy(rules, matcher, strict, str(path))


def _rule(item: Node) -> ClassRule:
    item.object().only(_RULE_KEYS, "a rule")
    tool, klass = item.get("tool"), item.get("class")
    if tool is None:
        raise item.fail("a rule needs 'tool', a glob over tool names")
    if klass is None:
        raise item.fail("a rule needs 'class'")
    name = klass.string()
    if name not in _CLASSES:
        raise klass.fail(f"unknown class '{name}' (expected one of: {', '.join(_CLASSES)})")
    args: list[tuple[str, object]] = []
    if (given := item.get("args")) is not None:
        for key, value in given.object().members():
            plain = type(value.value) in (str, int, bool) or (type(value.value) is float and math.isfinite(value.value))
            if not plain:
                raise value.fail(f"must be a string (a glob), a number or a boolean, found {value.describe()}")
            args.append((key, value.value))
    if (note := item.get("note")) is not None:
        note.string()
    server = item.get("server")
    named = server.string(non_empty=True) if server is not None else None
    return ClassRule(tool.string(non_empty=True), _CLASSES[name], tuple(args), item.line, named)  # type: ignore[arg-type]


def _patterns(node: Node) -> tuple[str, ...]:
    return tuple(element.string() for element in node.array().elements())


def _matching(node: Node) -> Matcher:
    node.object().only(("ignore", "tools"), "[matching]")
    ignore = _patterns(node.member("ignore")) if "ignore" in node.value else ()
    by_tool: dict[str, tuple[str, ...]] = {}
    if (tools := node.get("tools")) is not None:
        for tool, table in tools.object().members():
            table.object().only(("ignore",), f"[matching.tools.{tool}]")
            by_tool[tool] = _patterns(table.member("ignore")) if "ignore" in table.value else ()
    return Matcher(ignore, by_tool)
