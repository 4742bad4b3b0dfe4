"""``toolreplay verify``: recompute a sealed file's chain, and check its signature where asked."""

from __future__ import annotations

import click

from toolreplay.cli.emitter import Printer
from toolreplay.commands import verify
from toolreplay.core.verdict import Exit


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
    return verify.execute(verify.VerifyRequest(sealed, allowed, identity, signature), Printer())
