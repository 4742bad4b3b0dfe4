"""Keeping secrets out of every file a recorder writes.

Each recorder passes what it is about to write through a :class:`Redactor`,
which replaces common credential shapes (and patterns the user adds) with a
placeholder derived from the secret's SHA-256: ``[REDACTED:github-token:1a2b3c4d]``.
Equal secrets get equal placeholders, so a call that sent the same token twice
still matches itself when replayed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from toolreplay.canonical import JSONValue
from toolreplay.errors import UsageError

# (name, pattern). Bearer tokens keep the word "Bearer" and redact what follows.
DEFAULT_PATTERNS: tuple[tuple[str, str], ...] = (
    ("private-key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----"),
    ("anthropic-key", r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("github-token", r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("aws-access-key", r"(?:AKIA|ASIA)[0-9A-Z]{16}"),
    ("bearer-token", r"(?<=Bearer )[A-Za-z0-9\-._~+/]{8,}=*"),
)


@dataclass(frozen=True, slots=True)
class Redactor:
    """Replaces secrets in strings and JSON values."""

    patterns: tuple[tuple[str, re.Pattern[str]], ...]

    @classmethod
    def default(cls, extra: Iterable[str] = ()) -> Redactor:
        """The built-in patterns plus the user's (regular expressions)."""
        compiled = [(name, re.compile(pattern)) for name, pattern in DEFAULT_PATTERNS]
        for number, pattern in enumerate(extra, start=1):
            try:
                compiled.append((f"pattern-{number}", re.compile(pattern)))
            except re.error as exc:
                raise UsageError(f"--redact pattern {pattern!r} is not a valid regular expression: {exc}") from None
        return cls(tuple(compiled))

    @classmethod
    def disabled(cls) -> Redactor:
        return cls(())

    def text(self, value: str) -> str:
        for name, pattern in self.patterns:
            value = pattern.sub(_replacer(name), value)
        return value

    def value(self, value: JSONValue) -> JSONValue:
        """``value`` with every string (keys included) redacted."""
        if not self.patterns:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, dict):
            return {self.text(key): self.value(item) for key, item in value.items()}
        return value


def _replacer(kind: str) -> Callable[[re.Match[str]], str]:
    def placeholder(match: re.Match[str]) -> str:
        digest = hashlib.sha256(match.group(0).encode("utf-8")).hexdigest()[:8]
        return f"[REDACTED:{kind}:{digest}]"

    return placeholder
