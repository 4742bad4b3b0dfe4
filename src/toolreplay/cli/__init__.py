"""The command line: a lazy click group and the one place exit codes are decided.

Each command lives in its own module and is imported only when it runs, so
``toolreplay version`` and the auditor's commands never load the heavy optional
libraries. Every :class:`~toolreplay.core.errors.ToolreplayError` and click usage
error becomes one line on stderr and exit code 2.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import signal
import sys
from collections.abc import Sequence

import click

from toolreplay import __version__
from toolreplay.core.errors import InputErrors, ToolreplayError
from toolreplay.core.escape import one_line
from toolreplay.core.verdict import Exit

# name -> (module, one-line help). The help is repeated here so that listing
# the commands does not import them.
COMMANDS: dict[str, tuple[str, str]] = {
    "audit": ("toolreplay.cli.audit", "Report non-determinism, redundant calls and the divergence."),
    "check": ("toolreplay.cli.check", "Run every configured analysis on the committed recordings (for CI)."),
    "compare": ("toolreplay.cli.compare", "Test recorded sessions' differences against baseline sessions' noise."),
    "diff": ("toolreplay.cli.diff", "Compare the calls of two recordings: added, removed, changed, moved."),
    "import": (
        "toolreplay.cli.import_log",
        "Turn a record-mcp log, a Claude Code transcript, OTel spans or OpenAI messages into a session.",
    ),
    "import-mcp": ("toolreplay.cli.import_mcp", "The same as 'import --from mcp'."),
    "merge": ("toolreplay.cli.merge", "Combine the JSON reports of a sharded check."),
    "policies": ("toolreplay.cli.policies", "Write a starter policy file from recorded sessions (policies suggest)."),
    "record": ("toolreplay.cli.record", "Run a program live against its MCP servers, N times: a session per run."),
    "record-mcp": ("toolreplay.cli.record_mcp", "Log an MCP server's tool traffic, passing it through unchanged."),
    "replay": (
        "toolreplay.cli.replay",
        "Replay a session against a new prompt, tools or model (a transcript: self-audit).",
    ),
    "rules": ("toolreplay.cli.rules", "Write a starter rules file from recorded sessions (rules init)."),
    "run": ("toolreplay.cli.run", "Run an agent whose tools really execute, and record the session."),
    "scope": ("toolreplay.cli.scope", "Check every call against a declared scope."),
    "serve": ("toolreplay.cli.serve", "Serve a session's recorded answers as an MCP stdio server."),
    "show": ("toolreplay.cli.show", "Print a session's calls with their class, and its final reply."),
    "seal": ("toolreplay.cli.seal", "Print a transcript or a session sealed into a SHA-256 hash chain."),
    "tools": ("toolreplay.cli.tools", "Compare, lint and pin tool surfaces: what changed under the agent."),
    "verify": ("toolreplay.cli.verify", "Check a sealed file's chain; name the first broken link."),
    "version": ("toolreplay.cli.version", "Print the version."),
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        command = importlib.import_module(entry[0]).command
        if not isinstance(command, click.Command):
            raise TypeError(f"{entry[0]}.command is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][1]) for name in self.list_commands(ctx)])


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "-V", "--version", prog_name="toolreplay", message="%(prog)s %(version)s")
@click.option("--debug", is_flag=True, help="On an internal error, print its traceback too.")
def cli(debug: bool) -> None:
    """Record, audit and replay the tool calls of an AI agent.

    Exit codes: 0 clean, 1 findings or a broken chain, and nothing else; 2 when
    the command could not do its job (bad input or usage, a file it cannot read
    or write, an internal error).
    """


def _error(message: str) -> int:
    """The one line every failure prints: with nothing a terminal obeys, and no secret the message quoted."""
    from toolreplay.redact import Redactor  # noqa: PLC0415 - only a failing command needs it

    click.echo(f"toolreplay: error: {one_line(Redactor.default().text(message))}", err=True)
    return Exit.ERROR


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code: every failure that is not a finding is 2, with one line."""
    args = list(argv) if argv is not None else sys.argv[1:]
    # A file-size limit would otherwise kill the process with SIGXFSZ; ignored, the write fails with EFBIG.
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        result = cli.main(args=args, prog_name="toolreplay", standalone_mode=False)
    except InputErrors as exc:  # each on a line of its own
        for error in exc.errors:
            _error(str(error))
        return Exit.ERROR
    except ToolreplayError as exc:
        return _error(str(exc))
    except click.exceptions.NoArgsIsHelpError as exc:  # bare `toolreplay`: the help, on stderr
        click.echo(exc.format_message(), err=True)
        return Exit.ERROR
    except click.UsageError as exc:
        hint = ""
        if exc.ctx is not None:
            hint = f" (see '{exc.ctx.command_path} --help')"
        return _error(exc.format_message() + hint)
    except click.ClickException as exc:
        return _error(exc.format_message())
    except click.Abort:
        click.echo("toolreplay: interrupted", err=True)
        return 130
    except BrokenPipeError:
        # The reader went away (``toolreplay seal big.jsonl | head``): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as exc:  # standard output full or closed, or a read the readers did not expect
        _quiet_stdout()
        where = f"{exc.filename}: " if exc.filename else "standard output: " if exc.errno in _OUTPUT_ERRNOS else ""
        return _error(f"{where}cannot {'write' if exc.errno in _OUTPUT_ERRNOS else 'read or write'}: {exc.strerror}")
    except KeyboardInterrupt:
        click.echo("toolreplay: interrupted", err=True)
        return 130
    except Exception as exc:  # a bug: still one line and exit 2, so a CI gate never reads it as findings
        if "--debug" in args:
            import traceback  # noqa: PLC0415 - only a failing command with --debug needs it

            traceback.print_exc()
        _quiet_stdout()
        return _error(
            f"internal error ({type(exc).__name__}: {exc}); this is a bug in toolreplay: please report it, "
            "with the traceback that --debug prints"
        )
    if isinstance(result, int):
        return int(result)
    return Exit.CLEAN


_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO}


def _quiet_stdout() -> None:
    """Drop what is left in stdout's buffer, so flushing it at exit cannot fail a second time."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def run() -> None:
    """Console-script entry point."""
    raise SystemExit(main())
