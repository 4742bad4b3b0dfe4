"""The real server at a Streamable HTTP URL, as the live client speaks to it."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING
from urllib.parse import SplitResult, urlunsplit

from toolreplay.core.canonical import JSONObject
from toolreplay.mcp.http import sse
from toolreplay.mcp.http.urls import shown_url
from toolreplay.mcp.wire import decode, encode

if TYPE_CHECKING:
    import http.client

_NOTIFY_TIMEOUT = 30.0  # seconds a notification's POST may take: nothing waits on its answer


class HttpChannel:
    """The real server at a Streamable HTTP URL: each message one POST, its answer a JSON body or an event stream;
    the session id and protocol version it gives are sent with every later request."""

    def __init__(self, url: SplitResult, headers: Mapping[str, str]) -> None:
        self.url = url
        self.headers = dict(headers)
        self.session: str | None = None
        self.version: str | None = None

    def alive(self) -> None:
        return None

    def close(self, kill: bool = False) -> None:
        if self.session is not None and not kill:
            import http.client  # noqa: PLC0415 - only a live server over HTTP needs it

            with contextlib.suppress(OSError, http.client.HTTPException):
                connection = self._connection(5.0)
                connection.request("DELETE", self._target(), headers=self._headers())
                connection.getresponse().read()
                connection.close()

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        import http.client  # noqa: PLC0415 - only a live server over HTTP needs it

        host, port = self.url.hostname or "", self.url.port
        if self.url.scheme == "https":
            return http.client.HTTPSConnection(host, port, timeout=timeout)
        return http.client.HTTPConnection(host, port, timeout=timeout)

    def _target(self) -> str:
        return urlunsplit(("", "", self.url.path or "/", self.url.query, ""))

    def _headers(self) -> dict[str, str]:
        headers = {**self.headers, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.session is not None:
            headers["Mcp-Session-Id"] = self.session
        if self.version is not None:
            headers["MCP-Protocol-Version"] = self.version
        return headers

    def _post(self, message: JSONObject, timeout: float) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        import http.client  # noqa: PLC0415 - only a live server over HTTP needs it

        connection = self._connection(max(timeout, 0.001))
        try:
            connection.request("POST", self._target(), encode(message), self._headers())
            answer = connection.getresponse()
        except TimeoutError:
            connection.close()
            raise TimeoutError("it did not answer in time") from None
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            raise OSError(f"{shown_url(self.url)}: {exc}") from None
        if answer.status >= 400:
            connection.close()
            raise OSError(f"{shown_url(self.url)} answered HTTP {answer.status} {answer.reason}")
        return connection, answer

    def send(self, message: JSONObject) -> None:
        connection, answer = self._post(message, _NOTIFY_TIMEOUT)
        with contextlib.closing(connection):
            answer.read()

    def exchange(self, request: JSONObject, deadline: float) -> Iterator[JSONObject]:
        import http.client  # noqa: PLC0415 - only a live server over HTTP needs it

        connection, answer = self._post(request, deadline - time.monotonic())
        with contextlib.closing(connection):
            self.session = answer.getheader("Mcp-Session-Id") or self.session
            kind = (answer.getheader("Content-Type") or "").split(";")[0].strip().lower()
            try:
                if kind == "text/event-stream":
                    for event in sse.events(_before(deadline, answer.readline)):
                        if event[-1] not in (b"\n", b"\r\n"):
                            break  # cut off before its blank line: an event never whole is never read
                        _, data = sse.fields(event)
                        message = decode(data) if data is not None else None
                        if isinstance(message, dict):
                            yield message
                    raise EOFError("its event stream ended before the answer")
                message = decode(answer.read())
            except TimeoutError:
                raise TimeoutError("it did not answer in time") from None
            except (OSError, http.client.HTTPException) as exc:
                raise EOFError(f"its answer was cut: {exc}") from None
            if isinstance(message, dict):
                yield message
            raise EOFError("it gave no answer to the request")


def _before(deadline: float, readline: Callable[[], bytes]) -> Callable[[], bytes]:
    """``readline``, refused once ``deadline`` has passed."""

    def read() -> bytes:
        if time.monotonic() > deadline:
            raise TimeoutError
        return readline()

    return read
