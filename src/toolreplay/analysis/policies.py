"""Policies over a run's calls: what must never happen, what must happen, in what order, how often, and where a
tool's result may not go.

A policy file states each policy once (:mod:`toolreplay.formats.policies`); this module judges a run's calls
against all of them in one pass, in time linear in the calls: each call is looked at only by the policies whose
tool glob its tool matches (found once per tool name), and every policy keeps only what its kind needs to answer
for the next call (a set of bound values seen, a counter, the call just before, an index of what earlier results
held). Nothing compares pairs of calls.

The kinds, for one run (a recording, or one replayed run):

- ``never``: no call matches the pattern;
- ``require``: a call matches it, in a run that ended with a final reply (a recording is a finished run);
- ``before``: every call matching ``then`` has an earlier call matching ``first``;
- ``immediately-before``: the call just before every call matching ``then`` matches ``first``;
- ``not-after``: no call matching ``then`` comes after a call matching ``first``;
- ``at-most``: at most ``count`` calls match the pattern;
- ``flow``: no call matching ``to`` holds, in its arguments' strings, a token of ``min-length`` characters or
  more that a string of an earlier ``from`` call's result held (a token: a run of letters, digits and
  ``-_.+~%@``, so a key pasted into a header, a URL's query or a command line is the same token there).

A pattern's argument written ``"{name}"`` binds the value at that path: in an order, ``first`` and ``then`` are
the same only where the names they share are bound to equal values (a backup of *the same path* before its
deletion); in ``at-most``, the calls are counted per bound value.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator, Mapping
from fnmatch import fnmatchcase

from toolreplay.analysis.matching import args_match, lookup
from toolreplay.analysis.policy_set import NO_POLICIES, PolicySet, PolicyViolations
from toolreplay.core.canonical import JSONValue, canonical_bytes
from toolreplay.core.findings import Level
from toolreplay.core.model import Call
from toolreplay.core.records import record
from toolreplay.core.wording import format_call, format_value

_BINDING = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# What a flow carries: a secret, a key, a path's or an address's part. A dot, an at sign or a percent sign ends a
# token: a key ends a sentence, sits in a user:key@host, or after an escaped space, as itself.
_TOKEN = re.compile(r"[\w\-+~]{4,}")
_SHORTEST = 4  # the shortest min-length: no token shorter is kept
_PENDING = 256  # flow sources waiting to be cut into tokens, at most
Bound = str | bytes  # a bound argument's value as a key: a string itself, anything else its canonical bytes
MISSING = b"\x00missing"  # what a judged call that lacks a bound argument binds: no value any other call binds
DEFAULT_MIN_LENGTH = 12
MIN_LENGTH_RANGE = (4, 1000)


class PolicyKind(enum.Enum):
    """What a policy says about a run's calls; the values are the policy file's keys."""

    NEVER = "never"
    REQUIRE = "require"
    BEFORE = "before"
    IMMEDIATELY_BEFORE = "immediately-before"
    NOT_AFTER = "not-after"
    AT_MOST = "at-most"
    FLOW = "flow"

    @property
    def ordered(self) -> bool:
        """Whether the policy is about two calls (an earlier one and a later one)."""
        return self in (PolicyKind.BEFORE, PolicyKind.IMMEDIATELY_BEFORE, PolicyKind.NOT_AFTER, PolicyKind.FLOW)


def binding_name(value: JSONValue) -> str | None:
    """The name a pattern's argument binds (``"{path}"``), or None for a value or glob to match."""
    if isinstance(value, str):
        found = _BINDING.fullmatch(value)
        if found is not None:
            return found.group(1)
    return None


