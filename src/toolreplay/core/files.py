"""Opening the user's files and writing ours, with every failure turned into a one-line error.

Reading: a pipe, a FIFO, process substitution or ``/dev/stdin`` can be read only
once, but a command may look at a file twice (its kind from the first line,
then its calls). So a file that is not a regular file is copied, on first use,
into a temporary file of our own, and every later read of that name reads the
copy: the stream is read exactly once and gives what the same bytes in a file
give. Errors still name the path the user gave. A stream is read to at most
:data:`STREAM_LIMIT` bytes, the copy included, and a device that is not a
terminal (``/dev/zero``, a disk) is never read: a name in a pull request may
lead anywhere, and an endless read fills the disk.

Writing: a regular file is replaced atomically (a temporary file beside it,
flushed, then renamed), so a failure midway leaves the old content; a device or
a FIFO (``-o /dev/stdout``) is written in place, never replaced.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, BinaryIO

from toolreplay.core.errors import InputError, OutputError, UsageError

# A stream's name -> the temporary file holding what was read from it.
_SPOOLED: dict[str, str] = {}
STREAM_LIMIT = 1 << 30  # bytes read from a pipe or FIFO at most: a recording longer than a GiB is a file


def _open_error(exc: OSError, path: str | Path) -> InputError:
    if isinstance(exc, FileNotFoundError):
        return InputError("no such file", path)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a directory, not a file", path)
    return InputError(f"cannot read: {exc.strerror or exc}", path)


def _remove_spooled() -> None:
    for copy in _SPOOLED.values():
        with contextlib.suppress(OSError):
            os.unlink(copy)
    _SPOOLED.clear()


def readable(path: str | Path) -> str:
    """The file to open for ``path``: itself, or for a stream the copy made of it on first use."""
    name = os.fspath(path)
    spooled = _SPOOLED.get(name)
    if spooled is not None:
        return spooled
    try:
        mode = os.stat(name).st_mode
    except OSError:
        return name  # opening it says what is wrong
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return name
    import tempfile  # noqa: PLC0415 - only streams need it

    try:
        with open(name, "rb") as source:
            if (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) and not source.isatty():
                raise InputError("is a device, not a file: it is never read", path)
            with tempfile.NamedTemporaryFile(prefix="toolreplay-", delete=False) as copy:
                if not _SPOOLED:
                    atexit.register(_remove_spooled)
                _SPOOLED[name] = copy.name
                _copy_bounded(source, copy, path)
    except OSError as exc:
        raise _open_error(exc, path) from None
    return _SPOOLED[name]


def _copy_bounded(source: BinaryIO, copy: IO[bytes], path: str | Path) -> None:
    copied = 0
    while chunk := source.read(1 << 20):
        copied += len(chunk)
        if copied > STREAM_LIMIT:
            copy.truncate(0)  # nothing of it is kept
            raise InputError(f"a stream of more than {STREAM_LIMIT >> 20:,} MiB: write it to a file first", path)
        copy.write(chunk)


def open_binary(path: str | Path) -> BinaryIO:
    """``path`` opened for reading bytes (a stream is read once, see above)."""
    try:
        return open(readable(path), "rb")
    except OSError as exc:
        raise _open_error(exc, path) from None


def iter_raw_lines(path: str | Path) -> Iterator[bytes]:
    """The raw lines of ``path``, line endings kept (a stream is read once, see above)."""
    with open_binary(path) as handle:
        try:
            yield from handle
        except OSError as exc:
            raise _open_error(exc, path) from None


def read_head(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes of ``path``."""
    with open_binary(path) as handle:
        try:
            return handle.read(size)
        except OSError as exc:
            raise _open_error(exc, path) from None


def read_text(path: str | Path) -> str:
    """Read a whole file as strict UTF-8."""
    try:
        raw = Path(readable(path)).read_bytes()
    except OSError as exc:
        raise _open_error(exc, path) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", path, line) from None


def _write_error(exc: OSError, path: str | Path) -> OutputError:
    if isinstance(exc, IsADirectoryError):
        return OutputError("is a directory; name a file to write", path)
    if isinstance(exc, FileNotFoundError):
        return OutputError("cannot write: its directory does not exist", path)
    return OutputError(f"cannot write: {exc.strerror or exc}", path)


def write_atomic(path: str | Path, chunks: Iterable[bytes]) -> None:
    """Write ``chunks`` to ``path`` so that it holds either all of them or its old content.

    The bytes go to a temporary file beside ``path`` that replaces it only once
    everything is written and flushed to disk; an error or a crash midway leaves
    ``path`` as it was and no temporary file behind. A path that is a device or
    a FIFO is written directly.
    """
    write_all([(path, chunks)])


def write_new(path: str | Path, chunks: Iterable[bytes]) -> None:
    """Write ``chunks`` to a new file at ``path``, all or nothing, and never over anything there: the bytes go to
    a temporary file beside it, which is then linked in at ``path`` only if nothing (no file, no symbolic link,
    dangling or not) holds the name by then; if something does, :class:`UsageError` says so and nothing is
    written. What a command writes as a person's own work to keep (a starter rules or policy file) is written so."""
    target = Path(path)
    temporary = _staged(target, chunks, path)
    try:
        os.link(temporary, target)
    except FileExistsError:
        raise UsageError(
            f"{path} exists; a new file is written only where none is (remove it, or name another)"
        ) from None
    except OSError as exc:
        raise _write_error(exc, path) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def write_all(files: Sequence[tuple[str | Path, Iterable[bytes]]]) -> None:
    """Write every file, or none of the regular ones: each goes to a temporary file beside it, and all are renamed
    into place only once every one is written (a report that cannot be written leaves the others as they were).
    A device or a FIFO is written directly, after the files."""
    staged: list[tuple[str, Path, str | Path]] = []
    streams: list[tuple[Path, Iterable[bytes]]] = []
    try:
        for path, chunks in files:
            target = Path(path)
            try:
                mode = target.stat().st_mode
            except OSError:
                mode = None
            if mode is not None and stat.S_ISDIR(mode):
                raise OutputError("is a directory; name a file to write", path)
            if mode is not None and not stat.S_ISREG(mode):
                streams.append((target, chunks))
                continue
            staged.append((_staged(target, chunks, path), target, path))
        for temporary, target, path in staged:
            try:
                os.replace(temporary, target)
            except OSError as exc:
                raise _write_error(exc, path) from None
    except BaseException:
        for temporary, _, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise
    for target, chunks in streams:
        _write_stream(target, chunks)


