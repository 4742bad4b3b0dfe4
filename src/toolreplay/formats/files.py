"""Opening the user's files, with every failure turned into an InputError."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from toolreplay.errors import InputError


def _open_error(exc: OSError, path: str | Path) -> InputError:
    if isinstance(exc, FileNotFoundError):
        return InputError("no such file", path)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a directory, not a file", path)
    return InputError(f"cannot read: {exc.strerror}", path)


def iter_raw_lines(path: str | Path) -> Iterator[bytes]:
    """Yield the raw lines of ``path``, line endings kept."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed by the with-block below
    except OSError as exc:
        raise _open_error(exc, path) from None
    with handle:
        yield from handle


def read_text(path: str | Path) -> str:
    """Read a whole file as strict UTF-8."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise _open_error(exc, path) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", path, line) from None


def write_atomic(path: str | Path, chunks: Iterable[bytes]) -> None:
    """Write ``chunks`` to ``path`` so that it holds either all of them or its old content.

    The bytes go to a temporary file beside ``path`` that replaces it only once
    everything is written and flushed to disk; an error or a crash midway leaves
    ``path`` as it was.
    """
    import tempfile  # noqa: PLC0415 - only commands that write files need it

    target = Path(path)
    directory = target.parent
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", path) from None
    try:
        os.chmod(temporary, _mode_for(target))
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _mode_for(target: Path) -> int:
    """Keep an existing file's permissions; give a new one the usual umask-based mode."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one existing file."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def repository_root(start: str | Path) -> Path:
    """The repository root: the nearest directory at or above ``start`` holding ``.git``, else the cwd."""
    here = Path(start).resolve()
    for directory in (here, *here.parents):
        if (directory / ".git").exists():
            return directory
    return Path.cwd().resolve()
