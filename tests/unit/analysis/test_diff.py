from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import transcripts
from toolreplay.analysis.diff import diff_calls, field_changes
from toolreplay.analysis.matching import Matcher
from toolreplay.core.canonical import JSONObject
from toolreplay.core.model import Call, PairKind


def calls(*specs: tuple[str, JSONObject]) -> list[Call]:
    return [Call(i, tool, args, {}, i + 1) for i, (tool, args) in enumerate(specs)]


def renumber(items: list[Call]) -> list[Call]:
    return [Call(i, c.tool, c.args, c.result, i + 1) for i, c in enumerate(items)]


def summary(a: list[Call], b: list[Call]) -> list[tuple[str, int | None, int | None]]:
    return [
        (p.kind.value, None if p.a is None else p.a.index, None if p.b is None else p.b.index)
        for p in diff_calls(a, b)
        if p.kind is not PairKind.SAME
    ]


# The diff pairs calls by tool, arguments, turn and place, and never reads a result: the transcripts drawn here
# have none (drawing random results was half these properties' time, and no property below depends on them).
@given(transcripts(max_size=12, results=False), transcripts(max_size=12, results=False))
def test_every_call_on_both_sides_is_accounted_for_once(a: list[Call], b: list[Call]) -> None:
    pairs = diff_calls(a, b)
    seen_a = Counter(p.a.index for p in pairs if p.a is not None)
    seen_b = Counter(p.b.index for p in pairs if p.b is not None)
    assert seen_a == Counter(range(len(a)))
    assert seen_b == Counter(range(len(b)))


@given(transcripts(max_size=12, results=False), st.randoms(use_true_random=False))
def test_a_shuffle_shows_up_only_as_moves(a: list[Call], rng: object) -> None:
    shuffled = list(a)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    kinds = {pair.kind for pair in diff_calls(a, renumber(shuffled))}
    assert kinds <= {PairKind.SAME, PairKind.MOVED}


@given(transcripts(max_size=12, results=False))
def test_a_recording_against_itself_is_all_same(a: list[Call]) -> None:
    assert all(pair.kind is PairKind.SAME for pair in diff_calls(a, a))


@given(transcripts(max_size=10, results=False), transcripts(max_size=10, results=False))
def test_each_reported_change_points_at_the_right_calls(a: list[Call], b: list[Call]) -> None:
    for pair in diff_calls(a, b):
        if pair.a is not None:
            assert a[pair.a.index] == pair.a
        if pair.b is not None:
            assert b[pair.b.index] == pair.b
        if pair.kind in (PairKind.SAME, PairKind.MOVED):
            assert pair.a is not None
            assert pair.b is not None
            assert (pair.a.tool, pair.a.args) == (pair.b.tool, pair.b.args)
        if pair.kind is PairKind.CHANGED:
            assert pair.a is not None
            assert pair.b is not None
            assert pair.a.tool == pair.b.tool
            assert pair.fields == field_changes(pair.a.args, pair.b.args)
            assert pair.fields  # a changed pair really differs


def test_anchoring_on_identical_calls_keeps_a_repeated_read_aligned() -> None:
    a = calls(("read", {"p": "a"}), ("read", {"p": "b"}), ("read", {"p": "a"}), ("edit", {"p": "a"}))
    b = calls(("read", {"p": "a"}), ("read", {"p": "a"}), ("edit", {"p": "a"}))
    # Pairing by position would call B's second read a change of A's read of b.
    assert summary(a, b) == [("removed", 1, None)]


def test_a_call_made_elsewhere_is_one_move() -> None:
    a = calls(("x", {}), ("y", {}), ("z", {}))
    b = calls(("z", {}), ("x", {}), ("y", {}))
    assert summary(a, b) == [("moved", 2, 0)]


def test_same_tool_between_anchors_is_a_change_listed_by_field() -> None:
    a = calls(("start", {}), ("http", {"method": "GET", "opts": {"t": 1, "keep": True}}), ("end", {}))
    b = calls(("start", {}), ("http", {"method": "DELETE", "opts": {"t": 1}, "force": True}), ("end", {}))
    (pair,) = [p for p in diff_calls(a, b) if p.kind is PairKind.CHANGED]
    assert [(f.path, f.before, f.after, f.in_before, f.in_after) for f in pair.fields] == [
        ("force", None, True, False, True),
        ("method", "GET", "DELETE", True, True),
        ("opts.keep", True, None, True, False),
    ]


def test_different_tools_between_anchors_are_added_and_removed() -> None:
    a = calls(("start", {}), ("archive", {"p": 1}), ("end", {}))
    b = calls(("start", {}), ("delete", {"p": 1}), ("end", {}))
    assert summary(a, b) == [("added", None, 1), ("removed", 1, None)]


def test_ignored_arguments_make_calls_match() -> None:
    a = calls(("create", {"title": "x", "request_id": "r-1"}))
    b = calls(("create", {"title": "x", "request_id": "r-2"}))
    assert summary(a, b) == [("changed", 0, 0)]
    kinds = [p.kind for p in diff_calls(a, b, Matcher(ignore=("*_id",)))]
    assert kinds == [PairKind.SAME]


def test_the_longest_run_of_identical_calls_in_order_is_anchored() -> None:
    """A longest block first (what the diff did before) anchors the last read and then reports the listing
    as moved and the first read as removed; the longest common subsequence keeps the listing and the read
    in place and reports only what really differs."""
    a = calls(("read", {"p": "a"}), ("list", {"p": "."}), ("read", {"p": "a"}))
    b = calls(("list", {"p": "."}), ("write", {"p": "c"}), ("read", {"p": "a"}))
    assert summary(a, b) == [("added", None, 1), ("removed", 0, None)]


def test_sessions_that_used_to_stall_pair_every_call() -> None:
    """A walk over the same files again and again with one argument changed each cycle, a session against its
    own reverse, and two sessions with nothing in common: each pairs as it should."""
    walked: list[tuple[str, JSONObject]] = [("lint", {"path": f"f{k % 500}"}) for k in range(20_000)]
    walk = calls(*walked)
    edited = list(walk)
    for cycle in range(40):
        at = cycle * 500 + cycle * 7
        edited[at] = Call(at, "lint", {"path": f"f{at % 500}", "strict": False}, {}, at + 1)
    kinds = Counter(pair.kind for pair in diff_calls(walk, edited))
    assert kinds == {PairKind.SAME: 20_000 - 40, PairKind.CHANGED: 40}
    backwards = renumber(walk[:1_000][::-1])
    kinds = Counter(pair.kind for pair in diff_calls(walk[:1_000], backwards))
    assert kinds[PairKind.SAME] + kinds[PairKind.MOVED] == 1_000
    elsewhere: list[tuple[str, JSONObject]] = [("lint", {"path": f"g{k}"}) for k in range(20_000)]
    other = calls(*elsewhere)
    kinds = Counter(pair.kind for pair in diff_calls(walk, other))
    assert kinds == {PairKind.CHANGED: 20_000}
