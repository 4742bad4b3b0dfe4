"""Rules files (TOML): classification rules and argument matching in one place.

    [[rules]]
    tool = "http_request"          # a glob over tool names
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

import re
import tomllib
from pathlib import Path
from typing import Any

from toolreplay.classify import CallClass, Policy, Rule
from toolreplay.errors import InputError
from toolreplay.formats.files import read_text
from toolreplay.matching import Matcher

_CLASSES = {klass.value: klass for klass in CallClass}
_RULE_KEYS = ("tool", "class", "args", "note")


class _Locator:
    """Finds the line a key or a table of the rules file is written on."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def table(self, header: str, occurrence: int = 0) -> int:
        pattern = re.compile(rf"^\s*\[+\s*{re.escape(header)}\s*\]+")
        seen = 0
        for number, line in enumerate(self.lines, start=1):
            if pattern.match(line):
                if seen == occurrence:
                    return number
                seen += 1
        return 1

    def key(self, key: str, after: int = 1) -> int:
        pattern = re.compile(rf"(^|[\s{{,]){re.escape(key)}\s*=")
        for number in range(after, len(self.lines) + 1):
            if pattern.search(self.lines[number - 1]):
                return number
        return after


def _type_name(value: object) -> str:
    return {str: "a string", list: "an array", dict: "a table", bool: "a boolean", int: "an integer"}.get(
        type(value), type(value).__name__
    )


def read_rules(path: str | Path, strict: bool = False) -> Policy:
    """Read a rules file into a policy."""
    text = read_text(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        raise InputError(f"not valid TOML: {exc}", path, int(match.group(1)) if match else None) from None
    where = _Locator(text)
    for key in data:
        if key not in ("rules", "matching"):
            raise InputError(f"unknown key '{key}' (expected 'rules' or 'matching')", path, where.key(key))
    rules_data = data.get("rules", [])
    if not isinstance(rules_data, list):
        raise InputError("'rules' must be an array of tables ([[rules]])", path, where.key("rules"))
    rules = tuple(_rule(item, number, path, where) for number, item in enumerate(rules_data))
    matcher = _matching(data.get("matching", {}), path, where)
    return Policy(rules, matcher, strict, str(path))


def _rule(item: Any, number: int, path: str | Path, where: _Locator) -> Rule:
    line = where.table("rules", number)
    if not isinstance(item, dict):
        raise InputError("each rule must be a table", path, line)
    for key in item:
        if key not in _RULE_KEYS:
            raise InputError(
                f"unknown key '{key}' in a rule (expected {', '.join(_RULE_KEYS)})", path, where.key(key, line)
            )
    tool, klass, args = item.get("tool"), item.get("class"), item.get("args", {})
    if not isinstance(tool, str) or not tool:
        found = "nothing" if tool is None else _type_name(tool)
        raise InputError(f"a rule needs 'tool', a non-empty string (found {found})", path, where.key("tool", line))
    if not isinstance(klass, str):
        found = "nothing" if klass is None else _type_name(klass)
        raise InputError(f"a rule needs 'class', a string (found {found})", path, where.key("class", line))
    if klass not in _CLASSES:
        known = ", ".join(_CLASSES)
        raise InputError(f"unknown class '{klass}' (expected one of: {known})", path, where.key("class", line))
    if not isinstance(args, dict):
        raise InputError(f"'args' must be a table, found {_type_name(args)}", path, where.key("args", line))
    for name, value in args.items():
        if isinstance(value, (dict, list)) or not isinstance(value, (str, int, float, bool)):
            raise InputError(
                f"argument '{name}' must be a string (a glob), a number or a boolean", path, where.key(name, line)
            )
    if not isinstance(item.get("note", ""), str):
        raise InputError("'note' must be a string", path, where.key("note", line))
    return Rule(tool, _CLASSES[klass], tuple(args.items()), line)


def _patterns(value: Any, what: str, path: str | Path, line: int) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError(f"{what} must be an array of strings", path, line)
    return tuple(value)


def _matching(data: Any, path: str | Path, where: _Locator) -> Matcher:
    line = where.table("matching")
    if not isinstance(data, dict):
        raise InputError("'matching' must be a table", path, where.key("matching"))
    for key in data:
        if key not in ("ignore", "tools"):
            raise InputError(f"unknown key '{key}' in [matching] (expected ignore, tools)", path, where.key(key, line))
    ignore = _patterns(data.get("ignore", []), "'ignore'", path, where.key("ignore", line))
    tools = data.get("tools", {})
    if not isinstance(tools, dict):
        raise InputError("[matching.tools] must be a table of tools", path, where.key("tools", line))
    by_tool: dict[str, tuple[str, ...]] = {}
    for tool, table in tools.items():
        tool_line = where.table(f"matching.tools.{tool}")
        if not isinstance(table, dict):
            raise InputError(f"[matching.tools.{tool}] must be a table", path, tool_line)
        for key in table:
            if key != "ignore":
                raise InputError(
                    f"unknown key '{key}' in [matching.tools.{tool}] (expected ignore)", path, where.key(key, tool_line)
                )
        by_tool[tool] = _patterns(
            table.get("ignore", []), f"[matching.tools.{tool}] ignore", path, where.key("ignore", tool_line)
        )
    return Matcher(ignore, by_tool)
