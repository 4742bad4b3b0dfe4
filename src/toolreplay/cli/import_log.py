"""``toolreplay import`` (and ``import-mcp``): turn a recorded log into a session file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import click

from toolreplay.agents.spec import read_prompt
from toolreplay.cli.options import redaction_options
from toolreplay.cli.output import session_text, warn, write_text
from toolreplay.core.canonical import json_utf8
from toolreplay.core.errors import InputError, UsageError
from toolreplay.core.escape import one_line
from toolreplay.core.files import guard_outputs, path_from, read_text, write_atomic
from toolreplay.core.model import Session, SessionContext, ToolDef
from toolreplay.core.wording import count
from toolreplay.formats.importers import IMPORTERS, read_transcript
from toolreplay.formats.importers.builder import Notes
from toolreplay.formats.mcp_log.importer import ImportOptions, log_tools, session_from_log
from toolreplay.formats.mcp_log.log import DEFAULT_TASK, LogNotes
from toolreplay.formats.parsing.json_text import parse_json
from toolreplay.formats.session.reader import parse_tools
from toolreplay.formats.session.shape import person_messages
from toolreplay.redact import Redactor

FORMATS = ("mcp", *IMPORTERS)
_MCP_ONLY = ("task", "task_file", "final_text", "run_number", "server_name", "every_process")


def _options(function: Callable[..., Any]) -> Callable[..., Any]:
    decorators: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
        click.argument("log", metavar="FILE"),
        click.option("-o", "--output", required=True, metavar="SESSION", help="The session file to write."),
        click.option(
            "--task", metavar="TEXT", help="With --from mcp: the person's first message (a proxy never sees it)."
        ),
        click.option("--task-file", metavar="FILE", help="With --from mcp: the person's first message, from a file."),
        click.option("--system", "system_file", metavar="FILE", help="The system prompt, from a file, if you have it."),
        click.option("--final-text", metavar="TEXT", help="With --from mcp: the agent's final reply."),
        click.option("--model", metavar="NAME", help="The model name to record (default: the file's, else unknown)."),
        click.option(
            "--tools",
            "tools_file",
            metavar="FILE",
            help="Tool definitions (a JSON array, as a session holds them) for a transcript that has none.",
        ),
        click.option(
            "--mcp-log",
            metavar="LOG",
            help="A record-mcp log whose tools (and annotations) the transcript's MCP calls used.",
        ),
        click.option(
            "--server-name",
            metavar="NAME",
            help="With --from mcp: the server's name in the agent's MCP configuration (default: record-mcp's "
            "--name, else the name the server gives itself).",
        ),
        click.option(
            "--run",
            "run_number",
            type=int,
            metavar="N",
            help="With --from mcp: which run of the log (1 = first; default: last).",
        ),
        click.option(
            "--every-process",
            is_flag=True,
            help="With --from mcp: the log is one agent run's, whose client started a server more than once "
            "(once per call, say): every process of each server is joined, its calls in the order answered.",
        ),
        redaction_options("write"),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def import_log(
    log: str,
    source_format: str,
    output: str,
    task: str | None,
    task_file: str | None,
    system_file: str | None,
    final_text: str | None,
    model: str | None,
    tools_file: str | None,
    mcp_log: str | None,
    run_number: int | None,
    server_name: str | None,
    every_process: bool,
    redactor: Redactor,
) -> int:
    if source_format not in FORMATS:
        raise UsageError(f"--from {source_format}: toolreplay imports {', '.join(FORMATS)}")
    if server_name is not None and not server_name.strip():
        raise UsageError("--server-name must not be empty")
    if task is not None and task_file is not None:
        raise UsageError("give the task with at most one of --task and --task-file")
    guard_outputs({"-o": output}, [log, task_file, system_file, tools_file, mcp_log])
    if source_format != "mcp":
        given = {
            "task": task,
            "task_file": task_file,
            "final_text": final_text,
            "run_number": run_number,
            "server_name": server_name,
            "every_process": every_process or None,
        }
        named = [f"--{name.replace('_number', '').replace('_', '-')}" for name in _MCP_ONLY if given[name] is not None]
        if named:
            raise UsageError(f"{', '.join(named)}: only for --from mcp (a {source_format} file holds its own)")
        return _import_transcript(log, source_format, output, system_file, model, tools_file, mcp_log, redactor)
    if tools_file is not None or mcp_log is not None:
        raise UsageError("--tools and --mcp-log are for transcripts; a proxy log holds its tools")
    if every_process and run_number is not None:
        raise UsageError("--every-process joins every run of the log; --run chooses one: give one of them")
    options = ImportOptions(
        task=task if task is not None else read_prompt(task_file) if task_file else DEFAULT_TASK,
        system=read_prompt(system_file) if system_file else "",
        final_text=final_text,
        model=model or "unknown",
        run=run_number,
        server=server_name,
        every_process=every_process,
    )
    notes = LogNotes()
    context, runs = session_from_log(log, options, notes)
    text, session = _session_text(context, redactor, log, output)
    write_atomic(output, [json_utf8(text)])
    which = "" if runs == 1 or every_process else f" (run {context.source['run']} of {runs}; choose another with --run)"
    processes = context.source.get("processes")
    if isinstance(processes, dict) and any(number != 1 for number in processes.values()):
        which = (
            " ("
            + ", ".join(f"{name}: {count(int(str(n)), 'process', 'processes')}" for name, n in processes.items())
            + ")"
        )
    if "runs" in context.source:  # a log an agent's servers share: one run of each
        which = f" (the runs of {', '.join(server.name for server in context.servers)})"
    skipped = ""
    if notes.torn_line is not None:
        skipped += f"; skipped line {notes.torn_line}, cut short (the proxy stopped mid-write)"
    if notes.incomplete is not None:
        skipped += f"; the proxy could not write the whole log ({notes.incomplete}), so later calls are missing"
    write_text(f"wrote {output}: {count(len(session.calls), 'tool call')} from {log}{which}{skipped}\n")
    for name in notes.own_names:
        write_text(
            f"  the server is named {name!r}, as it names itself (the log gave it no name): if the agent's "
            "configuration calls it otherwise, import again with --server-name NAME, or replay with --server-name\n"
        )
    if task is None and task_file is None:
        warn(
            f"a proxy never sees the person's message, so {output} holds {DEFAULT_TASK!r} as the task, and a replay "
            "would send the agent those words; give the real task with --task or --task-file"
        )
    return 0


def _import_transcript(
    path: str,
    source_format: str,
    output: str,
    system_file: str | None,
    model: str | None,
    tools_file: str | None,
    mcp_log: str | None,
    redactor: Redactor,
) -> int:
    """A transcript another agent wrote (Claude Code, OpenTelemetry, OpenAI), as a session."""

    tools: list[ToolDef] = []
    if mcp_log is not None:
        tools += log_tools(mcp_log)
    if tools_file is not None:
        tools += parse_tools(parse_json(read_text(tools_file), tools_file))
    notes = Notes()
    context = read_transcript(source_format, path, model, notes, tuple(tools))
    if system_file is not None:
        context = replace(context, system=read_prompt(system_file))
    text, session = _session_text(context, redactor, path, output)
    write_atomic(output, [json_utf8(text)])
    turns = len(person_messages(context.messages))
    said = f"{count(len(session.calls), 'tool call')} in {count(turns, 'turn')}"
    write_text(f"wrote {output}: {said} from {path}\n")
    for note in notes.lines():
        write_text(f"  note: {one_line(note)}\n")
    return 0


def _session_text(context: SessionContext, redactor: Redactor, source: str, output: str) -> tuple[str, Session]:
    """The session file's text and the session it holds, checked before anything is written: a file that would
    not load is never left at -o, and the error names the file imported. The file it came from is named from the
    session's own directory."""
    kept = {
        key: path_from(source, output) if key in ("log", "file") else value for key, value in context.source.items()
    }
    context = replace(context, source=kept)
    try:
        return session_text(context, redactor, output)
    except InputError as exc:
        raise InputError(f"cannot be made a session: {exc.message}", source) from None


HELP = """Turn FILE into a session file: a record-mcp log (--from mcp), a Claude Code
    transcript (claude-code), OpenTelemetry GenAI spans as OTLP JSON (otel), or
    OpenAI Chat Completions messages or Responses items (openai).

    A proxy sees the tool traffic but never the prompt, the model or its words,
    so for --from mcp give the task, the system prompt, the final reply and the
    model name here if you have them. A transcript holds its conversation;
    Claude Code's holds no tool definitions, so give them with --mcp-log (the
    record-mcp log of its MCP servers) or --tools. A call with no result is left
    out and reported, never guessed. See docs/formats.md, "Importing".
    """


@click.command("import", help=HELP)
@click.option("--from", "source_format", required=True, type=click.Choice(FORMATS), help="The log's format.")
@_options
def command(**options: Any) -> int:
    return import_log(**options)


@click.command(
    "import-mcp",
    help="""Turn FILE, a record-mcp log, into a session file: the same as 'import --from mcp'.

    A proxy sees the tool traffic but never the prompt, the model or its words,
    so give the task, the system prompt, the final reply and the model name here
    if you have them.
    """,
)
@_options
def import_mcp(**options: Any) -> int:
    return import_log(source_format="mcp", **options)
