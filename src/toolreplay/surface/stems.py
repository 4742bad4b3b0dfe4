"""Which words a pattern's alternative cannot match without: the lint's index, so that a text is read only by the
alternatives it could match.

A text's words are its runs of letters a to z (``[a-z]{2,}``, maximal), each known by its stem, its first four
letters. An alternative's letters give a stem the text is certain to hold only where the pattern fixes where the
text's word starts: ``who(?:ever)?`` matches "whoever", whose stem is "whoe", not "who", and ``pre-?approved``
matches "preapproved", whose stem is "prea". So a run of an alternative's letters is kept only when what stands
before it is certainly not a letter (a space, a ``\\b``, punctuation, the start of the text), and, when it is
shorter than a stem, what stands after it too. A construct this reading does not know is refused (:class:`Unread`)
and the caller reads that pattern whole: the index passes over an alternative only when it is sure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

STEM = 4
_TEXT_WORD = re.compile(r"[a-z]{2,}")
_RUN = re.compile(r"[a-z]+")
_QUANTIFIER = re.compile(r"\{(\d*)(,?)(\d*)\}")
_WIDTH = {"x": 2, "u": 4, "U": 8}  # the hex digits of an escaped code point
_APART = "sdWntrfv"  # escapes of what is never a letter a to z
_MAYBE_LETTER = "wSD"  # escapes of what may be one
# A sketch of what an alternative matches: a letter stands for itself, SEP for what is certainly not a letter a to
# z, OPEN for what may be a letter, or nothing.
SEP, OPEN = " ", "#"
# Words nearly every text holds: a group of them tells little about whether an alternative can match.
_COMMON = frozenset(
    [
        "the",
        "to",
        "for",
        "of",
        "and",
        "an",
        "is",
        "are",
        "you",
        "your",
        "it",
        "this",
        "that",
        "with",
        "in",
        "on",
        "as",
        "be",
        "any",
        "all",
        "if",
        "no",
        "or",
        "at",
        "by",
        "from",
        "not",
        "can",
        "will",
        "its",
        "it's",
        "has",
        "have",
        "use",
        "used",
        "when",
        "into",
        "only",
        "each",
        "more",
        "one",
        "new",
        "do",
        "does",
        # and the stems a tool's text is made of (reads, lists, file, path, returns, writes, the value, optional)
        "read",
        "list",
        "file",
        "path",
        "name",
        "data",
        "retu",
        "writ",
        "get",
        "set",
        "type",
        "valu",
        "stri",
        "obje",
        "resu",
        "opti",
        "defa",
        "para",
        "user",
    ]
)


class Unread(ValueError):
    """A construct the reading of patterns does not know: the pattern is read whole."""


def stems_of(text: str) -> set[str]:
    """The stems of a text's words."""
    return {word[:STEM] for word in _TEXT_WORD.findall(text)}


def _class_end(pattern: str, index: int) -> int:
    """Where the pattern goes on after the class opened at ``index`` (a ``]`` first in it is one of its members)."""
    at = index + 1 + pattern.startswith("^", index + 1)
    at += pattern.startswith("]", at)
    while at < len(pattern) and pattern[at] != "]":
        at += 2 if pattern[at] == "\\" else 1
    if at >= len(pattern):
        raise Unread("a class that does not close")
    return at + 1


def _outside_classes(pattern: str) -> Iterator[tuple[int, str, int]]:
    """Each character of a pattern outside classes and escapes, with the depth of groups it stands at (a
    parenthesis counted as it opens or closes)."""
    depth, index = 0, 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
        elif char == "[":
            index = _class_end(pattern, index)
        else:
            depth += (char == "(") - (char == ")")
            yield index, char, depth
            index += 1


def top_level(pattern: str) -> list[str]:
    """A pattern's alternatives at its top level (split at each ``|`` outside groups and classes)."""
    parts, start = [], 0
    for index, char, depth in _outside_classes(pattern):
        if char == "|" and depth == 0:
            parts.append(pattern[start:index])
            start = index + 1
    return [*parts, pattern[start:]]


def _closing(pattern: str, opening: int) -> int:
    """The index of the parenthesis closing the group opened at ``opening``."""
    inside: int | None = None
    for index, char, depth in _outside_classes(pattern):
        if index == opening:
            inside = depth
        elif inside is not None and char == ")" and depth == inside - 1:
            return index
    raise Unread("a group that does not close")


@dataclass(frozen=True)
class _Item:
    """One piece of an alternative: a letter, what is never a letter (sep), what may be one (open), a zero-width
    test (zero), or a group of ways; with how often it may repeat."""

    kind: str
    letter: str = ""
    ways: tuple[str, ...] = ()
    least: int = 1
    most: float = 1


def _literal(char: str) -> _Item:
    return _Item("letter", char) if "a" <= char <= "z" else _Item("sep")


