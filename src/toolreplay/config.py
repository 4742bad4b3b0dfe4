"""The ``check`` configuration: ``.toolreplay.yml``, read strictly, every error with its line.

Paths and globs in the file are relative to the file's own directory. Every
key is checked: an unknown key, a value of the wrong type, a file that does
not exist or a glob that matches nothing is an :class:`InputError` naming the
config file and the line, since a typo that silently checks nothing would pass
CI for the wrong reason. With no config file, :func:`discover` finds the
recordings under a directory and the defaults apply.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import yaml

from toolreplay.errors import InputError
from toolreplay.formats.files import read_text
from toolreplay.noise import DEFAULT_ALPHA
from toolreplay.replay.answers import Unrecorded
from toolreplay.verdict import FailOn

DEFAULT_CONFIG = ".toolreplay.yml"

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class ScopeSetting:
    """A scope file and the recordings it applies to (all of them when ``recordings`` is empty)."""

    file: str
    recordings: tuple[str, ...]
    line: int


@dataclass(frozen=True, slots=True)
class ReplayJob:
    """A candidate to replay the chosen sessions against, and how."""

    sessions: tuple[str, ...]
    system: str | None
    tools: str | None
    agent: str | None
    repeat: int
    seed: int
    noise: int
    alpha: float
    on_unrecorded: Unrecorded
    stubs: str | None
    concurrency: int
    max_turns: int
    max_tokens: int
    line: int
    agent_line: int


@dataclass(frozen=True, slots=True)
class CompareGroup:
    """Recorded candidate sessions tested against recorded baseline sessions."""

    recorded: str
    candidates: tuple[str, ...]
    baseline: tuple[str, ...]
    alpha: float
    line: int


@dataclass(frozen=True, slots=True)
class Config:
    """What ``check`` reads and runs. ``path`` is None when the recordings were discovered."""

    path: str | None
    recordings: tuple[str, ...]
    sealed: tuple[str, ...]
    sessions: tuple[str, ...]
    scopes: tuple[ScopeSetting, ...] = ()
    rules: str | None = None
    strict: bool = False
    fail_on: FailOn = FailOn.DESTRUCTIVE
    replays: tuple[ReplayJob, ...] = ()
    compares: tuple[CompareGroup, ...] = ()
    text: str = field(default="", repr=False)


_TOP_KEYS = ("sessions", "transcripts", "sealed", "scope", "rules", "strict", "fail-on", "alpha", "replay", "compare")
_REPLAY_KEYS = (
    "sessions",
    "system",
    "tools",
    "agent",
    "repeat",
    "seed",
    "noise",
    "alpha",
    "on-unrecorded",
    "stubs",
    "concurrency",
    "max-turns",
    "max-tokens",
)
_TYPE_NAMES = {
    "tag:yaml.org,2002:str": "a string",
    "tag:yaml.org,2002:int": "an integer",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "true or false",
    "tag:yaml.org,2002:null": "nothing",
    "tag:yaml.org,2002:seq": "a list",
    "tag:yaml.org,2002:map": "a mapping",
}


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


class _Reader:
    """Walks the composed YAML nodes, so every error knows its line."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.base = Path(path).parent

    def fail(self, node: yaml.Node, problem: str) -> InputError:
        return InputError(problem, self.path, _line(node))

    def mapping(self, node: yaml.Node, where: str, allowed: tuple[str, ...]) -> dict[str, yaml.Node]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{where} must be a mapping, not {self.kind(node)}")
        entries: dict[str, yaml.Node] = {}
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            if name not in allowed:
                shown = name if name is not None else self.kind(key)
                raise self.fail(key, f"unknown key '{shown}' in {where}; expected one of: {', '.join(allowed)}")
            if name in entries:
                raise self.fail(key, f"'{name}' appears twice in {where}")
            entries[name] = value
        return entries

    def kind(self, node: yaml.Node) -> str:
        return _TYPE_NAMES.get(node.tag, node.tag)

    def scalar(self, node: yaml.Node, key: str, tag: str, convert: Callable[[str], _T]) -> _T:
        if not isinstance(node, yaml.ScalarNode) or node.tag != tag:
            raise self.fail(node, f"'{key}' must be {_TYPE_NAMES[tag]}, not {self.kind(node)}")
        return convert(node.value)

    def string(self, node: yaml.Node, key: str) -> str:
        return self.scalar(node, key, "tag:yaml.org,2002:str", str)

    def integer(self, node: yaml.Node, key: str, least: int) -> int:
        value = self.scalar(node, key, "tag:yaml.org,2002:int", lambda text: int(text, 0))
        if value < least:
            raise self.fail(node, f"'{key}' must be at least {least}, not {value}")
        return value

    def boolean(self, node: yaml.Node, key: str) -> bool:
        return self.scalar(node, key, "tag:yaml.org,2002:bool", lambda text: text.lower() in ("true", "yes", "on"))

    def fraction(self, node: yaml.Node, key: str) -> float:
        numeric = ("tag:yaml.org,2002:float", "tag:yaml.org,2002:int")
        if not isinstance(node, yaml.ScalarNode) or node.tag not in numeric:
            raise self.fail(node, f"'{key}' must be a number, not {self.kind(node)}")
        value = float(node.value)
        if not 0 < value < 1:
            raise self.fail(node, f"'{key}' must be between 0 and 1, not {node.value}")
        return value

    def choice(self, node: yaml.Node, key: str, choices: tuple[str, ...]) -> str:
        value = self.string(node, key)
        if value not in choices:
            raise self.fail(node, f"'{key}' must be one of {', '.join(choices)}, not '{value}'")
        return value

    def file(self, node: yaml.Node, key: str) -> str:
        """A path to an existing file, relative to the config file."""
        name = self.string(node, key)
        path = self.base / name
        if not path.is_file():
            raise self.fail(node, f"'{key}': no such file: {name}")
        return os.path.normpath(path)

    def globs(self, node: yaml.Node, key: str) -> tuple[str, ...]:
        """The files a glob or a list of globs matches, each glob matching at least one."""
        items = node.value if isinstance(node, yaml.SequenceNode) else [node]
        found: dict[str, None] = {}
        for item in items:
            pattern = self.string(item, key)
            matches = sorted(
                os.path.normpath(self.base / name)
                for name in glob.glob(pattern, root_dir=self.base, recursive=True)
                if (self.base / name).is_file()
            )
            if not matches:
                raise self.fail(item, f"'{key}': {pattern} matches no file")
            found.update(dict.fromkeys(matches))
        return tuple(found)


