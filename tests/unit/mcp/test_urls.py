"""Addresses of MCP servers over HTTP: what may be reached, listened on and logged, and what never shows."""

from __future__ import annotations

import pytest

from toolreplay.core.errors import UsageError
from toolreplay.mcp.http.urls import loopback_origin, parse_header, parse_listen, parse_upstream, shown_url


def test_a_logged_url_keeps_no_credential() -> None:
    url = parse_upstream("https://user:secret@example.com:8443/mcp?token=abc")
    assert shown_url(url) == "https://example.com:8443/mcp"
    assert shown_url(parse_upstream("http://[::1]:9/x")) == "http://[::1]:9/x"


@pytest.mark.parametrize("text", ["ftp://example.com/", "http:///nohost", "http://example.com:port/"])
def test_an_upstream_that_is_not_an_http_url_is_refused_without_showing_it(text: str) -> None:
    with pytest.raises(UsageError, match="--upstream") as raised:
        parse_upstream(text + "?secret=1")
    assert "secret" not in str(raised.value)


def test_only_the_loopback_is_a_loopback_origin() -> None:
    assert loopback_origin("http://localhost:3000")
    assert loopback_origin("http://[::1]")
    assert not loopback_origin("null")
    assert not loopback_origin("http://127.0.0.1.evil.example")


def test_listen_and_headers() -> None:
    assert parse_listen("127.0.0.1:0") == ("127.0.0.1", 0)
    assert parse_listen("[::1]:8931") == ("::1", 8931)
    with pytest.raises(UsageError, match="give HOST:PORT"):
        parse_listen("127.0.0.1:99999")
    assert parse_header("Authorization: Bearer ${TOKEN}", {"TOKEN": "t0k"}) == ("Authorization", "Bearer t0k")
    with pytest.raises(UsageError, match=r"\$\{TOKEN\} is not set") as raised:
        parse_header("Authorization: Bearer ${TOKEN}", {})
    with pytest.raises(UsageError, match="line break"):
        parse_header("X-A: ${V}", {"V": "a\r\nX-Injected: 1"})
    assert "t0k" not in str(raised.value)
