"""``toolreplay seal``: print a transcript sealed into a hash chain."""

from __future__ import annotations

import json
from collections.abc import Iterator

import click

from toolreplay.cli.output import emit, write_lines, write_text
from toolreplay.core.errors import InputError, UsageError
from toolreplay.core.escape import one_line
from toolreplay.core.files import guard_outputs, write_atomic
from toolreplay.formats.kinds import Kind, detect_kind
from toolreplay.formats.session.sealed import streamed_named_parts
from toolreplay.formats.transcript import iter_transcript
from toolreplay.integrity.chain import seal, seal_parts


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

    --sign KEY also signs the sealed file's head with an SSH key, as git signs
    commits (ssh-keygen -Y sign, namespace toolreplay-seal): the signature goes
    to OUTPUT.sig, or, for FILE already sealed (its chain checked first), to
    FILE.sig. 'toolreplay verify --allowed-signers' checks it. KEY must lie
    outside the repository; a public key whose private key the SSH agent holds
    will do.
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
@click.option(
    "--sign",
    "keys",
    metavar="KEY",
    multiple=True,
    help="Sign the sealed file's head with this SSH key too, into a .sig file beside it.",
)
def command(transcript: str, output: str | None, keys: tuple[str, ...]) -> int:
    if len(keys) > 1:
        raise UsageError("--sign is given more than once; a sealed file has one signature: give one key")
    key = keys[0] if keys else None
    if key is not None:
        from toolreplay.integrity import signing  # noqa: PLC0415 - only a signing seal runs ssh-keygen

        signing.key_outside(key, transcript, *([output] if output else []))
        if detect_kind(transcript).sealed:
            if output is not None:
                raise UsageError(f"{transcript} is already sealed: sign it without -o, into {transcript}.sig")
            return _sign_sealed(transcript, key)
        if output is None:
            raise UsageError("--sign needs -o: the signature goes beside the sealed file, as OUTPUT.sig")
        guard_outputs({"-o": output, "--sign's signature": f"{output}.sig"}, [transcript])
    guard_outputs({"-o": output}, [transcript])
    if key is None:
        write_lines(sealed_lines(transcript, to_file=output is not None), output)
        return 0
    assert output is not None
    head = _seal_signed(transcript, output, key)
    write_text(f"signed: {one_line(output)}.sig (head {head})\n")
    return 0


class _Tally:
    """The links passing through: how many, and the last."""

    def __init__(self, lines: Iterator[bytes]) -> None:
        self.lines, self.count, self.last = lines, 0, b""

    def __iter__(self) -> Iterator[bytes]:
        for line in self.lines:
            self.count += 1
            self.last = line
            yield line


def _seal_signed(path: str, output: str, key: str) -> str:
    """Seal ``path`` and sign its head, then put the sealed file in place at ``output`` and the signature beside
    it: a signing that fails leaves ``output`` and its signature as they were. The head signed."""
    import os  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    from toolreplay.integrity import signing  # noqa: PLC0415

    kind = Kind.SEALED_TRANSCRIPT if detect_kind(path) is Kind.TRANSCRIPT else Kind.SEALED_SESSION
    target = signing.signature_of(output)
    if os.path.isdir(target):
        raise InputError("is a directory; the signature goes to a file of this name", target)
    scratch = tempfile.mkdtemp(prefix="toolreplay-seal-", dir=os.path.dirname(os.path.abspath(output)))
    try:
        sealed = os.path.join(scratch, "sealed.jsonl")
        tally = _Tally(sealed_lines(path))
        write_lines(tally, sealed)
        if not tally.count:
            raise InputError("has no call to seal, so nothing to sign", path)
        head = str(json.loads(tally.last)["digest"])
        signature = signing.sign(signing.statement(kind.value, head, tally.count), key)
        with open(sealed, "rb") as held:
            write_atomic(output, iter(lambda: held.read(1 << 20), b""))  # as -o writes: its mode kept, atomic
        write_atomic(target, [signature])
    finally:
        import shutil  # noqa: PLC0415

        shutil.rmtree(scratch, ignore_errors=True)
    return head


def _sign_sealed(path: str, key: str) -> int:
    """Sign a file already sealed, once its chain is checked intact."""
    from toolreplay.formats.recording import read_links  # noqa: PLC0415
    from toolreplay.integrity import signing  # noqa: PLC0415
    from toolreplay.integrity.chain import verify  # noqa: PLC0415

    kind = detect_kind(path)
    links, last_label = read_links(path, kind)
    result = verify(links, path, last_label)
    if not result.intact:
        emit(result)
        write_text("not signed: the chain is broken\n")
        return 1
    if not result.links:
        raise InputError("has no link, so nothing to sign", path)
    signature = signing.sign(signing.statement(kind.value, result.head, result.links), key)
    write_atomic(signing.signature_of(path), [signature])
    write_text(f"signed: {one_line(path)}.sig (head {result.head})\n")
    return 0
