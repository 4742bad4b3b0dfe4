"""The units about whether a recording is what was committed: its hash chain and signature (verify), and
the recording against the one at the pull request's base (check --base).
"""

from __future__ import annotations

import os

from toolreplay.check.context import Checker, needed
from toolreplay.check.plan import Unit
from toolreplay.core.findings import Level, Rule
from toolreplay.core.outcome import Analysis, CheckFinding, Location, UnitResult
from toolreplay.core.wording import count
from toolreplay.formats.recording import read_links
from toolreplay.integrity.chain import Verification, verify
from toolreplay.results.locate import fingerprint


def verify_unit(checker: Checker, unit: Unit) -> UnitResult:
    shown = checker.paths.show(unit.path)
    links, last_label = read_links(unit.path, unit.recording.kind)
    result = verify(links, unit.path, last_label)
    broken = result.broken
    if broken is None:
        summary = f"chain intact ({count(result.links, 'link')})"
        if checker.config.signers is None:
            return UnitResult(key=unit.key, analysis=Analysis.VERIFY, subject=shown, summary=summary)
        return _signed(checker, unit, result, summary)
    part = f" ({broken.label})" if broken.label else ""
    message = (
        f"the hash chain breaks at index {broken.index}{part}: expected {broken.expected}, found "
        f"{broken.found}; the file was edited after it was sealed"
    )
    finding = CheckFinding(
        rule=Rule.CHAIN_BROKEN,
        message=message,
        location=Location(shown, broken.line),
        fingerprint=fingerprint("chain-broken", shown),
    )
    summary = f"chain broken at index {broken.index}{part}"
    return UnitResult(key=unit.key, analysis=Analysis.VERIFY, subject=shown, summary=summary, findings=(finding,))


def _signed(checker: Checker, unit: Unit, result: Verification, summary: str) -> UnitResult:
    """A sealed recording whose chain is intact, and its signature, where the config names allowed signers."""
    from toolreplay.integrity import signing  # noqa: PLC0415 - only a check that asks for signatures runs ssh-keygen

    shown = checker.paths.show(unit.path)
    where = Location(shown, max(result.last_line, 1))
    path = signing.signature_of(unit.path)
    signature = signing.read_signature(path)
    rule, message = None, ""
    if signature is None:
        rule = Rule.RECORDING_UNSIGNED
        message = f"no signature beside it ({checker.paths.show(path)}), and the config asks for one (signers:)"
    else:
        message_bytes = signing.statement(unit.recording.kind.value, result.head, result.links)
        checked = signing.check(message_bytes, signature, checker.signers(), None, signing.NAMESPACE)
        if checked.good:
            summary += f", signed by {', '.join(checked.signers)}"
        else:
            rule, message = Rule.SIGNATURE_INVALID, f"its signature does not hold: {checked.reason}"
    inputs = (checker.paths.show(path),) if signature is not None else ()
    if rule is None:
        return UnitResult(key=unit.key, analysis=Analysis.VERIFY, subject=shown, summary=summary, inputs=inputs)
    finding = CheckFinding(rule=rule, message=message, location=where, fingerprint=fingerprint(rule.value, shown))
    summary += ", " + ("unsigned" if rule is Rule.RECORDING_UNSIGNED else "signature does not hold")
    return UnitResult(
        key=unit.key, analysis=Analysis.VERIFY, subject=shown, summary=summary, inputs=inputs, findings=(finding,)
    )


def base_unit(checker: Checker, unit: Unit) -> UnitResult:
    """A recording against the one committed at the pull request's base."""
    from toolreplay.check.base import edited_line, kind_now, sealed_departure  # noqa: PLC0415

    old = needed(unit.base, unit)
    shown = checker.paths.show(unit.path)
    level = None if old.kind.sealed else Level(checker.config.unsealed_edits)  # never "ignore": not planned
    if not os.path.lexists(unit.path):
        rule, line = Rule.RECORDING_DELETED, 1
        message = f"the {old.kind.value} committed at the base is gone (removed or renamed)"
        summary = "removed since the base"
    elif old.kind.sealed:
        departure = sealed_departure(old, unit.path, kind_now(unit.path))
        if departure is None:
            summary = "the base's links unchanged"
            return UnitResult(key=unit.key, analysis=Analysis.BASE, subject=shown, summary=summary)
        rule, line, message, summary = Rule.RECORDING_REWRITTEN, departure.line, departure.message, "rewritten"
    else:
        edited = edited_line(old, unit.path) if kind_now(unit.path) is not None else 1  # a FIFO is never read
        if edited is None:
            return UnitResult(key=unit.key, analysis=Analysis.BASE, subject=shown, summary="as at the base")
        rule, line, summary = Rule.RECORDING_EDITED, edited, f"edited from line {edited}"
        message = f"differs from the {old.kind.value} committed at the base, from this line on"
    finding = CheckFinding(
        rule=rule,
        message=message,
        location=Location(shown, line),
        fingerprint=fingerprint(rule.value, shown),
        severity=None if level is rule.level else level,
    )
    return UnitResult(key=unit.key, analysis=Analysis.BASE, subject=shown, summary=summary, findings=(finding,))
