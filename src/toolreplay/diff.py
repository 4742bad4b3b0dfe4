"""The call-level diff of two recordings: what B did that A did not, and the reverse.

Three passes line B's calls up against A's, and every call on both sides ends
up in exactly one pair:

1. **Anchor.** Identical calls (same tool, same arguments after matching) in the
   same order are matched first, with ``difflib.SequenceMatcher`` (autojunk off)
   over the calls' identities. Anchoring on identical calls first keeps a
   repeated read from pulling the alignment off course. On long sessions the
   matcher would go quadratic over calls that repeat (a status check made
   hundreds of times), so calls made exactly once on each side are anchored
   first, as the longest run in the same order (patience diff), and the matcher
   aligns only the stretches between them.
2. **Moves.** When the same call is still unpaired on both sides after
   anchoring, the run made it elsewhere: one ``moved`` pair, first with first.
3. **Pairs.** Between two anchors, a call left on each side to the same tool is
   one call whose arguments changed (``changed``, listed field by field).

Whatever is left is ``removed`` (only in A) or ``added`` (only in B).
"""

from __future__ import annotations

import bisect
import enum
from collections import Counter, defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from toolreplay.canonical import JSONObject, JSONValue, canonical_bytes
from toolreplay.classify import CallClass, Classifier, Policy
from toolreplay.matching import EXACT, Matcher
from toolreplay.model import Call, Session
from toolreplay.verdict import FailOn, Verdict, decide


class PairKind(enum.Enum):
    SAME = "same"
    MOVED = "moved"
    CHANGED = "changed"
    ADDED = "added"
    REMOVED = "removed"


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One argument that differs between the two calls of a changed pair."""

    path: str
    before: JSONValue
    after: JSONValue
    in_before: bool = True
    in_after: bool = True


@dataclass(frozen=True, slots=True)
class Pair:
    """A call of A, a call of B, or both, and how they relate."""

    kind: PairKind
    a: Call | None
    b: Call | None
    fields: tuple[FieldChange, ...] = ()

    @property
    def order(self) -> tuple[int, int]:
        """Report order: B's calls by index, then A-only calls by index."""
        return (0, self.b.index) if self.b is not None else (1, self.a.index if self.a is not None else 0)


def diff_calls(a: Sequence[Call], b: Sequence[Call], matcher: Matcher = EXACT) -> tuple[Pair, ...]:
    """Pair up every call of ``a`` and ``b``; the pairs come in report order."""
    interned: dict[bytes, int] = {}
    keys_a = [interned.setdefault(matcher.key(call), len(interned)) for call in a]
    keys_b = [interned.setdefault(matcher.key(call), len(interned)) for call in b]

    pairs: list[Pair] = []
    paired_a = [False] * len(a)
    paired_b = [False] * len(b)
    anchors_a: list[int] = []  # the A index of every anchored call, ascending
    anchors_b: list[int] = []
    for i, j in _anchor(keys_a, keys_b):
        pairs.append(Pair(PairKind.SAME, a[i], b[j]))
        paired_a[i] = paired_b[j] = True
        anchors_a.append(i)
        anchors_b.append(j)

    # Moves: identical calls left over on both sides, first with first.
    waiting: dict[int, deque[int]] = defaultdict(deque)
    for i, key in enumerate(keys_a):
        if not paired_a[i]:
            waiting[key].append(i)
    for j, key in enumerate(keys_b):
        if not paired_b[j] and waiting.get(key):
            i = waiting[key].popleft()
            pairs.append(Pair(PairKind.MOVED, a[i], b[j]))
            paired_a[i] = paired_b[j] = True

    # Pairs: in each gap between anchors, same tool on both sides is a changed call.
    gaps: dict[int, list[int]] = defaultdict(list)
    for i in range(len(a)):
        if not paired_a[i]:
            gaps[bisect.bisect_left(anchors_a, i)].append(i)
    for j in range(len(b)):
        if paired_b[j]:
            continue
        gap = gaps.get(bisect.bisect_left(anchors_b, j), [])
        for position, i in enumerate(gap):
            if a[i].tool == b[j].tool:
                del gap[position]
                fields = field_changes(
                    matcher.matched_args(a[i].tool, a[i].args), matcher.matched_args(b[j].tool, b[j].args)
                )
                pairs.append(Pair(PairKind.CHANGED, a[i], b[j], fields))
                paired_a[i] = paired_b[j] = True
                break

    pairs.extend(Pair(PairKind.REMOVED, call, None) for i, call in enumerate(a) if not paired_a[i])
    pairs.extend(Pair(PairKind.ADDED, None, call) for j, call in enumerate(b) if not paired_b[j])
    return tuple(sorted(pairs, key=lambda pair: pair.order))


