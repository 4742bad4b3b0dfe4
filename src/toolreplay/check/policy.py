"""``check --base``: the gate's policy as the base committed it, and every way the pull request loosens it.

A pull request can edit its own config, rules, scopes, stubs and lock, and a gate that read them from the pull
request would let the change it judges decide how it is judged. Under ``--base`` the base's config is read too: its
own text, with its policy files (``POLICY_KEYS``) as the base committed them and every
other file it names (the prompts, tools files and agents under review) from the pull request's tree. Then:

- :func:`loosenings` compares the two configs setting by setting and names each way the pull request's is less
  strict (an entry or a matched file gone, fewer runs, a lower ``alpha``, a weaker ``fail-on`` ...), each a
  ``policy-loosened`` finding at the pull request's line;
- :func:`stricter` is the config that runs under ``--policy base``: the base's entries, each at the stricter of its
  setting and the pull request's, the pull request's own additions beside them, and every file either matches.

Seeds are the base's (:func:`base_seed`), never the config's: a sample the pull request chose is no sample.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from toolreplay.core.errors import InputError
from toolreplay.core.records import record
from toolreplay.core.verdict import FailOn
from toolreplay.formats.config.model import DEFAULT_CONFIG, CompareGroup, Config, ReplayJob, ScopeSetting, ToolsSetting
from toolreplay.formats.config.read import UNSEALED_EDITS, read_config
from toolreplay.formats.parsing.node import Node
from toolreplay.formats.parsing.yaml_text import parse_yaml
from toolreplay.settings import ReplaySettings, SettingError, setting_key

if TYPE_CHECKING:
    from toolreplay.check.base import Base

# What each fail-on fails on that another does not: B is at least as strict as A when it fails on all A fails on.
_FAILS_ON: dict[FailOn, frozenset[str]] = {
    FailOn.NEVER: frozenset(),
    FailOn.DESTRUCTIVE: frozenset({"destructive"}),
    FailOn.ANY_DESTRUCTIVE: frozenset({"destructive", "any-destructive"}),
    FailOn.CHANGED: frozenset({"destructive", "changed"}),
}
# The replay settings a larger value of makes stricter (more runs, more turns, a higher false-FAIL budget).
_MORE_IS_STRICTER = ("repeat", "noise", "rounds", "max_turns", "min_runs", "alpha", "run_timeout", "request_timeout")
_B = TypeVar("_B", int, float)
_BUDGETS = ("max_cost", "max_tokens_total")  # a budget stops runs: none is the strictest, a lower one looser
_FILES_UNDER_REVIEW = ("system", "tools", "task_file")
_AGENTS = ("agent", "baseline_agent")


@record
class Loosening:
    """One way the pull request's config is less strict than the base's: which setting, what it was and is, and
    where (the pull request's config and line; the config's first line where the setting is gone)."""

    setting: str
    was: str
    now: str
    path: str | None
    line: int
    said: str = ""  # the message, where it is not what the setting was and is

    @property
    def message(self) -> str:
        return self.said or f"{self.setting}: was {self.was}, is {self.now}"


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

    lines = _Lines(pr)
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
                shown = _shown(path)
                line = lines.at(section, int(entry) - 1, key)
                said = f"removed or renamed: {shown}"
                found.append(Loosening(where, f"reading {shown} at the base", said, pr.path, line))
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
            found.append(f"{_shown(path)} (new)")
            continue
        before = old.decode("utf-8", "replace").splitlines()
        after = new.decode("utf-8", "replace").splitlines()
        added = removed = 0
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
            if tag in ("replace", "delete"):
                removed += i2 - i1
            if tag in ("replace", "insert"):
                added += j2 - j1
        found.append(f"{_shown(path)} (+{added} -{removed})")
    return tuple(found)


def _hidden_characters(pr: Config) -> list[Loosening]:
    """A path or name in the config with a character that is not printable ASCII: a look-alike letter or an invisible
    one can make the config name a file other than the one a reviewer reads."""
    import unicodedata  # noqa: PLC0415

    lines = _Lines(pr)
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


# --- the comparison ------------------------------------------------------------------------------------------------


class _Lines:
    """The lines of the pull request's config, by key path, for a finding to point at."""

    def __init__(self, config: Config) -> None:
        self.path = config.path
        self.root: Node | None = None
        if config.path is not None and config.text:
            try:
                self.root = parse_yaml(config.text, config.path)
            except InputError:
                self.root = None

    def at(self, *keys: str | int) -> int:
        """The line of the deepest of ``keys`` the config has (its first line where it has none of them)."""
        node = self.root
        line = 1
        for key in keys:
            if node is None:
                break
            if isinstance(key, int):
                items = list(node.elements()) if isinstance(node.value, list) else ([node] if key == 0 else [])
                node = items[key] if key < len(items) else None
            else:
                node = node.get(key) if isinstance(node.value, dict) else None
            line = node.line if node is not None else line
        return line


