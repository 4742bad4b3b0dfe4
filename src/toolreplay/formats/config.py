"""The ``check`` configuration: ``.toolreplay.yml``, read strictly, every error with its line.

Paths and globs in the file are relative to the file's own directory. Every
key is checked: an unknown key, a value of the wrong type, a file that does
not exist or a glob that matches nothing is an :class:`InputError` naming the
config file and the line, since a typo that silently checks nothing would pass
CI for the wrong reason. A replay's settings are a
:class:`~toolreplay.settings.ReplaySettings`, refused with the same words as
``replay``'s options. With no config file, :func:`discover` finds the
recordings under a directory and the defaults apply.
"""

from __future__ import annotations

import functools
import glob
import math
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import field, replace
from pathlib import Path
from typing import TypeVar

from toolreplay.agent_spec import AgentSpec, AgentSpecError, ProgramSpec, ScriptSpec, parse_agent
from toolreplay.core.errors import InputError, InputErrors, ToolreplayError
from toolreplay.core.files import missing_directories, read_text, repository_root
from toolreplay.core.records import record
from toolreplay.core.verdict import FailOn
from toolreplay.formats.parsing.node import Node
from toolreplay.formats.parsing.yaml_text import parse_yaml
from toolreplay.redact import SHAPE_NAMES
from toolreplay.settings import (
    RANGES,
    SETTINGS,
    TIMEOUTS,
    ReplaySettings,
    SettingError,
    parse_alpha,
    parse_settings,
    parse_test,
    parse_value,
    setting_key,
)
from toolreplay.stats.design import DEFAULT_ALPHA, Design, ExactTest

DEFAULT_CONFIG = ".toolreplay.yml"

# The keys that name the policy's own files (rules, scopes, stubs, the lock, the signers), which ``check --base``
# reads as the base committed them; every other file a config names is under review, and read from the tree.
POLICY_KEYS = frozenset({"rules", "scope", "file", "stubs", "lock", "signers"})
PolicyFiles = Callable[[str], "str | None"]


@record
class ScopeSetting:
    """A scope file and the recordings it applies to (all of them when ``recordings`` is empty)."""

    file: str
    recordings: tuple[str, ...]


@record
class ToolsSetting:
    """The tools analysis: the lock the recorded surfaces must match, whether their texts are linted, other levels
    for kinds of change (kind, level, line), and lint findings accepted (rule, tool, reason, line). The kinds and
    rules are held to the analysis's own names when the check is planned (reading a config loads no analysis)."""

    lock: str | None
    lint: bool
    levels: tuple[tuple[str, str, int], ...]
    accept: tuple[tuple[str, str, str, int], ...]


@record
class ReplayJob:
    """Sessions to replay with one set of settings; the lines of the entry and of its agent."""

    sessions: tuple[str, ...]
    settings: ReplaySettings
    line: int
    agent_line: int


@record
class CompareGroup:
    """Recorded candidate sessions tested against recorded baseline sessions."""

    recorded: str
    candidates: tuple[str, ...]
    baseline: tuple[str, ...]
    design: Design  # one round: compare tests the sessions it is given
    line: int


@record
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
    notice: str = ""  # what to tell the user about how the recordings were found
    repository: Path | None = None  # files the check reads must lie under it; None: anywhere
    html: str | None = None  # where check writes its HTML page, unless --html says elsewhere
    redact_off: tuple[str, ...] = ()  # secret shapes the logs of cmd: runs leave alone, as the recordings did
    signers: str | None = None  # an allowed_signers file: each sealed recording must carry a signature it holds
    unsealed_edits: str = "warning"  # the level of an unsealed recording's edit against --base, or "ignore"
    patterns: tuple[str, ...] = ()  # the recording globs, absolute: what --base counts at the base
    tools: ToolsSetting | None = None  # the tools analysis, where the config asks for one
    discovered: str | None = None  # the directory the recordings were found under, with no config
    base_rules: str | None = None  # under check --base, the base's rules: another reading of every call
    skipped: tuple[str, ...] = ()  # what a glob matched that is no file (a FIFO, a socket), in words
    max_cost: float | None = None  # dollars the whole check's replays may spend, spread over them
    max_tokens_total: int | None = None  # tokens, likewise

    def files(self) -> tuple[str, ...]:
        """Every file the check reads: the config, the recordings, and every file the config names."""
        named: list[str] = [self.path] if self.path else []
        named += self.recordings
        named += [scope.file for scope in self.scopes]
        named += [self.rules] if self.rules else []
        named += [self.signers] if self.signers else []
        named += [self.tools.lock] if self.tools is not None and self.tools.lock else []
        for job in self.replays:
            named += job.sessions
            chosen = job.settings
            named += [p for p in (chosen.system, chosen.tools, chosen.stubs, chosen.task_file) if p]
            for agent in (chosen.agent, chosen.baseline_agent):
                if agent is not None:  # a scripted file; the files a program's command names: its program, its prompts
                    named += agent.files(os.getcwd())  # {here} is filled when a config is read
        for group in self.compares:
            named += [group.recorded, *group.candidates, *group.baseline]
        return tuple(dict.fromkeys(named))


