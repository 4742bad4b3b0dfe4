"""The run cache: each run an agent made, kept under a digest of everything that decided it, and given back instead
of driving the agent again.

A run's key is the SHA-256 of the canonical JSON of its inputs: toolreplay's
version, the recording (its conversation, tools, results and servers' messages,
not where its file is), the system prompt, the tool definitions, the request
settings, the unrecorded-call policy and stubs, the matching rules and the
classification, the turn limit, the agent (a model's provider, name, base URL
as given and, for OpenAI, its API;
a scripted file's bytes; a program's command as written and the bytes of each
file it names), how a program reaches its servers, the ``cache-key`` a user
gives for what none of that shows, the seed and the run's number. Change any
of them and the key changes.

Each entry is one file, ``DIR/ab/abcdef….json``: the run as it came back (its
calls with their answers, how it ended, its reply, what it spent) and its
inputs' digests, part by part, so a miss can be explained. An entry carries
the digest of its own canonical JSON; one that fails it, names another key, or
cannot be read as a run is ignored and said, never trusted. An entry older
than the time to live is not used (a model behind an alias can change), and
the run made in its place replaces it. Only runs the agent answered are kept:
a run that ended in an error (a model that could not be reached) is tried
again next time, and so is a run its timeout ended (the timeout is not in the
key, so a longer one reuses every run that finished within it).
"""

from __future__ import annotations

import dataclasses
import enum
import errno
import hashlib
import json
import math
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolreplay import __version__
from toolreplay.agent_spec import AgentSpec, FunctionSpec, ProgramSpec, ScriptSpec
from toolreplay.agents.base import Usage
from toolreplay.agents.providers.base import Endpoint
from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes, json_utf8
from toolreplay.core.errors import InputError
from toolreplay.core.escape import one_line
from toolreplay.core.model import Call, Origin
from toolreplay.core.wording import count
from toolreplay.replay.engine import ReplaySetup, Run
from toolreplay.replay.progress import Progress

if TYPE_CHECKING:
    from toolreplay.replay.runners import Runner

ENTRY_VERSION = 1
DAY = 86_400.0
# fields that say where something came from, never what a run sees; and the policies, which judge runs only
_UNSEEN = frozenset({"path", "line", "source", "policies"})


