"""No secret shape fires on ordinary text: megabytes of prose, code and logs, built at test time.

The corpus is made from what every machine that runs the tests has: the
standard library's source (the modules about URLs, HTTP, mail and keys first,
then the rest in order), the prose of ``pydoc``'s topics, this project's docs,
the licence texts of the installed packages, and log lines synthesised from a
fixed seed, full of the words and shapes the patterns look for ("basic",
"bearer", "password=", URLs, base64, hex digests, ``sk-`` inside words) but
holding no credential. Every document goes through the redactor as text and as
JSON, and must come out unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import sysconfig
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import ROOT
from toolreplay.redact import Redactor

# One worker builds the corpus (a fixture of the module, seconds to make) for all the tests that read it.
pytestmark = pytest.mark.xdist_group("redact-corpus")

STDLIB_FIRST = (
    "base64.py",
    "getpass.py",
    "hmac.py",
    "netrc.py",
    "secrets.py",
    "smtplib.py",
    "imaplib.py",
    "poplib.py",
    "ftplib.py",
    "ssl.py",
    "http/client.py",
    "http/cookiejar.py",
    "http/server.py",
    "urllib/parse.py",
    "urllib/request.py",
    "email/utils.py",
    "email/_header_value_parser.py",
    "logging/__init__.py",
    "logging/handlers.py",
)
STDLIB_BYTES = 2_500_000  # then the rest of the standard library, in order, up to this much source


SKIPPED = frozenset(("test", "tests", "site-packages", "idle_test"))


def _sources(root: Path) -> list[Path]:
    """Every ``*.py`` under ``root`` outside the skipped folders, in order: the files ``root.rglob("*.py")`` less
    those folders' gives, without walking into them (site-packages alone can hold most of the tree)."""
    found: list[Path] = []
    for folder, folders, files in os.walk(root):
        folders[:] = [name for name in folders if name not in SKIPPED]
        found.extend(Path(folder, name) for name in files if name.endswith(".py"))
    return sorted(found)


def _stdlib() -> list[str]:
    root = Path(sysconfig.get_paths()["stdlib"])
    first = [root / name for name in STDLIB_FIRST if (root / name).is_file()]
    rest = _sources(root)
    texts: list[str] = []
    size = 0
    for path in dict.fromkeys([*first, *rest]):
        if size >= STDLIB_BYTES:
            break
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        texts.append(text)
        size += len(text)
    return texts


def _pydoc_topics() -> list[str]:
    from pydoc_data.topics import topics  # noqa: PLC0415 - the prose of the language reference

    return [topics[name] for name in sorted(topics)]


def _licences() -> list[str]:
    site = Path(sysconfig.get_paths()["purelib"])
    names = ("LICENSE", "LICENCE", "COPYING", "NOTICE", "AUTHORS")
    found = sorted(
        path for path in site.glob("*.dist-info/**/*") if path.is_file() and path.name.upper().startswith(names)
    )
    return [path.read_text(encoding="utf-8", errors="replace") for path in found]


def _docs() -> list[str]:
    return [path.read_text(encoding="utf-8") for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]]


WORDS = (
    "basic knowledge of German, basic authentication is configured, the basic building block, basic concepts",
    "bearer of bad news, the bearer instrument, jwt-bearer grant, Bearer tokens are described in RFC 6750",
    "password reset requested, password=<redacted>, password: ${DB_PASSWORD}, the password field is required",
    "secret santa, secret_key_base is set, SecretAccessKey is read from the environment, top secret",
    "task-queue-worker-running-smoothly, risk-assessment-framework-document, desk-lamp-configuration-wizard",
    "private key handling, -----BEGIN PRIVATE KEY----- markers are matched, see the PEM section",
)


def _logs(lines: int = 30_000) -> list[str]:
    """Application and access logs from a fixed seed: ids, digests, base64, URLs and auth words, no credential."""
    chance = random.Random(20_240_601)
    hosts = ["api.example.com", "db.internal", "cache-01.prod", "10.0.3.17", "[2001:db8::1]"]
    users = ["alice", "bob", "carol", "deploy", "ci-runner"]
    paths = ["/api/v1/users", "/healthz", "/static/app.js", "/login", "/oauth/token", "/search?q=basic+auth"]
    out: list[str] = []
    for number in range(lines):
        when = f"2026-07-{1 + number % 28:02d}T{number % 24:02d}:{number % 60:02d}:{(number * 7) % 60:02d}Z"
        user, host, path = chance.choice(users), chance.choice(hosts), chance.choice(paths)
        digest = hashlib.sha256(f"{number}".encode()).hexdigest()
        blob = base64.b64encode(chance.randbytes(chance.randint(3, 30))).decode()
        kind = number % 12
        if kind == 0:
            line = f'{host} - {user} [{when}] "GET {path} HTTP/1.1" 200 {chance.randint(100, 99999)} "-" "curl/8.5.0"'
        elif kind == 1:
            line = f"{when} INFO auth: basic authentication succeeded for user {user} from {host}"
        elif kind == 2:
            line = f"{when} WARN auth: Bearer token expired for {user}; sent header Authorization: Bearer <redacted>"
        elif kind == 3:
            line = f"{when} DEBUG connecting to postgres://{user}@{host}:5432/app?sslmode=require"
        elif kind == 4:
            line = f"{when} INFO commit {digest[:40]} by {user}: fix basic {chance.choice(WORDS).split(',')[0]}"
        elif kind == 5:
            line = f"{when} DEBUG payload basic {base64.b64encode(b'hello world').decode()} checksum {digest}"
        elif kind == 6:
            line = f"{when} INFO request id {uuid.UUID(int=chance.getrandbits(128))} cache key {blob}"
        elif kind == 7:
            line = f"{when} ERROR login failed for {user}: password=*** (masked), retry in {number % 30}s"
        elif kind == 8:
            line = f"{when} INFO fetched https://{host}{path} in {chance.random():.3f}s"
        elif kind == 9:
            line = f"{when} DEBUG {chance.choice(WORDS)}"
        elif kind == 10:
            line = f"{when} INFO uploaded s3://bucket-{number % 9}/{user}/{digest[:16]}.tar.gz ({blob[:12]})"
        else:
            line = f"{when} TRACE headers={{'accept': 'application/json', 'x-request-id': '{digest[:32]}'}}"
        out.append(line)
    return ["\n".join(out[start : start + 500]) for start in range(0, len(out), 500)]


