"""Policies that hold in every recorded run, as a starter policy file for a person to keep or drop.

What is proposed, each with how many runs and calls support it:

- ``before``, bound: a tool that writes or destroys whose argument (a string) was, in every call of it, an
  argument of the same name of an earlier call of another tool (each archive of a path before its deletion);
- ``before``, unbound: another tool called before every call of a tool that writes or destroys, in every run
  that calls it, where no bound order already says as much (the listing before any removal);
- ``at-most``: a tool that writes or destroys, at most as often as the run that called it most;
- ``flow``: a tool whose name says it reads a secret, to any tool whose name says it sends something out, where
  no run carried the one's result into the other's arguments.

One pass per run over its calls, keeping per run the tools already called and, per argument name and string
value, the tools that passed it: nothing compares pairs of calls.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.analysis.policies import CallPolicy, Pattern, PolicyKind, PolicySet, violations
from toolreplay.core.findings import Level
from toolreplay.core.model import Session
from toolreplay.core.wording import count

_SECRET = re.compile(r"secret|token|credential|password|api_?key|vault", re.IGNORECASE)
_EGRESS = re.compile(r"http|request|send|mail|post|upload|webhook|fetch|publish|notify", re.IGNORECASE)


class _Seen:
    """What the runs did, in one pass over each: the tools that write or destroy, how often, what came before each
    of their calls, and which earlier tools passed each of their string arguments' values."""

    def __init__(self) -> None:
        self.mutators: set[str] = set()
        self.calls_of: dict[str, int] = {}  # mutating tool -> its calls in all
        self.runs_of: dict[str, int] = {}  # mutating tool -> the runs that call it
        self.most: dict[str, int] = {}  # mutating tool -> the most calls one run made
        self.bound: dict[tuple[str, str], set[str]] = {}  # (tool, argument) -> tools that passed its value earlier
        self.earlier: dict[str, set[str]] = {}  # mutating tool -> tools called before each of its calls
        self.names: set[str] = set()
        self.values: dict[tuple[str, str], set[str]] = {}  # (tool, argument) -> up to two of the values it took

    def varies(self, tool: str, key: str) -> bool:
        """Whether the argument took more than one value: the same value every time binds nothing worth saying."""
        return len(self.values.get((tool, key), ())) > 1

    def run(self, session: Session, classify: Classifier) -> None:
        seen: set[str] = set()
        passed: dict[tuple[str, str], set[str]] = {}  # (argument, value) -> the tools that passed it so far
        made: dict[str, int] = {}
        for call in session.calls:
            self.names.add(call.tool)
            strings = {key: value for key, value in call.args.items() if isinstance(value, str) and value}
            if classify.classify(call).klass.mutates:
                made[call.tool] = made.get(call.tool, 0) + 1
                self._mutator(call.tool, strings, seen, passed)
            for key, value in strings.items():
                passed.setdefault((key, value), set()).add(call.tool)
            seen.add(call.tool)
        for tool, number in made.items():
            self.calls_of[tool] = self.calls_of.get(tool, 0) + number
            self.runs_of[tool] = self.runs_of.get(tool, 0) + 1
            self.most[tool] = max(self.most.get(tool, 0), number)
        if session.context is not None:
            self.names.update(tool.name for tool in session.context.tools)

    def _mutator(
        self, tool: str, strings: dict[str, str], seen: set[str], passed: dict[tuple[str, str], set[str]]
    ) -> None:
        again = tool in self.mutators
        self.mutators.add(tool)
        self.earlier[tool] = self.earlier[tool] & seen if tool in self.earlier else set(seen)
        bound = self.bound
        for key, value in strings.items():
            taken = self.values.setdefault((tool, key), set())
            if len(taken) < 2:
                taken.add(value)
            had = passed.get((key, value), set()) - {tool}
            # an argument its earlier calls lacked was bound by none of them
            bound[tool, key] = bound[tool, key] & had if (tool, key) in bound else (set() if again else had)
        for named, key in bound:
            if named == tool and key not in strings:
                bound[named, key] = set()