def loosenings(base: Config, pr: Config) -> list[Loosening]:
    """Every way ``pr`` is less strict than ``base``, in the order of the config's keys."""
    lines = _Lines(pr)
    found: list[Loosening] = []

    def add(setting: str, was: object, now: object, *keys: str | int, at: tuple[str | None, int] = (None, 0)) -> None:
        path, line = at  # where it is, when not in the config (the rule of a rules file)
        if path is None:
            path, line = pr.path, lines.at(*keys)
        found.append(Loosening(setting, _said(was), _said(now), path, line))

    for key, before, after in (
        ("sessions", base.sessions, pr.sessions),
        ("transcripts", _transcripts(base), _transcripts(pr)),
        ("sealed", base.sealed, pr.sealed),
    ):
        for path in sorted(set(before) - set(after)):
            add(key, f"matching {_shown(path)}", f"not matching it: {_shown(path)} is no longer checked", key)
    if not _FAILS_ON[base.fail_on] <= _FAILS_ON[pr.fail_on]:
        add("fail-on", base.fail_on.value, pr.fail_on.value, "fail-on")
    if base.strict and not pr.strict:
        add("strict", "true", "false", "strict")
    for field in _BUDGETS:  # the check's own budget, as each replay's: a lower one stops runs sooner
        before, after = getattr(base, field), getattr(pr, field)
        if after is not None and (before is None or after < before):
            add(setting_key(field), "no limit" if before is None else before, after, setting_key(field))
    if UNSEALED_EDITS.index(pr.unsealed_edits) > UNSEALED_EDITS.index(base.unsealed_edits):
        add("unsealed-edits", base.unsealed_edits, pr.unsealed_edits, "unsealed-edits")
    if base.signers is not None and pr.signers is None:
        add("signers", "set", "gone", "signers")
    if base.rules is not None and pr.rules is None:
        add("rules", "set", "gone", "rules")
    if base.rules is not None:
        _rules_loosened(base, pr, add)
    _tools_loosened(base.tools, pr.tools, add)
    _scopes_loosened(base.scopes, pr.scopes, add, base.recordings, pr.recordings)
    for number, job in enumerate(base.replays):
        if number >= len(pr.replays):
            add(f"replay {number + 1}", f"replaying {', '.join(_shown(p) for p in job.sessions)}", "gone", "replay")
            continue
        _replay_loosened(number, job, pr.replays[number], add)
    given = {name for job in base.replays for name in job.settings.env or ()}
    for number in range(len(base.replays), len(pr.replays)):  # an entry of the pull request's own
        asked = [name for name in pr.replays[number].settings.env or () if name not in given]
        if asked:
            add(f"replay {number + 1} env", "none given", ", ".join(asked), "replay", number, "env")
    for number, group in enumerate(base.compares):
        if number >= len(pr.compares):
            add(f"compare {number + 1}", f"comparing against {_shown(group.recorded)}", "gone", "compare")
            continue
        _compare_loosened(number, group, pr.compares[number], add)
    return found


_Add = Callable[..., None]


def _not_recorded_at_base(pr: Config, base: Base) -> list[Loosening]:
    """A session the pull request replays or compares that the base does not hold: the recording is then the pull
    request's own word for what the agent did, and a replay or comparison with it proves nothing about the agent (a
    session added to one side of a comparison dilutes what the other side shows)."""
    lines = _Lines(pr)
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
            found.append(Loosening(setting, was, f"{_shown(path)} too, not one", pr.path, lines.at(*where)))
    return found


