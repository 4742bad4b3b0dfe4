"""Server-sent events as MCP's HTTP transports carry them: the one reader of an event and the one writer of one,
for the client, the reverse proxy and the replay server alike."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

MESSAGE = b"message"  # an event's type when it names none


def events(readline: Callable[[], bytes]) -> Iterator[list[bytes]]:
    """The lines of each event as they come, the blank line that ends it last; when the stream ends inside an
    event, what came of it."""
    event: list[bytes] = []
    while line := readline():
        event.append(line)
        if line in (b"\n", b"\r\n"):
            yield event
            event = []
    if event:
        yield event


def fields(lines: Iterable[bytes]) -> tuple[bytes, bytes | None]:
    """An event's type and its data (its ``data:`` lines joined by newlines; None when it has none)."""
    kind = MESSAGE
    data: list[bytes] = []
    for line in lines:
        if line.startswith(b"data:"):
            data.append(line[5:].removeprefix(b" ").rstrip(b"\r\n"))
        elif line.startswith(b"event:"):
            kind = line[6:].strip()
    return kind, b"\n".join(data) if data else None


def frame(data: bytes, kind: bytes = MESSAGE) -> bytes:
    """One event of ``kind`` carrying ``data`` (a line of it per ``data:`` line)."""
    return b"event: " + kind + b"\n" + b"".join(b"data: " + line + b"\n" for line in data.split(b"\n")) + b"\n"
