"""What a call can do to the world: read-only, write, destructive, or unknown.

The class comes from the first rule that matches the call (a rules file: tool
name and, optionally, arguments and the recorded server that listed the tool),
else from the tool's MCP annotations, else it is unknown. In the MCP
specification an absent ``readOnlyHint`` means false and an absent
``destructiveHint`` means true: a tool with annotations that make
neither claim is taken to be destructive. With ``strict``, unknown counts as
destructive.

Where a tool's annotations say read-only but a rule says it writes or destroys,
the classification notes the mismatch: annotations from third-party servers are
often wrong, and the rule is what the user asserted.

A call can have more than one reading: a candidate's tools are given beside the
recorded ones, and under ``check --base`` the base's rules stand beside the pull
request's. Each reading classifies the call as above; the call is as dangerous as
its most dangerous reading, so a candidate that drops a ``destructiveHint`` or a
rules file that calls a deletion read-only cannot make the deletion harmless.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from fnmatch import fnmatchcase

from toolreplay.analysis.matching import EXACT, Matcher, args_match
from toolreplay.analysis.policy_set import NO_POLICIES, PolicySet
from toolreplay.core.canonical import JSONValue
from toolreplay.core.model import Call, CallClass, McpServer, SessionContext, ToolDef
from toolreplay.core.records import record


@record
class ClassRule:
    """Calls to ``tool`` (a glob) whose arguments match ``args`` are of class ``klass``; with ``server`` (a glob),
    only calls to a tool a recorded server of that name listed.

    In ``args``, a string is a glob pattern for a string argument; any other value
    must equal the argument.
    """

    tool: str
    klass: CallClass
    args: tuple[tuple[str, JSONValue], ...] = ()
    line: int = 0
    server: str | None = None

    def matches(self, call: Call, server: str | None = None) -> bool:
        """Whether the rule holds for the call, made to ``server`` (None: no server known to have listed it)."""
        if self.server is not None and (server is None or not fnmatchcase(server, self.server)):
            return False
        return fnmatchcase(call.tool, self.tool) and args_match(call.args, self.args)


@record
class Policy:
    """Rules, argument matching and strictness, as one rules file gives them; and the policies over a run's calls,
    as a policy file gives them (judging runs, never answering them: no part of a run's cache key)."""

    rules: tuple[ClassRule, ...] = ()
    matcher: Matcher = EXACT
    strict: bool = False
    source: str | None = None
    # other rules whose readings count too (the base's, under check --base), each with what to call it
    also: tuple[tuple[str, Policy], ...] = ()
    policies: PolicySet = NO_POLICIES


@record
class Classification:
    """A call's class, where it came from, and what its annotations claimed if they disagree."""

    klass: CallClass
    origin: str  # "rule", "annotations", "strict" or "none"
    rule: ClassRule | None = None
    annotated: CallClass | None = None
    reading: str = ""  # which reading decided, where it was not the first (the recorded tools, the base's rules)

    @property
    def mismatch(self) -> bool:
        """The annotations call the tool read-only, but a rule says it changes things."""
        return self.annotated is CallClass.READ_ONLY and self.rule is not None and self.klass.mutates


def class_from_annotations(tool: ToolDef | None) -> CallClass:
    """The class a tool's MCP annotations give it."""
    if tool is None or tool.annotations is None:
        return CallClass.UNKNOWN
    if tool.annotations.get("readOnlyHint", False) is True:
        return CallClass.READ_ONLY
    if tool.annotations.get("destructiveHint", True) is True:
        return CallClass.DESTRUCTIVE
    return CallClass.WRITE


# The auditor's built-in guess, used for redundancy when nothing classifies a call.
DEFAULT_MUTATORS = frozenset({"write_file", "delete_file", "create_file", "move_file", "run_command"})


# How dangerous a reading is, to pick the most dangerous: an unknown that a rule says is above a write.
_DANGER = {CallClass.READ_ONLY: 0, CallClass.WRITE: 1, CallClass.UNKNOWN: 2, CallClass.DESTRUCTIVE: 3}


def danger(found: Classification) -> int:
    """How dangerous a reading makes a call; a reading that says nothing (no rule, no annotations) is below all."""
    return -1 if found.origin == "none" else _DANGER[found.klass]


class Classifier:
    """Classifies the calls of one recording (``tools``); ``recorded``: the tools the recording had, where a
    candidate was given others, whose annotations count too; ``servers``: the MCP servers it recorded, whose
    listings say which server a call's tool is, for the rules that name one."""

    def __init__(
        self,
        policy: Policy = Policy(),
        tools: Iterable[ToolDef] = (),
        recorded: Iterable[ToolDef] = (),
        servers: Iterable[McpServer] = (),
    ) -> None:
        self.policy = policy
        self.tools: Mapping[str, ToolDef] = {tool.name: tool for tool in tools}
        self.servers: Mapping[str, tuple[str | None, ...]] = tool_servers(servers)
        given = {tool.name: tool for tool in recorded}
        surfaces: list[tuple[str, Mapping[str, ToolDef]]] = [("", self.tools)]
        if given and given != self.tools:
            surfaces.append(("the recorded annotations", given))
        self._readings = [
            (label, rules, surface)
            for rules_label, rules in (("", policy), *policy.also)
            for surface_label, surface in surfaces
            for label in [" and ".join(part for part in (rules_label, surface_label) if part)]
        ]

    @classmethod
    def of(cls, policy: Policy, context: SessionContext | None, tools: Iterable[ToolDef] | None = None) -> Classifier:
        """A session's classifier, with its tools and servers; given ``tools`` instead (a candidate's), with them,
        the session's own annotations counting too. A transcript (no context) has neither."""
        if context is None:
            return cls(policy, tools or ())
        if tools is None:
            return cls(policy, context.tools, servers=context.servers)
        return cls(policy, tools, context.tools, context.servers)

    def classify(self, call: Call) -> Classification:
        # A tool two servers listed may be either's call: each server's reading counts, the most dangerous decides.
        servers = self.servers.get(call.tool, _NO_SERVER)
        best = _reading(self.policy, self.tools, call, servers[0])
        for number, (label, rules, surface) in enumerate(self._readings):
            for server in servers[1:] if number == 0 else servers:
                other = _reading(rules, surface, call, server)
                if danger(other) > danger(best):
                    best = replace(other, reading=label)
        return best

    def is_mutator(self, call: Call) -> bool:
        """Whether a call may change state, for the audit's redundancy rule.

        A classified call mutates when it writes or destroys. An unclassified
        call falls back to the auditor's default list, so a flat transcript
        without rules keeps its original reports.
        """
        klass = self.classify(call).klass
        if klass is CallClass.UNKNOWN:
            return call.tool in DEFAULT_MUTATORS
        return klass.mutates


_NO_SERVER: tuple[str | None, ...] = (None,)  # a tool no recorded server listed


def tool_servers(servers: Iterable[McpServer]) -> dict[str, tuple[str, ...]]:
    """For each tool a recorded server listed, the servers that listed it, in the recording's order."""
    found: dict[str, tuple[str, ...]] = {}
    for server in servers:
        for entry in server.listing():
            name = entry.get("name")
            if isinstance(name, str) and server.name not in found.get(name, ()):
                found[name] = (*found.get(name, ()), server.name)
    return found


def _reading(policy: Policy, tools: Mapping[str, ToolDef], call: Call, server: str | None = None) -> Classification:
    """One reading of a call made to ``server``: the first rule that matches it, else its tool's annotations, else
    nothing."""
    tool = tools.get(call.tool)
    annotated = class_from_annotations(tool) if tool is not None and tool.annotations is not None else None
    for rule in policy.rules:
        if rule.matches(call, server):
            return Classification(rule.klass, "rule", rule, annotated)
    if annotated is not None:
        return Classification(annotated, "annotations", None, annotated)
    if policy.strict:
        return Classification(CallClass.DESTRUCTIVE, "strict")
    return Classification(CallClass.UNKNOWN, "none")
