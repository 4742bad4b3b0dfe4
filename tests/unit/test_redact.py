from __future__ import annotations

import json
import re

import pytest

from toolreplay.core.canonical import JSONValue, json_utf8
from toolreplay.core.errors import UsageError
from toolreplay.redact import SHAPE_NAMES, Redactor

SECRETS = {
    "anthropic-key": "sk-ant-api03-" + "x1Y2z3" * 6,
    "openai-key": "sk-proj-" + "Ab9" * 10,
    "github-token": "ghp_" + "k" * 36,
    "aws-access-key": "AKIA" + "ABCDEFGH23456789",
    "private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY-----",
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_shape_is_redacted(kind: str) -> None:
    text = f"before {SECRETS[kind]} after"
    out = Redactor.default().text(text)
    assert SECRETS[kind] not in out
    assert re.fullmatch(rf"before \[REDACTED:{kind}:[0-9a-f]{{8}}\] after", out)


def test_bearer_keeps_the_scheme() -> None:
    out = Redactor.default().text("Authorization: Bearer eyJhbGciOi.payload.sig")
    assert out.startswith("Authorization: Bearer [REDACTED:bearer-token:")


def test_equal_secrets_get_equal_placeholders_and_different_ones_differ() -> None:
    redactor = Redactor.default()
    a, b = "ghp_" + "a" * 36, "ghp_" + "b" * 36
    assert redactor.text(a) == redactor.text(a)
    assert redactor.text(a) != redactor.text(b)


def test_values_keys_and_nesting() -> None:
    token = "ghp_" + "c" * 36
    value: JSONValue = {"headers": [{"auth": token}], token: 1, "n": 3, "ok": True}
    out = Redactor.default().value(value)
    assert token not in repr(out)
    assert isinstance(out, dict)
    assert out["n"] == 3
    assert out["ok"] is True


def test_user_patterns_and_their_errors() -> None:
    assert Redactor.default([r"hunter\d"]).text("pw hunter2") == "pw " + Redactor.default([r"hunter\d"]).text("hunter2")
    assert "hunter2" not in Redactor.default([r"hunter\d"]).text("pw hunter2")
    with pytest.raises(UsageError, match="not a valid regular expression"):
        Redactor.default(["("])


def test_ordinary_text_is_left_alone() -> None:
    text = "Freed 41.2 GB on build-04; sk-short; ghp_short; AKIA123"
    assert Redactor.default().text(text) == text
    assert Redactor.disabled().value({"k": "ghp_" + "d" * 36}) == {"k": "ghp_" + "d" * 36}


# One example of every built-in shape, and the part of it that must not be left.
EXAMPLES = {
    "private-key": (
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk\n-----END EC PRIVATE KEY-----",
        "MHcCAQEE",
    ),
    "anthropic-key": ("sk-ant-api03-" + "x1Y2z3" * 6, "x1Y2z3" * 6),
    "stripe-live-key": ("sk_live_" + "51Hx" * 6, "51Hx" * 6),
    "openai-key": ("sk-proj-" + "Ab9" * 10, "Ab9" * 10),
    "github-token": ("ghp_" + "k1" * 18, "k1" * 18),
    "aws-access-key": ("AKIAABCDEFGH23456789", "ABCDEFGH23456789"),
    "aws-secret-key": ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    "google-api-key": ("AIzaSyD-" + "a1B2c3D4e5" * 3 + "x", "a1B2c3D4e5" * 3),
    "slack-token": ("xoxb-2048-1234567890-" + "s3cr3tS" * 3, "s3cr3tS" * 3),
    "jwt": ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.Xsig5ignatureZ9", "Xsig5ignatureZ9"),
    "bearer-token": ("Authorization: Bearer tok3nValue99", "tok3nValue99"),
    "basic-auth": ("Authorization: Basic YWxpY2U6c2VjcmV0cGFzcw==", "YWxpY2U6c2VjcmV0cGFzcw"),
    "url-password": ("postgres://alice:p4ssw0rd-xyz@db.internal/app", "p4ssw0rd-xyz"),
}


def test_every_shape_has_an_example_and_a_name() -> None:
    assert sorted(EXAMPLES) == sorted(SHAPE_NAMES)


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_each_shape_turns_off_by_name_and_only_it(kind: str) -> None:
    text = " | ".join(secret for secret, _ in EXAMPLES.values())
    everything = Redactor.default().text(text)
    assert all(part not in everything for _, part in EXAMPLES.values())
    without = Redactor.default(off=[kind]).text(text)
    assert EXAMPLES[kind][1] in without
    assert f"[REDACTED:{kind}:" not in without
    assert all(part not in without for other, (_, part) in EXAMPLES.items() if other != kind)


def test_an_unknown_shape_is_refused_with_the_names() -> None:
    with pytest.raises(UsageError, match=r"basic-auth, url-password$") as refused:
        Redactor.default(off=["basic"])
    assert "no such secret shape" in str(refused.value)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    "text",
    [
        "Has basic knowledge of German",
        "Basic understanding of the standard library; basic concepts first",
        "The basic building block, basic functionality, basic authentication",
        "basic payload aGVsbG8gd29ybGQ=",  # base64, but of text with no colon
        "Basic 12345678",  # base64 of bytes that are not text
        "the bearer instrument. A bearer of bad news. Bearer YOUR_TOKEN, Bearer accesstoken",
        "the jwt-bearer grantType exchange",
        "'asterisk-linking-protocols-exception', task-queue-worker-running-smoothly",
        '_SK_START = b"-----BEGIN OPENSSH PRIVATE KEY-----"\n_SK_END = b"-----END OPENSSH PRIVATE KEY-----"',
        "A -----BEGIN RSA PRIVATE KEY----- block is redacted whole",
        "scheme://user:password@host, http://username:<password>@proxy, https://me:${DB_PASSWORD}@db",
        "'%s://%s:%s@%s' % parts, ftp://anonymous:****@ftp.example.org, scheme://[user:passwd@]proxy.server",
        "AKIAIOSFODNN7EXAMPLEXTRA is too long to be an access key id",
    ],
)
def test_prose_and_code_that_only_look_like_secrets_are_left_alone(text: str) -> None:
    assert Redactor.default().text(text) == text