_TOP_KEYS = (
    "sessions",
    "transcripts",
    "sealed",
    "scope",
    "rules",
    "strict",
    "fail-on",
    "alpha",
    "test",
    "replay",
    "compare",
    "html",
    "no-redact",
    "prices",
    "signers",
    "unsealed-edits",
    "tools",
    "max-cost",
    "max-tokens-total",
)
_T = TypeVar("_T")
_FAIL_ON = tuple(f.value for f in FailOn)
UNSEALED_EDITS = ("error", "warning", "note", "ignore")
_REPLAY_KEYS = ("sessions", *(setting_key(name) for name in SETTINGS if name != "prices"))  # prices: the top's


class _ConfigReader:
    """Turns the config's nodes into settings, resolving paths against the config's directory."""

    def __init__(
        self, path: str, root: Path | None, repository: Path | None = None, policy: PolicyFiles | None = None
    ) -> None:
        self.base = Path(path).parent
        self.root = root  # files must stay under it; None allows any
        self.repository = repository or root  # where a report's missing directories may be made
        self.policy = policy  # where the policy's files come from, when not from this tree (the base's config)
        self.skipped: list[str] = []  # what a glob matched that is no file, said rather than dropped
        self.errors: list[ToolreplayError] = []  # what was refused so far: all of it is said, not only the first

    def attempt(self, read: Callable[[], _T], instead: _T) -> _T:
        """What ``read`` reads, or ``instead`` with its error kept to be said beside the others."""
        try:
            return read()
        except InputErrors as exc:
            self.errors += exc.errors
        except InputError as exc:
            self.errors.append(exc)
        return instead

    def inside(self, node: Node, key: str, name: str, path: str, verb: str = "reads") -> str:
        """``path``, once it (through any symlink) is inside the repository."""
        if self.root is not None:
            real = Path(path).resolve()
            if real != self.root and self.root not in real.parents:
                raise InputError(
                    f"'{key}': {name} leads outside the repository ({self.root}); "
                    f"check --allow-outside-root {verb} it anyway",
                    node.path,
                    node.line,
                )
        return path

    @staticmethod
    def named(node: Node, key: str) -> Node:
        """Errors about a value say which key it belongs to: ``'repeat': must be ...``."""
        return node.called(f"'{key}'")

    def choice(self, node: Node, key: str, choices: tuple[str, ...]) -> str:
        value = self.named(node, key).string()
        if value not in choices:
            raise InputError(f"'{key}' must be one of {', '.join(choices)}, not '{value}'", node.path, node.line)
        return value

    def file(self, node: Node, key: str) -> str:
        """A path to an existing file, relative to the config file."""
        name = self.named(node, key).string()
        if not name:
            raise InputError(f"'{key}' must name a file, not an empty string", node.path, node.line)
        path = self.base / name
        if self.policy is not None and key in POLICY_KEYS:
            committed = self.policy(os.path.normpath(path))
            if committed is not None:
                return committed
        if not path.is_file():
            raise InputError(f"'{key}': no such file: {name}", node.path, node.line)
        return self.inside(node, key, name, os.path.normpath(path))

    def directory(self, node: Node, key: str) -> str:
        """A directory the check writes in, relative to the config file, inside the repository (made when first
        written to)."""
        name = self.named(node, key).string()
        if not name:
            raise InputError(f"'{key}' must name a directory, not an empty string", node.path, node.line)
        path = self.base / name
        if path.exists() and not path.is_dir():
            raise InputError(f"'{key}': {name} is a file, not a directory", node.path, node.line)
        return self.inside(node, key, name, os.path.normpath(path), "writes in")

    def output(self, node: Node, key: str) -> str:
        """A page the check writes, relative to the config file: an .html file inside the repository (a config
        from a pull request must not choose what the check overwrites), whose missing directories the check makes
        when it writes the page (a fresh checkout has no ``reports/``), but never outside the repository."""
        name = self.named(node, key).string()
        if not name.endswith((".html", ".htm")):
            raise InputError(f"'{key}' must name an .html file, not '{name}'", node.path, node.line)
        path = self.base / name
        if path.is_dir():
            raise InputError(f"'{key}': {name} is a directory", node.path, node.line)
        if ".git" in Path(os.path.normpath(path)).parts:
            raise InputError(f"'{key}': {name} is inside .git, which the check never writes to", node.path, node.line)
        written = self.inside(node, key, name, os.path.normpath(path), "writes")  # through any symlink, where it writes
        if self.repository is not None and missing_directories(path, self.repository) is None:
            raise InputError(
                f"'{key}': no such directory: {Path(name).parent} (the check makes a report's missing directories "
                "only inside the repository)",
                node.path,
                node.line,
            )
        return written

    def globs(self, node: Node, key: str) -> tuple[str, ...]:
        """The files a glob or a list of globs matches, each glob matching at least one."""
        items = list(node.elements()) if isinstance(node.value, list) else [node]
        found: dict[str, None] = {}
        for item in items:
            pattern = self.named(item, key).string()
            if not pattern:
                raise InputError(f"'{key}' must name files, not an empty string", item.path, item.line)
            matches: list[str] = []
            passed: list[str] = []
            for name in sorted(glob.glob(pattern, root_dir=self.base, recursive=True)):
                what = _not_a_file(self.base / name)
                if what is None:
                    matches.append(os.path.normpath(self.base / name))
                elif what:
                    passed.append(f"'{key}': {pattern} matched {name}, {what}, not a file: skipped")
            self.skipped += passed
            if not matches and self.policy is None:  # the base's globs may match nothing here: its files are held apart
                why = f" ({passed[0].partition(' matched ')[2]})" if passed else ""
                raise InputError(f"'{key}': {pattern} matches no file{why}", item.path, item.line)
            found.update(dict.fromkeys(self.inside(item, key, match, match) for match in matches))
        return tuple(found)

    def patterns(self, node: Node) -> tuple[str, ...]:
        """A glob or a list of globs as absolute patterns (what ``check --base`` matches the base's paths with);
        none for a value that is no glob (its error is the glob's)."""
        items = list(node.elements()) if isinstance(node.value, list) else [node]
        if not all(isinstance(item.value, str) for item in items):
            return ()
        return tuple(os.path.normpath(os.path.join(os.path.abspath(self.base), str(item.value))) for item in items)

    def alpha(self, node: Node) -> float:
        try:
            return parse_alpha(_setting_text(node, "alpha"))
        except SettingError as exc:
            raise _refused(exc, node) from None

    def test(self, node: Node) -> ExactTest:
        try:
            return parse_test(_setting_text(node, "test"))
        except SettingError as exc:
            raise _refused(exc, node) from None


