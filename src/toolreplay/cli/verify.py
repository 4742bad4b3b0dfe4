"""``toolreplay verify``: recompute a sealed file's chain, and check its signature where asked."""

from __future__ import annotations

import click

from toolreplay.cli.output import emit, write_text
from toolreplay.core.errors import UsageError
from toolreplay.core.findings import Gate, Level, Rule, gated
from toolreplay.core.verdict import Exit
from toolreplay.formats.kinds import detect_kind
from toolreplay.formats.recording import read_links
from toolreplay.integrity.chain import Verification, verify


@click.command(
    "verify",
    help="""Recompute the hash chain of SEALED and report the first broken link.

    Prints 'chain: intact' and exits 0, or names the first link whose stored
    digests disagree, with the digest expected there and the one found, and
    exits 1; for a sealed session the part (such as messages[3]) is named too.
    The chain shows a sealed file was not edited since it was sealed; it is not
    a signature, so whoever can edit the file can also seal it again.

    With --allowed-signers, the signature 'toolreplay seal --sign' made
    (SEALED.sig) is checked too, against an OpenSSH allowed_signers file as git
    reads one: who signed is printed, or why the signature does not hold (none,
    another file's, a key no allowed signer holds, another namespace), and a
    signature that does not hold exits 1.
    """,
)
@click.argument("sealed", metavar="SEALED")
@click.option(
    "--allowed-signers",
    "allowed",
    metavar="FILE",
    help="Check SEALED's signature against this allowed_signers file (ssh-keygen's format).",
)
@click.option("--identity", metavar="ID", help="Only a signature by this allowed signer holds.")
@click.option("--signature", metavar="FILE", help="The signature to check (default: SEALED.sig).")
def command(sealed: str, allowed: str | None, identity: str | None, signature: str | None) -> Exit:
    if allowed is None and (identity is not None or signature is not None):
        given = "--identity" if identity is not None else "--signature"
        raise UsageError(f"{given} needs --allowed-signers: the file that says whose signatures hold")
    if allowed is not None:
        from toolreplay.integrity.signing import require_allowed  # noqa: PLC0415 - only a signature check needs it

        require_allowed(allowed)  # before anything is printed
    kind = detect_kind(sealed)
    links, last_label = read_links(sealed, kind)
    result = verify(links, sealed, last_label)
    emit(result)
    found: list[tuple[Rule, Level]] = [] if result.intact else [(Rule.CHAIN_BROKEN, Rule.CHAIN_BROKEN.level)]
    if allowed is not None and not result.intact:
        write_text("signature: not checked, as the chain is broken\n")
    elif allowed is not None and not _signature_holds(sealed, kind.value, result, allowed, identity, signature):
        found.append((Rule.SIGNATURE_INVALID, Rule.SIGNATURE_INVALID.level))
    return gated(found, Gate.ANY_FINDING).exit_code


def _signature_holds(
    sealed: str, kind: str, result: Verification, allowed: str, identity: str | None, signature: str | None
) -> bool:
    from toolreplay.integrity import signing  # noqa: PLC0415 - only a signature check runs ssh-keygen
    from toolreplay.results.shown import SignatureShown  # noqa: PLC0415

    path = signature or signing.signature_of(sealed)
    found = signing.read_signature(path)
    if found is None:
        emit(SignatureShown(None, path))
        return False
    message = signing.statement(kind, result.head, result.links)
    checked = signing.check(message, found, allowed, identity, signing.NAMESPACE)
    emit(SignatureShown(checked, path))
    return checked.good
