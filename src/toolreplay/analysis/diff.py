"""The call-level diff of two recordings: what B did that A did not, and the reverse.

Three passes line B's calls up against A's, and every call on both sides ends
up in exactly one pair:

1. **Anchor.** Identical calls (same tool, same arguments after matching) in the
   same order are matched first: as many of them as possible, by
   ``align.common_subsequence`` over the calls' identities (a longest common
   subsequence, exact below a documented cut-off, and bounded for any input:
   no shape of session makes it quadratic). Anchoring on identical calls first
   keeps a repeated read from pulling the alignment off course.
2. **Moves.** When the same call is still unpaired on both sides after
   anchoring, the run made it elsewhere: one ``moved`` pair, first with first.
3. **Pairs.** Between two anchors, a call left on each side to the same tool is
   one call whose arguments changed (``changed``, listed field by field).

In a conversation every pass matches calls of the same turn only: a call is
placed by the person's message it answers as well as by its order. When one
side knows no turns (a transcript, or a proxy's log, holds one message), turns
are not compared.

Whatever is left is ``removed`` (only in A) or ``added`` (only in B).
"""

from __future__ import annotations

import bisect
from collections import defaultdict, deque
from collections.abc import Iterator, Sequence
from dataclasses import field, replace
from typing import TYPE_CHECKING

from toolreplay.analysis.align import common_subsequence
from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.analysis.matching import EXACT, Matcher
from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes
from toolreplay.core.findings import Level, Rule, decide_levels
from toolreplay.core.model import Call, CallClass, PairKind, Session
from toolreplay.core.records import record
from toolreplay.core.verdict import FailOn, Verdict

if TYPE_CHECKING:
    from toolreplay.analysis.policies import Violation


@record
class FieldChange:
    """One argument that differs between the two calls of a changed pair."""

    path: str
    before: JSONValue
    after: JSONValue
    in_before: bool = True
    in_after: bool = True


@record
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
    # A call's identity is its turn of the conversation as well as its tool and arguments: the same call in
    # answer to a different message from the person is a different call. That needs both sides to know their
    # turns: a recording of one message (a transcript, a proxy's log) places every call in turn 1.
    by_turn = max((c.turn for c in a), default=1) > 1 and max((c.turn for c in b), default=1) > 1
    interned: dict[tuple[int, bytes], int] = {}
    keys_a = [interned.setdefault((call.turn if by_turn else 1, matcher.key(call)), len(interned)) for call in a]
    keys_b = [interned.setdefault((call.turn if by_turn else 1, matcher.key(call)), len(interned)) for call in b]

    pairs: list[Pair] = []
    paired_a = [False] * len(a)
    paired_b = [False] * len(b)
    anchors_a: list[int] = []  # the A index of every anchored call, ascending
    anchors_b: list[int] = []
    for i, j in common_subsequence(keys_a, keys_b):
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

    # Pairs: in each gap between anchors, same tool on both sides is a changed call (the first such A call).
    gaps: dict[tuple[int, int, str], deque[int]] = defaultdict(deque)
    for i in range(len(a)):
        if not paired_a[i]:
            gaps[(bisect.bisect_left(anchors_a, i), a[i].turn if by_turn else 1, a[i].tool)].append(i)
    for j in range(len(b)):
        if paired_b[j]:
            continue
        waiting_a = gaps.get((bisect.bisect_left(anchors_b, j), b[j].turn if by_turn else 1, b[j].tool))
        if waiting_a:
            i = waiting_a.popleft()
            fields = field_changes(
                matcher.matched_args(a[i].tool, a[i].args), matcher.matched_args(b[j].tool, b[j].args)
            )
            pairs.append(Pair(PairKind.CHANGED, a[i], b[j], fields))
            paired_a[i] = paired_b[j] = True

    pairs.extend(Pair(PairKind.REMOVED, call, None) for i, call in enumerate(a) if not paired_a[i])
    pairs.extend(Pair(PairKind.ADDED, None, call) for j, call in enumerate(b) if not paired_b[j])
    return tuple(sorted(pairs, key=lambda pair: pair.order))


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
    from difflib import SequenceMatcher  # noqa: PLC0415 - only where there are two replies to weigh

    return SequenceMatcher(None, a, b, autojunk=False).ratio()


@record
class DiffResult:
    """Two recordings compared call by call, with each call's class."""

    a: Session
    b: Session
    pairs: tuple[Pair, ...]
    classes_a: tuple[CallClass, ...]
    classes_b: tuple[CallClass, ...]
    similarity: float | None
    fail_on: FailOn
    broken: tuple[Violation, ...] = ()  # with policies: the first way B breaks each policy A keeps
    # Worked out once, when the result is made: a renderer asks for them per difference, and each costs a pass.
    turns: int = field(init=False)  # how many turns either side reached (1 for a single message, a transcript)
    differences: tuple[Pair, ...] = field(init=False)
    new_destructive: tuple[Pair, ...] = field(init=False)  # B's destructive calls A did not make: added, changed

    def __post_init__(self) -> None:
        turns = max((call.turn for call in (*self.a.calls, *self.b.calls)), default=1)
        differences = tuple(pair for pair in self.pairs if pair.kind is not PairKind.SAME)
        destructive = tuple(pair for pair in differences if self.new_call_destroys(pair))
        object.__setattr__(self, "turns", turns)
        object.__setattr__(self, "differences", differences)
        object.__setattr__(self, "new_destructive", destructive)

    def count(self, kind: PairKind) -> int:
        return sum(1 for pair in self.pairs if pair.kind is kind)

    def new_call_destroys(self, pair: Pair) -> bool:
        """Whether B makes, in this pair, a destructive call A did not make (an added or changed one)."""
        return (
            pair.b is not None
            and pair.kind in (PairKind.ADDED, PairKind.CHANGED)
            and self.classes_b[pair.b.index] is CallClass.DESTRUCTIVE
        )

    def rule(self, pair: Pair) -> Rule:
        """What a difference is found to be: every one counts, B's new destructive call as an error."""
        return Rule.DESTRUCTIVE_CALL if self.new_call_destroys(pair) else Rule.BEHAVIOUR_CHANGE

    def rules(self) -> Iterator[Rule]:
        """A rule for each finding the diff makes: its verdict's, and its reports'."""
        yield from (rule for rule, _ in self.levels())

    def levels(self) -> Iterator[tuple[Rule, Level]]:
        """Each finding's rule at its level: a policy B breaks and A keeps at the policy's own."""
        yield from ((rule, rule.level) for rule in map(self.rule, self.differences))
        yield from ((Rule.POLICY_VIOLATION, found.policy.level) for found in self.broken)

    @property
    def verdict(self) -> Verdict:
        return decide_levels(self.levels(), self.fail_on)


def _final_reply(session: Session) -> str | None:
    return session.context.final_reply if session.context is not None else None


def compare_recordings(a: Session, b: Session, policy: Policy, fail_on: FailOn = FailOn.DESTRUCTIVE) -> DiffResult:
    """Diff B against A and classify both sides' calls, each with its own tools."""
    classify_a = Classifier.of(policy, a.context)
    classify_b = Classifier.of(policy, b.context)
    result = compare_with(a, b, classify_a, classify_b, fail_on)
    if not policy.policies:
        return result
    from toolreplay.analysis.policies import violated  # noqa: PLC0415 - only a diff given policies

    kept = violated(a.calls, policy.policies, _final_reply(a) is not None or a.context is None)
    broken = violated(b.calls, policy.policies, _final_reply(b) is not None or b.context is None)
    return replace(result, broken=tuple(found for ident, found in broken.items() if ident not in kept))


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