def _not_a_file(path: Path) -> str | None:
    """None for a regular file (through any link); "" for a directory (a glob's ``**`` passes through many); else
    what it is, in words."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "a link to nothing"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return ""
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    )
    return next((said for test, said in kinds if test(mode)), "a special file")


def read_config(
    path: str,
    repository: Path | None = None,
    allow_outside: bool = False,
    text: str | None = None,
    policy: PolicyFiles | None = None,
) -> Config:
    """Read and check a config file; every file it names must lie under ``repository``.

    ``repository`` is its root (by default the nearest directory at or above the
    config holding ``.git``): a config, which a pull request can edit, must not
    make the check read (and report on) files elsewhere on the machine, unless
    whoever runs the check says so with ``allow_outside``.

    ``text`` is the config's text where it is not the file's (the base's, under ``check --base``), and ``policy``
    where that config's policy files come from: a path of this tree in, the copy to read out (None: this tree's).
    Such a config's globs may match nothing here.
    """
    text = read_text(path) if text is None else text
    root = parse_yaml(text, path)
    if root is None:
        raise InputError("the config is empty; name the recordings to check (see docs/configuration.md)", path)
    top = root.called("the config").object().called("")
    repository_top = (repository or repository_root(Path(path).parent)).resolve()
    top_root = None if allow_outside else repository_top
    reader = _ConfigReader(path, top_root, repository_top, policy)
    reader.errors += top.unknown(_TOP_KEYS, "the config")  # said beside the rest, which is read all the same
    attempt = reader.attempt  # each key read on its own: an error in one is said beside those in the others

    def recordings_of(key: str) -> tuple[str, ...]:
        return attempt(lambda: reader.globs(top.member(key), key), ()) if key in top.value else ()

    sessions, transcripts, sealed = (recordings_of(key) for key in ("sessions", "transcripts", "sealed"))
    patterns = tuple(
        p for key in ("sessions", "transcripts", "sealed") if key in top.value for p in reader.patterns(top.member(key))
    )
    alpha = attempt(lambda: reader.alpha(top.member("alpha")), DEFAULT_ALPHA) if "alpha" in top.value else DEFAULT_ALPHA
    test = attempt(lambda: reader.test(top.member("test")), ExactTest.BOSCHLOO) if "test" in top.value else None
    design = Design(alpha, test or ExactTest.BOSCHLOO)
    get = top.get
    strict, fail_on, rules, html = get("strict"), get("fail-on"), get("rules"), get("html")
    signers, unsealed = get("signers"), get("unsealed-edits")
    no_prices: tuple[tuple[str, tuple[float, float, float, float]], ...] = ()
    prices = attempt(lambda: _prices(top.member("prices")), no_prices) if "prices" in top.value else no_prices
    # read before the recordings are counted: a replay's sessions are recordings the check covers, and an error in
    # an entry is said as itself, not hidden behind "no recordings"
    replays = tuple(_replays(reader, top.member("replay"), sessions, design, prices)) if "replay" in top.value else ()
    replayed = tuple(path for job in replays for path in job.sessions)
    sessions = tuple(dict.fromkeys((*sessions, *replayed)))
    recordings = tuple(dict.fromkeys((*sessions, *transcripts, *sealed)))
    if replays:  # what --base counts at the base, a replay's own globs included
        entry = top.member("replay")
        items = list(entry.elements()) if isinstance(entry.value, list) else [entry]
        patterns += tuple(
            p for item in items if "sessions" in item.value for p in reader.patterns(item.member("sessions"))
        )
    config = Config(
        path=path,
        recordings=recordings,
        sealed=sealed,
        sessions=sessions,
        scopes=attempt(lambda: tuple(_scopes(reader, top.member("scope"))), ()) if "scope" in top.value else (),
        rules=attempt(lambda: reader.file(rules, "rules"), None) if rules is not None else None,
        strict=attempt(lambda: reader.named(strict, "strict").boolean(), False) if strict is not None else False,
        fail_on=attempt(lambda: FailOn(reader.choice(fail_on, "fail-on", _FAIL_ON)), FailOn.DESTRUCTIVE)
        if fail_on is not None
        else FailOn.DESTRUCTIVE,
        replays=replays,
        compares=attempt(lambda: tuple(_compares(reader, top.member("compare"), design)), ())
        if "compare" in top.value
        else (),
        text=text,
        repository=top_root,
        html=attempt(lambda: reader.output(html, "html"), None) if html is not None else None,
        redact_off=attempt(lambda: _redact_off(reader, top.member("no-redact")), ())
        if "no-redact" in top.value
        else (),
        signers=attempt(lambda: reader.file(signers, "signers"), None) if signers is not None else None,
        unsealed_edits=attempt(lambda: reader.choice(unsealed, "unsealed-edits", UNSEALED_EDITS), "warning")
        if unsealed is not None
        else "warning",
        patterns=patterns,
        tools=attempt(lambda: _tools(reader, top.member("tools")), None) if "tools" in top.value else None,
    )
    budgets = {key: top.member(key) for key in ("max-cost", "max-tokens-total") if key in top.value}
    max_cost = attempt(lambda: _cost_limit(budgets["max-cost"]), None) if "max-cost" in budgets else None
    max_tokens = (
        attempt(lambda: _token_limit(budgets["max-tokens-total"]), None) if "max-tokens-total" in budgets else None
    )
    if budgets and not replays and not reader.errors:
        first = min(budgets.values(), key=lambda node: node.line)
        reader.errors.append(InputError("a budget bounds the replays, and the config has none", path, first.line))
    config = replace(config, max_cost=max_cost, max_tokens_total=max_tokens)
    if reader.errors:
        raise InputErrors(sorted(reader.errors, key=lambda error: error.line or 0))
    if not recordings and "compare" not in top.value and policy is None:
        raise InputError(
            "the config names no recordings: add sessions, transcripts, sealed or a replay's sessions", path, top.line
        )
    return replace(config, skipped=tuple(dict.fromkeys(reader.skipped)))


def _items(node: Node, key: str) -> list[Node]:
    """A key that takes one entry or a list of them."""
    if isinstance(node.value, list):
        if not node.value:
            raise InputError(f"'{key}' is an empty list", node.path, node.line)
        return list(node.elements())
    return [node]


def _entry(item: Node, what: str, allowed: tuple[str, ...]) -> Node:
    return item.called(what).object().called("").only(allowed, what)


def _redact_off(reader: _ConfigReader, node: Node) -> tuple[str, ...]:
    """``no-redact: SHAPE`` or a list of them: the secret shapes the recordings were made without, as
    ``--no-redact SHAPE`` (a config names shapes; it cannot turn redaction off altogether)."""
    names: dict[str, None] = {}
    for item in _items(node, "no-redact"):
        name = reader.named(item, "no-redact").string()
        if name not in SHAPE_NAMES:
            raise InputError(
                f"'no-redact': {name} is not a secret shape; the shapes are {', '.join(SHAPE_NAMES)}",
                item.path,
                item.line,
            )
        names[name] = None
    return tuple(names)


def _scopes(reader: _ConfigReader, node: Node) -> Iterator[ScopeSetting]:
    for item in _items(node, "scope"):
        if not isinstance(item.value, dict):
            yield ScopeSetting(reader.file(item, "scope"), ())
            continue
        entry = _entry(item, "a scope", ("file", "recordings"))
        if "file" not in entry.value:
            raise InputError("a scope needs 'file'", item.path, item.line)
        applies = reader.globs(entry.member("recordings"), "recordings") if "recordings" in entry.value else ()
        yield ScopeSetting(reader.file(entry.member("file"), "file"), applies)


def _tools(reader: _ConfigReader, node: Node) -> ToolsSetting:
    """``tools:``: ``lock``, ``lint``, ``levels`` (a kind of change: error, warning or note) and ``accept``."""
    entry = _entry(node, "the tools analysis", ("lock", "lint", "levels", "accept"))
    lock = reader.file(entry.member("lock"), "lock") if "lock" in entry.value else None
    lint = reader.named(entry.member("lint"), "lint").boolean() if "lint" in entry.value else True
    levels: list[tuple[str, str, int]] = []
    if "levels" in entry.value:
        for kind, level in entry.member("levels").object().members():
            levels.append((kind, reader.choice(level, kind, ("error", "warning", "note")), level.line))
    accepted: list[tuple[str, str, str, int]] = []
    for item in _items(entry.member("accept"), "accept") if "accept" in entry.value else []:
        accept = _entry(item, "an accepted finding", ("rule", "tool", "reason")).require("rule", "tool", "reason")
        reason = accept.member("reason").string()
        if not reason.strip():
            raise accept.member("reason").fail("an accepted finding needs its reason, in words")
        rule, tool = accept.member("rule").string(non_empty=True), accept.member("tool").string(non_empty=True)
        accepted.append((rule, tool, reason, item.line))
    if lock is None and not lint:
        raise node.fail("the tools analysis does nothing without 'lock' and with 'lint: false'")
    return ToolsSetting(lock, lint, tuple(levels), tuple(accepted))


def _agent(reader: _ConfigReader, node: Node, key: str = "agent") -> AgentSpec:
    """A model id; ``scripted:PATH`` with the path found from the config's directory; ``cmd:COMMAND`` with
    ``{here}`` standing for the config's directory."""
    try:
        agent = parse_agent(reader.named(node, key).string())
    except AgentSpecError as exc:
        raise _refused(SettingError(key, exc.problem), node) from None
    if isinstance(agent, ScriptSpec):
        if not (reader.base / agent.path).is_file():
            raise InputError(f"'{key}': no such file: {agent.path}", node.path, node.line)
        return ScriptSpec(reader.inside(node, key, agent.path, os.path.normpath(reader.base / agent.path)))
    if isinstance(agent, ProgramSpec) and "{here}" in agent.text:  # filled word by word: a path with spaces stays one
        here = str(reader.base.resolve())
        if re.search(r"\{[a-z_]+\}", here):  # it would be filled again, as a placeholder, when the command runs
            raise InputError(
                f"'{key}': {{here}} cannot stand for {here}, whose name holds braces; move the config",
                node.path,
                node.line,
            )
        return ProgramSpec.of_words(word.replace("{here}", here) for word in agent.words)
    return agent


