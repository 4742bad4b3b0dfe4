from __future__ import annotations

import re

import pytest

from toolreplay.canonical import JSONValue
from toolreplay.errors import UsageError
from toolreplay.redact import Redactor

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
