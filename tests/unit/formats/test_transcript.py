from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolreplay.core.errors import InputError
from toolreplay.formats.parsing import jsonl
from toolreplay.formats.parsing.jsonl import decode_object
from toolreplay.formats.transcript import iter_recorded_calls, iter_sealed, iter_transcript

GOOD = b'{"index": 0, "tool": "read_file", "args": {"path": "a"}, "response": {"bytes": 1}}\n'


def read(*lines: bytes) -> list[object]:
    return list(iter_transcript("t.jsonl", list(lines)))


def error_of(*lines: bytes) -> InputError:
    with pytest.raises(InputError) as info:
        read(*lines)
    return info.value


def test_parses_a_valid_line_with_its_line_number() -> None:
    (call,) = iter_transcript("t.jsonl", [b"\n", GOOD])
    assert (call.index, call.tool, call.args, call.result, call.line) == (
        0,
        "read_file",
        {"path": "a"},
        {"bytes": 1},
        2,
    )


def test_blank_lines_are_skipped() -> None:
    second = GOOD.replace(b'"index": 0', b'"index": 1')
    assert len(read(GOOD, b"   \n", b"\n", second)) == 2


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"index": 0, "tool": "t", "args": {}, "response": {}, "extra": 1}', "unknown field 'extra'"),
        (b'{"index": 0, "tool": "t", "args": {}}', "missing field 'response'"),
        (b'{"tool": "t", "args": {}, "response": {}}', "missing field 'index'"),
        (
            b'{"index": true, "tool": "t", "args": {}, "response": {}}',
            "field 'index' must be an integer, found a boolean",
        ),
        (
            b'{"index": 0.0, "tool": "t", "args": {}, "response": {}}',
            "field 'index' must be an integer, found a number",
        ),
        (
            b'{"index": "0", "tool": "t", "args": {}, "response": {}}',
            "field 'index' must be an integer, found a string",
        ),
        (
            b'{"index": 0, "tool": 3, "args": {}, "response": {}}',
            "field 'tool' must be a non-empty string, found an integer",
        ),
        (
            b'{"index": 0, "tool": "", "args": {}, "response": {}}',
            "field 'tool' must be a non-empty string, found an empty one",
        ),
        (b'{"index": 0, "tool": "t", "args": [], "response": {}}', "field 'args' must be an object, found an array"),
        (
            b'{"index": 0, "tool": "t", "args": {}, "response": "ok"}',
            "field 'response' must be an object, found a string",
        ),
        (b'{"index": 1, "tool": "t", "args": {}, "response": {}}', "index 1 is out of order: expected 0"),
        (b"[1, 2]", "expected a JSON object, found an array"),
        (b"not json", "not valid JSON: Expecting value (column 1)"),
        (b'{"index": 0, "tool": "t", "args": {"x": NaN}, "response": {}}', "not valid JSON: NaN is not valid JSON"),
        (b'{"index": 0, "tool": "t", "args": {"x": 1, "x": 2}, "response": {}}', 'key "x" appears twice'),
        (b'{"index": 0, "tool": "t\xff", "args": {}, "response": {}}', "not valid UTF-8 (byte 0xff at column 24)"),
        (b'\xef\xbb\xbf{"index": 0, "tool": "t", "args": {}, "response": {}}', "byte-order mark"),
    ],
)
def test_malformed_lines_are_refused_with_file_and_line(line: bytes, message: str) -> None:
    error = error_of(b"\n", line + b"\n")
    assert message in error.message
    assert str(error).startswith("t.jsonl:2: ")


def test_out_of_order_index_after_valid_lines() -> None:
    skipped = GOOD.replace(b'"index": 0', b'"index": 2')
    error = error_of(GOOD, skipped)
    assert (error.line, error.message) == (2, "index 2 is out of order: expected 1")


def test_sealed_line_in_a_transcript_says_so() -> None:
    line = b'{"index": 0, "tool": "t", "args": {}, "response": {}, "prev": "0", "digest": "0"}'
    assert "looks like a sealed file" in error_of(line).message