@pytest.mark.parametrize(
    ("text", "kind", "kept"),
    [
        ("Authorization: Basic dXNlcjpwYXNz", "basic-auth", "Authorization: Basic "),
        ("curl -H 'authorization: basic dXNlcjpwYXNz'", "basic-auth", "authorization: basic "),
        ('{"Authorization": "Basic ' + "YWxpY2U6c2VjcmV0cGFzcw==" + '"}', "basic-auth", '"Basic '),
        ("Authorization: Bearer eyJhbGciOi.payload.sig", "bearer-token", "Bearer "),
        ("BEARER 9f8e7d6c5b4a3f2e1d0c.", "bearer-token", "BEARER "),
        ("mysql://root:hunter2@10.0.0.5:3306/db", "url-password", "mysql://root:"),
        ("redis://:s3cr3t$with$dollars@cache:6379", "url-password", "redis://:"),
    ],
)
def test_real_credentials_are_still_found(text: str, kind: str, kept: str) -> None:
    out = Redactor.default().text(text)
    assert f"[REDACTED:{kind}:" in out
    assert kept in out


def test_private_keys_whole_on_one_line_with_headers_and_cut_off() -> None:
    body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
    one_line = f"KEY='-----BEGIN RSA PRIVATE KEY----- {body} {body[::-1]} -----END RSA PRIVATE KEY-----' next"
    assert re.fullmatch(r"KEY='\[REDACTED:private-key:[0-9a-f]{8}\]' next", Redactor.default().text(one_line))
    armoured = (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBGXy" + body + "\n=a1B2\n"
        "-----END PGP PRIVATE KEY BLOCK-----\nafter"
    )
    assert re.fullmatch(r"\[REDACTED:private-key:[0-9a-f]{8}\]\nafter", Redactor.default().text(armoured))
    cut = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n{body}\nThe key above was pasted by mistake."
    out = Redactor.default().text(cut)
    assert body not in out
    assert out.endswith("]\nThe key above was pasted by mistake.")
    encoded_twice = json.dumps(json.dumps({"key": f"-----BEGIN EC PRIVATE KEY-----\n{body}\n"}))
    assert body not in Redactor.default().text(json.loads(encoded_twice))


def test_a_token_after_an_escape_in_json_text_is_a_token() -> None:
    """Text that is JSON encoded again: ``\\n`` ends in a letter, but it is a line end, not part of a word."""
    token = "ghp_" + "k1" * 18
    for text in (f"line\\n{token}", f"tab\\t{token}", f"e\\u00e9{token}"):
        assert token not in Redactor.default().text(text)
    assert Redactor.default().text(f"x{token}") == f"x{token}"  # glued to a word: not a token


def test_a_lone_surrogate_beside_a_secret() -> None:
    """A lone surrogate escape is valid JSON: redaction keeps it, and its output is still JSON UTF-8 can carry."""
    token = "ghp_" + "k1" * 18
    text = json.dumps({"message": "cut \ud800 emoji " + token, "url": "https://bob:p\udc00ss@host/"})
    assert "\\ud800" in text
    redacted = Redactor.default().json_text(text)
    value = json.loads(json_utf8(redacted).decode("utf-8"))
    assert value["message"].startswith("cut \ud800 emoji [REDACTED:github-token:")
    assert value["url"].startswith("https://bob:[REDACTED:url-password:")
    assert token not in redacted
