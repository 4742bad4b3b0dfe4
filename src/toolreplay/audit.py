"""The self-audit: non-determinism, redundant calls and the divergence point.

The audit judges a recording against itself, streaming over its calls and
keeping only what identity needs: the digest of each distinct call's canonical
bytes, with the index and response digest of its first occurrence.

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


@dataclass(frozen=True, slots=True)
class AuditReport:
    """What the self-audit found in one recording."""

    calls: int
    divergence: int | None
    findings: tuple[Finding, ...]


def audit(calls: Iterable[Call], is_mutator: MutatorTest = default_is_mutator) -> AuditReport:
    """Audit a recording's calls against themselves."""
    first_seen: dict[bytes, tuple[int, bytes]] = {}
    findings: list[Finding] = []
    divergence: int | None = None
    last_identity = b""
    last_response = b""
    last_index = -1
    count = 0
    for call in calls:
        count += 1
        identity = hashlib.sha256(canonical_call(call.tool, call.args)).digest()
        response = hashlib.sha256(canonical_bytes(call.result)).digest()
        first = first_seen.setdefault(identity, (call.index, response))
        if first[1] != response:
            findings.append(
                Finding(
                    call.index,
                    FindingKind.NON_DETERMINISM,
                    f"tool '{call.tool}' returned a different response than the identical call at index {first[0]}",
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
