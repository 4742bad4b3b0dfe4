"""The SHA-256 hash chain: sealing records into links and verifying them.

A link is a record plus ``"prev"``, the digest of the link before (64 zeros for
the first), and ``"digest"``, the SHA-256 of the canonical bytes of the record
with ``prev`` included. Because every digest covers the one before, changing a
record changes its digest and breaks the chain at that link.

A transcript's record is ``{"args", "index", "response", "tool"}``; a session's
records are its parts (see :mod:`toolreplay.formats.session.sealed`). Both
directions stream: nothing is kept but the previous digest.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring_ascii
from typing import Protocol

from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes
from toolreplay.core.errors import InputError
from toolreplay.core.model import Call
from toolreplay.core.records import record

GENESIS = "0" * 64

# Canonical keys sort as args < digest < index < prev < response < tool, so a
# transcript link's canonical bytes are its record's with the digest member
# spliced in right after "args". Encoding args and the rest separately lets
# sealing encode each value once; tests check the splice against
# canonical_bytes of the whole link.
_ARGS_OPEN = b'{"args":'
_PART_KEYS = frozenset(("index", "part", "value"))  # a sealed session's link, but for prev and digest


def digest_of(record: JSONObject) -> str:
    """The digest of a link: SHA-256 of its record's canonical bytes (``prev`` included), in hex."""
    from hashlib import sha256  # noqa: PLC0415 - OpenSSL loaded only by what hashes (a replay does not)

    return sha256(canonical_bytes(record)).hexdigest()


def call_record(call: Call, prev: str) -> JSONObject:
    """The record a transcript link's digest covers."""
    return {"args": call.args, "index": call.index, "prev": prev, "response": call.result, "tool": call.tool}


def seal(calls: Iterable[Call]) -> Iterator[bytes]:
    """Yield the canonical bytes of each sealed transcript link, without line endings."""
    from hashlib import sha256  # noqa: PLC0415 - as above

    prev = GENESIS
    for call in calls:
        args = canonical_bytes(call.args)
        rest = canonical_bytes({"index": call.index, "prev": prev, "response": call.result, "tool": call.tool})[1:]
        digest = sha256(b"".join((_ARGS_OPEN, args, b",", rest))).hexdigest()
        yield b"".join((_ARGS_OPEN, args, b',"digest":"', digest.encode("ascii"), b'",', rest))
        prev = digest


def seal_records(records: Iterable[JSONObject]) -> Iterator[bytes]:
    """Yield sealed links for records of any shape (each without ``prev`` and ``digest``).

    Where every key of the record sorts after ``digest`` (a session's parts), the link's canonical bytes are the
    digested bytes with the digest member spliced in first, so each record is encoded once; a session's part
    (``index``, ``part``, ``value``, with ``prev`` between the last two) is composed from the canonical bytes of
    its members, as a transcript's link is: an integer index and a string part are written as the canonical
    encoder writes them (``str`` of the integer, the encoder's own string escaping), and only the value is encoded.
    """
    from hashlib import sha256  # noqa: PLC0415 - as above

    quoted = encode_basestring_ascii
    prev = GENESIS
    for entry in records:
        if entry.keys() == _PART_KEYS:
            index, name = entry["index"], entry["part"]
            if type(index) is int and type(name) is str:
                members = f'"index":{index},"part":{quoted(name)},"prev":"{prev}","value":'.encode("ascii")
            else:
                index_bytes, name_bytes = canonical_bytes(index).decode(), canonical_bytes(name).decode()
                members = f'"index":{index_bytes},"part":{name_bytes},"prev":"{prev}","value":'.encode("ascii")
            value = canonical_bytes(entry["value"])
            hashed = sha256(b"{" + members)
            hashed.update(value)
            hashed.update(b"}")
            prev = hashed.hexdigest()
            yield b"".join((b'{"digest":"', prev.encode("ascii"), b'",', members, value, b"}"))
            continue
        body = canonical_bytes({**entry, "prev": prev})
        digest = sha256(body).hexdigest()
        if min(entry, default="") > "digest":
            yield b"".join((b'{"digest":"', digest.encode("ascii"), b'",', body[1:]))
        else:
            yield canonical_bytes({**entry, "prev": prev, "digest": digest})
        prev = digest


def seal_parts(parts: Iterable[tuple[str, JSONValue]]) -> Iterator[bytes]:
    """The links :func:`seal_records` gives for a session's parts, each given as its name and value, its index
    its position: composed in the same way, without a record made for each."""
    from hashlib import sha256  # noqa: PLC0415 - as above

    quoted = encode_basestring_ascii
    prev = GENESIS
    for index, (name, value) in enumerate(parts):
        members = f'"index":{index},"part":{quoted(name)},"prev":"{prev}","value":'.encode("ascii")
        encoded = canonical_bytes(value)
        hashed = sha256(b"{" + members)
        hashed.update(encoded)
        hashed.update(b"}")
        prev = hashed.hexdigest()
        yield b"".join((b'{"digest":"', prev.encode("ascii"), b'",', members, encoded, b"}"))


class SealedLink(Protocol):
    """A link as read from a sealed file."""

    @property
    def prev(self) -> str: ...

    @property
    def digest(self) -> str: ...

    @property
    def index(self) -> int: ...

    @property
    def line(self) -> int: ...

    @property
    def label(self) -> str | None:
        """What the link holds, where its index alone does not say (a session's part)."""

    def record(self) -> JSONObject:
        """The record the digest covers, ``prev`` included."""


@record
class BrokenLink:
    """The first link whose stored digests disagree with the chain."""

    index: int
    line: int
    expected: str
    found: str
    label: str | None = None


@record
class Verification:
    """The outcome of verifying a sealed file."""

    links: int
    broken: BrokenLink | None
    head: str = GENESIS  # the digest of the last link (what a signature's statement names)
    last_line: int = 0  # the line of the last link

    @property
    def intact(self) -> bool:
        return self.broken is None


def verify(links: Iterable[SealedLink], path: str = "", last_label: str | None = None) -> Verification:
    """Recompute the chain and stop at the first broken link.

    Per link, the stored ``prev`` must equal the stored digest of the link
    before (else expected is that digest and found the stored ``prev``), and the
    stored digest must equal the one recomputed from the record (else expected
    is the recomputed digest and found the stored one). A link whose digests
    hold but whose index is not its position was sealed that way on purpose;
    that is malformed input, not tampering, and raises :class:`InputError`.

    ``last_label`` is what the last link must hold, for a format that ends with
    a known part (a sealed session ends with its final reply): a file cut short
    is then broken at the link that is missing, not intact.
    """
    prev = GENESIS
    position = 0
    last: SealedLink | None = None
    for link in links:
        last = link
        if link.prev != prev:
            return Verification(position + 1, BrokenLink(position, link.line, prev, link.prev, link.label))
        digest = digest_of(link.record())
        if digest != link.digest:
            return Verification(position + 1, BrokenLink(position, link.line, digest, link.digest, link.label))
        if link.index != position:
            raise InputError(f"index {link.index} is out of order: expected {position}", path, link.line)
        prev = link.digest
        position += 1
    if last_label is not None and (last is None or last.label != last_label):
        line = last.line + 1 if last is not None else 1
        missing = BrokenLink(position, line, f"a '{last_label}' link", "the end of the file", last_label)
        return Verification(position, missing)
    return Verification(position, None, prev, last.line if last is not None else 0)
