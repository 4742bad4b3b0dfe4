"""A starter rules file from recorded sessions: every tool seen, its class, what to review, what to ignore.

- Every tool the sessions define or call gets a rule with the class its MCP
  annotations give; a tool with no annotations gets ``unknown`` and a note that
  asks for a review.
- A session from Claude Code (or one that calls its tools) gets the rules
  toolreplay ships for Claude Code's own tools (``Read``, ``Edit``, ``Bash``...),
  all of them, first: ``Bash`` is classified by its command (``rm -r`` and
  ``git push --force`` are destructive).
- An argument of a read-only tool that takes a different value in calls that
  are otherwise the same (same tool, every other argument equal), whose name
  says it is a request id, a nonce or a timestamp and whose values look like
  one, is proposed as ignored when matching calls. A tool that writes or
  destroys is never matched loosely.

The file is written with ``tomli-w`` and reads back with ``read_rules``.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Sequence
from importlib import resources
from typing import Any

from toolreplay.analysis.classify import class_from_annotations
from toolreplay.core.canonical import JSONValue, canonical_bytes
from toolreplay.core.model import CallClass, Session, ToolDef
from toolreplay.core.wording import count

# What volatile values look like: an ISO date and time, a UUID, a long hex string, an epoch number.
_VOLATILE = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"
    r"|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|[0-9a-fA-F]{16,}"
)
# What volatile arguments are called: request and trace ids, nonces, timestamps (not an object's own id).
_VOLATILE_KEYS = re.compile(
    r"(^|_)(request_id|trace_id|span_id|idempotency_key|nonce|timestamp|ts|sent_at|requested_at)$", re.IGNORECASE
)
# Pairs of calls compared per tool, at most: enough to see an argument vary, bounded on a long session.
_MOST_CALLS = 300


def claude_code_rules() -> list[dict[str, Any]]:
    """The rules toolreplay ships for Claude Code's own tools."""
    text = resources.files("toolreplay").joinpath("data/claude-code-rules.toml").read_text(encoding="utf-8")
    rules: list[dict[str, Any]] = tomllib.loads(text)["rules"]
    return rules


def starter_rules(sessions: Sequence[Session]) -> tuple[dict[str, Any], list[str]]:
    """The rules document for ``sessions``, and the lines of its header comment."""
    tools: dict[str, ToolDef | None] = {}
    for session in sessions:
        if session.context is not None:
            for defined in session.context.tools:
                tools.setdefault(defined.name, defined)
        for call in session.calls:
            tools.setdefault(call.tool, None)
    shipped = claude_code_rules()
    shipped_tools = {rule["tool"] for rule in shipped}
    from_claude_code = any(s.context is not None and s.context.source.get("kind") == "claude-code" for s in sessions)
    rules: list[dict[str, Any]] = []
    if from_claude_code or shipped_tools & tools.keys():  # Claude Code's tools: all of its rules, for later calls too
        rules += shipped
    review: list[str] = []
    for name, tool in sorted(tools.items()):
        if name in shipped_tools:
            continue
        if tool is None or tool.annotations is None:
            review.append(name)
            rules.append({"tool": _literal(name), "class": CallClass.UNKNOWN.value, "note": "REVIEW: no annotations"})
        else:
            klass = class_from_annotations(tool).value
            rules.append({"tool": _literal(name), "class": klass, "note": "from its MCP annotations"})
    read_only = {
        name
        for name, tool in tools.items()
        if tool is not None and tool.annotations is not None and class_from_annotations(tool) is CallClass.READ_ONLY
    }
    ignored = _varying(sessions, read_only)
    document: dict[str, Any] = {"rules": rules}
    if ignored:
        document["matching"] = {"tools": {tool: {"ignore": paths} for tool, paths in sorted(ignored.items())}}
    header = [
        f"Starter rules from {count(len(sessions), 'session')}, written by toolreplay rules init.",
        "The first matching rule wins. Review every rule; classify the tools marked REVIEW.",
    ]
    if review:  # names as JSON strings: a name from a recording is never TOML of its own
        header.append(f"Tools with no annotations: {', '.join(json.dumps(name) for name in review)}.")
    if ignored:
        header.append("Arguments proposed as ignored vary between calls that are otherwise the same and look like")
        header.append("timestamps or ids; remove any that matter.")
    return document, header


def _literal(name: str) -> str:
    """A tool name as a glob that matches only itself."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def _varying(sessions: Sequence[Session], read_only: set[str]) -> dict[str, list[str]]:
    """Per read-only tool, the argument paths whose values alone tell otherwise identical calls apart, when both
    their names and their values look volatile. A call that writes or destroys is never matched loosely: ignoring
    an argument of ``delete(id=...)`` would make two deletions one."""
    by_tool: dict[str, list[dict[str, JSONValue]]] = {}
    for session in sessions:
        for call in session.calls:
            if call.tool not in read_only:
                continue
            calls = by_tool.setdefault(call.tool, [])
            if len(calls) < _MOST_CALLS:
                calls.append(dict(_leaves(call.args)))
    found: dict[str, list[str]] = {}
    for tool, calls in by_tool.items():
        paths: set[str] = set()
        for i, first in enumerate(calls):
            for second in calls[i + 1 :]:
                if first.keys() != second.keys():
                    continue
                differing = [path for path in first if canonical_bytes(first[path]) != canonical_bytes(second[path])]
                if len(differing) == 1 and _volatile(differing[0], first[differing[0]], second[differing[0]]):
                    paths.add(differing[0])
        if paths:
            found[tool] = sorted(_literal(path) for path in paths)
    return found


def _leaves(value: JSONValue, prefix: str = "") -> list[tuple[str, JSONValue]]:
    """Every argument path (dotted, into objects) with its value."""
    if isinstance(value, dict) and value:
        found: list[tuple[str, JSONValue]] = []
        for key, item in value.items():
            found += _leaves(item, f"{prefix}.{key}" if prefix else key)
        return found
    return [(prefix, value)] if prefix else []


def _volatile(path: str, *values: JSONValue) -> bool:
    if not _VOLATILE_KEYS.search(path.rsplit(".", 1)[-1]):
        return False
    return all(
        (isinstance(v, str) and _VOLATILE.fullmatch(v) is not None) or (type(v) is int and v > 10**9) for v in values
    )
