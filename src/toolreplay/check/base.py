"""``check --base REF``: every recording committed at a pull request's base, held to what it was there.

A sealed recording may only grow: its links at the base must be the first links of the file now, so a link
rewritten (and the file sealed again, so its own chain is intact) is found at its line, a file cut short at its
end, a file removed as removed. An unsealed recording's edit is reported at its first changed line, at the level
the config gives. Which files count: those the check reads now and those at the base that its recording globs
match (or, with no config, every recording under the directory checked), so removing a file from the config's
globs does not hide it.

The base is read from git: the commit ``REF`` names, fetched from ``origin`` (one commit deep) when this clone
does not hold it, as a shallow CI checkout does not. Its files are read with one ``git cat-file --batch``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

from toolreplay.core.canonical import canonical_bytes
from toolreplay.core.errors import InputError
from toolreplay.core.files import iter_raw_lines
from toolreplay.core.records import record
from toolreplay.formats.kinds import Kind, detect_kind, kind_of_bytes
from toolreplay.processes.external import run_program

_TIMEOUT = 300.0  # seconds a git command may take (a fetch over a slow network)
_SKIP = frozenset({".git", ".hg", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache", ".ruff_cache"})


def glob_pattern(pattern: str) -> re.Pattern[str]:
    """A regular expression matching the paths ``glob.glob(pattern, recursive=True)`` matches (``**`` any
    directories, ``*`` and ``?`` within one name, ``[...]`` a class; a name starting with a dot only where the
    pattern's does)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append(r"(?:[^/.][^/]*/)*")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(r"(?:[^/.][^/]*(?:/[^/.][^/]*)*)?")
            i += 2
            continue
        if c == "*":
            at_start = i == 0 or pattern[i - 1] == "/"
            out.append(r"(?:[^/.][^/]*)?" if at_start else r"[^/]*")
        elif c == "?":
            out.append(r"[^/]")
        elif c == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


@record
class BaseFile:
    """A recording as committed at the base: its path as the check names it, its kind there, its bytes."""

    path: str
    kind: Kind
    data: bytes


class Base:
    """The commit a pull request is based on, in the repository at ``root``."""

    def __init__(self, ref: str, root: Path) -> None:
        self.ref = ref
        self.root = root
        if not ref or ref.startswith("-"):
            raise InputError(f"--base {ref!r} is no commit: give a commit, a branch or a tag")
        if not (root / ".git").exists():
            raise InputError(f"--base needs a git repository, and {root} is none")
        self.commit = self._resolve()
        self._paths: list[str] | None = None

    def _git(self, *args: str, data: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        env = dict(os.environ, GIT_TERMINAL_PROMPT="0", LC_ALL="C")
        return run_program(
            ["git", "-C", str(self.root), *args],
            data,
            _TIMEOUT,
            f"--base {self.ref}: git did not answer",
            "--base needs git, and it cannot run",
            env,
        )

    def _commit_of(self, name: str) -> str | None:
        done = self._git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}")
        return done.stdout.decode().strip() if done.returncode == 0 else None

    def _resolve(self) -> str:
        found = self._commit_of(self.ref)
        if found is not None:
            return found
        if self._git("remote", "get-url", "origin").returncode != 0:
            raise InputError(f"--base {self.ref}: no such commit here, and no remote 'origin' to fetch it from")
        fetched = self._git("fetch", "--quiet", "--no-tags", "--depth=1", "origin", "--", self.ref)
        found = self._commit_of("FETCH_HEAD") if fetched.returncode == 0 else None
        if found is None:
            said = [line for line in fetched.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
            fatal = [line.removeprefix("fatal: ") for line in said if line.startswith("fatal: ")]
            reason = (fatal or said or [f"git exited with {fetched.returncode}"])[0]
            raise InputError(
                f"--base {self.ref}: this clone does not hold that commit, and fetching it from origin failed "
                f"({reason})"
            )
        return found

    def recordings(
        self, now: Iterable[str], patterns: Iterable[str], discover: str | None, config: str | None = None
    ) -> list[BaseFile]:
        """The recordings at the base the check answers for: the paths of ``now`` (the files it reads), the
        base's paths that ``patterns`` match (absolute globs) or, with ``discover``, that lie under it; and
        those the base's own ``config`` named (its globs, or every recording, where the base had no config), so
        a pull request that narrows the globs does not hide a file it removed."""
        root = self.root.resolve()
        named = {self._relative(path, root): path for path in now}
        patterns = list(patterns)
        under = Path(discover).resolve() if discover is not None else None
        if config is not None:
            committed = self.file(config)
            if committed is None:
                under = root  # the base had no config: the check found every recording in the repository
            else:
                patterns += _config_patterns(committed, Path(config).resolve().parent)
        matchers = [glob_pattern(Path(p).resolve().as_posix()) for p in patterns]
        listed = self._git("ls-tree", "-r", "-z", "--full-tree", self.commit)
        if listed.returncode != 0:
            raise InputError(f"--base {self.ref}: cannot list its files ({listed.stderr.decode(errors='replace')})")
        wanted: list[tuple[str, str, bool]] = []  # (path as the check names it, blob id, found by discovery)
        for entry in listed.stdout.split(b"\0"):
            if not entry:
                continue
            meta, _, raw_path = entry.partition(b"\t")
            kind_of_object, oid = meta.split()[1:3]
            if kind_of_object != b"blob":
                continue
            relative = os.fsdecode(raw_path)
            absolute = (root / relative).as_posix()
            if relative in named:
                wanted.append((named[relative], oid.decode(), False))
            elif any(m.match(absolute) for m in matchers):
                wanted.append((os.path.relpath(root / relative), oid.decode(), False))
            elif (
                under is not None
                and relative.endswith((".json", ".jsonl"))
                and (under == root or under in (root / relative).parents)
                and not _SKIP.intersection(Path(relative).parts[:-1])
                and not any(part.startswith(".") for part in Path(relative).parts[:-1])
            ):
                wanted.append((os.path.relpath(root / relative), oid.decode(), True))
        files: list[BaseFile] = []
        for (path, _, found), data in zip(wanted, self._blobs([oid for _, oid, _ in wanted]), strict=True):
            kind = kind_of_bytes(data, path)
            if kind is Kind.SESSION and found and b'"toolreplay-session"' not in data[:4096]:
                kind = None  # found, not named: a JSON file is a session only where it says so, as discovery reads
            if kind is not None:
                files.append(BaseFile(path, kind, data))
        return files

    def signers(self, config: str | None) -> bytes | None:
        """The allowed signers the base's own config named, as committed at the base; None where it named none."""
        committed = self.file(config) if config is not None else None
        named = _config_value(committed, "signers") if committed is not None else None
        if not isinstance(named, str) or config is None:
            return None
        return self.file(os.path.join(os.path.dirname(config), named))

    def file(self, path: str) -> bytes | None:
        """A file as committed at the base, or None where it was not there."""
        relative = self._relative(path, self.root.resolve())
        done = self._git("cat-file", "blob", f"{self.commit}:{relative}") if relative else None
        return done.stdout if done is not None and done.returncode == 0 else None

    @staticmethod
    def _relative(path: str, root: Path) -> str:
        """The path as the repository names it, by its words, never through a link: a link the pull request made
        (``.toolreplay.yml -> mine.yml``) must not make the check ask the base for the link's target instead."""
        relative = os.path.relpath(os.path.abspath(path), root)
        return "" if relative == ".." or relative.startswith(("../", "/")) else Path(relative).as_posix()

    def paths(self) -> list[str]:
        """Every file the base holds, as the repository names it."""
        if self._paths is None:
            listed = self._git("ls-tree", "-r", "-z", "--name-only", "--full-tree", self.commit)
            if listed.returncode != 0:
                raise InputError(f"--base {self.ref}: cannot list its files ({listed.stderr.decode(errors='replace')})")
            self._paths = [os.fsdecode(name) for name in listed.stdout.split(b"\0") if name]
        return self._paths

    def _blobs(self, oids: list[str]) -> Iterator[bytes]:
        if not oids:
            return
        done = self._git("cat-file", "--batch", data="".join(oid + "\n" for oid in oids).encode())
        if done.returncode != 0:
            raise InputError(f"--base {self.ref}: cannot read its files ({done.stderr.decode(errors='replace')})")
        out, at = done.stdout, 0
        for _ in oids:
            header_end = out.index(b"\n", at)
            size = int(out[at:header_end].split()[2])
            yield out[header_end + 1 : header_end + 1 + size]
            at = header_end + 1 + size + 1


def _config_value(text: bytes, key: str) -> object:
    """A top-level value of a config as committed at the base, read leniently (it was checked when it was new)."""
    import yaml  # noqa: PLC0415

    try:
        document = yaml.safe_load(text.decode("utf-8", "replace"))
    except yaml.YAMLError:
        return None
    return document.get(key) if isinstance(document, dict) else None


def config_globs(text: bytes) -> dict[str, list[str]]:
    """The recording globs of a config as committed at the base, as written, by where they stand: ``sessions``,
    ``transcripts``, ``sealed``, ``replay N sessions``, ``compare N recorded`` / ``candidates`` / ``baseline``."""

    def items(value: object) -> list[str]:
        listed = value if isinstance(value, list) else [value]
        return [item for item in listed if isinstance(item, str) and item]

    found = {key: items(_config_value(text, key)) for key in ("sessions", "transcripts", "sealed")}
    for section, keys in (("replay", ("sessions",)), ("compare", ("recorded", "candidates", "baseline"))):
        entries = _config_value(text, section)
        for number, entry in enumerate(entries if isinstance(entries, list) else [entries], start=1):
            if isinstance(entry, dict):
                found.update({f"{section} {number} {key}": items(entry.get(key)) for key in keys})
    return {key: globs for key, globs in found.items() if globs}


def _config_patterns(text: bytes, directory: Path) -> list[str]:
    """Every recording glob of a config as committed at the base, absolute."""
    return [os.path.normpath(os.path.join(directory, item)) for globs in config_globs(text).values() for item in globs]


def kind_now(path: str) -> Kind | None:
    """A recording's kind as it is now; None where it is no regular file or no recording (a FIFO, a device, a
    directory is never opened)."""
    import stat  # noqa: PLC0415

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        return detect_kind(path, logs=True)
    except (OSError, InputError):
        return None


@record
class Departure:
    """How a recording departs from the base: where, and in words."""

    line: int
    message: str


def _links(lines: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip(b"\r\n")
        if line.strip():
            yield number, line


def _same_link(old: bytes, new: bytes) -> bool:
    if old == new:
        return True
    try:
        return canonical_bytes(json.loads(old)) == canonical_bytes(json.loads(new))
    except (ValueError, TypeError, RecursionError):
        return False


def sealed_departure(base: BaseFile, path: str, kind_now: Kind | None) -> Departure | None:
    """Where a recording sealed at the base stops being its base's links followed by new ones; None when it
    only grew (or is unchanged)."""
    if kind_now is None or not kind_now.sealed:
        now = kind_now.value if kind_now is not None else "no recording"
        return Departure(
            1,
            f"was a {base.kind.value} at the base and is a {now} now: a sealed recording is never unsealed or replaced",
        )
    new = _links(iter_raw_lines(path))
    last = 0
    for index, (_, old) in enumerate(_links(base.data.split(b"\n"))):
        step = next(new, None)
        if step is None:
            return Departure(
                max(last, 1),
                f"cut short: it ends after {index} of the {_count(base)} links it held at the base; a sealed "
                "recording may only grow",
            )
        last, link = step
        if not _same_link(old, link):
            return Departure(
                last,
                f"link {index} is not the one committed at the base: a sealed recording may only grow, its links "
                "never rewritten (sealing it again makes its chain intact, not its history)",
            )
    return None


def _count(base: BaseFile) -> int:
    return sum(1 for _ in _links(base.data.split(b"\n")))


def edited_line(base: BaseFile, path: str) -> int | None:
    """The first line at which an unsealed recording differs from the base; None when it does not."""
    new = b"".join(iter_raw_lines(path))
    if new == base.data:
        return None
    for number, (line, old) in enumerate(zip(new.split(b"\n"), base.data.split(b"\n"), strict=False), start=1):
        if line != old:
            return number
    return max(1, min(new.count(b"\n"), base.data.count(b"\n")))  # one is the start of the other
