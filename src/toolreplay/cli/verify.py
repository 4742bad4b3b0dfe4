"""``toolreplay verify``: recompute a sealed file's chain."""

from __future__ import annotations

import click

from toolreplay.chain import verify
from toolreplay.cli.output import write_text
from toolreplay.formats.recording import read_links
from toolreplay.report.text import render_verification
from toolreplay.verdict import Exit, exit_for


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
def command(sealed: str) -> Exit:
    links, last_label = read_links(sealed)
    result = verify(links, sealed, last_label)
    write_text(render_verification(result))
    return exit_for(not result.intact)
