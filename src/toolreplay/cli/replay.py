"""``toolreplay replay``: the auditor's name for the self-audit of a transcript."""

from __future__ import annotations

import click

from toolreplay.classify import Policy
from toolreplay.cli.audit import audit_files


@click.command(
    "replay",
    help="""Replay TRANSCRIPT against its own recorded responses and audit it.

    The same report as 'toolreplay audit': non-determinism, redundant calls and
    the divergence point. Exits 1 when anything is found.
    """,
)
@click.argument("transcript", metavar="TRANSCRIPT")
def command(transcript: str) -> int:
    return audit_files((transcript,), Policy())
