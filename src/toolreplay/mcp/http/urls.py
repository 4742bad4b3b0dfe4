"""URLs of MCP servers over HTTP: the upstream a proxy or a live fallback talks to, where to listen, which
``Origin`` may call a loopback server, and a URL as a log may keep it (without what carries credentials)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import SplitResult, urlsplit, urlunsplit

from toolreplay.core.errors import UsageError

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


def loopback_origin(origin: str) -> bool:
    """Whether an ``Origin`` header names the loopback (``null`` and anything unparsable do not)."""
    try:
        host = urlsplit(origin).hostname
    except ValueError:
        return False
    return host is not None and host.lower() in LOOPBACK


def shown_url(url: SplitResult) -> str:
    """The upstream URL as the log keeps it: without user information and query, where credentials go."""
    host = url.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if url.port is not None:
        netloc += f":{url.port}"
    return urlunsplit((url.scheme, netloc, url.path, "", ""))


def parse_upstream(text: str) -> SplitResult:
    """An upstream URL: http or https, with a host."""
    try:
        url = urlsplit(text)
        url.port  # noqa: B018 - a port that is not a number raises here
    except ValueError as exc:  # the URL is not shown: its query or user information may be a credential
        raise UsageError(f"--upstream: not a URL toolreplay can use ({exc})") from None
    if url.scheme not in ("http", "https") or not url.hostname:
        raise UsageError(f"--upstream {shown_url(url)}: give an http:// or https:// URL with a host")
    return url


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` to listen on (port 0: any free one)."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise UsageError(f"--listen {text}: give HOST:PORT, as in 127.0.0.1:8931 (port 0 picks a free one)")
    return host, int(port)


_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def parse_header(text: str, environ: Mapping[str, str]) -> tuple[str, str]:
    """``NAME: VALUE`` as a header to send, each ``${VAR}`` in VALUE read from ``environ`` (a token kept off the
    command line). The error never shows the value, which may hold a credential."""
    name, colon, value = text.partition(":")
    name = name.strip()
    if not colon or not _TOKEN.fullmatch(name):
        raise UsageError("--upstream-header: give 'NAME: VALUE', as in 'Authorization: Bearer ${TOKEN}'")

    def variable(match: re.Match[str]) -> str:
        if match.group(1) not in environ:
            raise UsageError(f"--upstream-header {name}: ${{{match.group(1)}}} is not set in the environment")
        return environ[match.group(1)]

    value = _VARIABLE.sub(variable, value.strip())
    if any(character in value for character in "\r\n\0"):
        raise UsageError(f"--upstream-header {name}: a value cannot hold a line break or a NUL")
    return name, value
