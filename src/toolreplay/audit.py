"""The self-audit: non-determinism, redundant calls and the divergence point.

The audit judges a recording against itself, streaming over its calls and
keeping only what identity needs: a digest of each distinct call's canonical
bytes, with a digest of its first response and the index it was made at.

- Non-determinism: a call identical to an earlier one (same tool, same
  canonical arguments) whose response differs from the first occurrence's. The
  first such index is the divergence point.
- Redundant call: a call identical to the call just before it, with the same
  response, whose tool is not a mutator. Any different call in between could
  have changed state, and so could a mutator itself, so the rule would rather
  miss a redundancy than invent one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from toolreplay.canonical import canonical_bytes, canonical_call
from toolreplay.model import Call, Finding, FindingKind, sorted_findings

DEFAULT_MUTATORS = frozenset({"write_file", "delete_file", "create_file", "move_file", "run_command"})

MutatorTest = Callable[[Call], bool]


def default_is_mutator(call: Call) -> bool:
    """The built-in guess: a call to one of :data:`DEFAULT_MUTATORS` may change state."""
    return call.tool in DEFAULT_MUTATORS


# 128 bits of SHA-256: two different calls in a million collide with odds of about 1e-27.
_DIGEST_SIZE = 16


def _digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()[:_DIGEST_SIZE]


@dataclass(frozen=True, slots=True)
class AuditReport:
    """What the self-audit found in one recording."""

    calls: int
    divergence: int | None
    findings: tuple[Finding, ...]


def audit(calls: Iterable[Call], is_mutator: MutatorTest = default_is_mutator) -> AuditReport:
    """Audit a recording's calls against themselves."""
    # call digest -> response digest + index of the call's first occurrence, packed
    # into one bytes object: about 150 bytes per distinct call in all.
    first_seen: dict[bytes, bytes] = {}
    findings: list[Finding] = []
    divergence: int | None = None
    last_identity = b""
    last_response = b""
    last_index = -1
    count = 0
    for call in calls:
        count += 1
        identity = _digest(canonical_call(call.tool, call.args))
        response = _digest(canonical_bytes(call.result))
        first = first_seen.get(identity)
        if first is None:
            first_seen[identity] = response + call.index.to_bytes(8, "big", signed=True)
        elif not first.startswith(response):
            first_index = int.from_bytes(first[_DIGEST_SIZE:], "big", signed=True)
            findings.append(
                Finding(
                    call.index,
                    FindingKind.NON_DETERMINISM,
                    f"tool '{call.tool}' returned a different response than the identical call at index {first_index}",
                    call.line,
                )
            )
            if divergence is None:
                divergence = call.index
        elif identity == last_identity and response == last_response and not is_mutator(call):
            findings.append(
                Finding(
                    call.index,
                    FindingKind.REDUNDANT_CALL,
                    f"tool '{call.tool}' repeats the identical call at index {last_index} "
                    "with no state change between them",
                    call.line,
                )
            )
        last_identity, last_response, last_index = identity, response, call.index
    return AuditReport(count, divergence, sorted_findings(findings))