def _escape(pattern: str, index: int) -> tuple[_Item, int]:
    """The item an escape at ``index`` stands for, and where the pattern goes on."""
    code = pattern[index + 1 : index + 2]
    width = _WIDTH.get(code, 0)
    if not code:
        raise Unread("a pattern that ends in a backslash")
    if code in "bAZ" or code in _APART:
        return _Item("sep"), index + 2  # \b: a word's edge, so no letter touches it on the side away from the word
    if code == "B":
        return _Item("zero"), index + 2
    if code in _MAYBE_LETTER or code.isdigit():  # \1: a group matched again
        return _Item("open"), index + 2
    if width:
        return _literal(chr(int(pattern[index + 2 : index + 2 + width], 16))), index + 2 + width
    if code.isalpha():
        raise Unread(f"an escape \\{code}")
    return _literal(code), index + 2


def _class(pattern: str, index: int) -> tuple[_Item, int]:
    """Whether a class at ``index`` may match a letter a to z, and where the pattern goes on."""
    end = _class_end(pattern, index)
    negated = pattern.startswith("^", index + 1)
    body = pattern[index + 1 + negated : end - 1]
    members: list[str] = []
    at = 0
    while at < len(body):
        if body[at] != "\\":
            members.append(body[at])
            at += 1
            continue
        code = body[at + 1 : at + 2]
        width = _WIDTH.get(code, 0)
        if code and code in _MAYBE_LETTER:
            members.append("a-z")
        elif width:
            members.append(chr(int(body[at + 2 : at + 2 + width], 16)))
        elif code.isalpha() and code not in _APART:
            raise Unread(f"an escape \\{code} in a class")
        elif not code.isalpha():
            members.append(code)
        at += 2 + width
    letters = False
    for number, member in enumerate(members):
        if member == "-" and 0 < number < len(members) - 1:
            letters = letters or (members[number - 1][-1] <= "z" and members[number + 1][0] >= "a")
        letters = letters or any("a" <= char <= "z" for char in member)
    return _Item("open" if negated or letters else "sep"), end


def _group(pattern: str, index: int) -> tuple[_Item, int]:
    """The item a group at ``index`` stands for, and where the pattern goes on."""
    end = _closing(pattern, index)
    inner = pattern[index + 1 : end]
    if inner.startswith("?<!"):
        # Not after a letter (a class holding every letter, alone): the text's word starts here, as after a \b.
        body = inner[3:]
        alone = body.startswith("[") and not body.startswith("[^") and _class_end(body, 0) == len(body)
        return _Item("sep" if alone and ("a-z" in body or "\\w" in body) else "zero"), end + 1
    if inner.startswith(("?=", "?!", "?<=")):
        return _Item("zero"), end + 1
    if inner.startswith("?:"):
        inner = inner[2:]
    elif inner.startswith("?P<"):
        inner = inner[inner.index(">") + 1 :]
    elif inner.startswith("?"):
        raise Unread(f"a group ({inner[:3]}")
    return _Item("group", ways=tuple(top_level(inner))), end + 1


def _quantifier(pattern: str, index: int) -> tuple[int, float, int]:
    """How often the item before ``index`` may repeat (at least, at most), and where the pattern goes on."""
    char = pattern[index : index + 1]
    shape = _QUANTIFIER.match(pattern, index) if char == "{" else None
    if char in ("?", "*", "+"):
        least, most, index = (1 if char == "+" else 0), (1 if char == "?" else math.inf), index + 1
    elif shape is not None:
        low, comma, high = shape.groups()
        least, most, index = int(low or 0), math.inf if comma and not high else float(high or low or 0), shape.end()
    else:
        return 1, 1, index
    if pattern[index : index + 1] in ("?", "+"):  # lazy or possessive
        index += 1
    return least, most, index


def _items(alternative: str) -> list[_Item]:
    items: list[_Item] = []
    index = 0
    while index < len(alternative):
        char = alternative[index]
        if char == "\\":
            item, index = _escape(alternative, index)
        elif char == "[":
            item, index = _class(alternative, index)
        elif char == "(":
            item, index = _group(alternative, index)
        elif char == ".":
            item, index = _Item("open"), index + 1
        elif char in "^$":
            item, index = _Item("sep"), index + 1
        elif char in "*+?)|" or (char == "{" and _QUANTIFIER.match(alternative, index)):
            raise Unread(f"a quantifier or bracket out of place at {index}")
        else:
            item, index = _literal(char), index + 1
        least, most, index = _quantifier(alternative, index)
        items.append(item if item.kind == "zero" else _Item(item.kind, item.letter, item.ways, least, most))
    return items


@dataclass(frozen=True)
class Needs:
    """What an alternative cannot match without (a stem of each group), and whether what it matches certainly
    starts and ends with something that is not a letter."""

    groups: tuple[frozenset[str], ...]
    starts_apart: bool
    ends_apart: bool


def _commonness(group: frozenset[str]) -> tuple[int, int, int]:
    """How often a text may hold a word of the group: common words first, then short ones, then how many."""
    return sum(stem in _COMMON for stem in group), sum(len(stem) < STEM for stem in group), len(group)


