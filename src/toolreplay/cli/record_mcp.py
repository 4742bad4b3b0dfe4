"""``toolreplay record-mcp``: a logging stdio proxy in front of an MCP server."""

from __future__ import annotations

import os
from pathlib import Path

import click

from toolreplay.cli.options import ReadWords, redaction_options
from toolreplay.mcp.stdio.proxy import run_proxy
from toolreplay.redact import Redactor


@click.command(
    "record-mcp",
    cls=ReadWords,
    before_command=0,
    context_settings={"ignore_unknown_options": True},
    help="""Run SERVER COMMAND as an MCP stdio server and log its tool traffic to LOG.

    Put 'toolreplay record-mcp -o LOG --' in front of the server command in your
    MCP client's configuration. Bytes pass through unchanged both ways; every
    JSON-RPC message is appended to LOG (JSON Lines), each request with its
    response, errors included, before the response reaches the client, with
    secrets redacted (--no-redact SHAPE leaves one shape alone; docs/formats.md
    lists them). The proxy exits with the server's exit code. Turn a log into a
    session with 'toolreplay import LOG --from mcp'.

    Give --name the name your MCP configuration gives the server (the NAME of
    mcp__NAME__TOOL in Claude Code), so a replay serves it under that name.

    For a server over Streamable HTTP, give --upstream URL instead of a
    command: the proxy listens on --listen (127.0.0.1 and a free port by
    default), says on stderr the URL to give the agent, forwards every request
    (headers, credentials included, never logged) and logs the same way, until
    interrupted.
    """,
)
@click.option("-o", "--output", "log", required=True, metavar="LOG", help="The JSON Lines log to append to.")
@click.option(
    "--name",
    metavar="NAME",
    help="The server's name in the agent's MCP configuration (default: the name the server gives itself).",
)
@click.option("--cwd", metavar="DIR", help="Start the server in DIR (default: where record-mcp is started).")
@click.option(
    "--stderr-copy",
    metavar="FILE",
    help="Also write what the server says on stderr to FILE (it still reaches the client as well).",
)
@click.option(
    "--redact-env",
    "redact_env",
    multiple=True,
    metavar="NAME",
    help="Also redact the value of the environment variable NAME wherever the log would hold it (repeatable).",
)
@click.option("--upstream", metavar="URL", help="The MCP server's Streamable HTTP URL, to proxy instead of a command.")
@click.option(
    "--listen",
    metavar="HOST:PORT",
    help="With --upstream: where the proxy listens [default: 127.0.0.1:0, a free port].",
)
@redaction_options("log")
@click.argument("server", nargs=-1, type=click.UNPROCESSED, metavar="[-- SERVER COMMAND...]")
def command(
    log: str,
    name: str | None,
    cwd: str | None,
    stderr_copy: str | None,
    redact_env: tuple[str, ...],
    upstream: str | None,
    listen: str | None,
    redactor: Redactor,
    server: tuple[str, ...],
) -> int:
    if name is not None and not name.strip():
        raise click.UsageError("--name must not be empty")
    values = [os.environ[key] for key in redact_env if len(os.environ.get(key, "")) >= 8]
    if values and redactor.defaults:  # a variable passed to the server never reaches the log
        redactor = redactor.with_literals(values, "server-env")
    if upstream is not None:
        if server or cwd is not None or stderr_copy is not None:
            raise click.UsageError(
                "give either --upstream URL or a server command (and --cwd, --stderr-copy), not both"
            )
        from toolreplay.mcp.http.proxy import run_http_proxy  # noqa: PLC0415 - only a proxy over HTTP

        return run_http_proxy(upstream, listen or "127.0.0.1:0", log, redactor, name)
    if listen is not None:
        raise click.UsageError("--listen is for --upstream")
    if not server:
        raise click.UsageError("give the server command after --, or --upstream URL")
    if cwd is not None and not Path(cwd).is_dir():
        raise click.UsageError(f"--cwd {cwd}: no such directory")
    return run_proxy(server, log, redactor, name=name, cwd=cwd, stderr_copy=stderr_copy)