@pytest.fixture(scope="module")
def corpus() -> dict[str, list[str]]:
    return {
        "standard library": _stdlib(),
        "pydoc topics": _pydoc_topics(),
        "docs": _docs(),
        "licences": _licences(),
        "logs": _logs(),
    }


def test_the_corpus_is_megabytes_of_each_kind(corpus: dict[str, list[str]]) -> None:
    sizes = {kind: sum(map(len, texts)) for kind, texts in corpus.items()}
    assert sum(sizes.values()) > 4_000_000, sizes
    assert sizes["standard library"] > 2_000_000
    assert sizes["pydoc topics"] > 300_000
    assert sizes["logs"] > 2_000_000
    for kind in ("docs", "licences"):
        assert sizes[kind] > 20_000, sizes


def _changed(redactor: Redactor, texts: list[str]) -> list[str]:
    """What the redactor changed, shown around each change: text whole, and each document as a JSON string."""
    seen: list[str] = []
    for text in texts:
        redacted = redactor.text(text)
        if redacted != text:
            at = next((i for i, (x, y) in enumerate(zip(text, redacted, strict=False)) if x != y), len(text))
            seen.append(redacted[max(0, at - 60) : at + 40])
        document = json.dumps({"text": text}, ensure_ascii=False)
        if json.loads(redactor.json_text(document)) != {"text": text}:
            seen.append(f"(as JSON) {text[:80]}")
    return seen


def test_ordinary_text_gives_no_redaction_and_is_quick(corpus: dict[str, list[str]]) -> None:
    redactor = Redactor.default()
    started = time.perf_counter()
    changed = {kind: _changed(redactor, texts) for kind, texts in corpus.items()}
    elapsed = time.perf_counter() - started
    assert {kind: found[:5] for kind, found in changed.items() if found} == {}
    assert elapsed < 20  # about a second on two cores; a pattern gone quadratic shows here


def test_the_corpus_holds_what_the_shapes_look_for(corpus: dict[str, list[str]]) -> None:
    """The corpus is a test of each shape only if each shape's fixed text is in it, many times over."""
    text = "\n".join(text for texts in corpus.values() for text in texts)
    for needle in ("basic", "Basic", "bearer", "Bearer", "://", "password", "secret", "sk-", "PRIVATE KEY"):
        assert text.count(needle) >= 5, needle


def test_a_secret_planted_in_the_corpus_is_found(corpus: dict[str, list[str]]) -> None:
    """The same texts with real credentials in them: each one is caught, so the corpus test is not vacuous."""
    planted = [  # (shape, the text planted, the part that must not be left)
        ("basic-auth", "Authorization: Basic " + base64.b64encode(b"deploy:s3cr3t-Pa55").decode(), "ZGVwbG95"),
        ("bearer-token", "Authorization: Bearer 9f8e7d6cB5A4F3E2d1c0", "9f8e7d6cB5A4F3E2d1c0"),
        ("url-password", "postgres://deploy:Xk29-vQ7p@db.internal/app", "Xk29-vQ7p"),
        ("openai-key", "sk-proj-Q7w9E2r4T6y8U1i3O5p7A9s2D4f6", "Q7w9E2r4T6y8U1i3O5p7A9s2D4f6"),
    ]
    for (kind, secret, part), text in zip(planted, corpus["logs"], strict=False):
        middle = len(text) // 2
        redacted = Redactor.default().text(f"{text[:middle]} {secret} {text[middle:]}")
        assert redacted.count("[REDACTED:") == 1
        assert f"[REDACTED:{kind}:" in redacted
        assert part not in redacted


def test_a_value_passed_to_a_server_is_redacted_however_json_text_escapes_it() -> None:
    """A server that returns JSON as text escapes what it returns: a passed value is redacted as written, escaped
    once or twice, with ``/`` as ``\\/``, and ASCII-escaped."""
    import json  # noqa: PLC0415

    from toolreplay.redact import Redactor  # noqa: PLC0415

    secret = 'tok.en*(x)[y]"q\\z$^|?/é-77'
    redactor = Redactor.default().with_literals([secret], "server-env")
    inner = json.dumps({"token": secret})
    shapes = [secret, inner, json.dumps({"t": inner}), inner.replace("/", "\\/"), json.dumps(secret)]
    for shape in shapes:
        redacted = redactor.text(shape)
        assert "[REDACTED:server-env:" in redacted, shape
        assert json.loads(json.dumps(redacted)) == redacted
        for text in (redacted, *_decoded(redacted)):
            assert secret not in text, shape


def _decoded(text: str) -> list[str]:
    """What the text says once its JSON is read, as deep as it goes."""
    import json  # noqa: PLC0415

    found: list[str] = []
    value: object = text
    for _ in range(3):
        try:
            value = json.loads(value) if isinstance(value, str) else value
        except ValueError:
            break
        found.append(json.dumps(value, ensure_ascii=False))
        if isinstance(value, dict):
            value = next(iter(value.values()))
    return found
