"""A record behaves as a frozen dataclass does, where anything can see: fields, equality, hashing, repr, replace."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from toolreplay.core.records import record


@record
class Point:
    x: int
    y: int = 0
    label: str = dataclasses.field(default="", compare=False)


@dataclasses.dataclass(frozen=True)
class Plain:
    x: int
    y: int = 0
    label: str = dataclasses.field(default="", compare=False)


@given(st.integers(), st.integers(), st.text(max_size=3), st.integers(), st.integers())
def test_a_record_compares_hashes_and_shows_itself_as_the_dataclass_would(
    x: int, y: int, label: str, x2: int, y2: int
) -> None:
    a, b = Point(x, y, label), Point(x2, y2, label + "!")
    plain_a, plain_b = Plain(x, y, label), Plain(x2, y2, label + "!")
    assert (a == b) == (plain_a == plain_b)
    assert hash(a) == hash(Point(x, y))  # the uncompared label is not hashed either
    assert repr(a) == repr(plain_a).replace("Plain", "Point")
    assert dataclasses.replace(a, y=y2) == Point(x, y2)
    assert [f.name for f in dataclasses.fields(Point)] == ["x", "y", "label"]
    assert a.__eq__((x, y)) is NotImplemented  # another class is never equal
