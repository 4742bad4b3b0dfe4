"""The anchoring of the call diff: an exact longest common subsequence below the cut-off, a common subsequence
always, and the shapes that used to stall settled right."""

from __future__ import annotations

import itertools
from difflib import SequenceMatcher

from hypothesis import given
from hypothesis import strategies as st

from toolreplay.analysis.align import common_subsequence

keys = st.lists(st.integers(0, 6), max_size=40)


def longest(a: list[int], b: list[int]) -> int:
    """The length of a longest common subsequence, by the textbook table: the oracle."""
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal = 0
        for j, y in enumerate(b):
            diagonal, row[j + 1] = row[j + 1], diagonal + 1 if x == y else max(row[j + 1], row[j])
    return row[-1]


def is_common_subsequence(a: list[int], b: list[int], pairs: list[tuple[int, int]]) -> bool:
    ascending = all(p[0] < q[0] and p[1] < q[1] for p, q in itertools.pairwise(pairs))
    return ascending and all(a[i] == b[j] for i, j in pairs)


@given(keys, keys)
def test_below_the_cut_off_it_is_a_longest_common_subsequence(a: list[int], b: list[int]) -> None:
    pairs = common_subsequence(a, b)
    assert is_common_subsequence(a, b, pairs)
    assert len(pairs) == longest(a, b)


@given(keys, keys)
def test_it_anchors_at_least_what_the_matcher_it_replaced_did(a: list[int], b: list[int]) -> None:
    """The diff used to anchor small sessions with SequenceMatcher's longest blocks; a longest common
    subsequence never anchors fewer calls, and where it anchors more the diff reports fewer differences."""
    before = sum(block.size for block in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())
    assert len(common_subsequence(a, b)) >= before


@given(keys, keys, st.integers(1, 6), st.booleans())
def test_past_the_cut_off_it_is_still_a_common_subsequence(
    a: list[int], b: list[int], limit: int, patience: bool
) -> None:
    """With the cut-off forced low and the patience layer on or off, every layer's answer stays valid."""
    pairs = common_subsequence(a, b, cost_limit=limit, patience=patience)
    assert is_common_subsequence(a, b, pairs)
    assert len(pairs) <= longest(a, b)


def test_common_ends_and_a_single_edit_in_a_long_run_of_one_key() -> None:
    a = [7] * 30_000
    b = [*a[:12_345], 8, *a[12_346:]]
    assert len(common_subsequence(a, b)) == 29_999


def test_a_cycle_walked_again_and_again_with_one_edit_per_cycle_is_aligned_exactly() -> None:
    """No run of up to a thousand keys is made once, so only the Myers layer can align it; the edits are
    few, so it does so exactly."""
    a = [k % 1_000 for k in range(30_000)]
    b = list(a)
    for cycle in range(30):
        b[cycle * 1_000 + cycle * 31] = 1_000 + cycle
    pairs = common_subsequence(a, b)
    assert len(pairs) == 30_000 - 30
    assert all(i == j for i, j in pairs)


def test_a_reversed_or_disjoint_session_has_the_anchors_it_can() -> None:
    a = list(range(30_000))
    assert len(common_subsequence(a, a[::-1])) == 1
    assert common_subsequence(a, [k + 30_000 for k in a]) == []