def suggested_policies(
    sessions: Sequence[Session], policy: Policy = Policy()
) -> tuple[list[dict[str, Any]], list[str]]:
    """The policies every session keeps, as policy-file tables, each with the comment line that says what
    supports it."""
    seen = _Seen()
    for session in sessions:
        seen.run(session, Classifier.of(policy, session.context))
    mutators, calls_of, runs_of, most = seen.mutators, seen.calls_of, seen.runs_of, seen.most
    bound, earlier, names = seen.bound, seen.earlier, seen.names
    found: list[tuple[CallPolicy, str]] = []
    for tool in sorted(mutators):
        support = f"{count(calls_of[tool], 'call')} of {_shown(tool)} in {count(runs_of[tool], 'run')}"
        ordered: set[str] = set()
        for (then, key), tools in sorted(bound.items()):
            # a name a pattern's path reads as itself (no dot, which reads as a path, nor nothing), whose value varied
            if then != tool or not _PATH_NAME.fullmatch(key) or not seen.varies(tool, key):
                continue
            name = _name(key)
            for first in sorted(tools):
                ordered.add(first)
                ident = _ident(f"{first}-before-{tool}-same-{key}")
                why = (
                    f"each {_shown(tool)} of a {key} follows a {_shown(first)} of the same {key}, in every recorded run"
                )
                shared = Pattern(first, (), ((key, name),)), Pattern(tool, (), ((key, name),))
                found.append((CallPolicy(ident, Level.ERROR, why, PolicyKind.BEFORE, shared[1], shared[0]), support))
        for first in sorted(earlier.get(tool, set()) - ordered - {tool}):
            why = f"{_shown(first)} is called before every {_shown(tool)}, in every recorded run"
            policy_made = CallPolicy(
                _ident(f"{first}-before-{tool}"), Level.WARNING, why, PolicyKind.BEFORE, Pattern(tool), Pattern(first)
            )
            found.append((policy_made, support))
        why = f"no recorded run calls {_shown(tool)} more than {count(most[tool], 'time')}"
        bounded = CallPolicy(
            _ident(f"at-most-{most[tool]}-{tool}"), Level.WARNING, why, PolicyKind.AT_MOST, Pattern(tool)
        )
        found.append((_with_count(bounded, most[tool]), support))
    for source in sorted(n for n in names if _SECRET.search(n)):
        for sink in sorted(n for n in names if _EGRESS.search(n) and n != source):
            why = f"what {_shown(source)} returns never goes into {_shown(sink)}'s arguments"
            flow = CallPolicy(
                _ident(f"no-{source}-into-{sink}"), Level.ERROR, why, PolicyKind.FLOW, Pattern(sink), Pattern(source)
            )
            found.append((flow, f"{count(len(sessions), 'run')}, none of them carrying it"))
    kept = [(policy_made, support) for policy_made, support in found if _holds(policy_made, sessions)]
    taken: set[str] = set()
    for number, (policy_made, support) in enumerate(kept):  # two names that read alike: told apart by a number
        ident, suffix = policy_made.id, 1
        while ident in taken:
            suffix += 1
            ident = f"{policy_made.id[:90]}-{suffix}"
        taken.add(ident)
        if ident != policy_made.id:
            kept[number] = (replace(policy_made, id=ident), support)
    tables = [table(policy_made) for policy_made, _ in kept]
    return tables, [f"held in every run: {support}" for _, support in kept]


def _with_count(policy: CallPolicy, bound: int) -> CallPolicy:
    return replace(policy, count=bound)


def _ident(text: str) -> str:
    """A policy id from tool and argument names: what a policy file's id may hold, at most 100 characters."""
    made = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-._") or "policy"
    return made[:100]


_PATH_NAME = re.compile(r"[A-Za-z0-9_-]+")
_PLAIN = re.compile(r"[\w.\-]+", re.ASCII)


def _shown(name: str) -> str:
    """A tool's name as a comment line of the file holds it: itself where plain, else as a JSON string (a line
    break or a control character in a name would end the comment or break the file)."""
    return name if _PLAIN.fullmatch(name) else json.dumps(name)


def _name(key: str) -> str:
    """The name a bound argument goes by: its own, where it is one a pattern can write."""
    made = re.sub(r"\W", "_", key, flags=re.ASCII)
    return made if re.match(r"[A-Za-z_]", made) else f"v_{made}"


def _holds(policy: CallPolicy, sessions: Sequence[Session]) -> bool:
    """Whether every session keeps the policy, checked as the policy file will check it."""
    one = PolicySet((policy,))
    return not any(violations(session.calls, one) for session in sessions)


def _pattern(pattern: Pattern) -> dict[str, Any]:
    table: dict[str, Any] = {"tool": _literal(pattern.tool)}
    args: dict[str, Any] = dict(pattern.args)
    args.update({path: "{" + name + "}" for path, name in pattern.binds})
    if args:
        table["args"] = args
    return table


def _literal(name: str) -> str:
    """A tool name as a glob that matches only itself."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def table(policy: CallPolicy) -> dict[str, Any]:
    """A policy as the table of a policy file that states it."""
    stated: dict[str, Any] = {"id": policy.id, "level": policy.level.value, "why": policy.why}
    if policy.kind is PolicyKind.AT_MOST:
        stated["at-most"] = {**_pattern(policy.then), "count": policy.count}
    elif policy.kind is PolicyKind.FLOW and policy.first is not None:
        stated["flow"] = {"from": _pattern(policy.first), "to": _pattern(policy.then), "min-length": policy.min_length}
    elif policy.first is not None:
        stated[policy.kind.value] = {"first": _pattern(policy.first), "then": _pattern(policy.then)}
    else:
        stated[policy.kind.value] = _pattern(policy.then)
    return stated
