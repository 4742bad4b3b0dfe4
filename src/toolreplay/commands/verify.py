"""``verify``: a sealed file's chain recomputed, and its signature checked where asked."""

from __future__ import annotations

from toolreplay.commands.base import Emitter
from toolreplay.core.errors import UsageError
from toolreplay.core.findings import Gate, Level, Rule, gated
from toolreplay.core.records import record
from toolreplay.core.verdict import Exit
from toolreplay.formats.kinds import detect_kind
from toolreplay.formats.recording import read_links
from toolreplay.integrity.chain import Verification, verify
from toolreplay.results.shown import SignatureShown


@record
class VerifyRequest:
    sealed: str
    allowed: str | None = None  # an allowed_signers file: check the signature too
    identity: str | None = None
    signature: str | None = None  # default: SEALED.sig


def execute(request: VerifyRequest, emitter: Emitter) -> Exit:
    if request.allowed is None and (request.identity is not None or request.signature is not None):
        given = "--identity" if request.identity is not None else "--signature"
        raise UsageError(f"{given} needs --allowed-signers: the file that says whose signatures hold")
    if request.allowed is not None:
        from toolreplay.integrity.signing import require_allowed  # noqa: PLC0415 - only a signature check needs it

        require_allowed(request.allowed)  # before anything is printed
    kind = detect_kind(request.sealed)
    links, last_label = read_links(request.sealed, kind)
    result = verify(links, request.sealed, last_label)
    emitter.show(result)
    found: list[tuple[Rule, Level]] = [] if result.intact else [(Rule.CHAIN_BROKEN, Rule.CHAIN_BROKEN.level)]
    if request.allowed is not None and not result.intact:
        emitter.say("signature: not checked, as the chain is broken\n")
    elif request.allowed is not None and not _signature_holds(request, request.allowed, kind.value, result, emitter):
        found.append((Rule.SIGNATURE_INVALID, Rule.SIGNATURE_INVALID.level))
    return gated(found, Gate.ANY_FINDING).exit_code


def _signature_holds(request: VerifyRequest, allowed: str, kind: str, result: Verification, emitter: Emitter) -> bool:
    from toolreplay.integrity import signing  # noqa: PLC0415 - only a signature check runs ssh-keygen

    path = request.signature or signing.signature_of(request.sealed)
    found = signing.read_signature(path)
    if found is None:
        emitter.show(SignatureShown(None, path))
        return False
    message = signing.statement(kind, result.head, result.links)
    checked = signing.check(message, found, allowed, request.identity, signing.NAMESPACE)
    emitter.show(SignatureShown(checked, path))
    return checked.good