def _setting_text(node: Node, key: str) -> str:
    """A setting's value as written, which the same parser as the command line's reads (``env``'s list of names
    as the names one after another)."""
    if key == "env" and isinstance(node.value, list):
        return " ".join(item.called("'env'").string() for item in node.elements())
    if node.text is None:
        raise _refused(SettingError(key, f"must be a single value, not {node.describe()}"), node)
    if node.quoted and key.replace("-", "_") in _UNQUOTED:
        kind = "true or false" if key in ("batch", "allow-new-prompt") else "a number"
        raise _refused(
            SettingError(key, f"must be {kind}, not the string {node.text!r} (write it without quotes)"), node
        )
    return node.text


# Settings that are numbers or switches: a quoted value is a string, refused as ten and true are.
_UNQUOTED = frozenset((*RANGES, *TIMEOUTS, "alpha", "cache_days", "max_cost", "batch", "allow_new_prompt"))


def _cost_limit(node: Node) -> float:
    """``max-cost`` of the whole check, read as a replay entry's is."""
    value = _limit(node, "max-cost", "max_cost")
    assert isinstance(value, float)
    return value


def _token_limit(node: Node) -> int:
    """``max-tokens-total`` of the whole check, read as a replay entry's is."""
    value = _limit(node, "max-tokens-total", "max_tokens_total")
    assert isinstance(value, int)
    return value


