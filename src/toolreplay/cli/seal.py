"""``toolreplay seal``: print a transcript sealed into a hash chain."""

from __future__ import annotations

from collections.abc import Iterator

import click

from toolreplay.chain import seal, seal_parts
from toolreplay.cli.output import guard_outputs, write_lines
from toolreplay.errors import InputError
from toolreplay.formats.recording import Kind, detect_kind
from toolreplay.formats.sealed_session import streamed_named_parts
from toolreplay.formats.transcript import iter_transcript


def sealed_lines(path: str, to_file: bool = True) -> Iterator[bytes]:
    """The links of a transcript or a session (one link per part), streamed; a session's held back until the
    last unless ``to_file`` (a file is written whole or not at all)."""
    kind = detect_kind(path)
    if kind.sealed:
        raise InputError(f"already a {kind.value}; 'toolreplay verify' checks it", path)
    if kind is Kind.TRANSCRIPT:
        return seal(iter_transcript(path))
    links = seal_parts(streamed_named_parts(path))
    return links if to_file else held_back(links)


def held_back(lines: Iterator[bytes]) -> Iterator[bytes]:
    """``lines``, given only once the last is made (so a session found broken prints nothing), held meanwhile in a
    temporary file rather than in memory."""
    import tempfile  # noqa: PLC0415 - only a session sealed to stdout needs it

    with tempfile.TemporaryFile() as held:
        batch: list[bytes] = []
        for line in lines:
            batch.append(line)
            if len(batch) == 1024:
                held.write(b"\n".join(batch) + b"\n")  # a link is canonical JSON: one line
                batch.clear()
        held.write(b"".join(line + b"\n" for line in batch))
        held.seek(0)
        for line in held:
            yield line[:-1]


@click.command(
    "seal",
    help="""Print FILE sealed into a SHA-256 hash chain, one link per line.

    For a transcript, each link is a call's record with "prev" (the digest of
    the link before, 64 zeros for the first) and "digest" (the SHA-256 of the
    record's canonical JSON, prev included); the transcript is streamed, so its
    size does not matter. For a session, each part is a link: the header, the
    system prompt, each tool definition, each message and the final reply, so
    editing any of them breaks the chain there. Check a sealed file later with
    'toolreplay verify'.
    """,
)
@click.argument("transcript", metavar="FILE")
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    help="Write the sealed links to FILE instead of stdout. FILE is replaced only once "
    "every link is written, so a malformed input leaves no half-sealed file.",
)
def command(transcript: str, output: str | None) -> int:
    guard_outputs({"-o": output}, [transcript])
    write_lines(sealed_lines(transcript, to_file=output is not None), output)
    return 0