def _starts_apart(items: list[_Item], then_apart: bool) -> bool:
    """Whether what ``items`` match certainly starts with what is not a letter (``then_apart``: what follows them
    does)."""
    for number, item in enumerate(items):
        if item.kind == "zero":
            continue
        first = all(needs(way).starts_apart for way in item.ways) if item.kind == "group" else item.kind == "sep"
        if item.least == 0:  # there or not: what follows it starts the match when it is not
            return first and _starts_apart(items[number + 1 :], then_apart)
        return first
    return then_apart


def _ends_apart(item: _Item) -> bool:
    """Whether what an item matches, when it is there, certainly ends with what is not a letter."""
    if item.kind == "group":
        return all(needs(way).ends_apart for way in item.ways)
    return item.kind == "sep"


_VARIANTS = 4  # optional letters and separators read both ways, at most; any more are read as open


def needs(alternative: str, before_apart: bool = False, after_apart: bool = False) -> Needs:
    """The groups of stems an alternative cannot match without; ``before_apart`` and ``after_apart``: whether what
    stands before and after it is certainly not a letter. An optional letter or separator (``s?``, ``-?``) is read
    both ways: what it matches is what one of the ways matches."""
    items = _items(alternative)
    optional = [n for n, item in enumerate(items) if item.least == 0 and item.most == 1 and item.kind != "group"]
    ways: list[list[_Item]] = [[]]
    for number, item in enumerate(items):
        if number in optional[:_VARIANTS]:
            ways = [*(way for way in ways), *([*way, _Item(item.kind, item.letter)] for way in ways)]
        else:
            ways = [[*way, item] for way in ways]
    read = [_sketched(way, before_apart, after_apart) for way in ways]
    if len(read) == 1:
        return read[0]
    # Each group of the first way, with the group most like it of each other way: one of them is in every match.
    groups: dict[frozenset[str], None] = {}
    if all(way.groups for way in read):
        for first in read[0].groups:
            likest = (max(way.groups, key=lambda group: (len(group & first), -len(group))) for way in read[1:])
            groups[first.union(*likest)] = None
    return Needs(tuple(groups), all(way.starts_apart for way in read), all(way.ends_apart for way in read))


def _once(item: _Item, kind: str) -> bool:
    return item.kind == kind and item.least == item.most == 1


def _joined(items: list[_Item]) -> list[_Item]:
    """The items with the letters right before and after a group (once) written into each of its ways:
    ``pre(?:a|b)s`` read as ``(?:preas|prebs)``, so that the word they make is seen whole."""
    joined: list[_Item] = []
    for item in items:
        if joined and _once(joined[-1], "group") and _once(item, "letter"):
            joined[-1] = _Item("group", ways=tuple(way + item.letter for way in joined[-1].ways))
            continue
        run = ""
        if _once(item, "group"):
            while joined and _once(joined[-1], "letter"):
                run = joined.pop().letter + run
        joined.append(_Item("group", ways=tuple(run + way for way in item.ways)) if run else item)
    return joined


def _sketched(items: list[_Item], before_apart: bool, after_apart: bool) -> Needs:
    """The groups of stems a sequence of items needs, read from a sketch of what it matches."""
    items = _joined(items)
    sketch = SEP if before_apart else OPEN
    groups: list[frozenset[str]] = []
    for number, item in enumerate(items):
        if item.kind == "zero":
            continue
        if item.least == 0:
            # There or not. When it starts apart and so does what follows, what stands after the sketch so far is
            # apart either way; when the sketch ends apart and it ends apart, what follows stands after something
            # apart either way; otherwise what stands on each side of it may touch.
            if _starts_apart(items[number:], after_apart) and _starts_apart(items[number + 1 :], after_apart):
                sketch += SEP
            elif not (sketch.endswith(SEP) and _ends_apart(item)):
                sketch += OPEN
        elif item.kind == "letter":
            sketch += item.letter if item.most == 1 else item.letter + OPEN
        elif item.kind in ("sep", "open"):
            sketch += SEP if item.kind == "sep" else OPEN
        else:
            once = item.most == 1
            ways = [
                needs(way, once and sketch.endswith(SEP), once and _starts_apart(items[number + 1 :], after_apart))
                for way in item.ways
            ]
            if all(way.groups for way in ways):
                groups.append(frozenset().union(*(min(way.groups, key=_commonness) for way in ways)))
            sketch += (SEP if all(way.starts_apart for way in ways) else OPEN) + OPEN
            sketch += SEP if all(way.ends_apart for way in ways) else OPEN
    body = sketch[1:]
    sketch += SEP if after_apart else OPEN
    for run in _RUN.finditer(sketch):
        start, end = run.span()
        word = run.group()
        if sketch[start - 1] == SEP and (len(word) >= STEM or (sketch[end] == SEP and len(word) >= 2)):
            groups.append(frozenset({word[:STEM]}))
    return Needs(tuple(groups), body.startswith(SEP), body.endswith(SEP))


def indexed(pattern: str) -> list[tuple[str, tuple[frozenset[str], ...]]]:
    """Each top-level alternative of a pattern with the groups of stems it needs, the rarest first; raises
    :class:`Unread` for a pattern this reading does not know."""
    return [(part, tuple(sorted(needs(part).groups, key=_commonness))) for part in top_level(pattern)]
