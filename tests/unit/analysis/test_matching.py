from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import json_objects
from toolreplay.analysis.matching import Matcher, lookup
from toolreplay.core.canonical import JSONObject
from toolreplay.core.model import Call


def call(tool: str, **args: object) -> Call:
    return Call(0, tool, dict(args), {}, 1)  # type: ignore[arg-type]


def test_exact_by_default_with_key_order_irrelevant() -> None:
    matcher = Matcher()
    assert matcher.key(call("t", a=1, b=2)) == matcher.key(call("t", b=2, a=1))
    assert matcher.key(call("t", a=1)) != matcher.key(call("t", a=2))
    assert matcher.key(call("t", a=1)) != matcher.key(call("u", a=1))


def test_ignored_paths_for_all_tools_and_for_one() -> None:
    matcher = Matcher(("timestamp", "*_id"), {"create": ("meta.trace",)})
    assert matcher.key(call("t", q=1, timestamp=5, request_id="a")) == matcher.key(call("t", q=1))
    assert matcher.key(call("create", q=1, meta={"trace": "x", "k": 1})) == matcher.key(
        call("create", q=1, meta={"k": 1})
    )
    # the per-tool path applies to that tool only
    assert matcher.key(call("other", meta={"trace": "x"})) != matcher.key(call("other", meta={}))
    # "*_id" matches nested keys too: glob * crosses dots
    assert matcher.key(call("t", meta={"span_id": 1})) == matcher.key(call("t", meta={}))


def test_lookup_follows_dotted_paths() -> None:
    assert lookup({"a": {"b": 3}}, "a.b") == (True, 3)
    assert lookup({"a": {"b": 3}}, "a.c") == (False, None)
    assert lookup({"a": 1}, "a.b") == (False, None)


@given(st.text(max_size=10), json_objects)
def test_identity_is_the_digest_of_the_canonical_key(tool: str, args: JSONObject) -> None:
    """Hashed in pieces for speed, the identity must be exactly the digest of the one canonical key."""
    for matcher in (Matcher(), Matcher(("*_id",)), Matcher(ignore_by_tool={tool: ("x",)})):
        call = Call(0, tool, args, None, 0)
        expected = hashlib.sha256(matcher.key(call)).digest()[:16]
        assert matcher.identity(call) == expected
        identify = matcher.identifier()
        assert identify(call) == expected
        assert identify(call) == expected  # the second time, with the tool's encoded name remembered