def _staged(target: Path, chunks: Iterable[bytes], path: str | Path) -> str:
    """``chunks`` written and flushed to a temporary file beside ``target``: its name, for the rename."""
    import tempfile  # noqa: PLC0415 - only commands that write files need it

    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _write_error(exc, path) from None
    try:
        os.chmod(temporary, _mode_for(target))
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise _write_error(exc, path) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return temporary


FIFO_WAIT = 10.0  # seconds a FIFO is given to be opened for reading before the write is given up


def _write_stream(target: Path, chunks: Iterable[bytes]) -> None:
    """Write to a device or a FIFO as it is; a FIFO nothing reads is waited for a while, never forever."""
    try:
        fd = _open_for_writing(target)
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
    except OSError as exc:
        raise _write_error(exc, target) from None


def _open_for_writing(target: Path) -> int:
    """A device or FIFO opened to write: a FIFO without a reader refuses a non-blocking open, so it is tried
    again until one comes, for at most :data:`FIFO_WAIT` seconds."""
    import time  # noqa: PLC0415 - only for a write to a device or a FIFO

    deadline = time.monotonic() + FIFO_WAIT
    while True:
        try:
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO or time.monotonic() >= deadline:
                if exc.errno == errno.ENXIO:
                    raise OutputError(f"is a FIFO nothing read within {FIFO_WAIT:g} s", target) from None
                raise
            time.sleep(0.05)
            continue
        os.set_blocking(fd, True)
        return fd


def _mode_for(target: Path) -> int:
    """Keep an existing file's permissions; give a new one the usual umask-based mode."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def missing_directories(path: str | Path, root: Path) -> list[Path] | None:
    """The directories to make before ``path`` can be written, outermost first: none when its directory exists;
    those missing when every one would lie inside ``root`` (through any symlink above them) and none under
    ``.git``; None when they would not, or something that is not a directory stands in the way."""
    parent = Path(os.path.abspath(path)).parent
    missing: list[Path] = []
    while not os.path.lexists(parent):
        missing.append(parent)
        parent = parent.parent
    if not missing:
        return []
    if not parent.is_dir():  # a file, or a symlink to nothing, where a directory would go
        return None
    real, top = parent.resolve(), root.resolve()
    made = [real / directory.relative_to(parent) for directory in reversed(missing)]
    inside = real == top or top in real.parents
    if not inside or ".git" in made[-1].relative_to(top).parts:
        return None
    return made


def make_directories(path: str | Path, root: Path) -> None:
    """Make the directories ``path`` needs, inside ``root`` only (see :func:`missing_directories`)."""
    made = missing_directories(path, root)
    if made is None:
        raise OutputError("cannot write: its directory does not exist, and is not one to make here", path)
    for directory in made:
        try:
            directory.mkdir(exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot make its directory {directory.name}: {exc.strerror or exc}", path) from None


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one existing file (through symlinks and hard links)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def repository_root(start: str | Path) -> Path:
    """The repository root: the nearest directory at or above ``start`` holding ``.git``.

    Without one (a checkout with no history, a directory mounted into a
    container), the current directory when ``start`` lies under it, as the
    command is then run from the top of the project; else ``start`` itself.
    """
    here = Path(start).resolve()
    for directory in (here, *here.parents):
        if (directory / ".git").exists():
            return directory
    cwd = Path.cwd().resolve()
    return cwd if here == cwd or cwd in here.parents else here


def path_from(path: str | Path, file: str | Path) -> str:
    """``path`` as a file written at ``file`` names it: relative to that file's directory, in POSIX form, so what
    a committed file says holds wherever the repository is checked out."""
    try:
        relative = os.path.relpath(os.path.abspath(path), os.path.dirname(os.path.abspath(file)))
    except ValueError:  # another drive: only the name is the same everywhere
        return Path(path).name
    return Path(relative).as_posix()


def guard_outputs(outputs: Mapping[str, str | None], inputs: Iterable[str | None]) -> None:
    """Refuse, before anything runs or is written, an output that is an input or another output.

    ``outputs`` maps each option (``--json``) to the path it names. Paths are
    compared as files (through symlinks and hard links) and, for files that do
    not exist yet, as resolved paths: nothing the user recorded is ever
    written over, and two reports never race for one file.
    """
    named = [(option, path) for option, path in outputs.items() if path is not None]
    for option, path in named:
        if not path.strip():
            raise UsageError(f"{option} needs a file name, not an empty string")
    sources = [source for source in inputs if source is not None]
    for number, (option, path) in enumerate(named):
        for source in sources:
            if same_file(source, path):
                raise UsageError(
                    f"{option} {path} is one of this command's inputs ({source}); refusing to write over it"
                )
        for other_option, other in named[:number]:
            if same_file(path, other) or os.path.realpath(path) == os.path.realpath(other):
                raise UsageError(f"{other_option} and {option} name the same file, {path}")