def _anchor(keys_a: list[int], keys_b: list[int]) -> list[tuple[int, int]]:
    """Index pairs of identical calls in the same order on both sides, ascending."""
    anchored: list[tuple[int, int]] = []
    lo_a = lo_b = 0
    for i, j in [*_unique_in_order(keys_a, keys_b), (len(keys_a), len(keys_b))]:
        matcher = SequenceMatcher(None, keys_a[lo_a:i], keys_b[lo_b:j], autojunk=False)
        for block in matcher.get_matching_blocks():
            anchored.extend((lo_a + block.a + k, lo_b + block.b + k) for k in range(block.size))
        if i < len(keys_a):
            anchored.append((i, j))
        lo_a, lo_b = i + 1, j + 1
    return anchored


def _unique_in_order(keys_a: list[int], keys_b: list[int]) -> list[tuple[int, int]]:
    """Calls made exactly once on each side: the longest run of them in the same order."""
    count_a, count_b = Counter(keys_a), Counter(keys_b)
    where_b = {key: j for j, key in enumerate(keys_b) if count_b[key] == 1}
    candidates = [(i, where_b[key]) for i, key in enumerate(keys_a) if count_a[key] == 1 and key in where_b]
    # Longest increasing subsequence of the B positions (patience sorting), O(n log n).
    tails: list[int] = []  # B position ending the best run of each length
    tail_at: list[int] = []  # index into candidates of that run's last element
    back: list[int] = [-1] * len(candidates)
    for position, (_, j) in enumerate(candidates):
        length = bisect.bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            tail_at.append(position)
        else:
            tails[length] = j
            tail_at[length] = position
        back[position] = tail_at[length - 1] if length else -1
    run: list[tuple[int, int]] = []
    position = tail_at[-1] if tail_at else -1
    while position != -1:
        run.append(candidates[position])
        position = back[position]
    return run[::-1]


def field_changes(before: JSONObject, after: JSONObject, prefix: str = "") -> tuple[FieldChange, ...]:
    """The argument paths whose values differ, nested objects followed down (``a.b``)."""
    changes: list[FieldChange] = []
    for key in sorted(before.keys() | after.keys()):
        path = f"{prefix}{key}"
        if key not in after:
            changes.append(FieldChange(path, before[key], None, in_after=False))
        elif key not in before:
            changes.append(FieldChange(path, None, after[key], in_before=False))
        else:
            old, new = before[key], after[key]
            if isinstance(old, dict) and isinstance(new, dict):
                changes.extend(field_changes(old, new, f"{path}."))
            elif canonical_bytes(old) != canonical_bytes(new):
                changes.append(FieldChange(path, old, new))
    return tuple(changes)


def reply_similarity(a: str | None, b: str | None) -> float | None:
    """How alike two final replies read (0 to 1), as context only; None if either is missing."""
    if a is None or b is None:
        return None
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


@dataclass(frozen=True, slots=True)
class DiffResult:
    """Two recordings compared call by call, with each call's class."""

    a: Session
    b: Session
    pairs: tuple[Pair, ...]
    classes_a: tuple[CallClass, ...]
    classes_b: tuple[CallClass, ...]
    similarity: float | None
    fail_on: FailOn

    def count(self, kind: PairKind) -> int:
        return sum(1 for pair in self.pairs if pair.kind is kind)

    @property
    def differences(self) -> tuple[Pair, ...]:
        return tuple(pair for pair in self.pairs if pair.kind is not PairKind.SAME)

    @property
    def new_destructive(self) -> tuple[Pair, ...]:
        """B's destructive calls that A did not make: added, or changed into them."""
        return tuple(
            pair
            for pair in self.pairs
            if pair.b is not None
            and pair.kind in (PairKind.ADDED, PairKind.CHANGED)
            and self.classes_b[pair.b.index] is CallClass.DESTRUCTIVE
        )

    @property
    def verdict(self) -> Verdict:
        return decide(self.fail_on, bool(self.new_destructive), bool(self.differences))


def _final_reply(session: Session) -> str | None:
    return session.context.final_reply if session.context is not None else None


def compare_recordings(a: Session, b: Session, policy: Policy, fail_on: FailOn = FailOn.DESTRUCTIVE) -> DiffResult:
    """Diff B against A and classify both sides' calls, each with its own tools."""
    classify_a = Classifier(policy, a.context.tools if a.context is not None else ())
    classify_b = Classifier(policy, b.context.tools if b.context is not None else ())
    return compare_with(a, b, classify_a, classify_b, fail_on)


def compare_with(
    a: Session, b: Session, classify_a: Classifier, classify_b: Classifier, fail_on: FailOn = FailOn.DESTRUCTIVE
) -> DiffResult:
    """Diff B against A, classifying each side with the classifier given for it."""
    policy = classify_b.policy
    return DiffResult(
        a,
        b,
        diff_calls(a.calls, b.calls, policy.matcher),
        tuple(classify_a.classify(call).klass for call in a.calls),
        tuple(classify_b.classify(call).klass for call in b.calls),
        reply_similarity(_final_reply(a), _final_reply(b)),
        fail_on,
    )