@record
class Pattern:
    """Calls to ``tool`` (a glob) whose arguments match ``args`` (dotted paths, each a glob for a string or a value
    to equal), binding the values at the paths of ``binds`` to their names."""

    tool: str
    args: tuple[tuple[str, JSONValue], ...] = ()
    binds: tuple[tuple[str, str], ...] = ()  # (dotted path, name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(name for _, name in self.binds))

    def bound(self, call: Call, judged: bool = False) -> dict[str, Bound] | None:
        """The values the call binds, by name, if the call matches; None if it does not. The tool is matched by the
        caller (once per tool name). A string is its own key; any other value its canonical bytes (never equal to
        a string, so ``"1"`` and ``1`` stay apart)."""
        if self.args and not args_match(call.args, self.args):
            return None
        values: dict[str, Bound] = {}
        if not self.binds:
            return values
        for path, name in self.binds:
            found, value = lookup(call.args, path)
            if not found:
                if not judged:  # an earlier call that lacks it establishes nothing
                    return None
                values[name] = MISSING  # a judged call that lacks it is judged all the same, as no value's
                continue
            encoded: Bound = value if isinstance(value, str) else canonical_bytes(value)
            if values.setdefault(name, encoded) != encoded:  # one name twice in a pattern: the values must agree
                return None
        return values

    def text(self) -> str:
        """How a report writes the pattern: ``archive_path(path={path})``."""
        shown = [f"{path}={format_value(value)}" for path, value in self.args]
        shown += [f"{path}={{{name}}}" for path, name in self.binds]
        return f"{self.tool}({', '.join(shown)})"


@record
class CallPolicy:
    """One policy of a policy file: its id, level and reason, its kind, and its patterns.

    ``then`` is the pattern the policy judges (the one of ``never``, ``require`` and ``at-most``; the later call of
    an order; the ``to`` of a flow); ``first`` the earlier call of an order, or a flow's ``from``.
    """

    id: str
    level: Level
    why: str
    kind: PolicyKind
    then: Pattern
    first: Pattern | None = None
    count: int = 0  # at-most: how many matching calls a run may make (per bound value)
    min_length: int = DEFAULT_MIN_LENGTH  # flow: how many characters in a row make a flow
    line: int = 0  # where the policy file states it

    @property
    def shared(self) -> tuple[str, ...]:
        """The names both patterns bind: an order holds between calls that bind them to equal values."""
        if self.first is None:
            return ()
        earlier = set(self.first.names)
        return tuple(name for name in self.then.names if name in earlier)

    def text(self) -> str:
        """The policy in a few words: ``archive_path(path={path}) before delete_path(path={path})``."""
        kind, then = self.kind, self.then.text()
        if kind is PolicyKind.NEVER:
            return f"never {then}"
        if kind is PolicyKind.REQUIRE:
            return f"require {then}"
        if kind is PolicyKind.AT_MOST:
            return f"at most {self.count} {then}"
        first = self.first.text() if self.first is not None else ""
        if kind is PolicyKind.FLOW:
            return f"no flow from {first} to {then} ({self.min_length} characters)"
        return f"{first} {kind.value.replace('-', ' ')} {then}"


@record
class Violation:
    """A policy a run broke, at the call that broke it, with the earlier call an order or a flow is about."""

    policy: CallPolicy
    index: int  # the call's index in the run; -1 for a require no call met (the run as a whole)
    line: int  # the call's line in the file it was read from (0 for a replayed run's call)
    detail: str
    earlier_index: int | None = None
    earlier_line: int = 0


# The state each kind keeps, as small classes with one method per role: ``then`` for the call judged, ``first``
# for the earlier one. A call matching both is judged first: it is neither before nor after itself.


class _Judge:
    def __init__(self, policy: CallPolicy) -> None:
        self.policy = policy
        self.found: list[Violation] = []
        self.shared = policy.shared  # worked out once: asked of every call
        self.tokens = _Tokens()  # each call's tokens, cut once for every flow (RunJudge shares one)

    def then(self, call: Call, values: dict[str, Bound], at: int) -> None:
        raise NotImplementedError

    def first(self, call: Call, values: dict[str, Bound], at: int) -> None:
        return None

    def end(self, replied: bool, last: Call | None) -> None:
        return None

    def key(self, values: Mapping[str, Bound]) -> tuple[Bound, ...]:
        return tuple(values[name] for name in self.shared)

    def add(self, call: Call, detail: str, earlier: Call | None = None) -> None:
        self.found.append(
            Violation(
                self.policy,
                call.index,
                call.line,
                detail,
                earlier.index if earlier is not None else None,
                earlier.line if earlier is not None else 0,
            )
        )