def read_config(path: str) -> Config:
    """Read and check a config file."""
    text = read_text(path)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"not valid YAML: {problem}", path, mark.line + 1 if mark else None) from None
    reader = _Reader(path)
    if root is None:
        raise InputError("the config is empty; name the recordings to check (see docs/configuration.md)", path)
    top = reader.mapping(root, "the config", _TOP_KEYS)
    sessions = reader.globs(top["sessions"], "sessions") if "sessions" in top else ()
    transcripts = reader.globs(top["transcripts"], "transcripts") if "transcripts" in top else ()
    sealed = reader.globs(top["sealed"], "sealed") if "sealed" in top else ()
    recordings = tuple(dict.fromkeys((*sessions, *transcripts, *sealed)))
    if not recordings and "compare" not in top:
        raise reader.fail(root, "the config names no recordings: add sessions, transcripts or sealed")
    alpha = reader.fraction(top["alpha"], "alpha") if "alpha" in top else DEFAULT_ALPHA
    return Config(
        path=path,
        recordings=recordings,
        sealed=sealed,
        sessions=sessions,
        scopes=tuple(_scopes(reader, top["scope"])) if "scope" in top else (),
        rules=reader.file(top["rules"], "rules") if "rules" in top else None,
        strict=reader.boolean(top["strict"], "strict") if "strict" in top else False,
        fail_on=FailOn(reader.choice(top["fail-on"], "fail-on", tuple(f.value for f in FailOn)))
        if "fail-on" in top
        else FailOn.DESTRUCTIVE,
        replays=tuple(_replays(reader, top["replay"], sessions, alpha)) if "replay" in top else (),
        compares=tuple(_compares(reader, top["compare"], alpha)) if "compare" in top else (),
        text=text,
    )


def _items(reader: _Reader, node: yaml.Node, key: str) -> list[yaml.Node]:
    """A key that takes one entry or a list of them."""
    if isinstance(node, yaml.SequenceNode):
        if not node.value:
            raise reader.fail(node, f"'{key}' is an empty list")
        return list(node.value)
    return [node]


def _scopes(reader: _Reader, node: yaml.Node) -> Iterator[ScopeSetting]:
    for item in _items(reader, node, "scope"):
        if isinstance(item, yaml.ScalarNode):
            yield ScopeSetting(reader.file(item, "scope"), (), _line(item))
            continue
        entries = reader.mapping(item, "a scope", ("file", "recordings"))
        if "file" not in entries:
            raise reader.fail(item, "a scope needs 'file'")
        applies = reader.globs(entries["recordings"], "recordings") if "recordings" in entries else ()
        yield ScopeSetting(reader.file(entries["file"], "file"), applies, _line(item))


