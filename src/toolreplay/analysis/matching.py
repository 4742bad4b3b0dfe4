"""When two calls are the same call: argument matching.

By default two calls match when their tool and their arguments are equal after
canonical encoding. A matching configuration can name argument paths to ignore,
for every tool or for one, as glob patterns over dotted paths (``timestamp``,
``*_id``, ``options.trace.*``), so that a call differing only in a generated id
or a clock reading still matches. Every comparison of two calls (the audit's
identity, the diff, replay lookups, noise counting) goes through one
:class:`Matcher`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import field
from fnmatch import fnmatchcase
from typing import Any

from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes, canonical_call
from toolreplay.core.model import Call
from toolreplay.core.records import record


@record
class Matcher:
    """Which argument paths to ignore when comparing calls."""

    ignore: tuple[str, ...] = ()
    ignore_by_tool: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def patterns_for(self, tool: str) -> tuple[str, ...]:
        return self.ignore + tuple(self.ignore_by_tool.get(tool, ()))

    def matched_args(self, tool: str, args: JSONObject) -> JSONObject:
        """``args`` without the paths this matcher ignores for ``tool``."""
        patterns = self.patterns_for(tool)
        if not patterns:
            return args
        return _without(args, "", patterns)

    def key(self, call: Call) -> bytes:
        """The canonical bytes that decide whether two calls are the same call."""
        return canonical_call(call.tool, self.matched_args(call.tool, call.args))

    def identity(self, call: Call) -> bytes:
        """A 16-byte digest of :meth:`key`, for maps over many calls.

        The key's bytes are hashed in the pieces ``canonical_call`` joins (``{"args":``, the arguments,
        ``,"tool":``, the name, ``}``), which gives the same digest without building the wrapping object.
        """
        digest = _sha256()(b'{"args":')
        digest.update(canonical_bytes(self.matched_args(call.tool, call.args)))
        digest.update(b',"tool":')
        digest.update(canonical_bytes(call.tool))
        digest.update(b"}")
        identity: bytes = digest.digest()[:16]
        return identity

    def identifier(self) -> Callable[[Call], bytes]:
        """:meth:`identity` as one function, for the audit's loop over every call of a recording.

        When nothing is ignored, the key is joined from the encoded arguments and
        the tool's encoded name, remembered per name, and hashed once.
        """
        if self.ignore or any(self.ignore_by_tool.values()):
            return self.identity
        sha256 = _sha256()
        names: dict[str, bytes] = {}

        def identity(call: Call) -> bytes:
            name = names.get(call.tool)
            if name is None:
                name = names[call.tool] = b',"tool":' + canonical_bytes(call.tool) + b"}"
            found: bytes = sha256(b'{"args":' + canonical_bytes(call.args) + name).digest()[:16]
            return found

        return identity


_SHA256: list[Callable[[bytes], Any]] = []


def _sha256() -> Callable[[bytes], Any]:
    """hashlib's sha256, imported on first use: replays compare calls by their keys and never hash them."""
    if not _SHA256:
        import hashlib  # noqa: PLC0415

        _SHA256.append(hashlib.sha256)
    return _SHA256[0]


def _without(value: JSONObject, prefix: str, patterns: tuple[str, ...]) -> JSONObject:
    kept: JSONObject = {}
    for name, item in value.items():
        path = f"{prefix}{name}"
        if any(fnmatchcase(path, pattern) for pattern in patterns):
            continue
        kept[name] = _without(item, f"{path}.", patterns) if isinstance(item, dict) else item
    return kept


def value_matches(actual: JSONValue, pattern: JSONValue) -> bool:
    """The one "glob or equal" rule: a string pattern is a glob over string values; anything else must be equal.

    Rules, scopes and stubs all match argument values this way; equality is of
    canonical bytes, like every comparison of JSON values.
    """
    if isinstance(pattern, str):
        return isinstance(actual, str) and fnmatchcase(actual, pattern)
    return canonical_bytes(actual) == canonical_bytes(pattern)


def args_match(args: JSONObject, patterns: Iterable[tuple[str, JSONValue]]) -> bool:
    """Whether every dotted path of ``patterns`` is in ``args`` with a value that matches its pattern."""
    for path, pattern in patterns:
        found, actual = lookup(args, path)
        if not found or not value_matches(actual, pattern):
            return False
    return True


def lookup(args: JSONObject, path: str) -> tuple[bool, JSONValue]:
    """The value at a dotted ``path`` in ``args``, and whether it is there."""
    value: JSONValue = args
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return False, None
        value = value[part]
    return True, value


EXACT = Matcher()