def _limit(node: Node, key: str, name: str) -> object:
    try:
        return parse_value(name, _setting_text(node, key))
    except SettingError as exc:
        raise _refused(exc, node) from None


def _refused(exc: SettingError, node: Node) -> InputError:
    return InputError(f"'{exc.key}' {exc.problem}", node.path, node.line)


_PRICE_KEYS = ("input", "output", "cache-read", "cache-write")


def _prices(node: Node) -> tuple[tuple[str, tuple[float, float, float, float]], ...]:
    """``prices: {MODEL-ID-PREFIX: {input: N, output: N, cache-read: N, cache-write: N}}``, dollars per million
    tokens (a cache's read and write default to a tenth and 1.25 times the input's, as the API's do)."""
    found = []
    for prefix, entry in node.called("prices").object().members():
        entry.object().only(_PRICE_KEYS, "a price").require("input", "output")
        values: dict[str, float] = {}
        for key in _PRICE_KEYS:
            if key in entry.value:
                value = entry.member(key).number()
                if not (math.isfinite(value) and 0 <= value <= 10_000):
                    raise entry.member(key).fail(f"must be dollars per million tokens, 0 to 10,000, not {value:g}")
                values[key] = value
        paid = values["input"]
        found.append(
            (
                prefix,
                (paid, values["output"], values.get("cache-read", paid / 10), values.get("cache-write", paid * 1.25)),
            )
        )
    return tuple(found)


