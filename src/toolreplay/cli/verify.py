"""``toolreplay verify``: recompute a sealed file's chain."""

from __future__ import annotations

from collections.abc import Iterable

import click

from toolreplay.chain import SealedLink, verify
from toolreplay.cli.output import write_text
from toolreplay.errors import InputError
from toolreplay.formats.recording import Kind, detect_kind
from toolreplay.formats.sealed_session import sealed_parts
from toolreplay.formats.transcript import iter_numbered_objects, iter_sealed
from toolreplay.report.text import render_verification


def read_links(path: str) -> Iterable[SealedLink]:
    """The links of a sealed transcript or a sealed session."""
    kind = detect_kind(path)
    if kind is Kind.SEALED_SESSION:
        return sealed_parts(iter_numbered_objects(path), path)
    if kind is Kind.SESSION:
        raise InputError("a session, not a sealed file; seal it first: toolreplay seal FILE -o SEALED", path)
    return iter_sealed(path)


@click.command(
    "verify",
    help="""Recompute the hash chain of SEALED and report the first broken link.

    Prints 'chain: intact' and exits 0, or names the first link whose stored
    digests disagree, with the digest expected there and the one found, and
    exits 1; for a sealed session the part (such as messages[3]) is named too.
    The chain shows a sealed file was not edited since it was sealed; it is not
    a signature, so whoever can edit the file can also seal it again.
    """,
)
@click.argument("sealed", metavar="SEALED")
def command(sealed: str) -> int:
    result = verify(read_links(sealed), sealed)
    write_text(render_verification(result))
    return 0 if result.intact else 1
