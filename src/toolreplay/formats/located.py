"""Structured files read with their positions: one way for every reader to say where a value is.

JSON, YAML and TOML files are each parsed into plain values with a
:class:`~toolreplay.formats.positions.Pos` tree beside them, and handed to the
reader as a :class:`Node`: a value, the line it is written on, and its place in
the document (``messages[3].content[1]``). Every reader checks types through
the same methods, so every error names the file, the line of the offending
value and its place, in one vocabulary of type names.

- JSON runs the standard library's own pure-Python scanner with its object and
  array parsers wrapped, so the grammar is exactly :mod:`json`'s (strict: no
  ``NaN``, no key given twice) and each value's start is noted as it is read.
- YAML is composed by PyYAML into nodes, which carry their marks.
- TOML is parsed by :mod:`tomllib`, and the lines are found by
  :mod:`toolreplay.formats.toml_positions` on the text tomllib accepted.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NoReturn

from toolreplay.core.errors import InputError
from toolreplay.formats.positions import Pos

Syntax = Literal["json", "yaml", "toml"]

# The one vocabulary of type names. Containers are named as each syntax names them.
_CONTAINER_NAMES: dict[str, dict[Syntax, str]] = {
    "object": {"json": "an object", "yaml": "a mapping", "toml": "a table"},
    "array": {"json": "an array", "yaml": "a list", "toml": "an array"},
}


def describe(value: object, syntax: Syntax = "json") -> str:
    """What a parsed value is, for an error message: ``a string``, ``an integer``, ``an object`` ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return _CONTAINER_NAMES["array"][syntax]
    if isinstance(value, dict):
        return _CONTAINER_NAMES["object"][syntax]
    if isinstance(value, bytes):
        return "binary data"
    return f"a {type(value).__name__}"  # YAML dates and the like


# What a member of an object is called.
_MEMBER_NAMES: dict[Syntax, str] = {"json": "field", "yaml": "key", "toml": "key"}


def container_name(kind: Literal["object", "array"], syntax: Syntax) -> str:
    return _CONTAINER_NAMES[kind][syntax]


@dataclass(slots=True)
class Node:
    """A value of a document, where it is written, and what it is called there.

    Never changed once made, but not frozen: a reader makes several per message of a session, and a frozen
    dataclass takes several times as long to build.
    """

    value: Any
    pos: Pos
    path: str
    where: str = ""
    syntax: Syntax = "json"

    @property
    def line(self) -> int:
        return self.pos.line

    def fail(self, problem: str) -> InputError:
        """An error about this value: ``file:line: place: problem``."""
        return InputError(f"{self.where}: {problem}" if self.where else problem, self.path, self.line)

    def describe(self) -> str:
        return describe(self.value, self.syntax)

    @property
    def text(self) -> str | None:
        """A scalar as the file wrote it, where the syntax keeps it (YAML); None otherwise."""
        return self.pos.text

    @property
    def quoted(self) -> bool:
        """Whether a YAML scalar was written in quotes, so it is a string whatever it spells."""
        return self.pos.quoted

    def called(self, where: str) -> Node:
        """This value under another name in messages (``'repeat'``, ``the config``)."""
        return Node(self.value, self.pos, self.path, where, self.syntax)

    def _place(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.where}[{key}]"
        return f"{self.where}.{key}" if self.where else key

    def member(self, key: str) -> Node:
        """A member of this object (which must hold it)."""
        return Node(self.value[key], self.pos.member(key), self.path, self._place(key), self.syntax)

    def get(self, key: str) -> Node | None:
        """A member of this object, or None when it has none of that name."""
        return self.member(key) if key in self.value else None

    def element(self, index: int) -> Node:
        return Node(self.value[index], self.pos.member(index), self.path, self._place(index), self.syntax)

    def members(self) -> Iterator[tuple[str, Node]]:
        for key in self.value:
            yield key, self.member(key)

    def elements(self) -> Iterator[Node]:
        for index in range(len(self.value)):
            yield self.element(index)

    # Type checks: each returns the node (or value) when it is of the type, else fails here.
    def object(self) -> Node:
        if not isinstance(self.value, dict):
            raise self.fail(f"must be {container_name('object', self.syntax)}, found {self.describe()}")
        return self

    def array(self) -> Node:
        if not isinstance(self.value, list):
            raise self.fail(f"must be {container_name('array', self.syntax)}, found {self.describe()}")
        return self

    def string(self, non_empty: bool = False) -> str:
        value = self.value
        if not isinstance(value, str):
            raise self.fail(f"must be a{' non-empty' if non_empty else ''} string, found {self.describe()}")
        if non_empty and not value:
            raise self.fail("must be a non-empty string, found an empty one")
        return value

    def integer(self) -> int:
        value = self.value
        if type(value) is not int:
            raise self.fail(f"must be an integer, found {self.describe()}")
        return value

    def number(self) -> float:
        """A number (not a boolean); whether it may be infinite or NaN is the caller's range check."""
        value = self.value
        if type(value) not in (int, float):
            raise self.fail(f"must be a number, found {self.describe()}")
        return float(value)

    def boolean(self) -> bool:
        value = self.value
        if type(value) is not bool:
            raise self.fail(f"must be a boolean (true or false), found {self.describe()}")
        return value

    def only(self, allowed: tuple[str, ...], what: str = "") -> Node:
        """This object, once every key is one of ``allowed``; an unknown key fails at its own line."""
        unknown = self.unknown(allowed, what)
        if unknown:
            raise unknown[0]
        return self

    def unknown(self, allowed: tuple[str, ...], what: str = "") -> list[InputError]:
        """An error for each key of this object that is not one of ``allowed``, at its own line."""
        found: list[InputError] = []
        for key, member in self.object().members():
            if key not in allowed:
                expected = ", ".join(allowed)
                place = f" in {what}" if what else ""
                where = self.where + ": " if self.where else ""
                found.append(
                    InputError(
                        f"{where}unknown {_MEMBER_NAMES[self.syntax]} '{key}'{place}; expected one of: {expected}",
                        self.path,
                        member.line,
                    )
                )
        return found

    def require(self, *keys: str) -> Node:
        """This object, once it holds every key; a missing one fails at the object's line."""
        for key in keys:
            if key not in self.object().value:
                raise self.fail(f"missing {_MEMBER_NAMES[self.syntax]} '{key}'")
        return self


def reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def finite_float(text: str) -> float:
    """A JSON number with a fraction or exponent; one too large for a float (``1e999``) is refused."""
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


def lone_surrogate(value: Any) -> str | None:
    """The first string in ``value`` holding a lone surrogate (``"\\ud800"``, which no UTF-8 can carry), if any."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


class _Frame:
    """The positions of one container's members, collected while it is parsed."""

    __slots__ = ("kids", "members")

    def __init__(self) -> None:
        self.kids: list[Pos] = []
        self.members: dict[str, Pos] | None = None


JSON_DEPTH = 500  # nesting a document may have: deeper is refused at the line where it goes past


class _TooDeep(ValueError):
    def __init__(self, line: int) -> None:
        super().__init__("too deep")
        self.line = line


class _DuplicateKey(ValueError):
    """A key given twice, with the line of its second value."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


# The standard library's pure-Python parsers; their hooks are not part of the typed interface, hence Any.
_json_decoder: Any = json.decoder
_json_scanner: Any = json.scanner


class _LocatingParser:
    """The standard JSON scanner, with every value's start noted as a :class:`Pos` while it is read."""

    def __init__(self, text: str, first_line: int = 1, enclosing: int = 0, depth: int = JSON_DEPTH) -> None:
        self.text = text
        self.first_line = first_line
        self.enclosing = enclosing  # levels of a larger document around this text
        self.depth = depth
        self.counted = (0, first_line)  # (offset, line) of the last value started: values start in document order
        self.scalars: dict[int, Pos] = {}  # one shared Pos per line for values with no members
        self.stack: list[_Frame] = [_Frame()]
        self.opened: list[int] = []  # offsets of the values being read, innermost last
        decoder: Any = json.JSONDecoder(
            parse_constant=reject_constant, parse_float=finite_float, object_pairs_hook=lambda pairs: pairs
        )
        decoder.parse_object = self.parse_object
        decoder.parse_array = self.parse_array
        decoder.memo = {}
        scanner = _json_scanner.py_make_scanner(decoder)
        decoder.scan_once = lambda s, i: self.record(scanner, s, i)
        self.decoder = decoder

    def line_at(self, offset: int) -> int:
        """The line of ``offset``, counting on from the last value's (a list of every line's start would cost
        more memory than the document's values)."""
        last_offset, last_line = self.counted
        if offset < last_offset:
            return self.text.count("\n", 0, offset) + self.first_line
        line = last_line + self.text.count("\n", last_offset, offset)
        self.counted = (offset, line)
        return line

    def failed_at(self) -> int:
        """The line of the innermost value being read when the parser gave up."""
        return self.line_at(self.opened[-1]) if self.opened else 1

    def record(self, scan: Callable[[str, int], tuple[Any, int]], string: str, idx: int) -> tuple[Any, int]:
        line = self.line_at(idx)  # on the way in, so offsets come in document order
        if len(self.opened) + self.enclosing >= self.depth:
            raise _TooDeep(line)
        frame = _Frame()
        self.stack.append(frame)
        self.opened.append(idx)
        value, end = scan(string, idx)
        self.opened.pop()
        self.stack.pop()
        if type(value) is dict:
            pos = Pos(line, frame.members)
        elif type(value) is list:
            pos = Pos(line, frame.kids)
        else:
            pos = self.scalars.get(line) or self.scalars.setdefault(line, Pos(line))
        self.stack[-1].kids.append(pos)
        return value, end

    def parse_object(self, s_and_end: tuple[str, int], strict: bool, scan: Any, *rest: Any) -> tuple[Any, int]:
        pairs, end = _json_decoder.JSONObject(s_and_end, strict, lambda s, i: self.record(scan, s, i), *rest)
        frame = self.stack[-1]
        obj: dict[str, Any] = {}
        members: dict[str, Pos] = {}
        for (key, value), pos in zip(pairs, frame.kids, strict=True):
            if key in obj:
                raise _DuplicateKey(f"key {json.dumps(key, ensure_ascii=False)} appears twice in one object", pos.line)
            obj[key] = value
            members[key] = pos
        frame.members = members
        return obj, end

    def parse_array(self, s_and_end: tuple[str, int], scan: Any) -> tuple[Any, int]:
        result: tuple[Any, int] = _json_decoder.JSONArray(s_and_end, lambda s, i: self.record(scan, s, i))
        return result

    def parse(self, text: str, path: str | Path) -> Node:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, self.depth * 6 + 500))  # each level is about six Python frames
        try:
            value = self.decoder.decode(text)
        except json.JSONDecodeError as exc:
            line = exc.lineno + self.first_line - 1
            raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno})", path, line) from None
        except _DuplicateKey as exc:
            raise InputError(f"not valid JSON: {exc}", path, exc.line) from None
        except _TooDeep as exc:
            raise InputError(f"not read: nested more than {self.depth} levels deep", path, exc.line) from None
        except ValueError as exc:
            raise InputError(f"not valid JSON: {exc}", path, self.failed_at()) from None
        except RecursionError:
            raise InputError("not valid JSON: nested too deeply", path, self.failed_at()) from None
        finally:
            sys.setrecursionlimit(limit)
        return Node(value, self.stack[0].kids[0], str(path), "", "json")


