"""YAML read with the line of every value: PyYAML composes the document into nodes, which carry their marks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolreplay.core.errors import InputError
from toolreplay.formats.parsing.node import Node, describe, nested_past
from toolreplay.formats.parsing.positions import Pos

_YAML_DEPTH = 100  # a config has no reason to nest deeper; an alias that contains itself would never end
_YAML_VALUES = 100_000  # nor to hold more values: aliases of aliases can multiply a small file past any memory
_YAML_MERGE = "tag:yaml.org,2002:merge"  # ``<<: *defaults``: the mapping's keys, with what it does not say from there


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
        line = nested_past(text, _YAML_DEPTH)
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
