"""Policy files (TOML): what an agent's calls must never do, must do, and in what order.

    [[policy]]
    id = "backup-before-delete"          # letters, digits, '.', '_' and '-'; unique in the file
    level = "error"                      # error (the default) | warning | note
    why = "a deletion must follow a backup of the same path"
    before = { first = { tool = "archive_path", args = { path = "{path}" } },
               then = { tool = "delete_path", args = { path = "{path}" } } }

Each policy has exactly one of ``never``, ``require`` (a pattern), ``before``, ``immediately-before``,
``not-after`` (``first`` and ``then``, two patterns), ``at-most`` (a pattern's keys and ``count``) and ``flow``
(``from`` and ``to``, two patterns, and ``min-length``). A pattern is ``tool`` (a glob over tool names) and
``args`` (dotted argument paths, each a glob for a string, a value to equal, or ``"{name}"`` to bind the value).
Unknown keys, wrong types and a repeated id are errors that name the file and the line.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from toolreplay.analysis.policies import (
    DEFAULT_MIN_LENGTH,
    MIN_LENGTH_RANGE,
    CallPolicy,
    Pattern,
    PolicyKind,
    PolicySet,
    binding_name,
)
from toolreplay.core.canonical import JSONValue
from toolreplay.core.files import read_text
from toolreplay.core.findings import Level
from toolreplay.formats.parsing.node import Node

_LOOKS_BOUND = re.compile(r"\{[^{}]*\}")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_LEVELS = {level.value: level for level in Level}
_KINDS = {kind.value: kind for kind in PolicyKind}
_POLICY_KEYS = ("id", "level", "why", *_KINDS)
_PATTERN_KEYS = ("tool", "args")
_PAIR_KEYS = {PolicyKind.FLOW: ("from", "to")}
MAX_COUNT = 1_000_000


def read_policies(path: str | Path, shown: str | None = None) -> PolicySet:
    """Read a policy file; ``shown``: the file as reports name it (its path, by default)."""
    return parse_policies(read_text(path), path, shown)


def parse_policies(text: str, path: str | Path, shown: str | None = None) -> PolicySet:
    """The policies of a policy file's text (``path`` names it in errors)."""
    from toolreplay.formats.parsing.toml_text import parse_toml  # noqa: PLC0415 - tomllib, only with policies

    top = parse_toml(text.removeprefix("\ufeff"), path).only(("policy",))  # a byte-order mark is no TOML
    policies: list[CallPolicy] = []
    given = top.get("policy")
    if given is not None:
        if not isinstance(given.value, list):
            raise given.fail("must be an array of tables ([[policy]])")
        seen: dict[str, int] = {}
        for item in given.elements():
            policy = _policy(item)
            if policy.id in seen:
                raise item.member("id").fail(f"policy '{policy.id}' is stated twice (first at line {seen[policy.id]})")
            seen[policy.id] = policy.line
            policies.append(policy)
    return PolicySet(tuple(policies), shown if shown is not None else str(path))


def _policy(item: Node) -> CallPolicy:
    item.object().only(_POLICY_KEYS, "a policy")
    if "id" not in item.value:
        raise item.fail("a policy needs 'id', the name reports give it")
    ident = item.member("id").string()
    if _ID.fullmatch(ident) is None:
        raise item.member("id").fail(
            "must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    if "why" not in item.value:
        raise item.fail(f"policy '{ident}' needs 'why', the reason a reviewer reads")
    why = item.member("why").string(non_empty=True)
    if not why.strip():
        raise item.member("why").fail(f"policy '{ident}' needs its reason in words, not blanks")
    level = Level.ERROR
    if (given := item.get("level")) is not None:
        name = given.string()
        if name not in _LEVELS:
            raise given.fail(f"unknown level '{name}' (expected one of: {', '.join(_LEVELS)})")
        level = _LEVELS[name]
    kinds = [key for key in _KINDS if key in item.value]
    if len(kinds) != 1:
        said = "none" if not kinds else " and ".join(kinds)
        raise item.fail(f"policy '{ident}' needs exactly one of {', '.join(_KINDS)}; it has {said}")
    kind = _KINDS[kinds[0]]
    node = item.member(kinds[0]).object()
    line = item.line
    if kind in (PolicyKind.NEVER, PolicyKind.REQUIRE):
        return CallPolicy(ident, level, why, kind, _pattern(node), line=line)
    if kind is PolicyKind.AT_MOST:
        node.only((*_PATTERN_KEYS, "count"), "at-most")
        if "count" not in node.value:
            raise node.fail("at-most needs 'count', how many matching calls a run may make")
        bound = node.member("count").integer()
        if not 0 <= bound <= MAX_COUNT:
            raise node.member("count").fail(f"must be from 0 to {MAX_COUNT:,}, found {bound}")
        return CallPolicy(ident, level, why, kind, _pattern(node, ("count",)), count=bound, line=line)
    earlier, later = _PAIR_KEYS.get(kind, ("first", "then"))
    extra = ("min-length",) if kind is PolicyKind.FLOW else ()
    node.only((earlier, later, *extra), kind.value)
    for key in (earlier, later):
        if key not in node.value:
            raise node.fail(f"{kind.value} needs '{earlier}' and '{later}', two call patterns")
    first, then = _pattern(node.member(earlier)), _pattern(node.member(later))
    if kind is not PolicyKind.FLOW:
        return CallPolicy(ident, level, why, kind, then, first, line=line)
    for pattern, key in ((first, earlier), (then, later)):
        if pattern.binds:
            raise node.member(key).fail("a flow's patterns bind no names: what flows is the result's text")
    length = DEFAULT_MIN_LENGTH
    if (given := node.get("min-length")) is not None:
        length = given.integer()
        low, high = MIN_LENGTH_RANGE
        if not low <= length <= high:
            raise given.fail(f"must be from {low} to {high} characters, found {length}")
    return CallPolicy(ident, level, why, kind, then, first, min_length=length, line=line)


def _pattern(node: Node, besides: tuple[str, ...] = ()) -> Pattern:
    node.object()
    if besides == ():
        node.only(_PATTERN_KEYS, "a call pattern")
    if "tool" not in node.value:
        raise node.fail("a call pattern needs 'tool', a glob over tool names")
    tool = node.member("tool").string(non_empty=True)
    args: list[tuple[str, JSONValue]] = []
    binds: list[tuple[str, str]] = []
    if (given := node.get("args")) is not None:
        for key, value in given.object().members():
            if not key or any(not part for part in key.split(".")):
                raise value.fail(f"'{key}' is not a dotted argument path")
            plain = type(value.value) in (str, int, bool) or (type(value.value) is float and math.isfinite(value.value))
            if not plain:
                raise value.fail(
                    f"must be a string (a glob or a {{name}}), a number or a boolean, found {value.describe()}"
                )
            name = binding_name(value.value)
            if name is None and isinstance(value.value, str) and _LOOKS_BOUND.fullmatch(value.value):
                raise value.fail(
                    f"{value.value!r} is no name a pattern binds: a name is letters, digits and '_', not starting "
                    "with a digit (write {path}); a glob of braces, as [{]x[}]"
                )
            if name is not None:
                binds.append((key, name))
            else:
                args.append((key, value.value))
    return Pattern(tool, tuple(args), tuple(binds))
