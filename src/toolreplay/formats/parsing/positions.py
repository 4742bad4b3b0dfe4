"""Where each value of a parsed document was written: a tree of line numbers beside the value tree.

Every reader (JSON, YAML, TOML) parses into plain values and, beside them, a
:class:`Pos` tree of the same shape: an object's or table's members by key, an
array's elements by index. A value with no entry of its own (a member the
parser did not place) is taken to be on its parent's line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

Children: TypeAlias = "dict[str, Pos] | list[Pos] | None"


@dataclass(slots=True)
class Pos:
    """The 1-based line a value starts on, the positions of its members, and a scalar's text where kept.

    ``text`` is the scalar as the file wrote it, for YAML, whose own typing of
    scalars (``010`` is eight, ``1:00`` sixty) a setting should not inherit.
    """

    line: int
    children: Children = None
    text: str | None = None
    quoted: bool = False  # a YAML scalar in quotes: a string, whatever it spells

    def member(self, key: str | int) -> Pos:
        """The position of a member (by key for an object, index for an array), else this one."""
        children = self.children
        if isinstance(children, dict) and isinstance(key, str):
            return children.get(key, self)
        if isinstance(children, list) and isinstance(key, int) and 0 <= key < len(children):
            return children[key]
        return self
