"""Line positions of TOML values: fixed cases per rule, and generated documents whose lines are known."""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolreplay.formats.parsing.positions import Pos
from toolreplay.formats.parsing.toml_text import toml_positions

Where = tuple[str | int, ...]


def flatten(pos: Pos, path: Where = ()) -> dict[Where, int]:
    """Every position in the tree by its path, so one comparison checks all lines and keys."""
    out = {path: pos.line}
    children = pos.children
    if isinstance(children, dict):
        for key, child in children.items():
            out.update(flatten(child, (*path, key)))
    elif isinstance(children, list):
        for index, child in enumerate(children):
            out.update(flatten(child, (*path, index)))
    return out


def assert_same_shape(pos: Pos, value: object, path: Where = ()) -> None:
    children = pos.children
    if isinstance(value, dict):
        assert isinstance(children, dict), path
        assert children.keys() == value.keys(), path
        for key, member in value.items():
            assert_same_shape(children[key], member, (*path, key))
    elif isinstance(value, list):
        assert isinstance(children, list), path
        assert len(children) == len(value), path
        for index, element in enumerate(value):
            assert_same_shape(children[index], element, (*path, index))
    else:
        assert children is None, path


def lines(text: str) -> dict[Where, int]:
    """The lines of ``text``'s values, after checking tomllib accepts it and the shapes agree."""
    value = tomllib.loads(text)
    pos = toml_positions(text)
    assert_same_shape(pos, value)
    return flatten(pos)


# --- fixed cases -----------------------------------------------------------


def test_empty_document_is_an_empty_root_on_line_1() -> None:
    assert toml_positions("") == Pos(1, {})
    assert toml_positions("\n\n# only a comment\n") == Pos(1, {})


def test_key_values_comments_and_blank_lines() -> None:
    text = "# header comment\n\na = 1  # trailing\n\n   # indented comment\nb\t=\t'x'\nc=true\n"
    assert lines(text) == {(): 1, ("a",): 3, ("b",): 6, ("c",): 7}


def test_scalars_of_every_kind() -> None:
    text = (
        "i = +1_000\nh = 0xDEAD_beef\nf = -6.02e23\nn = nan\n"
        "dt = 1979-05-27 07:32:00.5+01:00 # a date-time with a space\n"
        "d = 1979-05-27\nt = 07:32:00\nb = false\n"
    )
    assert lines(text) == {
        (): 1,
        ("i",): 1,
        ("h",): 2,
        ("f",): 3,
        ("n",): 4,
        ("dt",): 5,
        ("d",): 6,
        ("t",): 7,
        ("b",): 8,
    }


def test_table_header_and_its_implicit_parents() -> None:
    text = "top = 1\n\n[a.b.c]\nx = 1\n[a.d]\ny = 2\n"
    assert lines(text) == {
        (): 1,
        ("top",): 1,
        ("a",): 3,
        ("a", "b"): 3,
        ("a", "b", "c"): 3,
        ("a", "b", "c", "x"): 4,
        ("a", "d"): 5,
        ("a", "d", "y"): 6,
    }


def test_a_parent_defined_earlier_keeps_its_line() -> None:
    text = "[a]\nk = 1\n\n[a.b]\nm = 2\n"
    assert lines(text) == {(): 1, ("a",): 1, ("a", "k"): 2, ("a", "b"): 4, ("a", "b", "m"): 5}


def test_an_implicit_table_defined_later_moves_to_its_own_header() -> None:
    text = "[a.b]\nm = 1\n[a]\nk = 2\n"
    assert lines(text) == {(): 1, ("a",): 3, ("a", "b"): 1, ("a", "b", "m"): 2, ("a", "k"): 4}


def test_header_with_quoted_keys_and_spaces() -> None:
    text = "[ \"x.y\" . 'z]' .w ]\nk = 1\n"
    assert lines(text) == {(): 1, ("x.y",): 1, ("x.y", "z]"): 1, ("x.y", "z]", "w"): 1, ("x.y", "z]", "w", "k"): 2}


