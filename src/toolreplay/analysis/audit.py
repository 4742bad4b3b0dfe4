"""The self-audit: non-determinism, redundant calls and the divergence point.

The audit judges a recording against itself, streaming over its calls and
keeping only what identity needs: a digest of each distinct call's canonical
bytes, with a digest of its first response and the index it was made at.

- Non-determinism: a call identical to an earlier one (same tool, same
  canonical arguments) whose response differs. The first such index is the
  divergence point. For a flat transcript (the auditor's rule, on which its
  documented outputs rest) the response is compared with the first
  occurrence's, whatever happened in between. For a session, whose calls have
  classes, the world is stateful: the response is compared with the call's last
  occurrence, and a write or destructive call in between explains a difference,
  as does the person speaking again in a conversation (they may have changed
  something themselves).
- Redundant call: a call identical to the call just before it, with the same
  response, that does not mutate, in the same turn of the conversation. Any
  different call in between could have changed state, and so could a mutator itself, so the rule would rather miss a
  redundancy than invent one. What mutates comes from the classifier: a write or
  destructive class, else the auditor's default list of mutating tools.
- Annotation mismatch: a tool its annotations call read-only, but a rule says
  writes or destroys.
- Policy violation: a call that breaks a policy of the policy file (an order, a
  count, a flow: :mod:`toolreplay.analysis.policies`), judged in the same pass; a
  ``require`` no call met is reported at the recording's end.

"Identical" is decided by the classifier's argument matching.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from toolreplay.analysis.classify import Classifier
from toolreplay.core.canonical import canonical_bytes
from toolreplay.core.model import Call, Finding, FindingKind, sorted_findings
from toolreplay.core.records import record

if TYPE_CHECKING:
    from toolreplay.analysis.policies import Violation

# 128 bits of SHA-256, as Matcher.identity gives them: two different calls in a
# million collide with odds of about 1e-27.
_DIGEST_SIZE = 16


@record
class AuditReport:
    """What the self-audit found in one recording."""

    calls: int
    divergence: int | None
    findings: tuple[Finding, ...]
    violations: tuple[Violation, ...] = ()  # the policies broken, each also one of the findings


def audit(calls: Iterable[Call], classifier: Classifier | None = None, stateful: bool = False) -> AuditReport:
    """Audit a recording's calls against themselves; ``stateful`` for a session (see above)."""
    classifier = Classifier() if classifier is None else classifier
    identify = classifier.policy.matcher.identifier()
    check_rules = bool(classifier.policy.rules)
    judge = None
    if classifier.policy.policies:  # the judging is loaded only with policies to judge by
        from toolreplay.analysis.policies import RunJudge  # noqa: PLC0415

        judge = RunJudge(classifier.policy.policies)
    # call digest -> response digest + index of the occurrence compared with + the number of state
    # changes before it, packed into one bytes object: about 160 bytes per distinct call in all.
    first_seen: dict[bytes, bytes] = {}
    changes = 0  # state changes so far (stateful only)
    findings: list[Finding] = []
    divergence: int | None = None
    last_identity = b""
    last_response = b""
    last_index = -1
    last_turn = 1
    count = 0
    sha256 = hashlib.sha256
    for call in calls:
        count += 1
        if call.turn != last_turn:
            # The person spoke between the two calls: they may have changed the world, as a write would.
            changes += 1
            last_identity, last_turn = b"", call.turn
        identity = identify(call)
        response = sha256(canonical_bytes(call.result)).digest()[:_DIGEST_SIZE]
        first = first_seen.get(identity)
        if first is None or (stateful and int.from_bytes(first[-8:], "big") != changes):
            # First seen, or the world changed since: nothing to compare with.
            first_seen[identity] = response + call.index.to_bytes(8, "big", signed=True) + changes.to_bytes(8, "big")
        elif not first.startswith(response):
            first_index = int.from_bytes(first[_DIGEST_SIZE:-8], "big", signed=True)
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
        elif identity == last_identity and response == last_response and not classifier.is_mutator(call):
            findings.append(
                Finding(
                    call.index,
                    FindingKind.REDUNDANT_CALL,
                    f"tool '{call.tool}' repeats the identical call at index {last_index} "
                    "with no state change between them",
                    call.line,
                )
            )
        if stateful:
            first_seen[identity] = response + call.index.to_bytes(8, "big", signed=True) + changes.to_bytes(8, "big")
            if classifier.is_mutator(call):
                changes += 1
        if check_rules:
            mismatch = _annotation_mismatch(call, classifier)
            if mismatch is not None:
                findings.append(mismatch)
        if judge is not None:
            judge.see(call)
        last_identity, last_response, last_index = identity, response, call.index
    broken = tuple(judge.end(replied=True)) if judge is not None else ()
    findings += (_violation_finding(found, count) for found in broken)
    # Findings come in call order, one per call, unless a rule or a policy adds one beside another finding.
    ordered = sorted_findings(findings) if check_rules or broken else tuple(findings)
    return AuditReport(count, divergence, ordered, broken)


def _violation_finding(found: Violation, calls: int) -> Finding:
    """A policy broken, as the audit says it: at the call that broke it (a require no call met, at the end)."""
    policy = found.policy
    index = found.index if found.index >= 0 else calls
    earlier = (
        f" (the earlier call: index {found.earlier_index}, line {found.earlier_line})" if found.earlier_line else ""
    )
    if found.earlier_index is not None and not found.earlier_line:
        earlier = f" (the earlier call: index {found.earlier_index})"
    from toolreplay.analysis.policies import PolicyKind  # noqa: PLC0415

    if policy.kind is PolicyKind.REQUIRE:  # no call broke it: the recording did, by its end
        where = f" at the end of the recording (line {found.line})" if calls else " (the recording made no call)"
    else:
        where = f" at line {found.line}" if found.line else ""
    detail = f"policy '{policy.id}' ({policy.level.value}){where}: {found.detail}{earlier}: {policy.why}"
    return Finding(index, FindingKind.POLICY_VIOLATION, detail, found.line)


def _annotation_mismatch(call: Call, classifier: Classifier) -> Finding | None:
    found = classifier.classify(call)
    if not found.mismatch or found.rule is None:
        return None
    where = f"{classifier.policy.source}:{found.rule.line}" if classifier.policy.source else "a rule"
    return Finding(
        call.index,
        FindingKind.ANNOTATION_MISMATCH,
        f"tool '{call.tool}' is annotated read-only, but {where} classifies this call as {found.klass.value}",
        call.line,
    )
