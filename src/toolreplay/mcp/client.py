"""The real server behind a recording, for ``serve --on-unrecorded live``.

A request the recording cannot answer goes to the real server, started on the
first such request and spoken to as an MCP client (the ``initialize``
handshake, then one request at a time). Its answer goes back to the client and,
as record modes go (``--record``), into the log: ``new`` appends each new
exchange to the run being served, so the next replay answers it from the
recording; ``all`` forwards every request and records them all as a new run;
``none`` records nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING
from urllib.parse import SplitResult

from toolreplay import __version__
from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import UsageError
from toolreplay.core.records import record
from toolreplay.formats.mcp_log.log import LogWriter
from toolreplay.mcp.http.client import HttpChannel
from toolreplay.mcp.stdio.client import StdioChannel
from toolreplay.mcp.wire import METHOD_NOT_FOUND, error

if TYPE_CHECKING:
    pass

LIVE_VERSION = "2025-11-25"  # the handshake toolreplay speaks to the real server
LIVE_FAILED = -32003  # JSON-RPC error code when the real server could not answer
LIVE_TIMEOUT = 30.0  # seconds the real server has to answer one request


@record
class LiveAnswer:
    """The real server's response, and its notifications that came before it."""

    response: JSONObject
    notifications: tuple[JSONObject, ...]


class LiveServer:
    """One connection to the real server (a command over stdio, or a URL over Streamable HTTP), opened on first use."""

    def __init__(
        self,
        command: Sequence[str] = (),
        log: LogWriter | None = None,
        timeout: float = LIVE_TIMEOUT,
        url: SplitResult | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if not command and url is None:
            raise UsageError("--on-unrecorded live needs the real server's command after --, or --upstream URL")
        self.command = list(command)
        self.url = url
        self.headers = dict(headers or {})
        self.log = log
        self.timeout = timeout
        self.channel: StdioChannel | HttpChannel | None = None
        self.handshake: JSONObject | None = None
        self.next_id = 0
        self.forwarded = 0

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
        if self.log is not None:
            self.log.close()

    def ask(self, method: str, params: JSONObject) -> LiveAnswer:
        """Send one request to the real server and wait for its response; a server that fails is an error."""
        try:
            channel = self._connect()
            return self._request(channel, method, _forwarded(params), record=True)
        except (OSError, ValueError, EOFError) as exc:
            if isinstance(exc, TimeoutError):
                self._stop()  # a server that stopped answering is not asked again: the next request starts a new one
                exc = TimeoutError(f"it did not answer within {self.timeout:g} s")
            error: JSONObject = {"code": LIVE_FAILED, "message": f"toolreplay: the live server failed: {exc}"}
            return LiveAnswer({"jsonrpc": "2.0", "id": None, "error": error}, ())

    def _stop(self) -> None:
        if self.channel is not None:
            self.channel.close(kill=True)
            self.channel = None

    def _connect(self) -> StdioChannel | HttpChannel:
        if self.channel is not None:
            self.channel.alive()
            return self.channel
        channel: StdioChannel | HttpChannel = (
            HttpChannel(self.url, self.headers) if self.url is not None else StdioChannel(self.command)
        )
        self.channel = channel
        client_info: JSONObject = {"name": "toolreplay", "version": __version__}
        params: JSONObject = {"protocolVersion": LIVE_VERSION, "capabilities": {}, "clientInfo": client_info}
        answer = self._request(channel, "initialize", params, record=False)
        result = answer.response.get("result")
        if not isinstance(result, dict):
            self._stop()
            raise ValueError(f"it refused the handshake: {json.dumps(answer.response.get('error'))[:200]}")
        self.handshake = result
        if isinstance(channel, HttpChannel) and isinstance(result.get("protocolVersion"), str):
            channel.version = str(result["protocolVersion"])
        channel.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return channel

    def _request(
        self, channel: StdioChannel | HttpChannel, method: str, params: JSONObject, record: bool
    ) -> LiveAnswer:
        self.next_id += 1
        request: JSONObject = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        heard: list[JSONObject] = []
        response: JSONObject | None = None
        for message in channel.exchange(request, time.monotonic() + self.timeout):
            if "method" in message and "id" in message:  # the server asks the client (sampling, roots): not here
                refused = "toolreplay serve answers no requests of a server's"
                channel.send(error(message["id"], METHOD_NOT_FOUND, refused))
            elif "method" in message:
                heard.append(message)
            elif message.get("id") == self.next_id:
                response = message
                break
        if response is None:  # a channel ends its messages by raising; kept for the type checker
            raise EOFError("it gave no answer")
        if record and self.log is not None:
            for notification in heard:
                self.log.notification("server", notification)
            self.log.exchange(request, response)
            self.forwarded += 1
        return LiveAnswer(response, tuple(heard))


def _forwarded(params: JSONObject) -> JSONObject:
    """A client's parameters for the real server: its own ``_meta`` stamps stay behind, its progress token goes."""
    meta = params.get("_meta")
    kept = {key: value for key, value in params.items() if key != "_meta"}
    if isinstance(meta, dict) and "progressToken" in meta:
        kept["_meta"] = {"progressToken": meta["progressToken"]}
    return kept
