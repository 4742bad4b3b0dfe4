"""Data a user's Python module defines (a tools module's ``TOOLS``), read as JSON with the line of each value.

A tools module is the one input written in Python, so its data is held to the
same rules as JSON read from a file: objects with string keys, arrays (a tuple
is one), strings, finite numbers, booleans and ``None``; anything else (``NaN``,
a set, a key that is not a string) is an error naming the module, the line and
the place (``TOOLS[1].input_schema``). Lines come from the module's source: each
value written as a literal (a list, a tuple, a dict, ``dict(key=...)``) is
placed where it is written; a value the module computes is placed at the
nearest literal around it, else at the line that assigns the name.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import Any

from toolreplay.core.canonical import JSONValue
from toolreplay.core.errors import InputError
from toolreplay.core.files import read_text
from toolreplay.formats.parsing.node import Node, describe
from toolreplay.formats.parsing.positions import Pos

_DEPTH = 100  # tool definitions have no reason to nest deeper; a value that holds itself would never end


def module_data(value: object, name: str, path: str | Path) -> Node:
    """``value``, the module's ``name``, as JSON data with positions; refused at its line when it is not JSON."""
    pos = _assigned(path, name)
    return Node(_plain(value, pos, name, str(path), 0), pos, str(path), name, "json")


def _assigned(path: str | Path, name: str) -> Pos:
    """The positions of the value the module's top level last assigns to ``name`` (line 1 when it is not found)."""
    try:
        tree = ast.parse(read_text(path))
    except (InputError, SyntaxError, ValueError):
        return Pos(1)
    found: Pos = Pos(1)
    for statement in tree.body:
        found = _assignment(statement, name) or found
    return found


def _assignment(statement: ast.stmt, name: str) -> Pos | None:
    """Where ``statement`` gives ``name`` its value, if it does."""
    if isinstance(statement, ast.Assign) and any(_names(target, name) for target in statement.targets):
        return _literal(statement.value)
    if isinstance(statement, ast.AnnAssign) and statement.value is not None and _names(statement.target, name):
        return _literal(statement.value)
    if isinstance(statement, ast.AugAssign) and _names(statement.target, name):  # adds to what came before
        return Pos(statement.lineno)
    if isinstance(statement, ast.ImportFrom) and any((alias.asname or alias.name) == name for alias in statement.names):
        return Pos(statement.lineno)
    return None


def _names(target: ast.expr, name: str) -> bool:
    return isinstance(target, ast.Name) and target.id == name


def _literal(node: ast.expr) -> Pos:
    """The line of an expression, and of each member it writes out as a literal."""
    if isinstance(node, (ast.List, ast.Tuple)):
        if any(isinstance(item, ast.Starred) for item in node.elts):  # the elements' places are known only at run
            return Pos(node.lineno)
        return Pos(node.lineno, [_literal(item) for item in node.elts])
    if isinstance(node, ast.Dict):
        members = {
            key.value: _literal(value)
            for key, value in zip(node.keys, node.values, strict=True)
            if isinstance(key, ast.Constant) and isinstance(key.value, str)
        }
        return Pos(node.lineno, members)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args:
        return Pos(node.lineno, {kw.arg: _literal(kw.value) for kw in node.keywords if kw.arg is not None})
    return Pos(node.lineno)


def _plain(value: Any, pos: Pos, where: str, path: str, depth: int) -> JSONValue:
    """``value`` as plain JSON data, checked part by part."""

    def refused(problem: str) -> InputError:
        return InputError(f"{where}: {problem}", path, pos.line)

    if depth > _DEPTH:
        raise refused(f"nested more than {_DEPTH} levels deep (or it holds itself)")
    if value is None or isinstance(value, bool):
        return bool(value) if value is not None else None
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise refused(f"must be a finite number, found {value!r}, which JSON cannot hold")
        return float(value)
    if isinstance(value, (list, tuple)):
        return [
            _plain(item, pos.member(index), f"{where}[{index}]", path, depth + 1) for index, item in enumerate(value)
        ]
    if isinstance(value, dict):
        plain: dict[str, JSONValue] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise refused(f"a key must be a string, found {describe(key)} ({key!r})")
            plain[str(key)] = _plain(item, pos.member(key), f"{where}.{key}", path, depth + 1)
        return plain
    raise refused(f"must be JSON data (a dict, list, string, number, boolean or None), found a {type(value).__name__}")
