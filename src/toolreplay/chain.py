"""The SHA-256 hash chain: sealing calls into links and verifying them.

A link is a call's record ``{"args", "index", "prev", "response", "tool"}``
plus ``"digest"``, the SHA-256 of the record's canonical bytes. ``prev`` is the
digest of the link before, or 64 zeros for the first. Because every digest
covers the one before it, changing a record changes its digest and breaks the
chain at that link.

Both directions stream: nothing is kept but the previous digest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from toolreplay.canonical import JSONObject, canonical_bytes
from toolreplay.errors import InputError
from toolreplay.formats.transcript import SealedCall
from toolreplay.model import Call

GENESIS = "0" * 64

# Canonical keys sort as args < digest < index < prev < response < tool, so a
# link's canonical bytes are the record's with the digest member spliced in
# right after "args". Encoding args and the rest separately lets sealing encode
# each value once; tests check the splice against canonical_bytes of the link.
_ARGS_OPEN = b'{"args":'


def _record_parts(call: Call, prev: str) -> tuple[bytes, bytes]:
    """Canonical ``args`` and the record's canonical bytes after ``args``."""
    rest = canonical_bytes({"index": call.index, "prev": prev, "response": call.result, "tool": call.tool})
    return canonical_bytes(call.args), rest[1:]


def record_digest(call: Call, prev: str) -> str:
    """The digest of one link: SHA-256 of the canonical record, in hex."""
    record: JSONObject = {
        "args": call.args,
        "index": call.index,
        "prev": prev,
        "response": call.result,
        "tool": call.tool,
    }
    return hashlib.sha256(canonical_bytes(record)).hexdigest()


def seal(calls: Iterable[Call]) -> Iterator[bytes]:
    """Yield the canonical bytes of each sealed link, without line endings."""
    prev = GENESIS
    for call in calls:
        args, rest = _record_parts(call, prev)
        digest = hashlib.sha256(b"".join((_ARGS_OPEN, args, b",", rest))).hexdigest()
        yield b"".join((_ARGS_OPEN, args, b',"digest":"', digest.encode("ascii"), b'",', rest))
        prev = digest


@dataclass(frozen=True, slots=True)
class BrokenLink:
    """The first link whose stored digests disagree with the chain."""

    index: int
    line: int
    expected: str
    found: str


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of verifying a sealed file."""

    links: int
    broken: BrokenLink | None

    @property
    def intact(self) -> bool:
        return self.broken is None


def verify(links: Iterable[SealedCall], path: str = "") -> Verification:
    """Recompute the chain and stop at the first broken link.

    Per link, the stored ``prev`` must equal the stored digest of the link
    before (else expected is that digest and found the stored ``prev``), and the
    stored digest must equal the one recomputed from the record (else expected
    is the recomputed digest and found the stored one). A link whose digests
    hold but whose index is not its position was sealed that way on purpose;
    that is malformed input, not tampering, and raises :class:`InputError`.
    """
    prev = GENESIS
    position = 0
    for link in links:
        call = link.call
        if link.prev != prev:
            return Verification(position + 1, BrokenLink(position, call.line, prev, link.prev))
        digest = record_digest(call, link.prev)
        if digest != link.digest:
            return Verification(position + 1, BrokenLink(position, call.line, digest, link.digest))
        if call.index != position:
            raise InputError(f"index {call.index} is out of order: expected {position}", path, call.line)
        prev = link.digest
        position += 1
    return Verification(position, None)