def test_array_of_tables_elements_and_sub_tables() -> None:
    text = (
        "[[fruit]]\n"  # 1
        "name = 'apple'\n"  # 2
        "[fruit.physical]\n"  # 3
        "color = 'red'\n"  # 4
        "[[fruit.variety]]\n"  # 5
        "name = 'red delicious'\n"  # 6
        "[[fruit.variety]]\n"  # 7
        "\n"  # 8
        "[[fruit]]\n"  # 9
        "name = 'banana'\n"  # 10
        "[[fruit.variety]]\n"  # 11
    )
    assert lines(text) == {
        (): 1,
        ("fruit",): 1,
        ("fruit", 0): 1,
        ("fruit", 0, "name"): 2,
        ("fruit", 0, "physical"): 3,
        ("fruit", 0, "physical", "color"): 4,
        ("fruit", 0, "variety"): 5,
        ("fruit", 0, "variety", 0): 5,
        ("fruit", 0, "variety", 0, "name"): 6,
        ("fruit", 0, "variety", 1): 7,
        ("fruit", 1): 9,
        ("fruit", 1, "name"): 10,
        ("fruit", 1, "variety"): 11,
        ("fruit", 1, "variety", 0): 11,
    }


def test_array_of_tables_under_an_implicit_table() -> None:
    text = "x = 0\n[[a.b]]\n[[a.b]]\nk = 1\n"
    assert lines(text) == {
        (): 1,
        ("x",): 1,
        ("a",): 2,
        ("a", "b"): 2,
        ("a", "b", 0): 2,
        ("a", "b", 1): 3,
        ("a", "b", 1, "k"): 4,
    }


def test_dotted_keys_create_tables_on_their_line() -> None:
    text = 'a.b.c = 1\na . b . d = 2\n"x.y".\'z.w\' = 3\nsite."google.com" = true\n'
    assert lines(text) == {
        (): 1,
        ("a",): 1,
        ("a", "b"): 1,
        ("a", "b", "c"): 1,
        ("a", "b", "d"): 2,
        ("x.y",): 3,
        ("x.y", "z.w"): 3,
        ("site",): 4,
        ("site", "google.com"): 4,
    }


def test_dotted_keys_inside_a_table_and_a_header_below_them() -> None:
    text = "[t]\nd.e = 1\n[t.d.f]\ng = 2\n"
    assert lines(text) == {
        (): 1,
        ("t",): 1,
        ("t", "d"): 2,
        ("t", "d", "e"): 2,
        ("t", "d", "f"): 3,
        ("t", "d", "f", "g"): 4,
    }


def test_quoted_keys_are_decoded() -> None:
    text = '"a\\u0041" = 1\n"" = 2\n\'lit\\n\' = 3\n"q\\"=#" = 4\n'
    assert lines(text) == {(): 1, ("aA",): 1, ("",): 2, ("lit\\n",): 3, ('q"=#',): 4}


def test_multi_line_array_gives_each_element_its_own_line() -> None:
    text = (
        "arr = [\n"  # 1
        "  1,  # one\n"  # 2
        "\n"  # 3
        "  # a comment ] with a bracket\n"  # 4
        "  'two', [3,\n"  # 5
        "     4],\n"  # 6
        "  { x = 5, y.z = [\n"  # 7
        "    6 ] },\n"  # 8
        "]\n"  # 9
        "after = 1\n"  # 10
    )
    assert lines(text) == {
        (): 1,
        ("arr",): 1,
        ("arr", 0): 2,
        ("arr", 1): 5,
        ("arr", 2): 5,
        ("arr", 2, 0): 5,
        ("arr", 2, 1): 6,
        ("arr", 3): 7,
        ("arr", 3, "x"): 7,
        ("arr", 3, "y"): 7,
        ("arr", 3, "y", "z"): 7,
        ("arr", 3, "y", "z", 0): 8,
        ("after",): 10,
    }


def test_inline_tables_nested_and_in_arrays() -> None:
    text = "p = { a = 1, b = { c = [ {d = 2}, {} ] }, e.f = 'g' }\nq = {}\nr = []\n"
    assert lines(text) == {
        (): 1,
        ("p",): 1,
        ("p", "a"): 1,
        ("p", "b"): 1,
        ("p", "b", "c"): 1,
        ("p", "b", "c", 0): 1,
        ("p", "b", "c", 0, "d"): 1,
        ("p", "b", "c", 1): 1,
        ("p", "e"): 1,
        ("p", "e", "f"): 1,
        ("q",): 2,
        ("r",): 3,
    }


def test_dotted_member_after_a_multi_line_value_in_an_inline_table() -> None:
    text = "t = { x = '''\n\n''', a.b = 1 }\n"
    assert lines(text) == {(): 1, ("t",): 1, ("t", "x"): 1, ("t", "a"): 3, ("t", "a", "b"): 3}