def _said(call: Call) -> str:
    return format_call(call)


class _Never(_Judge):
    def then(self, call: Call, values: dict[str, Bound], at: int) -> None:
        self.add(call, f"{_said(call)} must never be called")


class _Require(_Judge):
    met = False

    def then(self, call: Call, values: dict[str, Bound], at: int) -> None:
        self.met = True

    def end(self, replied: bool, last: Call | None) -> None:
        if replied and not self.met:
            self.found.append(
                Violation(
                    self.policy,
                    -1 if last is None else last.index,
                    0 if last is None else last.line,
                    f"no call matched {self.policy.then.text()}, and the run ended with a reply",
                )
            )


class _Before(_Judge):
    def __init__(self, policy: CallPolicy) -> None:
        super().__init__(policy)
        self.seen: set[tuple[Bound, ...]] = set()

    def then(self, call: Call, values: dict[str, Bound], at: int) -> None:
        if self.key(values) not in self.seen:
            assert self.policy.first is not None
            self.add(call, f"{_said(call)} with no {self._earlier()} before it")

    def _earlier(self) -> str:
        assert self.policy.first is not None
        same = f" of the same {', '.join(self.shared)}" if self.shared else ""
        return f"{self.policy.first.text()}{same}"

    def first(self, call: Call, values: dict[str, Bound], at: int) -> None:
        self.seen.add(self.key(values))


class _ImmediatelyBefore(_Before):
    def __init__(self, policy: CallPolicy) -> None:
        super().__init__(policy)
        self.last: tuple[int, tuple[Bound, ...]] | None = None  # the position and key of the last ``first`` call
        self.previous: Call | None = None

    def then(self, call: Call, values: dict[str, Bound], at: int) -> None:
        if self.last is None or self.last[0] != at - 1 or self.last[1] != self.key(values):
            just = f", after {_said(self.previous)}" if self.previous is not None else ", as the run's first call"
            self.add(call, f"{_said(call)} not right after {self._earlier()}{just}", self.previous)

    def first(self, call: Call, values: dict[str, Bound], at: int) -> None:
        self.last = (at, self.key(values))


class _NotAfter(_Judge):
    def __init__(self, policy: CallPolicy) -> None:
        super().__init__(policy)
        self.seen: dict[tuple[Bound, ...], Call] = {}
        self.any: Call | None = None  # the first earlier call, whatever it bound

    def then(self, call: Call, values: dict[str, Bound], at: int) -> None:
        key = self.key(values)
        # a call that lacks a bound argument may be the same as any earlier one: the first of them counts
        earlier = self.seen.get(key) if MISSING not in key else self.any
        if earlier is not None:
            self.add(call, f"{_said(call)} after {_said(earlier)} (index {earlier.index})", earlier)

    def first(self, call: Call, values: dict[str, Bound], at: int) -> None:
        self.seen.setdefault(self.key(values), call)
        if self.any is None:
            self.any = call


class _AtMost(_Judge):
    def __init__(self, policy: CallPolicy) -> None:
        super().__init__(policy)
        self.counts: dict[tuple[Bound, ...], int] = {}
        self.names = policy.then.names

    def then(self, call: Call, values: dict[str, Bound], at: int) -> None:
        key = tuple(values[name] for name in self.names)
        made = self.counts.get(key, 0) + 1
        self.counts[key] = made
        if made == self.policy.count + 1:  # once per run (and bound value): the call that went past the bound
            bound = self.policy.count
            self.add(call, f"{_said(call)} is call {made} of {self.policy.then.text()}, at most {bound} allowed")


def _unescaped(text: str) -> str:
    """A text with its percent escapes decoded (urllib loaded only for a text that has one)."""
    from urllib.parse import unquote  # noqa: PLC0415

    return unquote(text)


