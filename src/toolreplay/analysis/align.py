"""Identical keys two sequences share in the same order, found with a worst case bounded for any input.

``common_subsequence(a, b)`` returns index pairs ``(i, j)``, ascending on both
sides, with ``a[i] == b[j]``. It is the anchoring of the call diff: the keys are
the calls' identities. Four layers, each cheap where the one above it is not:

1. **Only keys on both sides.** A key the other side never holds cannot be
   matched, so it is set aside before anything is searched (exact: it changes
   no answer). Two sessions with nothing in common cost one pass.
2. **Common ends.** A shared prefix and suffix are matched by comparing runs
   of keys, not keys one at a time.
3. **Keys made once (patience).** In a stretch longer than ``2 * COST_LIMIT``,
   keys that occur exactly once on each side are anchors; the longest chain of
   them in the same order is matched, and the stretches between them are
   aligned the same way. A session against its own reverse, or shuffled, is
   settled here in ``O(n log n)``. This layer spends at most
   ``PATIENCE_BUDGET`` times the two lengths in all; past that, stretches go
   straight to the layer below.
4. **Myers's O(ND) diff, in linear space, with a cut-off.** A stretch with no
   key made once on each side (an agent polling a few endpoints, or walking the
   same list of files again and again) is aligned by Myers's algorithm: the
   middle snake of a shortest edit script, found from both ends at once, then
   the two halves the same way. When a search passes ``COST_LIMIT`` edits
   without meeting, it settles for the point that went furthest (as GNU diff
   does): the part before that point is solved exactly, the rest is searched
   again. Each search costs at most about ``COST_LIMIT ** 2`` steps and moves
   the frontier on by at least ``COST_LIMIT`` keys.

The answer is a longest common subsequence (Myers is exact) for any stretch of
at most ``2 * COST_LIMIT`` keys in all. In a larger one the patience layer's
anchors come first, and they need not lie on a longest common subsequence (one
call made once at the start of one side and at the end of the other anchors
itself and leaves the run between them unmatched); the Myers layer is exact in
the stretches between anchors whose sides differ by fewer than about
``COST_LIMIT`` edits in each half. Otherwise the answer is still a common
subsequence, only perhaps not the longest; the diff then pairs the calls left
over as moves, changes, additions and removals, so every call is still paired.
The whole costs ``O((N + M) * (PATIENCE_BUDGET + COST_LIMIT))`` at worst, runs
of equal keys compared in C.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence

# Edit steps a middle-snake search takes before it settles for the furthest point it reached.
COST_LIMIT = 64
# The patience layer's total work, as a multiple of the two sequences' lengths.
PATIENCE_BUDGET = 8

Run = tuple[int, int, int]  # (i, j, length): a[i + t] == b[j + t] for t < length


def common_subsequence(
    a: Sequence[int], b: Sequence[int], cost_limit: int = COST_LIMIT, patience: bool = True
) -> list[tuple[int, int]]:
    """Index pairs of identical keys in the same order on both sides, ascending.

    ``cost_limit`` and ``patience`` are the layers' settings, exposed so the tests
    can hold each layer to an exact oracle on small inputs.
    """
    shared = set(a).intersection(b)
    where_a = [i for i, key in enumerate(a) if key in shared]
    where_b = [j for j, key in enumerate(b) if key in shared]
    keys_a = [a[i] for i in where_a]
    keys_b = [b[j] for j in where_b]
    runs: list[Run] = []
    budget = [PATIENCE_BUDGET * (len(keys_a) + len(keys_b)) if patience else 0]
    stack = [(0, len(keys_a), 0, len(keys_b))]
    while stack:
        lo_a, hi_a, lo_b, hi_b = stack.pop()
        lo_a, hi_a, lo_b, hi_b = _trim(keys_a, lo_a, hi_a, keys_b, lo_b, hi_b, runs)
        if lo_a == hi_a or lo_b == hi_b:
            continue
        size = hi_a - lo_a + hi_b - lo_b
        if size > 2 * cost_limit and budget[0] >= size:
            budget[0] -= size
            anchors = _unique_in_order(keys_a, lo_a, hi_a, keys_b, lo_b, hi_b)
            if anchors:
                at_a, at_b = lo_a, lo_b
                for i, j in anchors:
                    runs.append((i, j, 1))
                    stack.append((at_a, i, at_b, j))
                    at_a, at_b = i + 1, j + 1
                stack.append((at_a, hi_a, at_b, hi_b))
                continue
        _myers(keys_a, lo_a, hi_a, keys_b, lo_b, hi_b, cost_limit, runs)
    runs.sort()
    return [(where_a[i + t], where_b[j + t]) for i, j, length in runs for t in range(length)]


def _trim(
    a: list[int], lo_a: int, hi_a: int, b: list[int], lo_b: int, hi_b: int, runs: list[Run]
) -> tuple[int, int, int, int]:
    """Match the common prefix and suffix of a stretch; the stretch left between them."""
    head = _forward(a, lo_a, hi_a, b, lo_b, hi_b) - lo_a
    if head:
        runs.append((lo_a, lo_b, head))
        lo_a, lo_b = lo_a + head, lo_b + head
    tail = hi_a - _backward(a, lo_a, hi_a, b, lo_b, hi_b)
    if tail:
        hi_a, hi_b = hi_a - tail, hi_b - tail
        runs.append((hi_a, hi_b, tail))
    return lo_a, hi_a, lo_b, hi_b


def _forward(a: list[int], x: int, x_end: int, b: list[int], y: int, y_end: int) -> int:
    """The first ``x`` at or after the given one where ``a[x:]`` and ``b[y:]`` part (a snake followed down)."""
    room = min(x_end - x, y_end - y)
    done = 0
    while done < room and done < 8:
        if a[x + done] != b[y + done]:
            return x + done
        done += 1
    step = 16
    while done < room:  # gallop over long equal runs with slice comparisons, then halve
        size = min(step, room - done)
        if a[x + done : x + done + size] == b[y + done : y + done + size]:
            done += size
            step *= 2
            continue
        while size > 1:
            half = size // 2
            if a[x + done : x + done + half] == b[y + done : y + done + half]:
                done += half
                size -= half
            else:
                size = half
        return x + done
    return x + done


def _backward(a: list[int], x_start: int, x: int, b: list[int], y_start: int, y: int) -> int:
    """The last ``x`` at or before the given one where ``a[:x]`` and ``b[:y]`` part (a snake followed up)."""
    room = min(x - x_start, y - y_start)
    done = 0
    while done < room and done < 8:
        if a[x - done - 1] != b[y - done - 1]:
            return x - done
        done += 1
    step = 16
    while done < room:
        size = min(step, room - done)
        if a[x - done - size : x - done] == b[y - done - size : y - done]:
            done += size
            step *= 2
            continue
        while size > 1:
            half = size // 2
            if a[x - done - half : x - done] == b[y - done - half : y - done]:
                done += half
                size -= half
            else:
                size = half
        return x - done
    return x - done


def _unique_in_order(a: list[int], lo_a: int, hi_a: int, b: list[int], lo_b: int, hi_b: int) -> list[tuple[int, int]]:
    """Keys made exactly once on each side of a stretch: the longest chain of them in the same order."""
    region_a, region_b = a[lo_a:hi_a], b[lo_b:hi_b]
    once = {key for key, count in Counter(region_b).items() if count == 1}
    once.intersection_update([key for key, count in Counter(region_a).items() if count == 1])
    if not once:
        return []
    where_b = dict(zip(region_b, range(lo_b, hi_b), strict=True))  # right for every key made once
    candidates = [(i, where_b[key]) for i, key in enumerate(region_a, lo_a) if key in once]
    # Longest increasing subsequence of the B positions (patience sorting), O(n log n).
    tails: list[int] = []  # the B position ending the best chain of each length
    tail_at: list[int] = []  # the candidate ending it
    back = [-1] * len(candidates)
    for position, (_, j) in enumerate(candidates):
        length = bisect.bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            tail_at.append(position)
        else:
            tails[length] = j
            tail_at[length] = position
        back[position] = tail_at[length - 1] if length else -1
    chain: list[tuple[int, int]] = []
    position = tail_at[-1]
    while position != -1:
        chain.append(candidates[position])
        position = back[position]
    return chain[::-1]


def _myers(
    a: list[int], lo_a: int, hi_a: int, b: list[int], lo_b: int, hi_b: int, cost_limit: int, runs: list[Run]
) -> None:
    """Align a stretch by Myers's divide and conquer on middle snakes, with the cut-off; append its runs."""
    # Keys the other side of this stretch does not hold cannot be matched here: leave them out.
    inside_a, inside_b = set(a[lo_a:hi_a]), set(b[lo_b:hi_b])
    where_a = [i for i in range(lo_a, hi_a) if a[i] in inside_b]
    where_b = [j for j in range(lo_b, hi_b) if b[j] in inside_a]
    xs = [a[i] for i in where_a]
    ys = [b[j] for j in where_b]
    local: list[Run] = []
    # The furthest x reached on each diagonal (x - y), forward and backward, indexed from -len(ys) - 1.
    offset = len(ys) + 1
    forward = [0] * (len(xs) + len(ys) + 3)
    backward = [0] * (len(xs) + len(ys) + 3)
    stack = [(0, len(xs), 0, len(ys), False)]
    while stack:
        x_lo, x_hi, y_lo, y_hi, minimal = stack.pop()
        x_lo, x_hi, y_lo, y_hi = _trim(xs, x_lo, x_hi, ys, y_lo, y_hi, local)
        if x_lo == x_hi or y_lo == y_hi:
            continue
        x_mid, y_mid, lo_minimal, hi_minimal = _split(
            xs, x_lo, x_hi, ys, y_lo, y_hi, cost_limit if not minimal else 0, forward, backward, offset
        )
        stack.append((x_mid, x_hi, y_mid, y_hi, hi_minimal))
        stack.append((x_lo, x_mid, y_lo, y_mid, lo_minimal))
    for i, j, length in local:
        # Leaving keys out joins runs that were apart; give each matched key back its own place.
        for t in range(length):
            runs.append((where_a[i + t], where_b[j + t], 1))