@pytest.mark.parametrize(
    "string",
    [
        '"a = 1 # [x] {y} \'z\' \\" \\\\"',
        "'a = 1 # [x] {y} \" \\'",
        '"""\nx = 1\n[t]\n# no\n{ } " "" \\""" \\\\\n"""',
        '"""line \\\n   continued \\  \n  again"""',
        "'''\n[[t]]\n' '' \"\"\" \\\n= # '''",
        '"""quotes at the end"""""',
        "'''quotes at the end'''''",
        '""""""',
        "''''''",
        '"\\\\"',
    ],
)
def test_strings_do_not_confuse_the_scanner(string: str) -> None:
    text = f"s = {string}\nnext = [{string}, 1]\n[t]\nk = 2\n"
    inside = string.count("\n")
    assert lines(text) == {
        (): 1,
        ("s",): 1,
        ("next",): inside + 2,
        ("next", 0): inside + 2,
        ("next", 1): 2 * inside + 2,
        ("t",): 2 * inside + 3,
        ("t", "k"): 2 * inside + 4,
    }


def test_crlf_line_endings_count_like_lf() -> None:
    text = "a = 1\n[t]\nb = '''\nx\n'''\nc = [\n  1,\n  2,\n]\n[[u]]\nd.e = \"\"\"y\\\nz\"\"\"\n"
    crlf = text.replace("\n", "\r\n")
    assert lines(crlf) == lines(text)
    assert lines(crlf)[("u", 0, "d", "e")] == 11
    assert lines(crlf)[("t", "c", 1)] == 8


@pytest.mark.parametrize("text", ['a = "x', "a = '''x''", "a = [1,", "a = {b = 1", "a = 1\na.b = 2\n", "[a\n", "= 1\n"])
def test_text_it_cannot_follow_is_refused_not_looped_on(text: str) -> None:
    with pytest.raises(ValueError, match="not TOML that tomllib accepts"):
        toml_positions(text)


# --- generated documents ---------------------------------------------------
#
# A document is drawn as a tree of nodes, each with the way it is written
# (a [header], no header of its own, dotted keys, an inline table), then
# rendered line by line while noting the line each value lands on.


@dataclass
class Key:
    name: str  # as tomllib spells it
    text: str  # as written


@dataclass
class Scalar:
    text: str


@dataclass
class Array:
    items: list[Value]
    multiline: bool


Mode = Literal["root", "header", "element", "implicit", "dotted", "inline"]


@dataclass
class Table:
    mode: Mode
    entries: list[tuple[Key, Node]]


@dataclass
class TableArray:
    tables: list[Table]


Value = Scalar | Array | Table
Node = Scalar | Array | Table | TableArray

# Characters that a naive scanner would take for structure.
TRICKY = ["a", " ", "=", "#", "[", "]", "{", "}", ",", ".", '"', "'", "\\", "\t", "\u00e9", "\u00fc"]
CONTINUATIONS = {"CONT": "\\\n   ", "CONT+": "\\  \n   "}  # a line-ending backslash, then trailing spaces or not
STRING_TOKENS = [*TRICKY, "\n", *CONTINUATIONS]


def basic_text(chars: Sequence[str]) -> str:
    escapes = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\u00fc": "\\u00FC"}
    return '"' + "".join(escapes.get(c, c) for c in chars if c not in CONTINUATIONS) + '"'


def literal_text(chars: Sequence[str]) -> str:
    return "'" + "".join(c for c in chars if c not in ("'", "\n", *CONTINUATIONS)) + "'"


def multiline_text(chars: Sequence[str], quote: str) -> str:
    out: list[str] = []
    run = 0  # quotes written in a row: three would close the string
    for c in chars:
        if c == quote:
            if run < 2:
                out.append(c)
                run += 1
            elif quote == '"':
                out.append('\\"')
                run = 0
            continue
        run = 0
        if quote == '"':
            out.append({"\\": "\\\\", "\u00fc": "\\U000000FC", **CONTINUATIONS}.get(c, c))
        else:
            # A literal string has no escapes: the backslash and line break are content.
            out.append("\\\n" if c in CONTINUATIONS else c)
    return quote * 3 + "".join(out) + quote * 3


STRINGS = st.builds(
    lambda kind, chars: kind(chars),
    st.sampled_from(
        [basic_text, literal_text, lambda c: multiline_text(c, '"'), lambda c: multiline_text(c, "'")],
    ),
    st.lists(st.sampled_from(STRING_TOKENS), max_size=12),
)
SCALARS = st.one_of(
    st.sampled_from(
        [
            "0",
            "-17",
            "+1_000",
            "0xDEAD_beef",
            "0o17",
            "0b101",
            "3.14",
            "-0.0",
            "6.02e23",
            "inf",
            "-nan",
            "true",
            "false",
            "1979-05-27T07:32:00Z",
            "1979-05-27 07:32:00.5+01:00",
            "1979-05-27",
            "07:32:00",
        ]
    ),
    st.integers().map(str),
    STRINGS,
).map(Scalar)

