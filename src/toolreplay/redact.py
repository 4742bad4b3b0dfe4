"""Keeping secrets out of every file a recorder writes.

Each recorder passes what it is about to write through a :class:`Redactor`,
which replaces common credential shapes (and patterns the user adds) with a
placeholder derived from the secret's SHA-256: ``[REDACTED:github-token:1a2b3c4d]``.
Equal secrets get equal placeholders, so a call that sent the same token twice
still matches itself when replayed.

Each shape is precise enough to leave ordinary prose, code and logs alone (the
tests hold every shape to megabytes of them): a word after "basic" or "bearer"
is not a credential, a PEM marker with no key after it is not a key, and
``user:password@`` is not a password. Each can be turned off by its name.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import field, replace

from toolreplay.core.canonical import JSONValue
from toolreplay.core.errors import UsageError
from toolreplay.core.records import record

# Separators also match their JSON escapes (``\t``, ``\"``, ``\n``), since a string may hold JSON text that was
# encoded again (a tool result serialized to a string), where the raw characters never appear.
_SPACE = r"(?:\s|\\[tnr])"
_QUOTE = r"(?:\\?[\"'])"
_NEWLINE = r"(?:\r?\n|(?:\\+r)?\\+n)"  # a line end, or its escape in JSON text encoded once or more

_PEM_BEGIN = r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
# A line of a PEM or PGP block after its marker, with the blank lines before it: a header (Proc-Type: ...,
# Version: ...) or base64; or base64 after spaces, where the line ends were turned into spaces (an environment
# variable). Each line holds something, so there is one way to read a run of spaces and line ends.
_PEM_BREAK = rf"(?:[ \t]*{_NEWLINE})+[ \t]*"
_PEM_LINE = rf"(?:{_PEM_BREAK}(?:[A-Za-z][A-Za-z0-9\-]*:[^\r\n\\]*|[A-Za-z0-9+/=]+)|[ \t]+[A-Za-z0-9+/=]+)"
# Base64 of the right length and padding.
_BASE64 = r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})"


def _looks_random(secret: str) -> bool:
    """A token, not a word: it holds a digit, or capitals and small letters mixed past its first letter. (A random
    token of 20 characters lacks both about once in 30,000 draws; a word, a name or ``YOUR_TOKEN`` has neither.)"""
    if any(char.isdigit() for char in secret):
        return True
    rest = secret[1:]
    return any(char.isupper() for char in rest) and any(char.islower() for char in secret)


def _is_basic_credentials(secret: str) -> bool:
    """Base64 that decodes to ``user:password``: UTF-8 text, printable, with a colon."""
    import base64  # noqa: PLC0415 - loaded by what redacts, not by every command's options
    import binascii  # noqa: PLC0415

    try:
        decoded = base64.b64decode(secret, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return ":" in decoded and decoded.isprintable()


# What a URL's password is in documentation and code, never on the wire: a name in angle brackets or braces, a
# shell or format placeholder, a mask, or the word itself.
_PLACEHOLDER = re.compile(
    r"<[^<>]*>|\{[^{}]*\}|\$\{[^{}]*\}|\$\([^()]*\)|\$[A-Za-z_][A-Za-z0-9_]*|%(?:\([^()]*\))?[sdr]|[*xX.]+"
    r"|(?i:password|passwd|pass|pwd|pw|secret)"
)


def _is_password(secret: str) -> bool:
    return _PLACEHOLDER.fullmatch(secret) is None


_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_WORD = _ALNUM | {"_", "-"}
# The end of an escape (\n, \t, \u00e9) in JSON text encoded again: a separator, though its last character is not.
_ESCAPE_END = re.compile(r"\\(?:[nrtbf]|u[0-9a-fA-F]{4})\Z")


@record
class Shape:
    """A credential shape: its name; its pattern, which starts with its fixed text; the substrings one of which
    every match holds; what the match (or its ``secret`` group) must also be, when a pattern cannot say it; and the
    characters that may not come right before it (a token is not the tail of a longer word)."""

    name: str
    pattern: str
    triggers: tuple[str, ...]
    check: Callable[[str], bool] | None = None
    not_after: frozenset[str] = frozenset()

    def starts_alone(self, text: str, start: int) -> bool:
        if start == 0 or text[start - 1] not in self.not_after:
            return True
        return _ESCAPE_END.search(text, max(0, start - 6), start) is not None


# Where a pattern has a group named ``secret``, only that part is replaced, so the scheme of a header, the name of
# a setting or the user in a URL stays readable.
SHAPES: tuple[Shape, ...] = (
    # A PEM or PGP private key block, whole; or one cut off before its END line, ending in 16 or more base64.
    Shape(
        "private-key",
        rf"{_PEM_BEGIN}(?:(?:{_PEM_LINE})*?(?:{_PEM_BREAK}|[ \t]+){_PEM_END}"
        rf"|(?:{_PEM_LINE})+(?<=[A-Za-z0-9+/=]{{16}})(?![A-Za-z0-9+/=]))",
        ("PRIVATE KEY",),
    ),
    Shape("anthropic-key", r"sk-ant-[A-Za-z0-9_\-]{20,}", ("sk-ant-",), not_after=_ALNUM),
    Shape("stripe-live-key", r"(?:sk|rk)_live_[0-9A-Za-z]{20,}", ("_live_",), not_after=_ALNUM),
    # sk- and a long run that looks random ("asterisk-linking-protocols-exception" is a licence's name).
    Shape(
        "openai-key",
        r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
        ("sk-",),
        _looks_random,
        _ALNUM,
    ),
    Shape(
        "github-token",
        r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        not_after=_ALNUM,
    ),
    Shape("aws-access-key", r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])", ("AKIA", "ASIA"), not_after=_ALNUM),
    Shape(
        "aws-secret-key",
        rf"(?i:aws_?secret_?access_?key|secretaccesskey){_QUOTE}?{_SPACE}*[:=]{_SPACE}*{_QUOTE}?"
        r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        ("ecret", "ECRET"),
    ),
    Shape("google-api-key", r"AIza[0-9A-Za-z_\-]{35}", ("AIza",), not_after=_ALNUM),
    Shape("slack-token", r"xox[abposr]-[A-Za-z0-9\-]{10,}", ("xox",), not_after=_ALNUM),
    Shape(
        "jwt",
        r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}",
        ("eyJ",),
        not_after=_WORD,
    ),
    # RFC 6750's token characters, at least 8, not ending in a full stop (the end of a sentence), that look random;
    # "jwt-bearer grant" is not a scheme.
    Shape(
        "bearer-token",
        rf"(?i:bearer){_SPACE}+(?P<secret>(?=[A-Za-z0-9\-._~+/]{{8}})[A-Za-z0-9\-._~+/]*[A-Za-z0-9\-_~+/]=*)",
        ("earer", "EARER"),
        _looks_random,
        _WORD,
    ),
    # RFC 7617: base64 of the right length and padding that decodes to user:password.
    Shape(
        "basic-auth",
        rf"(?i:basic){_SPACE}+(?P<secret>(?=[A-Za-z0-9+/=]{{8}}){_BASE64})(?![A-Za-z0-9+/=_\-])",
        ("asic", "ASIC"),
        _is_basic_credentials,
        _WORD,
    ),
    # scheme://user:password@host (or redis://:password@host), the user in RFC 3986's characters, the password
    # not a placeholder.
    Shape(
        "url-password",
        r"://(?<=[A-Za-z0-9+.\-]://)[A-Za-z0-9._~%!$&()*+,;=\-]{0,256}:"
        r"(?P<secret>[^/\s:@\"'\\]{1,256})@(?=[^\s/@\"'\\<>])",
        ("://",),
        _is_password,
    ),
)
SHAPE_NAMES = tuple(shape.name for shape in SHAPES)


class _Scanner:
    """The enabled shapes, each searched for on its own from its fixed text (one alternation of them all is
    several times slower), the earliest match taken first, as one alternation in the shapes' order would."""

    def __init__(self, numbers: tuple[int, ...]) -> None:
        self.shapes = tuple((SHAPES[n], re.compile(SHAPES[n].pattern)) for n in numbers)

    @property
    def active(self) -> bool:
        return bool(self.shapes)

    def triggered(self, text: str) -> list[tuple[Shape, re.Pattern[str]]]:
        """The shapes whose fixed text ``text`` holds: a fast substring search, so text without any (nearly all of
        it) skips the regular expressions."""
        return [(shape, regex) for shape, regex in self.shapes if any(t in text for t in shape.triggers)]

    def redact(
        self, text: str, decode: Callable[[str], str], searched: list[tuple[Shape, re.Pattern[str]]] | None = None
    ) -> str:
        """``text`` with every secret replaced; ``decode`` turns a match into the string it stands for;
        ``searched``: the shapes :meth:`triggered` found, if known."""
        searched = self.triggered(text) if searched is None else searched
        if not searched:
            return text
        found = [_next(shape, regex, text, 0, decode) for shape, regex in searched]
        pieces: list[str] = []
        done = 0  # text before this is in pieces
        while True:
            ahead = [(hit, number) for number, hit in enumerate(found) if hit is not None]
            if not ahead:
                break
            (start, end, replaced), _ = min(ahead, key=lambda item: (item[0][0], item[1]))  # earliest, then first
            pieces += [text[done:start], replaced]
            done = end
            for other, candidate in enumerate(found):  # a match that starts inside this one is not one
                if candidate is not None and candidate[0] < end:
                    shape, regex = searched[other]
                    found[other] = _next(shape, regex, text, end, decode)
        if not pieces:
            return text
        pieces.append(text[done:])
        return "".join(pieces)