def _split(
    a: list[int],
    x_lo: int,
    x_hi: int,
    b: list[int],
    y_lo: int,
    y_hi: int,
    cost_limit: int,
    forward: list[int],
    backward: list[int],
    offset: int,
) -> tuple[int, int, bool, bool]:
    """Where to cut a stretch in two: the middle snake's point, or past ``cost_limit`` (when not 0) the
    furthest point either search reached. Also whether each half may be solved exactly (it is known cheap).

    The stretch starts and ends with keys that differ (``_trim`` took the common ends).
    """
    d_min, d_max = x_lo - y_hi, x_hi - y_lo
    f_mid, b_mid = x_lo - y_lo, x_hi - y_hi
    f_min = f_max = f_mid
    b_min = b_max = b_mid
    odd = (f_mid - b_mid) & 1
    forward[f_mid + offset] = x_lo
    backward[b_mid + offset] = x_hi
    beyond = x_hi + y_hi + 1
    cost = 0
    while True:
        cost += 1
        # One more edit forward: every diagonal in reach, each extended along its snake.
        if f_min > d_min:
            f_min -= 1
            forward[f_min - 1 + offset] = -1
        else:
            f_min += 1
        if f_max < d_max:
            f_max += 1
            forward[f_max + 1 + offset] = -1
        else:
            f_max -= 1
        for d in range(f_max, f_min - 1, -2):
            below, above = forward[d - 1 + offset], forward[d + 1 + offset]
            x = above if below < above else below + 1
            y = x - d
            if x < x_hi and y < y_hi and a[x] == b[y]:
                x = _forward(a, x, x_hi, b, y, y_hi)
            forward[d + offset] = x
            if odd and b_min <= d <= b_max and backward[d + offset] <= x:
                return x, x - d, True, True
        # One more edit backward.
        if b_min > d_min:
            b_min -= 1
            backward[b_min - 1 + offset] = beyond
        else:
            b_min += 1
        if b_max < d_max:
            b_max += 1
            backward[b_max + 1 + offset] = beyond
        else:
            b_max -= 1
        for d in range(b_max, b_min - 1, -2):
            below, above = backward[d - 1 + offset], backward[d + 1 + offset]
            x = below if below < above else above - 1
            y = x - d
            if x_lo < x and y_lo < y and a[x - 1] == b[y - 1]:
                x = _backward(a, x_lo, x, b, y_lo, y)
            backward[d + offset] = x
            if not odd and f_min <= d <= f_max and x <= forward[d + offset]:
                return x, x - d, True, True
        if cost_limit and cost >= cost_limit:
            return _furthest(x_lo, x_hi, y_lo, y_hi, f_min, f_max, b_min, b_max, forward, backward, offset)


def _furthest(
    x_lo: int,
    x_hi: int,
    y_lo: int,
    y_hi: int,
    f_min: int,
    f_max: int,
    b_min: int,
    b_max: int,
    forward: list[int],
    backward: list[int],
    offset: int,
) -> tuple[int, int, bool, bool]:
    """The cut-off: the point of the two searches that got furthest from where it started."""
    best_forward, forward_x = -1, x_lo
    for d in range(f_max, f_min - 1, -2):
        x = min(forward[d + offset], x_hi)
        y = x - d
        if y > y_hi:
            x, y = y_hi + d, y_hi
        if x + y > best_forward:
            best_forward, forward_x = x + y, x
    best_backward, backward_x = x_hi + y_hi + 1, x_hi
    for d in range(b_max, b_min - 1, -2):
        x = max(x_lo, backward[d + offset])
        y = x - d
        if y < y_lo:
            x, y = y_lo + d, y_lo
        if x + y < best_backward:
            best_backward, backward_x = x + y, x
    if (x_hi + y_hi) - best_backward < best_forward - (x_lo + y_lo):
        return forward_x, best_forward - forward_x, True, False
    return backward_x, best_backward - backward_x, False, True