def parse_json(text: str, path: str | Path, first_line: int = 1, enclosing: int = 0, depth: int = JSON_DEPTH) -> Node:
    """Parse one JSON document strictly, noting the line of every value; errors name their line.

    For a piece of a larger file: ``first_line`` is the line ``text`` starts on,
    ``enclosing`` the number of values it sits in (which count towards the ``depth`` limit).
    """
    if text.startswith("\ufeff"):
        raise InputError("starts with a byte-order mark; save the file as UTF-8 without one", path, first_line)
    return _LocatingParser(text, first_line, enclosing, depth).parse(text, path)


_YAML_DEPTH = 100  # a config has no reason to nest deeper; an alias that contains itself would never end
_YAML_VALUES = 100_000  # nor to hold more values: aliases of aliases can multiply a small file past any memory
_YAML_MERGE = "tag:yaml.org,2002:merge"  # ``<<: *defaults``: the mapping's keys, with what it does not say from there


def _too_deep(text: str, limit: int) -> int | None:
    """The line where brackets or braces first nest deeper than ``limit`` (quoted text skipped), if they do.

    For the parsers that give no position when they run out of stack.
    """
    depth, line, quote, escaped = 0, 1, "", False
    for char in text:
        if char == "\n":
            line += 1
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
            if depth > limit:
                return line
        elif char in "]}":
            depth = max(depth - 1, 0)
    return None


def parse_yaml(text: str, path: str | Path) -> Node | None:
    """Parse one YAML document (safe types only) with the line of every value; None when it is empty."""
    import yaml  # noqa: PLC0415 - only the config is YAML

    if text.startswith("\ufeff"):
        raise InputError("starts with a byte-order mark; save the file as UTF-8 without one", path, 1)

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"not valid YAML: {problem}", path, mark.line + 1 if mark else None) from None
    except RecursionError:
        line = _too_deep(text, _YAML_DEPTH)
        raise InputError(f"not valid YAML: nested more than {_YAML_DEPTH} levels deep", path, line) from None
    if root is None:
        return None
    values = _YamlValues(yaml, path)
    try:
        value, pos = values.build(root, 0)
    finally:
        values.constructor.dispose()
    return Node(value, pos, str(path), "", "yaml")


