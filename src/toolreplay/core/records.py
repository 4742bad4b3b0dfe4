"""The records every module makes: dataclasses with slots, frozen where the type checker looks.

``@record`` is ``@dataclass(frozen=True, slots=True)`` in all that a reader or
the type checker sees: the fields, the generated ``__init__``, ``replace`` and
``fields``, equality and hashing by the compared fields, the same ``repr``, and
mypy refusing an assignment to a field. Two things differ, both for the time a
command takes to start. Python 3.11 compiles six methods from source for each
frozen dataclass when its module is imported (about 1 ms a class; a replay
imports 45 of them, a third of toolreplay's own start-up), so here only
``__init__`` is generated, and equality, hashing and ``repr`` are shared
functions made once per class from its fields, without compiling anything.
And a field is not guarded against assignment at run time (``__setattr__`` is
the default one): the type checker refuses the assignment in toolreplay's code,
which ``mypy --strict`` checks in CI, and a record is built faster without the
guard, since its ``__init__`` sets each field directly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving the values of ``names`` as a tuple, as a dataclass compares them (identity first)."""
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda item: (one(item),)
    if not names:
        return lambda item: ()
    many: Callable[[Any], tuple[Any, ...]] = attrgetter(*names)
    return many


def _share_methods(cls: type[T]) -> type[T]:
    """Equality, hashing and ``repr`` as a frozen dataclass has them, from functions made once per class."""
    chosen = dataclasses.fields(cls)  # type: ignore[arg-type]
    compared = _getter(tuple(f.name for f in chosen if f.compare))
    hashed = _getter(tuple(f.name for f in chosen if (f.compare if f.hash is None else f.hash)))
    shown = tuple(f.name for f in chosen if f.repr)

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return compared(self) == compared(other)

    def __hash__(self: Any) -> int:
        return hash(hashed(self))

    def __repr__(self: Any) -> str:
        return f"{self.__class__.__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in shown)})"

    for method in (__eq__, __hash__, __repr__):
        if method.__name__ not in cls.__dict__:  # a class's own method stays, as a dataclass keeps it
            method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
            setattr(cls, method.__name__, method)
    return cls


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, kw_only: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True)
def record(cls: type[T] | None = None, /, *, kw_only: bool = False) -> type[T] | Callable[[type[T]], type[T]]:
    """A frozen record with slots (``kw_only``: its fields given by name only); see the module's words."""

    def make(chosen: type[T]) -> type[T]:
        made = dataclasses.dataclass(chosen, slots=True, eq=False, repr=False, kw_only=kw_only)
        return _share_methods(made)

    return make if cls is None else make(cls)
