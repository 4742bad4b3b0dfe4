"""How every report writes counts, calls and p values: the words renderers and the check share."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable

from toolreplay.core.canonical import JSONValue
from toolreplay.core.model import Call

_ARG_WIDTH = 60


def count(number: int, noun: str, plural: str | None = None) -> str:
    """``1 call``, ``2 calls`` (or the plural given): every count a report or a message writes goes through here."""
    return f"{number} {noun}" if number == 1 else f"{number} {plural or noun + 's'}"


def agree(number: int, singular: str, plural: str) -> str:
    """The words after a count that agree with it: ``agree(1, "fails", "fail")`` is ``fails``."""
    return singular if number == 1 else plural


def tally(names: Iterable[str], noun: str = "run") -> str:
    """Each name with how many it names, in name order: ``final reply in 19 runs, exited with 1 in 1 run`` (the
    count set off by "in", as a name may end in a number of its own)."""
    counted = Counter(names)
    return ", ".join(f"{name} in {count(counted[name], noun)}" for name in sorted(counted))


def format_value(value: JSONValue, width: int | None = _ARG_WIDTH) -> str:
    """A JSON value on one line, shortened with an ellipsis past ``width`` characters (None: whole)."""
    if width is not None and isinstance(value, str) and len(value) > width:
        # escaping only lengthens, one character at a time: the first width characters say what the cut keeps
        value = value[:width]
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if width is None or len(text) <= width else text[: width - 1] + "…"


def format_changed(before: str, after: str, width: int = _ARG_WIDTH) -> tuple[str, str]:
    """Two texts of a changed value (JSON, one line each), shortened past ``width`` so that where they differ
    shows: when the first difference lies past what a plain cut keeps, each is cut to the same window around it,
    an ellipsis on the side of each cut (``…"/var/log/ci/2026-07"…``)."""
    if len(before) <= width and len(after) <= width:
        return before, after
    same = next(
        (i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), min(map(len, (before, after)))
    )
    if same < width - _AFTER_DIFFERENCE:  # a plain cut shows the difference, with some of what follows it
        return _cut(before, width), _cut(after, width)
    start = same - _BEFORE_DIFFERENCE
    return _window(before, start, width), _window(after, start, width)


# Around a difference past the cut: how much of what both share comes before it, and the least after it.
_BEFORE_DIFFERENCE = 20
_AFTER_DIFFERENCE = 12


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _window(text: str, start: int, width: int) -> str:
    """``text`` from ``start``, ``width`` characters in all with the ellipses."""
    if start + width - 1 >= len(text):  # the end is in reach
        return "…" + text[start:]
    return "…" + text[start : start + width - 2] + "…"


def format_call(call: Call, width: int | None = _ARG_WIDTH) -> str:
    """``tool(key=value, ...)`` with each value as compact JSON, shortened past ``width`` (None: whole)."""
    args = ", ".join(f"{key}={format_value(value, width)}" for key, value in call.args.items())
    return f"{call.tool}({args})"


def p_value(value: float) -> str:
    """A p or q value as reports print it."""
    return "<0.001" if value < 0.001 else f"{value:.3f}"