def _canonical_part(value: object) -> Any:
    """What the canonical JSON of a record, an enum or a set is (the encoder calls this for what is not JSON)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value) if f.name not in _UNSEEN}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, re.Pattern):
        return value.pattern
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not part of a run's key")


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False, default=_canonical_part)


def digest_of(value: object) -> str:
    """The SHA-256 of ``value``'s canonical JSON, records included, as hex (encoded whole: the C encoder does
    that ten times faster than it yields pieces)."""
    return hashlib.sha256(_ENCODER.encode(value).encode("ascii")).hexdigest()


_DIGESTS: dict[tuple[str, int, int], str] = {}  # a file's digest by its real path, size and time: read once


def _file_digest(path: str) -> str:
    """The SHA-256 of a file, read in pieces (a program's binary can be hundreds of megabytes), once per
    process for each version of it."""
    try:
        real = os.path.realpath(path)
        seen = os.stat(real)
        known = (real, seen.st_size, seen.st_mtime_ns)
        if known not in _DIGESTS:
            digest = hashlib.sha256()
            with open(real, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    digest.update(chunk)
            _DIGESTS[known] = digest.hexdigest()
        return _DIGESTS[known]
    except OSError:
        return "unreadable"


_MOST_FILES = 5000  # files of a program's directory a key covers, at most (past it, the key says so)


def _read_by(named: list[str], words: Sequence[str] = (), here: str = "", extra: Sequence[str] = ()) -> list[str]:
    """The files a program runs, as far as they can be known without running it: those its command names; for each
    that lies in a git repository (below its root), the repository's tracked files in its directory and under it
    (a wrapper script starts the program beside it); for a Python file outside one, the modules beside it, which
    it imports as its own; the package of a ``python -m MODULE``; and ``extra`` (a config's ``cache-files``)."""
    found = dict.fromkeys(named)
    for name in named:
        found.update(dict.fromkeys(_beside(Path(name))))
    for module in (words[n + 1] for n, word in enumerate(words[:-1]) if word == "-m"):
        top = module.split(".")[0]
        for base in dict.fromkeys((Path(here or "."), Path.cwd())):
            package = base / top
            if package.is_dir():
                found.update(dict.fromkeys(_beside(package / "__init__.py", package) or _python_under(package)))
                break
            if (base / f"{top}.py").is_file():
                found[str(base / f"{top}.py")] = None
                break
    found.update(dict.fromkeys(extra))
    return [name for name in found if os.path.isfile(name)][:_MOST_FILES]


def _beside(path: Path, directory: Path | None = None) -> list[str]:
    """The files beside ``path`` that a program started from it may run (see :func:`_read_by`)."""
    folder = directory or path.parent
    tracked = _tracked(folder)
    if tracked is not None:
        return tracked
    if path.suffix == ".py":
        return sorted(str(beside) for beside in folder.glob("*.py") if beside.is_file())
    return []


def _tracked(folder: Path) -> list[str] | None:
    """The files git tracks in ``folder`` and under it, when it lies in a repository below its root (at the root,
    those in it alone: every recording and document of the repository is not the program); None outside one."""
    import subprocess  # noqa: PLC0415 - only for a program's files

    try:
        top = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=False
        )
    except OSError:
        return None
    if top.returncode != 0 or not top.stdout.strip():
        return None
    at_root = Path(top.stdout.strip()).resolve() == folder.resolve()
    listed = subprocess.run(
        ["git", "-C", str(folder), "ls-files", "-z", "--", "." if not at_root else ":(glob)*"],
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:
        return None
    names = [name for name in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if name]
    return sorted(str(folder / name) for name in names)


def _python_under(package: Path) -> list[str]:
    return sorted(str(path) for path in package.rglob("*.py") if path.is_file())[:_MOST_FILES]


def program_files(agent: ProgramSpec, here: str, extra: Sequence[str] = ()) -> list[str]:
    """The files a program's runs are keyed on (see :func:`_read_by`)."""
    return _read_by(agent.files(here), agent.words, here, extra)


def agent_identity(
    agent: AgentSpec,
    here: str,
    transport: str,
    cache_key: str | None,
    extra: Sequence[str] = (),
    endpoint: Endpoint | None = None,
) -> JSONObject:
    """What decides a run of ``agent`` beside the replay's setup: never a path of this machine. ``extra``: more
    files a program's runs depend on (a config's ``cache-files``); ``endpoint``: where a model is asked (its
    base URL as given, and for an OpenAI model which API)."""
    identity: JSONObject
    if isinstance(agent, ScriptSpec):
        identity = {"script": _file_digest(agent.path)}
    elif isinstance(agent, ProgramSpec):
        files: list[JSONValue] = [_file_digest(name) for name in program_files(agent, here, extra)]
        # the words as written, this checkout's directory as {here}: another checkout of the same is the same key
        words: list[JSONValue] = [word.replace(here, "{here}") if here else word for word in agent.words]
        identity = {"program": words, "files": files, "transport": transport}
    elif isinstance(agent, FunctionSpec):  # its file and those beside it, or its module's package, as -m MODULE's
        base, named = agent.home or here, agent.files(here)
        module: tuple[str, ...] = ()
        if not agent.is_file:
            single = Path(base) / f"{agent.target.split('.')[0]}.py"
            named, module = ([str(single)], ()) if single.is_file() else ([], ("-m", agent.target))
        read = _read_by(named, module, base, extra)
        identity = {"function": agent.show(), "files": [_file_digest(name) for name in read]}
    else:
        identity = {"model": agent.model, "provider": agent.provider}
        if endpoint is not None and endpoint.base_url is not None:
            identity["base_url"] = endpoint.base_url
        if endpoint is not None and agent.provider == "openai":
            identity["api"] = endpoint.api.value
    if cache_key is not None:
        identity["cache_key"] = cache_key
    return identity


def setup_parts(setup: ReplaySetup) -> JSONObject:
    """The digest of each part of a replay's setup, for a key and for explaining a miss."""
    return {
        "recording": digest_of(setup.recording),
        "system": digest_of(setup.system),
        "tools": digest_of(setup.tools),
        "request": digest_of(setup.request),
        "answers": digest_of([setup.on_unrecorded, setup.stubs, setup.matcher, setup.policy]),
        "limits": digest_of([setup.max_turns]),  # the run timeout is not: a run it ended is never kept
    }


def _run_json(run: Run) -> JSONObject:
    calls: list[JSONValue] = [
        {"index": c.index, "tool": c.tool, "args": c.args, "result": c.result, "is_error": c.is_error, "turn": c.turn}
        for c in run.calls
    ]
    usage = run.usage
    return {
        "number": run.number,
        "seed": run.seed,
        "calls": calls,
        "origins": [origin.value for origin in run.origins],
        "ending": run.ending,
        "final_reply": run.final_reply,
        "usage": {
            "input": usage.input_tokens,
            "output": usage.output_tokens,
            "cache_read": usage.cache_read_tokens,
            "cache_write": usage.cache_write_tokens,
            "cost_usd": usage.cost_usd,
        },
        "error": run.error,
        "traceback": run.traceback,
    }


def _run_from(document: Any) -> Run:
    """A run as an entry holds it; KeyError, TypeError or ValueError for anything else."""
    calls = tuple(
        Call(int(c["index"]), str(c["tool"]), dict(c["args"]), c["result"], 0, bool(c["is_error"]), int(c["turn"]))
        for c in document["calls"]
    )
    origins = tuple(Origin(value) for value in document["origins"])
    if len(origins) != len(calls):
        raise ValueError("a call without its answer's origin")
    used = document["usage"]
    usage = Usage(
        int(used["input"]), int(used["output"]), int(used["cache_read"]), int(used["cache_write"]),
        float(used["cost_usd"]),
    )  # fmt: skip
    seed, reply, error = document["seed"], document["final_reply"], document["error"]
    return Run(
        int(document["number"]),
        None if seed is None else int(seed),
        calls,
        origins,
        str(document["ending"]),
        None if reply is None else str(reply),
        usage,
        None if error is None else str(error),
        cached=True,
        traceback=None if document.get("traceback") is None else str(document["traceback"]),
    )


class RunCache:
    """The entries under one directory: looked up before a run is driven, written once it is made."""

    def __init__(self, directory: str | Path, days: float, now: Callable[[], float] = time.time) -> None:
        self.directory = Path(directory)
        if self.directory.exists() and not self.directory.is_dir():
            raise InputError("the cache must be a directory, and this is not one", str(directory))
        self.days = days
        self.now = now
        self.hits = 0
        self.stored = 0
        self.expired = 0
        self.ignored: list[str] = []  # why each untrusted entry was not used, one line each
        self.covered: dict[str, None] = {}  # the files a program's runs were keyed on, in order

    def _file(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Run | None:
        """The run kept under ``key``, if it is there, whole, its own, and not too old."""
        path = self._file(key)
        try:
            data = _read_entry(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.ignored.append(f"{one_line(str(path))}: ignored, {one_line(exc.strerror or str(exc))}")
            return None
        try:
            body = _body(data)
            entry = json.loads(body)
            if not isinstance(entry, dict) or entry.get("v") != ENTRY_VERSION:
                raise ValueError("not an entry of this version")
            if entry.get("key") != key:
                raise ValueError("it is another run's")
            made = float(entry["made"])
            if not math.isfinite(made) or made > self.now() + 3600:
                raise ValueError("it says it was made at no time that has come")
            run = _run_from(entry["run"])
        except (ValueError, KeyError, TypeError, RecursionError, ArithmeticError) as exc:
            self.ignored.append(f"{one_line(str(path))}: ignored, {one_line(str(exc))[:200]}")
            return None
        if self.now() - made > self.days * DAY:
            self.expired += 1
            return None
        self.hits += 1
        return run

    def put(self, key: str, run: Run, inputs: JSONObject) -> None:
        """Keep ``run`` under ``key`` (an unwritable cache costs the saving, never the replay). The entry is
        renamed into place whole, not flushed to disk: one lost in a crash is a run driven again, and one cut
        short fails its digest."""
        entry: JSONObject = {
            "v": ENTRY_VERSION,
            "key": key,
            "made": round(self.now(), 3),
            "toolreplay": __version__,
            "inputs": inputs,
            "run": _run_json(run),
        }
        body = json_utf8(json.dumps(entry, ensure_ascii=False, sort_keys=True))
        data = b'{"digest": "%s", "entry": %s}\n' % (hashlib.sha256(body).hexdigest().encode(), body)
        path = self._file(key)
        try:
            os.makedirs(path.parent, exist_ok=True)
            _own_directory(path.parent, self.directory)
            temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
            try:
                # never through a link planted where the temporary file goes
                descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
                with os.fdopen(descriptor, "wb") as handle:
                    handle.write(data)
                os.replace(temporary, path)
            except OSError:
                temporary.unlink(missing_ok=True)  # a full disk keeps nothing half written
                raise
        except OSError as exc:
            self.ignored.append(f"{one_line(str(path))}: not written, {exc.strerror or exc}")
            return
        self.stored += 1


def _own_directory(shard: Path, directory: Path) -> None:
    """A shard's directory is the cache's own, not a link out of it: a cache restored from a pull request's scope
    may hold ``00``...``ff`` as links to anywhere, and nothing is written through one."""
    if shard.is_symlink() or os.path.realpath(shard) != os.path.join(os.path.realpath(directory), shard.name):
        raise OSError(errno.ELOOP, "a link out of the cache, never written through")


_HEAD = b'{"digest": "'
MAX_ENTRY = 64 << 20  # bytes: an entry past this is no run this cache wrote


def _read_entry(path: Path) -> bytes:
    """An entry's bytes, from a regular file of a sane size (a FIFO would block, a device never end)."""
    with open(path, "rb", opener=lambda name, flags: os.open(name, flags | os.O_NONBLOCK)) as handle:
        seen = os.fstat(handle.fileno())
        if not stat.S_ISREG(seen.st_mode):
            raise OSError(f"{path} is not a regular file")
        if seen.st_size > MAX_ENTRY:
            raise OSError(f"{path} is larger than any entry ({seen.st_size:,} bytes)")
        return handle.read(MAX_ENTRY + 1)


def _body(data: bytes) -> bytes:
    """The entry's own bytes, once they hash to the digest written before them."""
    end = len(_HEAD) + 64
    if not data.startswith(_HEAD) or data[end : end + 12] != b'", "entry": ' or not data.endswith(b"}\n"):
        raise ValueError("not an entry")
    body = data[end + 12 : -2]
    if hashlib.sha256(body).hexdigest().encode() != data[len(_HEAD) : end]:
        raise ValueError("it fails its own digest")
    return body


class CachedRunner:
    """A runner whose runs are looked up first: only the runs the cache lacks are driven, in blocks of consecutive
    numbers (so a program's ``{run}`` is the number its key holds), and each one answered is kept."""

    def __init__(self, inner: Runner, cache: RunCache, identity: JSONObject) -> None:
        self.inner = inner
        self.cache = cache
        self.identity = identity
        self._parts: tuple[ReplaySetup, JSONObject] | None = None

    def _setup_parts(self, setup: ReplaySetup) -> JSONObject:
        if self._parts is None or self._parts[0] is not setup:
            self._parts = (setup, setup_parts(setup))
        return self._parts[1]

    def runs(self, setup: ReplaySetup, seeds: Sequence[int], start: int, progress: Progress) -> list[Run]:
        parts = self._setup_parts(setup)
        inputs: list[JSONObject] = [
            {"v": ENTRY_VERSION, "toolreplay": __version__, "parts": parts, "agent": self.identity, "seed": seed,
             "run": start + offset}
            for offset, seed in enumerate(seeds)
        ]  # fmt: skip
        keys = [hashlib.sha256(canonical_bytes(one)).hexdigest() for one in inputs]
        found: list[Run | None] = [self.cache.get(key) for key in keys]
        for run in found:
            if run is not None:
                progress.run(run)
        offset = 0
        while offset < len(seeds):
            if found[offset] is not None:
                offset += 1
                continue
            end = offset
            while end < len(seeds) and found[end] is None:
                end += 1
            made = self.inner.runs(setup, seeds[offset:end], start + offset, progress)
            for place, run in zip(range(offset, end), made, strict=False):  # fewer: a budget stopped them
                found[place] = run
                if run.answered and not run.ending.startswith("timed out"):  # another timeout, another run
                    self.cache.put(keys[place], run, inputs[place])
            if len(made) < end - offset:
                break  # no more runs are driven; those the cache gave back still count
            offset = end
        return [run for run in found if run is not None]


def _under(path: str, directory: str) -> bool:
    whole = os.path.abspath(path)
    return whole == directory or whole.startswith(directory.rstrip(os.sep) + os.sep)


def cache_note(directory: str, cache: RunCache) -> str:
    """One line on what the cache did: runs given back, runs kept, entries too old."""
    line = f"the run cache {one_line(directory)}: {count(cache.hits, 'run')} from it, {cache.stored} kept"
    if cache.expired:
        line += f", {cache.expired} older than {cache.days:g} days not used"
    if cache.covered:
        here = os.getcwd()
        names = [os.path.relpath(name, here) if _under(name, here) else name for name in cache.covered]
        shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        line += f"; a program's runs keyed on {count(len(names), 'file')} ({shown}; cache-files: adds others)"
    return line