def test_sealed_file_is_parsed_as_strictly() -> None:
    with pytest.raises(InputError, match="unknown field 'extra'"):
        list(
            iter_sealed(
                "s.jsonl",
                [b'{"index": 0, "tool": "t", "args": {}, "response": {}, "prev": "a", "digest": "b", "extra": 1}'],
            )
        )
    with pytest.raises(InputError, match="field 'digest' must be 64 lowercase hex characters"):
        list(
            iter_sealed(
                "s.jsonl",
                [
                    b'{"index": 0, "tool": "t", "args": {}, "response": {}, "prev": "'
                    + b"0" * 64
                    + b'", "digest": "XY"}'
                ],
            )
        )


def test_transcript_given_to_verify_says_to_seal_first() -> None:
    with pytest.raises(InputError, match=r"missing field 'prev' \(seal the transcript first"):
        list(iter_sealed("t.jsonl", [GOOD]))


def test_recorded_calls_accepts_either_kind_but_not_a_mix() -> None:
    sealed = (
        b'{"index": 1, "tool": "t", "args": {}, "response": {}, "prev": "'
        + b"0" * 64
        + b'", "digest": "'
        + b"1" * 64
        + b'"}'
    )
    with pytest.raises(InputError, match="unknown field 'digest'"):
        list(iter_recorded_calls("m.jsonl", [GOOD, sealed]))


def test_missing_file_is_an_input_error(tmp_path: object) -> None:
    with pytest.raises(InputError, match="no such file"):
        list(iter_transcript("does-not-exist.jsonl"))


_AROUND = st.text(alphabet=" \t\r\n\x0b\x0c\u00a0x,", max_size=3)


@given(before=_AROUND, after=_AROUND, value=st.dictionaries(st.text(max_size=3), st.integers(), max_size=3))
def test_a_line_is_taken_exactly_when_the_json_parser_takes_it(before: str, after: str, value: dict[str, int]) -> None:
    """Reading a line through the scanner directly must accept and refuse exactly what ``json.loads`` does."""
    text = before + json.dumps(value) + after
    try:
        expected: object = json.loads(text)
    except ValueError:
        expected = None
    try:
        found: object = decode_object(text.encode("utf-8"), "t.jsonl", 1)
    except InputError:
        found = None
    assert found == expected


_LINES = st.one_of(
    st.dictionaries(st.text(max_size=3), st.integers() | st.text(max_size=3), max_size=3).map(json.dumps),
    st.sampled_from(
        [
            "",
            "   ",
            "{",
            "[1]",
            "{} {}",
            "{},{}",
            '{"a": 1}]',
            '[{"b": 2}',
            '{"a": 1, "a": 2}',
            '{"a": NaN}',
            '{"a": 1e999}',
            '{"a": "\\ud800"}',
            '{"a": "\\ud83d\\ude00"}',
            "\ufeff{}",
            "  {}  ",
            "\t{}\r",
            '{"a": "\\u0061"}',
            '"text"',
            "null",
            # a record cut in two and glued to the next, which parses as objects when lines are joined as an array
            '{"x": [1',
            '2]}},{"index": 2}',
            '{"a": [{}',
            '{}]},{"b": 1}',
            '{"x": [[',
            "]]}",
            '{"y": 1}],[{"z": 2}',
        ]
    ),
)


def _outcome(read: object) -> list[object]:
    """Every (line, object) a reader gives, then the error it stops with, if any."""
    seen: list[object] = []
    try:
        for item in read:  # type: ignore[attr-defined]
            seen.append(item)
    except InputError as exc:
        seen.append(str(exc))
    return seen


@given(st.lists(_LINES, max_size=40))
def test_the_fast_loop_reads_lines_as_decode_object_does(lines: list[str]) -> None:
    """The readers' own loop must accept, refuse and number exactly as parsing each line with decode_object."""
    raw = [(line + "\n").encode("utf-8") for line in lines]
    one_by_one = ((n, decode_object(r, "t.jsonl", n)) for n, r in enumerate(raw, start=1) if not r.isspace())
    assert _outcome(jsonl.iter_objects("t.jsonl", raw)) == _outcome(one_by_one)


def test_a_record_cut_in_two_is_refused_at_its_first_half() -> None:
    lines = [b'{"index": 0, "tool": "t", "args": {}, "response": {"x": [1\n', b'2]}},{"index": 1}\n']
    with pytest.raises(InputError, match=r"t\.jsonl:1: not valid JSON"):
        list(jsonl.iter_objects("t.jsonl", lines))