def _rules_loosened(base: Config, pr: Config, add: _Add) -> None:
    """Each tool the recordings call or list, and each a base rule names, that the pull request's rules make less
    dangerous than the base's do (once per tool, at the rule of the pull request's that decides it)."""
    from toolreplay.analysis.classify import Classifier, Policy, danger  # noqa: PLC0415
    from toolreplay.core.model import Call, McpServer, ToolDef  # noqa: PLC0415
    from toolreplay.formats.recording import load_session  # noqa: PLC0415
    from toolreplay.formats.rules import read_rules  # noqa: PLC0415

    assert base.rules is not None
    try:
        before = read_rules(base.rules, base.strict)
        after = read_rules(pr.rules, pr.strict) if pr.rules is not None else Policy(strict=pr.strict)
    except InputError:
        return  # a rules file that does not read is refused where the check reads it
    sessions = _union(pr.sessions, base.sessions, (p for job in pr.replays for p in job.sessions))
    sessions = _union(sessions, (g.recorded for g in pr.compares))
    probes: dict[str, list[Call]] = {}
    for rule in before.rules:
        if not any(ch in rule.tool for ch in "*?["):
            args = {key: value for key, value in rule.args if not (isinstance(value, str) and "*" in value)}
            probes.setdefault(rule.tool, []).append(Call(0, rule.tool, args, None, 0))
    tools: list[ToolDef] = []
    servers: list[McpServer] = []  # whose listings say which server a call is, for the rules that name one
    for path in sessions:
        try:
            session = load_session(path)
        except InputError:
            continue
        tools += session.context.tools if session.context is not None else ()
        servers += session.context.servers if session.context is not None else ()
        for call in session.calls:
            probes.setdefault(call.tool, []).append(call)
        for tool in session.context.tools if session.context is not None else ():
            probes.setdefault(tool.name, []).append(Call(0, tool.name, {}, None, 0))
    old, new = Classifier(before, tools, servers=servers), Classifier(after, tools, servers=servers)
    for name in sorted(probes):
        for call in probes[name]:
            was, now = old.classify(call), new.classify(call)
            if danger(now) < danger(was):
                line = ("rules",) if now.rule is None else ()
                where = pr.rules if now.rule is not None else None
                found_at = now.rule.line if now.rule is not None else 0
                add(f"rules {name}", f"{was.klass.value}", f"{now.klass.value}", *line, at=(where, found_at))
                break


def _tools_loosened(base: ToolsSetting | None, pr: ToolsSetting | None, add: _Add) -> None:
    if base is None:
        return
    if pr is None:
        add("tools", "the tools analysis", "gone", "tools")
        return
    if base.lock is not None and pr.lock is None:
        add("tools lock", "set", "gone", "tools", "lock")
    if base.lint and not pr.lint:
        add("tools lint", "true", "false", "tools", "lint")
    order = ("note", "warning", "error")
    was = {kind: level for kind, level, _ in base.levels}
    for kind, level, _ in pr.levels:
        if order.index(level) < order.index(was.get(kind, "error")):
            add(f"tools levels {kind}", was.get(kind, "its default"), level, "tools", "levels", kind)
    accepted = {(rule, tool) for rule, tool, _, _ in base.accept}
    for rule, tool, _, _ in pr.accept:
        if (rule, tool) not in accepted:
            add("tools accept", f"no {rule} of {tool} accepted", f"{rule} of {tool} accepted", "tools", "accept")


def _scopes_loosened(
    base: Sequence[ScopeSetting], pr: Sequence[ScopeSetting], add: _Add, base_all: Sequence[str], pr_all: Sequence[str]
) -> None:
    from toolreplay.formats.scope import read_scope  # noqa: PLC0415 - only a config with scopes

    for number, setting in enumerate(base):
        if number >= len(pr):
            add(f"scope {number + 1}", "set", "gone", "scope")
            continue
        now = pr[number]
        covered_before = set(setting.recordings or base_all)
        covered_now = set(now.recordings or pr_all)
        for path in sorted(covered_before - covered_now):
            add(f"scope {number + 1} recordings", f"covering {_shown(path)}", "not covering it", "scope")
        try:
            before, after = read_scope(setting.file), read_scope(now.file)
        except InputError:
            continue  # a scope that does not read is refused where it is checked
        for tool in sorted(after.allowed_tools - before.allowed_tools):
            add(f"scope {number + 1} allowed_tools", f"without {tool}", f"allowing {tool}", "scope")
        if before.agent != after.agent:
            add(f"scope {number + 1} agent", before.agent, after.agent, "scope")