KEY_CHARS = [c for c in TRICKY if c != "\t"]
KEYS = st.one_of(
    st.text("abcXYZ019_-", min_size=1, max_size=5).map(lambda s: Key(s, s)),
    st.lists(st.sampled_from(KEY_CHARS), max_size=5).map(lambda cs: Key("".join(cs), basic_text(cs))),
    st.lists(st.sampled_from([c for c in KEY_CHARS if c != "'"]), max_size=5).map(
        lambda cs: Key("".join(cs), literal_text(cs))
    ),
)


# Each strategy below is built once per set of arguments and kept (functools.cache): the same strategies, drawn
# the same way, but Hypothesis validates a strategy the first time it draws from it, and a strategy built afresh
# at every draw made that validation most of the test's time.
@functools.cache
def values(depth: int) -> st.SearchStrategy[Value]:
    if depth <= 0:
        return SCALARS
    return st.one_of(SCALARS, arrays(depth), tables("inline", depth))


@functools.cache
def arrays(depth: int) -> st.SearchStrategy[Array]:
    return st.builds(Array, st.lists(values(depth - 1), max_size=4), st.booleans())


@functools.cache
def nodes(depth: int, *, inline: bool) -> st.SearchStrategy[Node]:
    """What a table member may be, at this depth, inside an inline table or not."""
    options: list[st.SearchStrategy[Node]] = [values(depth)]
    if depth > 0:
        options.append(tables("dotted", depth, inline=inline))
        if not inline:
            options.append(sections(depth))
    return st.one_of(options)


@functools.cache
def sections(depth: int) -> st.SearchStrategy[Node]:
    """Members written under headers of their own, below the body of their table."""
    options: list[st.SearchStrategy[Node]] = [
        tables("header", depth),
        st.builds(TableArray, st.lists(tables("element", depth), min_size=1, max_size=3)),
    ]
    if depth > 1:  # an implicit table needs a header somewhere below it
        options.append(tables("implicit", depth))
    return st.one_of(options)


@functools.cache
def tables(mode: Mode, depth: int, *, inline: bool = False) -> st.SearchStrategy[Table]:
    return _tables(mode, depth, inline=inline)


@st.composite
def _tables(draw: st.DrawFn, mode: Mode, depth: int, *, inline: bool = False) -> Table:
    below = depth - 1
    rest: st.SearchStrategy[Node]
    if mode == "implicit":
        first = rest = sections(below)
    elif mode == "dotted":
        # Dotted keys need a value to end on, or the table is never written.
        first = st.one_of(values(below), tables("dotted", below, inline=inline)) if below > 0 else values(0)
        rest = nodes(below, inline=inline)
    else:
        first = rest = nodes(below, inline=mode == "inline")
    keys = draw(
        st.lists(KEYS, unique_by=lambda k: k.name, min_size=1 if mode in ("implicit", "dotted") else 0, max_size=4)
    )
    return Table(mode, [(key, draw(first if index == 0 else rest)) for index, key in enumerate(keys)])


def is_section(node: Node) -> bool:
    return isinstance(node, TableArray) or (isinstance(node, Table) and node.mode in ("header", "implicit"))


def members_of(pos: Pos) -> dict[str, Pos]:
    assert isinstance(pos.children, dict)
    return pos.children


GAPS = ["", "", "\n", "# [table] a = 'b' {\n", "\n  # \"\"\" '''\n\n", "  \t\n"]
TRAILING = ["", "  ", " # k = v [x] {y} '\"", "\t#"]
INDENTS = ["", "  ", "\t"]
EQUALS = ["=", " = ", "  =\t"]
DOTS = [".", " .", ". ", " . "]
COMMAS = [",", ", ", " ,  "]
ARRAY_GAPS = ["", " ", "\n", "\n    ", "  # a, ] } = [ '\n", '\n\n\t# "x"\n  ']