def _replays(reader: _Reader, node: yaml.Node, sessions: tuple[str, ...], alpha: float) -> Iterator[ReplayJob]:
    for item in _items(reader, node, "replay"):
        entries = reader.mapping(item, "a replay", _REPLAY_KEYS)
        chosen = reader.globs(entries["sessions"], "sessions") if "sessions" in entries else sessions
        if not chosen:
            raise reader.fail(item, "a replay needs sessions: give 'sessions' here or at the top")
        on_unrecorded = Unrecorded(
            reader.choice(entries["on-unrecorded"], "on-unrecorded", tuple(u.value for u in Unrecorded))
            if "on-unrecorded" in entries
            else Unrecorded.ERROR.value
        )
        stubs = reader.file(entries["stubs"], "stubs") if "stubs" in entries else None
        if (stubs is not None) != (on_unrecorded is Unrecorded.STUB):
            raise reader.fail(item, "'stubs' goes with 'on-unrecorded: stub', and stub needs 'stubs'")
        agent_node = entries.get("agent")
        agent = reader.string(agent_node, "agent") if agent_node is not None else None
        if agent_node is not None and agent is not None and agent.startswith("scripted:"):
            script = reader.base / agent.removeprefix("scripted:")
            if not script.is_file():
                raise reader.fail(agent_node, f"'agent': no such file: {agent.removeprefix('scripted:')}")
            agent = "scripted:" + os.path.normpath(script)
        yield ReplayJob(
            sessions=chosen,
            system=reader.file(entries["system"], "system") if "system" in entries else None,
            tools=reader.file(entries["tools"], "tools") if "tools" in entries else None,
            agent=agent,
            repeat=reader.integer(entries["repeat"], "repeat", 1) if "repeat" in entries else 1,
            seed=reader.integer(entries["seed"], "seed", 0) if "seed" in entries else 1,
            noise=reader.integer(entries["noise"], "noise", 0) if "noise" in entries else 0,
            alpha=reader.fraction(entries["alpha"], "alpha") if "alpha" in entries else alpha,
            on_unrecorded=on_unrecorded,
            stubs=stubs,
            concurrency=reader.integer(entries["concurrency"], "concurrency", 1) if "concurrency" in entries else 1,
            max_turns=reader.integer(entries["max-turns"], "max-turns", 1) if "max-turns" in entries else 50,
            max_tokens=reader.integer(entries["max-tokens"], "max-tokens", 1) if "max-tokens" in entries else 4096,
            line=_line(item),
            agent_line=_line(agent_node) if agent_node is not None else _line(item),
        )


def _compares(reader: _Reader, node: yaml.Node, alpha: float) -> Iterator[CompareGroup]:
    for item in _items(reader, node, "compare"):
        entries = reader.mapping(item, "a compare group", ("recorded", "candidates", "baseline", "alpha"))
        for needed in ("recorded", "candidates", "baseline"):
            if needed not in entries:
                raise reader.fail(item, f"a compare group needs '{needed}'")
        yield CompareGroup(
            recorded=reader.file(entries["recorded"], "recorded"),
            candidates=reader.globs(entries["candidates"], "candidates"),
            baseline=reader.globs(entries["baseline"], "baseline"),
            alpha=reader.fraction(entries["alpha"], "alpha") if "alpha" in entries else alpha,
            line=_line(item),
        )


_SKIP_DIRS = {".git", ".hg", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache", ".ruff_cache"}


def discover(directory: str) -> Config:
    """The recordings under ``directory``: JSON Lines transcripts (sealed or not) and session files."""
    from toolreplay.formats.recording import Kind, sniff_kind  # noqa: PLC0415 - avoids an import cycle

    recordings: list[str] = []
    sealed: list[str] = []
    sessions: list[str] = []

    def unreadable(exc: OSError) -> None:
        raise InputError(f"cannot read the directory: {exc.strerror or exc}", exc.filename or directory)

    for top, dirs, files in os.walk(directory, onerror=unreadable):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith((".json", ".jsonl")):
                continue
            path = os.path.normpath(os.path.join(top, name))
            kind = sniff_kind(path)
            if kind is None:
                continue
            recordings.append(path)
            if kind.sealed:
                sealed.append(path)
            if kind in (Kind.SESSION, Kind.SEALED_SESSION):
                sessions.append(path)
    return Config(None, tuple(recordings), tuple(sealed), tuple(sessions))