def _replay_loosened(number: int, base: ReplayJob, pr: ReplayJob, add: _Add) -> None:
    where: tuple[str | int, ...] = ("replay", number)
    name = f"replay {number + 1}"
    for path in sorted(set(base.sessions) - set(pr.sessions)):
        add(f"{name} sessions", f"replaying {_shown(path)}", "not replaying it", *where, "sessions")
    old, new = base.settings, pr.settings
    for field in _MORE_IS_STRICTER:
        if getattr(new, field) < getattr(old, field):
            add(f"{name} {setting_key(field)}", getattr(old, field), getattr(new, field), *where, setting_key(field))
    for field in _BUDGETS:
        before, after = getattr(old, field), getattr(new, field)
        if after is not None and (before is None or after < before):
            shown_before = "no limit" if before is None else before
            add(f"{name} {setting_key(field)}", shown_before, after, *where, setting_key(field))
    if new.on_unrecorded is not old.on_unrecorded:
        add(f"{name} on-unrecorded", old.on_unrecorded.value, new.on_unrecorded.value, *where, "on-unrecorded")
    for field in (*_FILES_UNDER_REVIEW, "stubs"):
        before, after = getattr(old, field), getattr(new, field)
        if field == "stubs" and before is not None and after is not None:
            continue  # the base's stubs are what answer, whatever the pull request's say
        if before is not None and (after is None or os.path.realpath(after) != os.path.realpath(before)):
            now = _shown(after) if after is not None else "gone"
            add(f"{name} {setting_key(field)}", _shown(before), now, *where, setting_key(field))
    for field in _AGENTS:
        before, after = getattr(old, field), getattr(new, field)
        if before is not None and after != before:
            add(
                f"{name} {setting_key(field)}", before.text, after.text if after else "gone", *where, setting_key(field)
            )
    given = set(new.env or ()) - set(old.env or ())
    if given:  # a variable a program was not given at the base: a secret the pull request asks for its own code
        add(f"{name} env", ", ".join(old.env or ()) or "none", ", ".join(new.env or ()), *where, "env")
    if old.cache_key is not None and new.cache_key != old.cache_key:
        add(f"{name} cache-key", old.cache_key, new.cache_key or "gone", *where, "cache-key")


def _compare_loosened(number: int, base: CompareGroup, pr: CompareGroup, add: _Add) -> None:
    where: tuple[str | int, ...] = ("compare", number)
    name = f"compare {number + 1}"
    if os.path.realpath(base.recorded) != os.path.realpath(pr.recorded):
        add(f"{name} recorded", _shown(base.recorded), _shown(pr.recorded), *where, "recorded")
    for key, before, after in (
        ("candidates", base.candidates, pr.candidates),
        ("baseline", base.baseline, pr.baseline),
    ):
        for path in sorted(set(before) - set(after)):
            add(f"{name} {key}", f"matching {_shown(path)}", "not matching it", *where, key)
    if pr.design.alpha < base.design.alpha:
        add(f"{name} alpha", base.design.alpha, pr.design.alpha, *where, "alpha")


def _transcripts(config: Config) -> tuple[str, ...]:
    listed = set(config.sessions) | set(config.sealed)
    return tuple(path for path in config.recordings if path not in listed)


def _shown(path: str) -> str:
    return Path(os.path.relpath(path)).as_posix()