@functools.cache
def _choice(options: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.sampled_from(options)


class Renderer:
    """Writes a drawn tree as TOML, noting the line each value is written on."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.parts: list[str] = []
        self.line = 1
        self.need_comma = False  # inside an inline table, after its first member

    def pick(self, options: Sequence[str]) -> str:
        return self.draw(_choice(tuple(options)))

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.line += text.count("\n")

    def document(self, root: Table) -> Pos:
        pos = Pos(1, {})
        self.members(root.entries, [], pos, inline=False)
        self.sections(root.entries, [], pos, [])
        self.write(self.pick(["", "\n", "# the end"]))
        return pos

    def key_path(self, keys: Sequence[Key]) -> str:
        text = keys[0].text
        for key in keys[1:]:
            text += self.pick(DOTS) + key.text
        return text

    def members(
        self, entries: list[tuple[Key, Node]], prefix: list[tuple[Key, Pos]], target: Pos, *, inline: bool
    ) -> None:
        """Write the ``key = value`` lines (or inline members) of a table; sections come later."""
        for key, node in entries:
            if is_section(node):
                continue
            if isinstance(node, Table) and node.mode == "dotted":
                pos = Pos(0, {})  # on the line of its first member, known once written
                members_of(target)[key.name] = pos
                self.members(node.entries, [*prefix, (key, pos)], pos, inline=inline)
                continue
            assert not isinstance(node, TableArray)
            if inline:
                if self.need_comma:
                    self.write(self.pick(COMMAS))
                self.need_comma = True
            else:
                self.write(self.pick(GAPS) + self.pick(INDENTS))
            for _, table in prefix:
                if table.line == 0:
                    table.line = self.line
            self.write(self.key_path([k for k, _ in prefix] + [key]) + self.pick(EQUALS))
            members_of(target)[key.name] = self.value(node)
            if not inline:
                self.write(self.pick(TRAILING) + "\n")

    def value(self, node: Value) -> Pos:
        line = self.line
        if isinstance(node, Scalar):
            self.write(node.text)
            return Pos(line)
        if isinstance(node, Array):
            gaps = ARRAY_GAPS if node.multiline else ["", " "]
            items: list[Pos] = []
            self.write("[")
            for index, item in enumerate(node.items):
                if index:
                    self.write(",")
                self.write(self.pick(gaps))
                items.append(self.value(item))
                self.write(self.pick(gaps))
            trailing_comma: bool = self.draw(st.booleans())
            if node.items and trailing_comma:
                self.write(",")
            self.write(self.pick(gaps) + "]")
            return Pos(line, items)
        pos = Pos(line, {})
        saved, self.need_comma = self.need_comma, False
        self.write("{" + self.pick(["", " "]))
        self.members(node.entries, [], pos, inline=True)
        self.write(self.pick(["", " "]) + "}")
        self.need_comma = saved
        return pos

    def header(self, keys: Sequence[Key], *, array: bool) -> int:
        self.write(self.pick(GAPS) + self.pick(INDENTS))
        line = self.line
        space = ["", " "]
        opening, closing = ("[[", "]]") if array else ("[", "]")
        self.write(opening + self.pick(space) + self.key_path(keys) + self.pick(space) + closing)
        self.write(self.pick(TRAILING) + "\n")
        return line

    def sections(self, entries: list[tuple[Key, Node]], path: list[Key], target: Pos, pending: list[Pos]) -> None:
        """Write the headed sub-tables of a table; ``pending`` are implicit tables awaiting their first header."""
        for key, node in entries:
            keys = [*path, key]
            if isinstance(node, TableArray):
                array = Pos(0, [])
                members_of(target)[key.name] = array
                for element in node.tables:
                    line = self.header(keys, array=True)
                    for table in [*pending, array]:
                        table.line = table.line or line
                    pos = Pos(line, {})
                    assert isinstance(array.children, list)
                    array.children.append(pos)
                    self.members(element.entries, [], pos, inline=False)
                    self.sections(element.entries, keys, pos, [])
            elif isinstance(node, Table) and node.mode == "header":
                line = self.header(keys, array=False)
                for table in pending:
                    table.line = table.line or line
                pos = members_of(target)[key.name] = Pos(line, {})
                self.members(node.entries, [], pos, inline=False)
                self.sections(node.entries, keys, pos, [])
            elif isinstance(node, Table) and node.mode == "implicit":
                pos = members_of(target)[key.name] = Pos(0, {})
                self.sections(node.entries, keys, pos, [*pending, pos])
            elif isinstance(node, Table) and node.mode == "dotted":
                self.sections(node.entries, keys, members_of(target)[key.name], [])


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, Pos]:
    root = draw(tables("root", 4))
    renderer = Renderer(draw)
    expected = renderer.document(root)
    text = "".join(renderer.parts)
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text, expected


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(documents())
def test_generated_documents_get_the_lines_they_were_written_on(document: tuple[str, Pos]) -> None:
    text, expected = document
    value = tomllib.loads(text)
    assert_same_shape(expected, value)  # the generator's own bookkeeping, so a mismatch below is the scanner's
    actual = toml_positions(text)
    assert_same_shape(actual, value)
    assert flatten(actual) == flatten(expected)
