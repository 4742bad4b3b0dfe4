from __future__ import annotations

import json

from hypothesis import given

from tests.strategies import json_values
from toolreplay.core.canonical import JSONValue, canonical_bytes, canonical_call


def test_keys_are_sorted_and_whitespace_dropped() -> None:
    assert canonical_bytes({"y": 2, "x": [1, {"b": None, "a": True}]}) == b'{"x":[1,{"a":true,"b":null}],"y":2}'


def test_key_order_does_not_change_identity() -> None:
    assert canonical_call("t", {"x": 1, "y": 2}) == canonical_call("t", {"y": 2, "x": 1})
    assert canonical_call("t", {"x": 1}) == b'{"args":{"x":1},"tool":"t"}'


def test_non_ascii_is_escaped() -> None:
    assert canonical_bytes({"name": "café ☕"}) == b'{"name":"caf\\u00e9 \\u2615"}'


@given(json_values)
def test_matches_the_documented_json_dumps_call(value: JSONValue) -> None:
    expected = json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    assert canonical_bytes(value) == expected


@given(json_values)
def test_round_trips_through_json(value: JSONValue) -> None:
    assert canonical_bytes(json.loads(canonical_bytes(value))) == canonical_bytes(value)