class _YamlValues:
    """PyYAML's composed nodes as plain values beside their :class:`Pos` tree: aliases expanded (and counted),
    merge keys merged. A merged value keeps its own node, so it is placed where it is written."""

    def __init__(self, yaml: Any, path: str | Path) -> None:
        self.yaml = yaml  # imported by parse_yaml, only when a config is read
        self.path = path
        self.constructor = yaml.SafeLoader("")  # turns a scalar node into its value by the safe schema's rules
        self.built = 0

    def build(self, node: Any, depth: int) -> tuple[Any, Pos]:
        yaml, path = self.yaml, self.path
        line = node.start_mark.line + 1
        self.built += 1
        if self.built > _YAML_VALUES:
            raise InputError(f"not read: more than {_YAML_VALUES:,} values once its aliases are expanded", path, line)
        if depth > _YAML_DEPTH:
            raise InputError(f"not valid YAML: nested more than {_YAML_DEPTH} levels deep", path, line)
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, depth)
        if isinstance(node, yaml.SequenceNode):
            items = [self.build(item, depth + 1) for item in node.value]
            return [value for value, _ in items], Pos(line, [pos for _, pos in items])
        try:
            quoted = node.style in ("'", '"')
            return self.constructor.construct_object(node, deep=True), Pos(line, None, str(node.value), quoted)
        except yaml.YAMLError as exc:
            raise InputError(f"not valid YAML: {getattr(exc, 'problem', exc)}", path, line) from None

    def mapping(self, node: Any, depth: int) -> tuple[dict[str, Any], Pos]:
        """A mapping; with a merge key (``<<: *defaults``), the keys it does not write itself from there, by
        YAML's rule: its own keys win wherever the merge is written, and of several mappings the first."""
        obj: dict[str, Any] = {}
        members: dict[str, Pos] = {}
        own: set[str] = set()
        merges = 0
        for key_node, value_node in node.value:
            if key_node.tag == _YAML_MERGE:
                merges += 1
                if merges > 1:
                    raise InputError('key "<<" appears twice in one mapping', self.path, key_node.start_mark.line + 1)
                for source in self.merged(key_node, value_node, depth + 1):
                    given, given_pos = self.build(source, depth + 1)
                    for key, value in given.items():
                        if key not in own and key not in obj:
                            obj[key], members[key] = value, given_pos.member(key)  # where it is written
                continue
            key, key_pos = self.build(key_node, depth + 1)
            if not isinstance(key, str):
                raise InputError(f"a key must be a string, found {describe(key, 'yaml')}", self.path, key_pos.line)
            if key in own:
                raise InputError(
                    f"key {json.dumps(key, ensure_ascii=False)} appears twice in one mapping", self.path, key_pos.line
                )
            own.add(key)
            obj[key], members[key] = self.build(value_node, depth + 1)
        return obj, Pos(node.start_mark.line + 1, members)

    def merged(self, key: Any, node: Any, depth: int) -> list[Any]:
        """What a merge key takes: a mapping (an alias of one, usually), or a list of them. A wrong one is named
        at the key's line: an alias does not say where it is written, and the merge is what is wrong."""
        sources = node.value if isinstance(node, self.yaml.SequenceNode) else [node]
        for source in sources:
            if not isinstance(source, self.yaml.MappingNode):
                found = describe(self.build(source, depth + 1)[0], "yaml")
                raise InputError(
                    f"'<<' merges a mapping or a list of mappings, found {found}", self.path, key.start_mark.line + 1
                )
        return list(sources)


_TOML_DEPTH = 100  # a rules file has no reason to nest deeper


def parse_toml(text: str, path: str | Path) -> Node:
    """Parse a TOML document with the line of every value."""
    import re  # noqa: PLC0415
    import tomllib  # noqa: PLC0415 - only rules files are TOML

    from toolreplay.formats.toml_positions import toml_positions  # noqa: PLC0415

    deep = _too_deep(text, _TOML_DEPTH)
    if deep is not None:
        raise InputError(f"not valid TOML here: nested more than {_TOML_DEPTH} levels deep", path, deep)
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # Python 3.11's tomllib gives the position only in its message.
        match = re.search(r"line (\d+)", str(exc))
        raise InputError(f"not valid TOML: {exc}", path, int(match.group(1)) if match else None) from None
    return Node(value, toml_positions(text), str(path), "", "toml")


def plain_node(value: Any, path: str | Path, line: int = 1) -> Node:
    """A value that was not read from a file (a Python module's data): every part on ``line``."""
    return Node(value, Pos(line), str(path), "", "json")
