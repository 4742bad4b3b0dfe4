"""``toolreplay seal``: print a transcript sealed into a hash chain."""

from __future__ import annotations

import click

from toolreplay.chain import seal
from toolreplay.cli.output import write_lines
from toolreplay.formats.transcript import iter_transcript


@click.command(
    "seal",
    help="""Print TRANSCRIPT sealed into a SHA-256 hash chain, one link per line.

    Each link is the call's record with "prev" (the digest of the link before,
    64 zeros for the first) and "digest" (the SHA-256 of the record's canonical
    JSON). Check a sealed file later with 'toolreplay verify'. The transcript is
    read as a stream, so its size does not matter.
    """,
)
@click.argument("transcript", metavar="TRANSCRIPT")
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    help="Write the sealed links to FILE instead of stdout. FILE is replaced only once "
    "every link is written, so a malformed transcript leaves no half-sealed file.",
)
def command(transcript: str, output: str | None) -> int:
    write_lines(seal(iter_transcript(transcript)), output, inputs=[transcript])
    return 0
