"""The checks every value of a config passes: its type, a file that exists, a glob that matches, a setting
with ``replay``'s words, an agent; each error at the line of the value, gathered so that all are reported."""

from __future__ import annotations

import glob
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from toolreplay.agent_spec import AgentSpec, AgentSpecError, FunctionSpec, ProgramSpec, ScriptSpec, parse_agent
from toolreplay.core.errors import InputError, InputErrors, ToolreplayError
from toolreplay.core.files import missing_directories
from toolreplay.formats.config.model import POLICY_KEYS, PolicyFiles
from toolreplay.formats.parsing.node import Node
from toolreplay.settings import (
    RANGES,
    TIMEOUTS,
    SettingError,
    parse_alpha,
    parse_test,
    parse_value,
)
from toolreplay.stats.design import ExactTest

_T = TypeVar("_T")


class ConfigReader:
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
            return parse_alpha(setting_text(node, "alpha"))
        except SettingError as exc:
            raise setting_refused(exc, node) from None

    def test(self, node: Node) -> ExactTest:
        try:
            return parse_test(setting_text(node, "test"))
        except SettingError as exc:
            raise setting_refused(exc, node) from None


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


def items_of(node: Node, key: str) -> list[Node]:
    """A key that takes one entry or a list of them."""
    if isinstance(node.value, list):
        if not node.value:
            raise InputError(f"'{key}' is an empty list", node.path, node.line)
        return list(node.elements())
    return [node]


def entry_of(item: Node, what: str, allowed: tuple[str, ...]) -> Node:
    return item.called(what).object().called("").only(allowed, what)


def read_agent(reader: ConfigReader, node: Node, key: str = "agent") -> AgentSpec:
    """A model id; ``scripted:PATH`` with the path found from the config's directory; ``python:`` with its module
    or file found from there; ``cmd:COMMAND`` with
    ``{here}`` standing for the config's directory."""
    try:
        agent = parse_agent(reader.named(node, key).string())
    except AgentSpecError as exc:
        raise setting_refused(SettingError(key, exc.problem), node) from None
    if isinstance(agent, ScriptSpec):
        if not (reader.base / agent.path).is_file():
            raise InputError(f"'{key}': no such file: {agent.path}", node.path, node.line)
        return ScriptSpec(reader.inside(node, key, agent.path, os.path.normpath(reader.base / agent.path)))
    if isinstance(agent, FunctionSpec):  # a file from the config's directory; a module found from it too
        home = str(reader.base.resolve())
        if agent.is_file:
            if not (reader.base / agent.target).is_file():
                raise InputError(f"'{key}': no such file: {agent.target}", node.path, node.line)
            reader.inside(node, key, agent.target, os.path.normpath(reader.base / agent.target))
        return FunctionSpec(agent.target, agent.function, home)
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


def setting_text(node: Node, key: str) -> str:
    """A setting's value as written, which the same parser as the command line's reads (``env``'s list of names
    as the names one after another)."""
    if key == "env" and isinstance(node.value, list):
        return " ".join(item.called("'env'").string() for item in node.elements())
    if node.text is None:
        raise setting_refused(SettingError(key, f"must be a single value, not {node.describe()}"), node)
    if node.quoted and key.replace("-", "_") in _UNQUOTED:
        kind = "true or false" if key in ("batch", "allow-new-prompt") else "a number"
        raise setting_refused(
            SettingError(key, f"must be {kind}, not the string {node.text!r} (write it without quotes)"), node
        )
    return node.text


# Settings that are numbers or switches: a quoted value is a string, refused as ten and true are.
_UNQUOTED = frozenset((*RANGES, *TIMEOUTS, "alpha", "cache_days", "max_cost", "batch", "allow_new_prompt"))


def cost_limit(node: Node) -> float:
    """``max-cost`` of the whole check, read as a replay entry's is."""
    value = _limit(node, "max-cost", "max_cost")
    assert isinstance(value, float)
    return value


def token_limit(node: Node) -> int:
    """``max-tokens-total`` of the whole check, read as a replay entry's is."""
    value = _limit(node, "max-tokens-total", "max_tokens_total")
    assert isinstance(value, int)
    return value


def _limit(node: Node, key: str, name: str) -> object:
    try:
        return parse_value(name, setting_text(node, key))
    except SettingError as exc:
        raise setting_refused(exc, node) from None


def setting_refused(exc: SettingError, node: Node) -> InputError:
    return InputError(f"'{exc.key}' {exc.problem}", node.path, node.line)