def _replays(
    reader: _ConfigReader,
    node: Node,
    sessions: tuple[str, ...],
    design: Design,
    prices: tuple[tuple[str, tuple[float, float, float, float]], ...] = (),
) -> Iterator[ReplayJob]:
    """Each replay entry, those refused kept as the reader's errors."""
    none: list[Node] = []
    items = reader.attempt(lambda: _items(node, "replay"), none)
    for item in items:
        job = reader.attempt(functools.partial(_replay, reader, item, sessions, design, prices), None)
        if job is not None:
            yield job


def _entry_files(
    reader: _ConfigReader, given: dict[str, Node | None], refused: list[InputError]
) -> tuple[dict[str, str], dict[str, AgentSpec]]:
    """A replay entry's files and agents, each refused one kept in ``refused`` (one error said of one line)."""
    paths: dict[str, str] = {}
    agents: dict[str, AgentSpec] = {}
    for name in ("cache", "system", "tools", "stubs", "task_file", "agent", "baseline_agent"):
        node, key = given[name], setting_key(name)
        if node is None:
            continue
        try:
            if name in ("agent", "baseline_agent"):
                agents[name] = _agent(reader, node, key)
            else:
                paths[name] = reader.directory(node, key) if name == "cache" else reader.file(node, key)
        except InputError as exc:
            if not any(error.line == exc.line for error in refused):
                refused.append(exc)
    return paths, agents