def _next(
    shape: Shape, regex: re.Pattern[str], text: str, at: int, decode: Callable[[str], str]
) -> tuple[int, int, str] | None:
    """The next secret of ``shape`` from ``at``: its start, its end and what replaces it."""
    while (match := regex.search(text, at)) is not None:
        at = match.start() + 1
        if not shape.starts_alone(text, match.start()):
            continue
        group = "secret" if "secret" in regex.groupindex else 0
        secret = decode(match.group(group))
        if shape.check is not None and not shape.check(secret):
            continue
        start, end = match.span(group)
        whole, offset = match.group(0), match.start()
        replaced = whole[: start - offset] + _placeholder(shape.name, secret) + whole[end - offset :]
        return match.start(), match.end(), replaced
    return None


@functools.lru_cache(maxsize=64)
def _scanner_without(off: frozenset[str]) -> _Scanner:
    return _Scanner(tuple(number for number, shape in enumerate(SHAPES) if shape.name not in off))


def unknown_shapes(names: Iterable[str]) -> list[str]:
    """The names that are not a built-in shape's."""
    return [name for name in names if name not in SHAPE_NAMES]


def _placeholder(kind: str, secret: str) -> str:
    from hashlib import sha256  # noqa: PLC0415 - as above

    # A lone surrogate (JSON allows its escape) hashes as its code unit, never an encoding error.
    return f"[REDACTED:{kind}:{sha256(secret.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}]"


