"""Keeping secrets out of every file a recorder writes.

Each recorder passes what it is about to write through a :class:`Redactor`,
which replaces common credential shapes (and patterns the user adds) with a
placeholder derived from the secret's SHA-256: ``[REDACTED:github-token:1a2b3c4d]``.
Equal secrets get equal placeholders, so a call that sent the same token twice
still matches itself when replayed.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from toolreplay.canonical import JSONValue
from toolreplay.errors import UsageError

# (name, pattern). Where a pattern has a group named ``secret``, only that part is replaced, so the
# scheme of a header, the name of a setting or the user in a URL stays readable. Separators also match
# their JSON escapes (``\t``, ``\"``), since a string may hold JSON text that was encoded again (a tool
# result serialized to a string), where the raw characters never appear.
_SPACE = r"(?:\s|\\[tnr])"
_QUOTE = r"(?:\\?[\"'])"
DEFAULT_PATTERNS: tuple[tuple[str, str], ...] = (
    # PEM and PGP private key blocks, and a block cut off before its END line.
    (
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    ("anthropic-key", r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    ("stripe-live-key", r"(?:sk|rk)_live_[0-9A-Za-z]{20,}"),
    ("openai-key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("github-token", r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("aws-access-key", r"(?:AKIA|ASIA)[0-9A-Z]{16}"),
    (
        "aws-secret-key",
        rf"(?i:aws_?secret_?access_?key|secretaccesskey){_QUOTE}?{_SPACE}*[:=]{_SPACE}*{_QUOTE}?"
        r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
    ),
    ("google-api-key", r"AIza[0-9A-Za-z_\-]{35}"),
    ("slack-token", r"xox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("jwt", r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}"),
    ("bearer-token", rf"(?i:bearer){_SPACE}+(?P<secret>[A-Za-z0-9\-._~+/]{{8,}}=*)"),
    ("basic-auth", rf"(?i:basic){_SPACE}+(?P<secret>[A-Za-z0-9+/]{{8,}}={{0,2}})(?![A-Za-z0-9+/=])"),
    ("url-password", r"[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@\"']{1,256}:(?P<secret>[^/\s@\"']{1,256})@"),
)

# The built-in patterns, as one alternation scanned once per string; each ``secret`` group gets its own name.
_DEFAULTS = re.compile(
    "|".join(
        f"(?P<k{i}>{pattern.replace('(?P<secret>', f'(?P<s{i}>')})" for i, (_, pattern) in enumerate(DEFAULT_PATTERNS)
    )
)

# Every built-in pattern contains one of these (in any case where the pattern ignores case). Looking for
# them is a fast substring search, so text without any (nearly all of it) skips the regex.
_TRIGGERS = (
    "PRIVATE KEY",
    "sk-",
    "_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "AKIA",
    "ASIA",
    "ecret",
    "ECRET",
    "AIza",
    "xox",
    "eyJ",
    "earer",
    "EARER",
    "asic",
    "ASIC",
    "://",
)


def _may_hold_secret(text: str) -> bool:
    return any(trigger in text for trigger in _TRIGGERS)


def _placeholder(kind: str, secret: str) -> str:
    return f"[REDACTED:{kind}:{hashlib.sha256(secret.encode('utf-8')).hexdigest()[:8]}]"


def _matched(match: re.Match[str]) -> tuple[int, str | None]:
    """Which built-in pattern matched, and the name of its secret part if it has one."""
    for number in range(len(DEFAULT_PATTERNS)):
        if match.group(f"k{number}") is not None:
            secret = f"s{number}"
            return number, secret if secret in match.re.groupindex and match.group(secret) is not None else None
    return 0, None


def _replace(match: re.Match[str], decode: Callable[[str], str]) -> str:
    """The match with its secret (the whole match, or its ``secret`` part) replaced by the placeholder."""
    number, secret = _matched(match)
    kind = DEFAULT_PATTERNS[number][0]
    if secret is None:
        return _placeholder(kind, decode(match.group(0)))
    start, end = match.span(secret)
    whole = match.group(0)
    offset = match.start()
    return whole[: start - offset] + _placeholder(kind, decode(match.group(secret))) + whole[end - offset :]


def _default_replacement(match: re.Match[str]) -> str:
    return _replace(match, str)


def _json_unescaped(text: str) -> str:
    """A match taken from JSON text, as the string it stands for (so placeholders agree with decoded text)."""
    try:
        value = json.loads(f'"{text}"')
    except ValueError:
        return text
    return value if isinstance(value, str) else text


def _default_replacement_in_json(match: re.Match[str]) -> str:
    return _replace(match, _json_unescaped)


@dataclass(frozen=True, slots=True)
class Redactor:
    """Replaces secrets in strings and JSON values."""

    defaults: bool
    extra: tuple[re.Pattern[str], ...] = ()

    @classmethod
    def default(cls, extra: Iterable[str] = ()) -> Redactor:
        """The built-in patterns plus the user's (regular expressions)."""
        compiled: list[re.Pattern[str]] = []
        for pattern in extra:
            try:
                compiled.append(re.compile(pattern))
            except re.error as exc:
                raise UsageError(f"--redact pattern {pattern!r} is not a valid regular expression: {exc}") from None
        return cls(True, tuple(compiled))

    @classmethod
    def disabled(cls) -> Redactor:
        return cls(False)

    @property
    def active(self) -> bool:
        return self.defaults or bool(self.extra)

    def text(self, value: str) -> str:
        if self.defaults and _may_hold_secret(value):
            value = _DEFAULTS.sub(_default_replacement, value)
        for number, pattern in enumerate(self.extra, start=1):
            value = pattern.sub(_replacer(f"pattern-{number}"), value)
        return value

    def value(self, value: JSONValue) -> JSONValue:
        """``value`` with every string (keys included) redacted."""
        if not self.active:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, dict):
            return {self.text(key): self.value(item) for key, item in value.items()}
        return value

    def json_text(self, text: str) -> str:
        """A JSON document's text with its secrets redacted, still valid JSON.

        The built-in patterns run once over the whole text, which is far cheaper
        than visiting every string; their characters need no JSON escaping, so
        they match the same secrets either way, and placeholders are computed
        from the unescaped secret. If a replacement would break the JSON, the
        text holds escapes (which could spell a secret, or stand between one and
        its marker), or the user added patterns, every decoded string is visited
        instead (the output is then re-encoded with sorted keys).
        """
        if not self.active:
            return text
        # An escape (\u0061, \/) can spell a secret that the raw text does not show, and one can stand
        # between a secret and its marker (Bearer\t...): text with escapes is decoded first.
        only_defaults = self.defaults and not self.extra
        if only_defaults and "\\u" not in text and not _may_hold_secret(text):
            return text
        if only_defaults and "\\" not in text:
            redacted = _DEFAULTS.sub(_default_replacement_in_json, text)
            if redacted == text:
                return text
            try:
                json.loads(redacted)
            except ValueError:
                pass
            else:
                return redacted
        return json.dumps(self.value(json.loads(text)), sort_keys=True, ensure_ascii=False)


def _replacer(kind: str) -> Callable[[re.Match[str]], str]:
    def placeholder(match: re.Match[str]) -> str:
        return _placeholder(kind, match.group(0))

    return placeholder
