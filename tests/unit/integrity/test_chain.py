from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.strategies import json_objects, json_values, tool_names, transcript_lines, transcripts
from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes
from toolreplay.core.errors import InputError
from toolreplay.core.model import Call
from toolreplay.formats.transcript import iter_sealed, iter_transcript
from toolreplay.integrity.chain import GENESIS, call_record, digest_of, seal, seal_parts, seal_records, verify


def sealed_lines(calls: list[Call]) -> list[bytes]:
    return [line + b"\n" for line in seal(iter_transcript("t.jsonl", transcript_lines(calls)))]


def verify_lines(lines: list[bytes]) -> object:
    return verify(iter_sealed("s.jsonl", lines), "s.jsonl")


def test_genesis_is_64_zeros() -> None:
    assert GENESIS == "0" * 64


def test_first_link_digest_is_sha256_of_the_canonical_record() -> None:
    call = Call(0, "list_dir", {"path": "docs"}, {"entries": ["intro.md"]}, line=1)
    record: JSONObject = {"args": call.args, "index": 0, "prev": GENESIS, "response": call.result, "tool": "list_dir"}
    assert digest_of(call_record(call, GENESIS)) == hashlib.sha256(canonical_bytes(record)).hexdigest()


@given(transcripts())
def test_sealed_lines_are_the_canonical_links(calls: list[Call]) -> None:
    prev = GENESIS
    for call, line in zip(calls, seal(calls), strict=True):
        record: JSONObject = {
            "args": call.args,
            "index": call.index,
            "prev": prev,
            "response": call.result,
            "tool": call.tool,
        }
        digest = hashlib.sha256(canonical_bytes(record)).hexdigest()
        assert line == canonical_bytes({**record, "digest": digest})
        prev = digest


@given(
    st.lists(json_objects.filter(lambda record: "prev" not in record and "digest" not in record), max_size=3),
    st.lists(st.tuples(st.text(max_size=8), json_values), max_size=3),
)
def test_sealed_records_are_the_canonical_links(records: list[JSONObject], parts: list[tuple[str, JSONValue]]) -> None:
    """Records of any shape, and a session's parts (every key after "digest"), composed from their members."""
    records += [{"index": index, "part": part, "value": value} for index, (part, value) in enumerate(parts)]
    prev = GENESIS
    for record, line in zip(records, seal_records(records), strict=True):
        linked: JSONObject = {**record, "prev": prev}
        digest = hashlib.sha256(canonical_bytes(linked)).hexdigest()
        assert line == canonical_bytes({**linked, "digest": digest})
        prev = digest


_indexes = st.one_of(st.integers(), st.integers(min_value=-(10**30), max_value=10**30), json_values)
_awkward_text = st.text(st.characters(categories=["Cs", "Cc", "Po", "Ll", "Lo", "So"]))  # surrogates, controls, quotes
_part_names = st.one_of(_awkward_text, st.sampled_from(["session", "tools[0]", "messages[12]"]), json_values)


@given(st.lists(st.tuples(_indexes, _part_names, json_values), max_size=4))
def test_a_part_of_any_index_and_name_is_its_canonical_link(
    parts: list[tuple[JSONValue, JSONValue, JSONValue]],
) -> None:
    """A part's link is composed from its members (an integer index and a string name written directly, anything
    else encoded): it is the canonical link whatever they hold (escapes, lone surrogates, huge integers, a bool)."""
    records: list[JSONObject] = [{"index": index, "part": name, "value": value} for index, name, value in parts]
    prev = GENESIS
    for record, line in zip(records, seal_records(records), strict=True):
        linked: JSONObject = {**record, "prev": prev}
        digest = hashlib.sha256(canonical_bytes(linked)).hexdigest()
        assert line == canonical_bytes({**linked, "digest": digest})
        prev = digest


@given(st.lists(st.tuples(st.one_of(_awkward_text, st.sampled_from(["session", "messages[3]"])), json_values)))
def test_named_parts_seal_as_their_records(parts: list[tuple[str, JSONValue]]) -> None:
    """A session's parts given by name and value are sealed as the records of the same parts, indexed in order."""
    records: list[JSONObject] = [
        {"index": index, "part": name, "value": value} for index, (name, value) in enumerate(parts)
    ]
    assert list(seal_parts(parts)) == list(seal_records(records))


@given(transcripts())
def test_seal_then_verify_is_intact(calls: list[Call]) -> None:
    result = verify(iter_sealed("s.jsonl", sealed_lines(calls)), "s.jsonl")
    assert result.intact
    assert result.links == len(calls)


_FIELDS = ("index", "tool", "args", "response")


@given(transcripts(min_size=1), st.data())
def test_changing_one_record_breaks_the_chain_exactly_there(calls: list[Call], data: st.DataObject) -> None:
    lines = sealed_lines(calls)
    position = data.draw(st.integers(min_value=0, max_value=len(calls) - 1), label="position")
    field = data.draw(st.sampled_from(_FIELDS), label="field")
    link = json.loads(lines[position])
    new_value: JSONValue
    if field == "index":
        new_value = data.draw(st.integers(min_value=-5, max_value=10**6).filter(lambda i: i != position))
    elif field == "tool":
        new_value = data.draw(tool_names.filter(lambda t: t != link["tool"]))
    else:
        new_value = data.draw(json_objects)
        assume(canonical_bytes(new_value) != canonical_bytes(link[field]))
    link[field] = new_value
    lines[position] = json.dumps(link).encode() + b"\n"

    result = verify(iter_sealed("s.jsonl", lines), "s.jsonl")
    assert result.broken is not None
    assert result.broken.index == position
    assert result.broken.found == link["digest"]
    assert result.broken.expected != link["digest"]


def test_removing_a_link_breaks_the_chain_at_its_place() -> None:
    calls = [Call(i, "search", {"q": str(i)}, {"hits": i}, line=i + 1) for i in range(4)]
    lines = sealed_lines(calls)
    second = json.loads(lines[1])
    del lines[1]
    result = verify(iter_sealed("s.jsonl", lines), "s.jsonl")
    assert result.broken is not None
    assert result.broken.index == 1
    # The link now at position 1 still points at the removed link's digest.
    assert result.broken.found == second["digest"]
    assert result.broken.expected == second["prev"]


def test_a_resealed_out_of_order_index_is_malformed_not_tampered() -> None:
    calls = [Call(i, "t", {}, {}, line=i + 1) for i in range(2)]
    crafted = list(seal([calls[0], Call(5, "t", {}, {}, line=2)]))
    with pytest.raises(InputError, match="index 5 is out of order: expected 1"):
        verify(iter_sealed("s.jsonl", [line + b"\n" for line in crafted]), "s.jsonl")


def test_empty_sealed_file_is_intact() -> None:
    result = verify(iter_sealed("s.jsonl", []), "s.jsonl")
    assert result.intact
    assert result.links == 0