def _json_unescaped(text: str) -> str:
    """A match taken from JSON text, as the string it stands for (so placeholders agree with decoded text)."""
    try:
        value = json.loads(f'"{text}"')
    except ValueError:
        return text
    return value if isinstance(value, str) else text


@record
class Redactor:
    """Replaces secrets in strings and JSON values: the built-in shapes but those turned ``off``, and ``extra``."""

    defaults: bool
    extra: tuple[re.Pattern[str], ...] = ()
    off: frozenset[str] = frozenset()
    kinds: tuple[str, ...] = ()  # what each of ``extra`` is called in its marker (default: pattern-N)
    _scanner: _Scanner = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_scanner", _scanner_without(self.off if self.defaults else frozenset(SHAPE_NAMES)))

    @classmethod
    def default(cls, extra: Iterable[str] = (), off: Iterable[str] = ()) -> Redactor:
        """The built-in shapes, but those named in ``off``, plus the user's patterns (regular expressions)."""
        off = tuple(off)
        unknown = unknown_shapes(off)
        if unknown:
            raise UsageError(f"--no-redact {unknown[0]}: no such secret shape; the shapes are {', '.join(SHAPE_NAMES)}")
        compiled: list[re.Pattern[str]] = []
        for pattern in extra:
            try:
                compiled.append(re.compile(pattern))
            except re.error as exc:
                raise UsageError(f"--redact pattern {pattern!r} is not a valid regular expression: {exc}") from None
        return cls(True, tuple(compiled), frozenset(off))

    @classmethod
    def disabled(cls) -> Redactor:
        return cls(False)

    def with_literals(self, values: Iterable[str], kind: str) -> Redactor:
        """This redactor, also replacing each of ``values`` where it appears, as written or escaped as JSON text
        escapes it (a server that returns JSON as text, nested once or twice, ``/`` as ``\\/``), marked as
        ``kind``; the longest form first."""
        named = [*self.kinds, *(f"pattern-{n}" for n in range(len(self.kinds) + 1, len(self.extra) + 1))]
        forms = sorted({form for value in values for form in _written_forms(value)}, key=len, reverse=True)
        literals = tuple(re.compile(re.escape(form)) for form in forms)
        return replace(self, extra=(*self.extra, *literals), kinds=(*named, *(kind for _ in literals)))

    @property
    def active(self) -> bool:
        return self._scanner.active or bool(self.extra)

    def text(self, value: str) -> str:
        value = self._scanner.redact(value, str)
        for number, pattern in enumerate(self.extra, start=1):
            kind = self.kinds[number - 1] if number <= len(self.kinds) else f"pattern-{number}"
            value = pattern.sub(_replacer(kind), value)
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
        instead (the output is then re-encoded with sorted keys; a lone
        surrogate stays a character, which the writer escapes again).
        """
        if not self.active:
            return text
        # An escape (\u0061, \/) can spell a secret that the raw text does not show, and one can stand
        # between a secret and its marker (Bearer\t...): text with escapes is decoded first.
        searched = self._scanner.triggered(text)
        if not self.extra and "\\u" not in text and not searched:
            return text
        if not self.extra and "\\" not in text:
            redacted = self._scanner.redact(text, _json_unescaped, searched)
            if redacted == text:
                return text
            try:
                json.loads(redacted)
            except ValueError:
                pass
            else:
                return redacted
        return json.dumps(self.value(json.loads(text)), sort_keys=True, ensure_ascii=False)


def _written_forms(value: str) -> set[str]:
    """``value`` as written, and as a JSON string's text holds it: escaped once and twice, with ``/`` as ``\\/``
    or not, ASCII-escaped or not."""
    forms = {value}
    for _ in range(2):
        escaped = set()
        for form in forms:
            for ascii_only in (False, True):
                text = json.dumps(form, ensure_ascii=ascii_only)[1:-1]
                escaped |= {text, text.replace("/", "\\/")}
        forms |= escaped
    return {form for form in forms if form}


def _replacer(kind: str) -> Callable[[re.Match[str]], str]:
    def placeholder(match: re.Match[str]) -> str:
        return _placeholder(kind, match.group(0))

    return placeholder