class _Tokens:
    """The distinct tokens of a call's arguments and of its result (runs of letters, digits and ``-_.+~%@``, at
    least the shortest ``min-length`` a flow may have), in the order they come, cut once per call whatever the
    number of flows."""

    def __init__(self) -> None:
        self.call: Call | None = None
        self.made: dict[str, dict[str, None]] = {}

    def of(self, call: Call, part: str) -> dict[str, None]:
        if call is not self.call:
            self.call, self.made = call, {}
        found = self.made.get(part)
        if found is None:
            value = call.args if part == "args" else call.result
            texts = [_unescaped(text) if "%" in text else text for text in _strings(value) if len(text) >= _SHORTEST]
            found = self.made[part] = dict.fromkeys(_TOKEN.findall("\0".join(texts))) if texts else {}
        return found


class _Sources(_Judge):
    """The tokens the results of one ``from`` pattern's calls held, each with the first call that held it: one
    index for every flow from that pattern, whatever their ``min-length`` (each looks up only its own lengths)."""

    def __init__(self, policy: CallPolicy) -> None:
        super().__init__(policy)
        self.index: dict[str, Call] = {}
        self.pending: list[Call] = []  # sources not yet cut into tokens: only a later call a flow judges needs them
        self.asked: Call | None = None  # the last call whose argument tokens were looked up, and what they share
        self.common: set[str] = set()

    def then(self, call: Call, values: dict[str, Bound], at: int) -> None:
        return None

    def first(self, call: Call, values: dict[str, Bound], at: int) -> None:
        self.pending.append(call)
        if len(self.pending) >= _PENDING:  # a streamed recording is not held in memory for a flow
            self.held  # noqa: B018 - cut the sources waiting so far

    def shared_with(self, call: Call, tokens: dict[str, None]) -> set[str]:
        """The tokens of a call's arguments some source held: found once per call for every flow from these
        sources (in C: most calls share none)."""
        if call is not self.asked:
            self.asked, self.common = call, tokens.keys() & self.held.keys()
        return self.common

    @property
    def held(self) -> dict[str, Call]:
        """Every token the sources so far held, with the first that held it."""
        if self.pending:
            cut = _Tokens()
            index = self.index
            for source in self.pending:
                for token in cut.of(source, "result"):  # the source's own tokens looked up: never the whole index
                    if token not in index:
                        index[token] = source
            self.pending.clear()
        return self.index


class _Flow(_Judge):
    """A later call's argument tokens of ``min-length`` or more, each looked up in its sources' index: every
    string is cut once per call, and what is kept is the distinct tokens of the results, never every window of
    every result."""

    def __init__(self, policy: CallPolicy) -> None:
        super().__init__(policy)
        self.length = policy.min_length
        self.sources = _Sources(policy)  # its own, until the run's judge gives it the one its source pattern shares

    def then(self, call: Call, values: dict[str, Bound], at: int) -> None:
        held = self.sources.held
        if not held:
            return
        tokens = self.tokens.of(call, "args")
        common = self.sources.shared_with(call, tokens)
        if not common:
            return
        size = self.length
        for token in tokens:  # in the order the arguments hold them: the same one named whatever the hash seed
            if token in common and len(token) >= size:
                source = held[token]
                self.add(call, f"{_said(call)} holds {token!r} from the result of {_said(source)}", source)
                return


def _strings(value: object) -> Iterator[str]:
    """Every string in a JSON value, its objects' keys too, at any depth (iteratively: a result may nest deeply)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            yield from item.keys()
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


_JUDGES: dict[PolicyKind, type[_Judge]] = {
    PolicyKind.NEVER: _Never,
    PolicyKind.REQUIRE: _Require,
    PolicyKind.BEFORE: _Before,
    PolicyKind.IMMEDIATELY_BEFORE: _ImmediatelyBefore,
    PolicyKind.NOT_AFTER: _NotAfter,
    PolicyKind.AT_MOST: _AtMost,
    PolicyKind.FLOW: _Flow,
}


@record
class _Role:
    judge: _Judge
    pattern: int  # which of the tool's distinct patterns it is
    judged: bool  # the ``then`` pattern (judged), or the ``first`` (remembered)


@record
class _ToolRoles:
    """What a tool's calls are looked at by: its distinct patterns (each matched once per call, however many
    policies share it), and each policy's role with the pattern it plays it by."""

    patterns: tuple[tuple[Pattern, bool], ...]  # each distinct pattern, and whether it is the judged one
    roles: tuple[_Role, ...]


