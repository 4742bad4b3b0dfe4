"""``check --base``: the gate's policy as the base committed it, and every way the pull request loosens it.

A pull request can edit its own config, rules, scopes, stubs and lock, and a gate that read them from the pull
request would let the change it judges decide how it is judged. Under ``--base`` the base's config is read too: its
own text, with its policy files (``POLICY_KEYS``) as the base committed them and every
other file it names (the prompts, tools files and agents under review) from the pull request's tree. Then:

- :func:`~toolreplay.check.loosening.loosenings` compares the two configs setting by setting and names each
  way the pull request's is less strict (an entry or a matched file gone, fewer runs, a lower ``alpha``, a weaker
  ``fail-on`` ...), each a ``policy-loosened`` finding at the pull request's line;
- :func:`~toolreplay.check.stricter.stricter` is the config that runs under ``--policy base``: the base's entries,
  each at the stricter of its setting and the pull request's, the pull request's own additions beside them, and
  every file either matches.

Seeds are the base's (:func:`base_seed`), never the config's: a sample the pull request chose is no sample.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.check.loosening import ConfigLines, Loosening, loosenings, shown
from toolreplay.check.stricter import stricter
from toolreplay.core.errors import InputError
from toolreplay.core.records import record
from toolreplay.formats.config.model import DEFAULT_CONFIG, Config, ReplayJob
from toolreplay.formats.config.read import read_config

if TYPE_CHECKING:
    from toolreplay.check.base import Base


@record
class Governed:
    """What ``check --base`` ran on: the config whose policy governed, the base's config as read (None where the base
    had none), the loosenings found, whose policy it was, and the seed every replay was given."""

    config: Config
    base_config: Config | None
    loosenings: tuple[Loosening, ...]
    policy: str  # "base" or "pr"
    seed: int
    copies: tuple[tuple[str, str], ...] = ()  # the base's policy files as the check copied them, and their paths here
    touched: tuple[str, ...] = ()  # the files the check reads that the pull request changed, each with a diff stat


def base_seed(commit: str) -> int:
    """The seed of every replay under ``--base``: from the base commit's id, so a rerun of the same check draws the
    same runs (and reuses the run cache's), and no config chooses it."""
    return int.from_bytes(hashlib.sha256(b"toolreplay-seed\0" + commit.encode()).digest()[:4], "big") % (2**31) + 1


def govern(pr: Config | None, config_path: str, base: Base, policy: str, repository: Path, outside: bool) -> Governed:
    """The config the check runs under ``--base``, and every loosening of the base's policy.

    ``pr`` is the pull request's config (None where the pull request has none at ``config_path``); ``policy`` is
    ``base`` (the stricter of the two runs) or ``pr`` (the pull request's runs, its loosenings still reported)."""
    seed = base_seed(base.commit)
    committed = base.file(config_path)
    base_config: Config | None = None
    found: list[Loosening] = []
    shown = os.path.relpath(config_path, repository) if pr is not None else None
    copies = _Copies(base)
    if committed is not None:
        try:
            base_config = read_config(
                config_path,
                repository,
                outside,
                committed.decode("utf-8", "surrogateescape"),
                copies.path,
            )
        except InputError as exc:
            found.append(
                Loosening("the base's config", "in force", f"not applicable to this tree ({exc.message})", shown, 1)
            )
    if base_config is not None:
        if pr is None:
            found.append(Loosening("the config", os.path.relpath(config_path), "gone", None, 1))
        else:
            found += loosenings(base_config, pr)
            assert committed is not None
            found += _evidence_gone(committed, config_path, pr, base)
    if pr is not None:
        found += _not_recorded_at_base(pr, base)
        found += _hidden_characters(pr)
    if pr is None and base_config is None:
        raise InputError(f"no config at {config_path}, here or at the base")
    if policy == "pr" or base_config is None:
        running = pr if pr is not None else base_config
        assert running is not None
    else:
        running = stricter(base_config, pr) if pr is not None else base_config
    days = min((job.settings.cache_days for job in base_config.replays), default=None) if base_config else None
    running = replace(running, replays=tuple(_seeded(job, seed, days) for job in running.replays))
    made = copies.made() if committed is not None else ()
    return Governed(running, base_config, tuple(found), policy, seed, made, _touched(running, base))


def _evidence_gone(committed: bytes, config_path: str, pr: Config, base: Base) -> list[Loosening]:
    """Each session a replay or comparison read at the base (its globs matched against the base's own files) that
    the pull request removed or renamed: the evidence a verdict stood on."""
    from toolreplay.check.base import config_globs, glob_pattern  # noqa: PLC0415

    lines = ConfigLines(pr)
    directory = Path(os.path.abspath(config_path)).parent
    root = base.root.resolve()
    held = [(root / path).as_posix() for path in base.paths()]
    now: dict[str, set[str]] = {}
    for number, job in enumerate(pr.replays, start=1):
        now[f"replay {number} sessions"] = {os.path.abspath(path) for path in job.sessions}
    for number, group in enumerate(pr.compares, start=1):
        now[f"compare {number} recorded"] = {os.path.abspath(group.recorded)}
        now[f"compare {number} candidates"] = {os.path.abspath(path) for path in group.candidates}
        now[f"compare {number} baseline"] = {os.path.abspath(path) for path in group.baseline}
    found: list[Loosening] = []
    for where, globs in config_globs(committed).items():
        if " " not in where or where not in now:
            continue  # the top level's recordings are held by --base itself; an entry gone is a loosening already
        section, entry, key = where.split(" ")
        matchers = [glob_pattern(os.path.normpath(os.path.join(directory, item))) for item in globs]
        for path in held:  # one still here but no longer matched is the glob's loosening, said by loosenings()
            if any(m.match(path) for m in matchers) and not os.path.lexists(path) and path not in now[where]:
                named = shown(path)
                line = lines.at(section, int(entry) - 1, key)
                said = f"removed or renamed: {named}"
                found.append(Loosening(where, f"reading {named} at the base", said, pr.path, line))
    return found


def _touched(config: Config, base: Base) -> tuple[str, ...]:
    """The files the check reads (the config, the recordings, the prompts, tools files and programs) that differ
    from the base, each as ``PATH (+ADDED -REMOVED)``, or ``PATH (new)``: what the review should read first."""
    import difflib  # noqa: PLC0415

    found: list[str] = []
    for path in config.files():
        if is_base_copy(path):
            continue
        old = base.file(path)
        try:
            new = Path(path).read_bytes() if Path(path).is_file() else None
        except OSError:
            new = None
        if old == new or new is None:
            continue
        if old is None:
            found.append(f"{shown(path)} (new)")
            continue
        before = old.decode("utf-8", "replace").splitlines()
        after = new.decode("utf-8", "replace").splitlines()
        added = removed = 0
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
            if tag in ("replace", "delete"):
                removed += i2 - i1
            if tag in ("replace", "insert"):
                added += j2 - j1
        found.append(f"{shown(path)} (+{added} -{removed})")
    return tuple(found)


def _hidden_characters(pr: Config) -> list[Loosening]:
    """A path or name in the config with a character that is not printable ASCII: a look-alike letter or an invisible
    one can make the config name a file other than the one a reviewer reads."""
    import unicodedata  # noqa: PLC0415

    lines = ConfigLines(pr)
    found: list[Loosening] = []
    waiting = [lines.root] if lines.root is not None else []
    while waiting:
        node = waiting.pop()
        if isinstance(node.value, dict):
            waiting.extend(member for _, member in node.members())
        elif isinstance(node.value, list):
            waiting.extend(node.elements())
        elif isinstance(node.value, str):
            odd = next((ch for ch in node.value if not (" " <= ch <= "~") and ch not in "\t"), None)
            if odd is not None:
                name = unicodedata.name(odd, "an unnamed character")
                said = f"{node.where or 'a value'}: holds U+{ord(odd):04X} {name}, which is not ASCII: a look-alike or "
                said += "invisible character can make the config read a file other than the one a reviewer sees"
                found.append(Loosening(node.where, "", "", pr.path, node.line, said))
    return sorted(found, key=lambda loosened: loosened.line)


def _seeded(job: ReplayJob, seed: int, days: float | None) -> ReplayJob:
    """A job with the base's seed and no run cache of the config's: a cache in the repository is the pull request's
    to write, and a run taken from it was never made (the workflow's own ``--cache`` is given after this)."""
    kept = min(job.settings.cache_days, days) if days is not None else job.settings.cache_days
    return replace(job, settings=replace(job.settings, seed=seed, cache=None, cache_days=kept))


class _Copies:
    """The base's versions of the policy's files, each written once into a directory of the check's own."""

    def __init__(self, base: Base) -> None:
        self.base = base
        self._directory: Path | None = None
        self._made: dict[str, str | None] = {}

    def path(self, name: str) -> str | None:
        """The copy of the file at ``name`` (a path of this tree) as the base committed it; None where the base had
        no such file."""
        if name not in self._made:
            data = self.base.file(name)
            if data is None:
                self._made[name] = None
            else:
                if self._directory is None:
                    self._directory = Path(tempfile.mkdtemp(prefix="toolreplay-base-policy-"))
                    atexit.register(shutil.rmtree, self._directory, True)
                copy = self._directory / f"{len(self._made)}-{Path(name).name}"
                copy.write_bytes(data)
                self._made[name] = str(copy)
        return self._made[name]

    def made(self) -> tuple[tuple[str, str], ...]:
        return tuple((copy, name) for name, copy in self._made.items() if copy is not None)


def is_base_copy(path: str) -> bool:
    """Whether a path is one of the base's policy files as the check copied them."""
    return Path(path).parent.name.startswith("toolreplay-base-policy-")


def _not_recorded_at_base(pr: Config, base: Base) -> list[Loosening]:
    """A session the pull request replays or compares that the base does not hold: the recording is then the pull
    request's own word for what the agent did, and a replay or comparison with it proves nothing about the agent (a
    session added to one side of a comparison dilutes what the other side shows)."""
    lines = ConfigLines(pr)
    found: list[Loosening] = []
    read: list[tuple[str, tuple[str | int, ...], str]] = []  # (setting, where in the config, path)
    for number, job in enumerate(pr.replays):
        read += [(f"replay {number + 1} sessions", ("replay", number, "sessions"), path) for path in job.sessions]
    for number, group in enumerate(pr.compares):
        for key, paths in (
            ("recorded", (group.recorded,)),
            ("candidates", group.candidates),
            ("baseline", group.baseline),
        ):
            read += [(f"compare {number + 1} {key}", ("compare", number, key), path) for path in paths]
    was = "recordings committed at the base"
    for setting, where, path in read:
        if base.file(path) is None:
            found.append(Loosening(setting, was, f"{shown(path)} too, not one", pr.path, lines.at(*where)))
    return found


def config_named(config_file: str | None, base: Base) -> str | None:
    """The config to govern by when none was given: the default one, where it is here or was at the base."""
    if config_file is not None:
        return config_file
    if os.path.isfile(DEFAULT_CONFIG) or base.file(DEFAULT_CONFIG) is not None:
        return DEFAULT_CONFIG
    return None
