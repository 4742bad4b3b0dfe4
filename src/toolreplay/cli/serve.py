"""``toolreplay serve``: a recorded session's answers as an MCP server, over stdio or Streamable HTTP."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Sequence

import click

from toolreplay.cli.options import ReadWords, redaction_options, settings_options
from toolreplay.commands.base import load_policy
from toolreplay.core.errors import UsageError
from toolreplay.core.escape import one_line
from toolreplay.core.files import guard_outputs, same_file
from toolreplay.core.records import record
from toolreplay.core.wording import count, format_call
from toolreplay.formats.faults import FaultKind, read_faults
from toolreplay.formats.mcp_log.log import LogNotes, LogWriter, is_log, pick_run, read_log
from toolreplay.formats.recording import load_session
from toolreplay.formats.stubs import read_stubs
from toolreplay.mcp.cassette import RecordMode, record_mode
from toolreplay.mcp.client import LIVE_TIMEOUT, LiveServer
from toolreplay.mcp.server import ReplayServer, ServeLog, log_server, session_server
from toolreplay.redact import Redactor
from toolreplay.settings import ReplaySettings, Unrecorded


@click.command(
    "serve",
    cls=ReadWords,
    before_command=1,
    help="""Serve RECORDING's answers as an MCP stdio server (or over HTTP: --http).

    RECORDING is a record-mcp log, replayed exactly: every request it holds
    (the handshake, tools, resources, prompts) gets its recorded result or
    error, with the notifications that came before it. Or a session: its
    server's handshake, its tools and its answers are given as the server gave
    them when the session holds them (an imported log does), else its tools
    are listed and its calls answered from its results. Put this where an MCP
    client's server command was, with 'toolreplay record-mcp -o LOG --' in
    front to log what the client does, then import and compare the log.

    A request never recorded gets an error result (--on-unrecorded error), a
    stub (stub, with --stubs), a JSON-RPC error (stop), or the real server's
    answer (live, with the server's command after --, or --upstream URL for
    one over Streamable HTTP), which --record new
    appends to the log so the next replay has it (all: forward everything and
    record it as a new run; none: record nothing). Nothing else is executed.
    What it logs (--log, --record) has secrets redacted as record-mcp's log
    does (--redact, --no-redact). When the client leaves, a summary goes to
    stderr.
    """,
)
@click.argument("recording", metavar="RECORDING")
@click.argument("server_command", metavar="[-- SERVER...]", nargs=-1, type=click.UNPROCESSED)
@settings_options("on_unrecorded", "stubs", live=True)
@click.option(
    "--record",
    "recorded_as",
    type=click.Choice([mode.value for mode in RecordMode]),
    help="With live: what goes into the log (default: new for a log, none for a session).",
)
@click.option(
    "--live-timeout",
    type=click.FloatRange(min=0, min_open=True, max=3600),
    default=LIVE_TIMEOUT,
    show_default=True,
    metavar="SECONDS",
    help="With live: how long the real server has to answer one request.",
)
@click.option("--rules", "rules_file", metavar="FILE", help="A rules file, for its argument matching.")
@click.option("--run", "run_number", type=int, metavar="N", help="Which run of a log (1 = first; default: last).")
@click.option(
    "--server",
    "server_name",
    metavar="NAME",
    help="Which server of a session, or of a log that several servers share, to serve (needed with several).",
)
@click.option(
    "--faults",
    "faults_file",
    metavar="FILE",
    help="Failures to inject into chosen calls: errors, error results, delays, hangs, a dropped connection, "
    "an answer cut short; over --http, an error status too.",
)
@click.option(
    "--log",
    "traffic_file",
    metavar="LOG",
    help="Also log every message as record-mcp would (a new run appended to LOG), with no proxy in front.",
)
@click.option(
    "--upstream",
    metavar="URL",
    help="With live: the real server's Streamable HTTP URL, instead of its command after --.",
)
@click.option(
    "--upstream-header",
    "upstream_headers",
    multiple=True,
    metavar="'NAME: VALUE'",
    help="With --upstream: a header for every request to it (repeatable); ${VAR} in VALUE is read from the "
    "environment, so a token stays off the command line. Never logged.",
)
@click.option("--http", is_flag=True, help="Serve over Streamable HTTP (at /mcp) instead of stdio, until interrupted.")
@click.option(
    "--listen",
    metavar="HOST:PORT",
    help="With --http: where to listen [default: 127.0.0.1:0, a free port, said on stderr].",
)
@redaction_options("log")
def command(
    recording: str,
    server_command: tuple[str, ...],
    settings: ReplaySettings,
    recorded_as: str | None,
    live_timeout: float,
    rules_file: str | None,
    run_number: int | None,
    server_name: str | None,
    faults_file: str | None,
    traffic_file: str | None,
    upstream: str | None,
    upstream_headers: tuple[str, ...],
    http: bool,
    listen: str | None,
    redactor: Redactor,
) -> int:
    address = _address(http, listen)
    if traffic_file is not None:
        guard_outputs({"--log": traffic_file}, [recording, settings.stubs, rules_file, faults_file])
    stubs = read_stubs(settings.stubs) if settings.stubs else None
    faults = read_faults(faults_file) if faults_file else ()
    if address is None and any(fault.kind is FaultKind.HTTP for fault in faults):
        raise UsageError(f"{one_line(str(faults_file))}: an http fault is for serve --http (stdio has no status)")
    policy = load_policy(rules_file, False)
    live_wanted = settings.on_unrecorded is Unrecorded.LIVE
    real = _real_server(live_wanted, server_command, upstream, upstream_headers, live_timeout)
    if recorded_as is not None and not live_wanted:
        raise UsageError("--record is for --on-unrecorded live")
    if is_log(recording):
        notes = LogNotes()
        runs = read_log(recording, notes)
        run = pick_run(runs, run_number, recording, server_name)
        mode = record_mode(recorded_as, log=True)
        if live_wanted and mode is RecordMode.NEW and run is not runs[-1]:
            raise UsageError("--record new appends to the log's last run: serve that one, or --record none")
        live = _live(real, recording, mode, redactor) if live_wanted else None

        def build() -> ReplayServer:
            return log_server(run, recording, policy, settings.on_unrecorded, stubs, faults, live, mode)

        if notes.torn_line is not None or notes.incomplete is not None:  # said before serving: stdout is the client's
            sys.stderr.write(
                f"toolreplay serve: {one_line(recording)} stops short; what it never logged is never recorded\n"
            )
    else:
        if run_number is not None:
            raise UsageError("--run is for a record-mcp log; a session holds one run")
        mode = record_mode(recorded_as, log=False)
        session = load_session(recording)
        if session.context is None:
            raise UsageError(f"{recording} is a transcript: serving needs a session's tool definitions, or a log")
        live = _live(real, recording, mode, redactor) if live_wanted else None

        def build() -> ReplayServer:
            return session_server(session, policy, settings.on_unrecorded, stubs, faults, live, server_name)

    def fresh(number: int | None) -> ReplayServer:
        """A server with a world of its own, its traffic a run of its own in --log (an HTTP session's, by number)."""
        server = build()
        if traffic_file is not None:  # the servers of one replay run share the file: each its own run in it
            server.traffic = LogWriter(traffic_file, redactor, "toolreplay serve", new_run=False, session=number)
            server.traffic.start(["toolreplay", "serve", recording])
        return server

    served: list[ReplayServer] = []
    try:
        served = _serve(fresh, address, shared=live is not None)
    finally:
        if live is not None:
            live.close()
        for server in served:
            if server.traffic is not None:
                server.traffic.close()
    _summary([server.log for server in served], bool(faults), live is not None)
    return 0


def _address(http: bool, listen: str | None) -> tuple[str, int] | None:
    """Where to listen over HTTP; None for stdio."""
    if listen is not None and not http:
        raise UsageError("--listen is for --http")
    if not http:
        return None
    from toolreplay.mcp.http.urls import parse_listen  # noqa: PLC0415 - only over HTTP

    return parse_listen(listen or "127.0.0.1:0")


def _serve(
    fresh: Callable[[int | None], ReplayServer], address: tuple[str, int] | None, shared: bool
) -> list[ReplayServer]:
    """Answer the client over stdio until it leaves, or every client over HTTP at ``address`` until interrupted,
    each MCP session from a server of its own (one shared by all, where a live server answers what was never
    recorded: it is one); the servers that answered."""
    if address is not None:
        from toolreplay.mcp.http.serve import serve_http  # noqa: PLC0415 - only over HTTP

        return serve_http(fresh, address, shared)
    server = fresh(None)
    # The client leaving, by closing its end or by interrupting, is the normal end of a session.
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        server.serve(sys.stdin.buffer, sys.stdout.buffer)
    return [server]


@record
class _Real:
    """The real server a live fallback asks: a command, or a URL with the headers to send it."""

    command: tuple[str, ...]
    upstream: str | None
    headers: tuple[str, ...]
    timeout: float


def _real_server(
    live: bool, command: tuple[str, ...], upstream: str | None, headers: tuple[str, ...], timeout: float
) -> _Real:
    if command and not live:
        raise UsageError("a server command is for --on-unrecorded live")
    if upstream is not None and not live:
        raise UsageError("--upstream is for --on-unrecorded live")
    if upstream is not None and command:
        raise UsageError("give the live server's command after --, or --upstream URL, not both")
    if headers and upstream is None:
        raise UsageError("--upstream-header is for --upstream")
    return _Real(command, upstream, headers, timeout)


def _live(real: _Real, recording: str, mode: RecordMode, redactor: Redactor) -> LiveServer:
    url, headers = None, {}
    if real.upstream is not None:
        from toolreplay.mcp.http.urls import parse_header, parse_upstream, shown_url  # noqa: PLC0415 - only over HTTP

        url = parse_upstream(real.upstream)
        headers = dict(parse_header(text, os.environ) for text in real.headers)
        started = [shown_url(url)]
    elif not real.command:
        raise UsageError("--on-unrecorded live needs the real server's command after --, or --upstream URL")
    else:
        started = list(real.command)
    for argument in real.command:
        if same_file(argument, recording):
            raise UsageError(f"refusing to serve {recording} live to a server command that uses it")
    log = None
    if mode is not RecordMode.NONE:
        log = LogWriter(recording, redactor, "toolreplay serve", new_run=mode is RecordMode.ALL)
    if log is not None and mode is RecordMode.ALL:
        log.start(started)
    return LiveServer(real.command, log, real.timeout, url, headers)


def _summary(logs: Sequence[ServeLog], faults: bool, live: bool) -> None:
    log = ServeLog(
        sum(one.answered for one in logs),
        [item for one in logs for item in one.unrecorded],
        [item for one in logs for item in one.faults],
        [item for one in logs for item in one.live],
    )
    injected = f", {count(len(log.faults), 'fault')} injected" if faults else ""
    forwarded = f", {len(log.live)} answered live" if live else ""
    sys.stderr.write(
        f"toolreplay serve: {count(log.answered, 'call')}, {len(log.unrecorded)} never recorded{forwarded}{injected}\n"
    )
    redactor = Redactor.default()
    for call, answered in log.unrecorded:
        shown = one_line(redactor.text(format_call(call)))
        sys.stderr.write(f"  unrecorded: {shown}  answered: {answered}\n")