class RunJudge:
    """Judges one run's calls against a policy set as they come (:meth:`see`), then its end (:meth:`end`)."""

    def __init__(self, policies: PolicySet) -> None:
        self.judges = [_JUDGES[policy.kind](policy) for policy in policies.policies]
        shared = _Tokens()
        sources: dict[Pattern, _Sources] = {}
        for judge in self.judges:
            judge.tokens = shared
            if isinstance(judge, _Flow) and judge.policy.first is not None:  # one index per source pattern
                judge.sources = sources.setdefault(judge.policy.first, judge.sources)
                judge.sources.tokens = shared
        self.sources = list(sources.values())
        self.by_tool: dict[str, _ToolRoles] = {}
        self.seen = 0
        self.last: Call | None = None
        self.previous_watchers = [j for j in self.judges if isinstance(j, _ImmediatelyBefore)]

    def _roles(self, tool: str) -> _ToolRoles:
        made = self.by_tool.get(tool)
        if made is None:
            found: list[tuple[_Judge, Pattern, bool]] = []
            for judge in self.judges:
                policy = judge.policy
                if fnmatchcase(tool, policy.then.tool):
                    found.append((judge, policy.then, True))
                if policy.first is not None and not isinstance(judge, _Flow) and fnmatchcase(tool, policy.first.tool):
                    found.append((judge, policy.first, False))
            for index in self.sources:  # a flow's sources, indexed once for every flow from them
                assert index.policy.first is not None
                if fnmatchcase(tool, index.policy.first.tool):
                    found.append((index, index.policy.first, False))
            patterns = list(dict.fromkeys((pattern, judged) for _, pattern, judged in found))
            number = {pair: n for n, pair in enumerate(patterns)}
            roles = tuple(_Role(judge, number[pattern, judged], judged) for judge, pattern, judged in found)
            made = self.by_tool[tool] = _ToolRoles(tuple(patterns), roles)
        return made

    def see(self, call: Call) -> None:
        at = self.seen
        looked = self._roles(call.tool)
        if looked.roles:
            bound = [pattern.bound(call, judged) for pattern, judged in looked.patterns]
            for role in looked.roles:
                values = bound[role.pattern]
                if values is None:
                    continue
                if role.judged:
                    role.judge.then(call, values, at)
                else:
                    role.judge.first(call, values, at)
        for watcher in self.previous_watchers:
            watcher.previous = call
        self.seen += 1
        self.last = call

    def end(self, replied: bool) -> list[Violation]:
        """Every violation of the run, in call order (a require's at the end)."""
        found: list[Violation] = []
        for judge in self.judges:
            judge.end(replied, self.last)
            found += judge.found
        return sorted(found, key=lambda v: (v.index if v.index >= 0 else self.seen, v.policy.line))


def violations(calls: Iterable[Call], policies: PolicySet, replied: bool = True) -> list[Violation]:
    """Every violation of ``policies`` in one run's calls; ``replied``: whether the run ended with a final reply
    (a ``require`` holds only of a run that did)."""
    judge = RunJudge(policies)
    for call in calls:
        judge.see(call)
    return judge.end(replied)


def violated(calls: Iterable[Call], policies: PolicySet, replied: bool = True) -> dict[str, Violation]:
    """The first violation of each policy a run broke, by the policy's id."""
    first: dict[str, Violation] = {}
    for found in violations(calls, policies, replied):
        first.setdefault(found.policy.id, found)
    return first


__all__ = ["NO_POLICIES", "PolicySet", "PolicyViolations"]  # kept apart (policy_set.py), named here too