def _said(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# --- the stricter of the two ---------------------------------------------------------------------------------------


def stricter(base: Config, pr: Config) -> Config:
    """What runs under ``--policy base``: every file either config checks, the base's entries at the stricter of
    each setting, and the pull request's own entries beside them. The base's policy files (rules, scopes, stubs, lock,
    signers) are its own; the pull request's rules count too, as another reading of each call."""
    recordings = _union(base.recordings, pr.recordings)
    fail_on = pr.fail_on if _FAILS_ON[base.fail_on] <= _FAILS_ON[pr.fail_on] else base.fail_on
    unsealed = min(base.unsealed_edits, pr.unsealed_edits, key=UNSEALED_EDITS.index)
    replays = [_stricter_job(job, pr.replays[n] if n < len(pr.replays) else None) for n, job in enumerate(base.replays)]
    given = {name for job in base.replays for name in job.settings.env or ()}
    for number, job in enumerate(pr.replays):  # the pull request's own, beside: what it replays differently runs too
        if number >= len(base.replays) or _job_inputs(job) != _job_inputs(base.replays[number]):
            env = tuple(name for name in job.settings.env or () if name in given)  # none the base gives no program
            replays.append(replace(job, settings=replace(job.settings, env=env)))
    compares = [
        _stricter_group(group, pr.compares[n] if n < len(pr.compares) else None)
        for n, group in enumerate(base.compares)
    ]
    compares += [group for n, group in enumerate(pr.compares) if n >= len(base.compares)]
    scopes = list(base.scopes)
    scopes += [s for s in pr.scopes if not any(_same_scope(s, b) for b in base.scopes)]
    return replace(
        pr,
        recordings=recordings,
        sealed=_union(base.sealed, pr.sealed),
        sessions=_union(base.sessions, pr.sessions),
        patterns=_union(base.patterns, pr.patterns),
        scopes=tuple(scopes),
        rules=pr.rules if pr.rules is not None else base.rules,
        base_rules=base.rules,
        strict=base.strict or pr.strict,
        fail_on=fail_on,
        replays=tuple(replays),
        compares=tuple(compares),
        signers=base.signers if base.signers is not None else pr.signers,
        unsealed_edits=unsealed,
        tools=base.tools if base.tools is not None else pr.tools,
        max_cost=_looser(base.max_cost, pr.max_cost),
        max_tokens_total=_looser(base.max_tokens_total, pr.max_tokens_total),
    )


def _looser(before: _B | None, after: _B | None) -> _B | None:
    """The budget that stops fewer runs: none where either sets none."""
    return None if before is None or after is None else max(before, after)


def _union(*groups: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(path for group in groups for path in group))


def _same_scope(a: ScopeSetting, b: ScopeSetting) -> bool:
    try:
        same_file = Path(a.file).read_bytes() == Path(b.file).read_bytes()
    except OSError:
        return False
    return same_file and set(a.recordings) == set(b.recordings)


def _job_inputs(job: ReplayJob) -> tuple[object, ...]:
    chosen = job.settings
    return (
        frozenset(job.sessions),
        *(os.path.realpath(p) if p else None for p in (chosen.system, chosen.tools, chosen.task_file)),
        chosen.agent,
        chosen.baseline_agent,
    )


def _stricter_job(base: ReplayJob, pr: ReplayJob | None) -> ReplayJob:
    if pr is None:
        return base
    old, new = base.settings, pr.settings
    changes: dict[str, object] = {field: max(getattr(old, field), getattr(new, field)) for field in _MORE_IS_STRICTER}
    for field in _BUDGETS:
        before, after = getattr(old, field), getattr(new, field)
        changes[field] = None if before is None or after is None else max(before, after)
    # how the runs are made is the pull request's to say; what they are held to is not
    for field in ("concurrency", "prompt_cache", "batch", "mcp_transport", "max_tokens"):
        changes[field] = getattr(new, field)
    changes["env"] = old.env  # the variables a program gets are the base's to give
    changes["cache_files"] = _union(old.cache_files, new.cache_files)  # a run is keyed on the files of either
    try:
        settings: ReplaySettings = replace(old, **changes)  # type: ignore[arg-type]
    except SettingError:  # more rounds of more runs than the exact tests take: the base's own design
        settings = replace(old, **{field: getattr(new, field) for field in ("concurrency", "cache", "mcp_transport")})
    return replace(base, sessions=_union(base.sessions, pr.sessions), settings=settings, line=pr.line)


def _stricter_group(base: CompareGroup, pr: CompareGroup | None) -> CompareGroup:
    if pr is None:
        return base
    design = replace(base.design, alpha=max(base.design.alpha, pr.design.alpha))
    return replace(
        base,
        candidates=_union(base.candidates, pr.candidates),
        baseline=_union(base.baseline, pr.baseline),
        design=design,
        line=pr.line,
    )


def config_named(config_file: str | None, base: Base) -> str | None:
    """The config to govern by when none was given: the default one, where it is here or was at the base."""
    if config_file is not None:
        return config_file
    if os.path.isfile(DEFAULT_CONFIG) or base.file(DEFAULT_CONFIG) is not None:
        return DEFAULT_CONFIG
    return None