def _replay(
    reader: _ConfigReader,
    item: Node,
    sessions: tuple[str, ...],
    design: Design,
    prices: tuple[tuple[str, tuple[float, float, float, float]], ...],
) -> ReplayJob:
    """One replay entry; every setting and file in it that is refused is said, not only the first."""
    entry = item.called("a replay").object().called("")
    refused: list[InputError] = entry.unknown(_REPLAY_KEYS, "a replay")  # said beside the rest
    chosen = sessions
    if "sessions" in entry.value:
        try:
            chosen = reader.globs(entry.member("sessions"), "sessions")
        except InputError as exc:
            refused.append(exc)
    if not chosen and not refused:
        refused.append(InputError("a replay needs sessions: give 'sessions' here or at the top", item.path, item.line))
    given = {name: entry.get(setting_key(name)) for name in SETTINGS}
    globbed = given.pop("cache_files")  # globs, matched here: no text of a setting
    texts: dict[str, str] = {}
    for name, value in given.items():
        if value is not None:
            try:
                texts[name] = _setting_text(value, setting_key(name))
            except InputError as exc:
                refused.append(exc)
    texts.setdefault("alpha", repr(design.alpha))
    texts.setdefault("test", design.test.value)
    for name, text in texts.items():
        try:
            parse_value(name, text)
        except SettingError as exc:
            refused.append(_refused(exc, entry.get(exc.key) or item))
    # Files are named relative to the config, and must exist.
    paths, agents = _entry_files(reader, given, refused)
    agent = given["agent"]
    cache_files: tuple[str, ...] = ()
    if globbed is not None:
        try:
            cache_files = reader.globs(globbed, "cache-files")
        except InputError as exc:
            refused.append(exc)
    if refused:
        raise InputErrors(refused)
    try:
        settings = parse_settings(texts)
    except SettingError as exc:  # what only the settings together refuse (stubs without on-unrecorded stub)
        raise _refused(exc, entry.get(exc.key) or item) from None
    settings = replace(
        settings,
        prices=prices,
        cache=paths.get("cache"),
        system=paths.get("system"),
        tools=paths.get("tools"),
        stubs=paths.get("stubs"),
        task_file=paths.get("task_file"),
        agent=agents.get("agent"),
        baseline_agent=agents.get("baseline_agent"),
        cache_files=cache_files,
    )
    return ReplayJob(chosen, settings, item.line, agent.line if agent is not None else item.line)


def _compares(reader: _ConfigReader, node: Node, design: Design) -> Iterator[CompareGroup]:
    for item in _items(node, "compare"):
        entry = _entry(item, "a compare group", ("recorded", "candidates", "baseline", "alpha", "test"))
        for needed in ("recorded", "candidates", "baseline"):
            if needed not in entry.value:
                raise InputError(f"a compare group needs '{needed}'", item.path, item.line)
        recorded = reader.file(entry.member("recorded"), "recorded")
        candidates = reader.globs(entry.member("candidates"), "candidates")
        baseline = reader.globs(entry.member("baseline"), "baseline")
        roles = {os.path.realpath(recorded): "recorded"}
        for key, paths in (("candidates", candidates), ("baseline", baseline)):
            for found in paths:  # a session on both sides would be its own evidence
                if os.path.realpath(found) in roles:
                    role = roles[os.path.realpath(found)]
                    raise InputError(
                        f"'{key}': {found} is also matched by '{role}'; give each session one role",
                        item.path,
                        entry.member(key).line,
                    )
                roles[os.path.realpath(found)] = key
        yield CompareGroup(
            recorded=recorded,
            candidates=candidates,
            baseline=baseline,
            design=Design(
                reader.alpha(entry.member("alpha")) if "alpha" in entry.value else design.alpha,
                reader.test(entry.member("test")) if "test" in entry.value else design.test,
            ),
            line=item.line,
        )


_SKIP_DIRS = {".git", ".hg", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache", ".ruff_cache"}


def discover(directory: str) -> Config:
    """The recordings under ``directory``: JSON Lines transcripts (sealed or not) and session files."""
    from toolreplay.formats.kinds import Kind, sniff_kind  # noqa: PLC0415 - reading recordings costs imports

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
    return Config(None, tuple(recordings), tuple(sealed), tuple(sessions), discovered=directory)
