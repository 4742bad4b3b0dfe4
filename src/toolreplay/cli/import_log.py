"""``toolreplay import`` (and ``import-mcp``): turn a recorded log into a session file."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from toolreplay.agents.spec import read_prompt
from toolreplay.cli.output import guard_outputs, write_text
from toolreplay.errors import UsageError
from toolreplay.formats.mcp_log import DEFAULT_TASK, ImportOptions, LogNotes, session_from_log
from toolreplay.formats.session import read_session, write_session
from toolreplay.redact import Redactor

FORMATS = ("mcp",)


def _options(function: Callable[..., Any]) -> Callable[..., Any]:
    decorators = [
        click.argument("log", metavar="LOG"),
        click.option("-o", "--output", required=True, metavar="SESSION", help="The session file to write."),
        click.option("--task", metavar="TEXT", help="The person's first message (a proxy never sees it)."),
        click.option("--task-file", metavar="FILE", help="The person's first message, from a file."),
        click.option("--system", "system_file", metavar="FILE", help="The system prompt, from a file, if you have it."),
        click.option("--final-text", metavar="TEXT", help="The agent's final reply."),
        click.option("--model", default="unknown", show_default=True, help="The model name to record."),
        click.option(
            "--run", "run_number", type=int, metavar="N", help="Which run of the log (1 = first; default: last)."
        ),
        click.option("--redact", "patterns", multiple=True, metavar="REGEX", help="Also redact matches of REGEX."),
        click.option("--no-redact", is_flag=True, help="Write secrets as they are (not recommended)."),
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
    model: str,
    run_number: int | None,
    patterns: tuple[str, ...],
    no_redact: bool,
) -> int:
    if source_format not in FORMATS:
        raise UsageError(f"--from {source_format}: toolreplay imports {', '.join(FORMATS)}")
    if task is not None and task_file is not None:
        raise UsageError("give the task with at most one of --task and --task-file")
    guard_outputs({"-o": output}, [log, task_file, system_file])
    options = ImportOptions(
        task=task if task is not None else read_prompt(task_file) if task_file else DEFAULT_TASK,
        system=read_prompt(system_file) if system_file else "",
        final_text=final_text,
        model=model,
        run=run_number,
    )
    notes = LogNotes()
    context, runs = session_from_log(log, options, notes)
    redactor = Redactor.disabled() if no_redact else Redactor.default(patterns)
    write_session(output, context, redactor)
    session = read_session(output)  # what was written must load back
    which = "" if runs == 1 else f" (run {context.source['run']} of {runs}; choose another with --run)"
    skipped = ""
    if notes.torn_line is not None:
        skipped += f"; skipped line {notes.torn_line}, cut short (the proxy stopped mid-write)"
    if notes.incomplete is not None:
        skipped += f"; the proxy could not write the whole log ({notes.incomplete}), so later calls are missing"
    write_text(f"wrote {output}: {len(session.calls)} tool calls from {log}{which}{skipped}\n")
    return 0


HELP = """Turn LOG, written by 'toolreplay record-mcp', into a session file.

    A proxy sees the tool traffic but never the prompt, the model or its words,
    so give the task, the system prompt, the final reply and the model name
    here if you have them. Each recorded tools/call becomes one assistant turn
    with its result; the tools and their annotations come from tools/list.
    """


@click.command("import", help=HELP)
@click.option("--from", "source_format", required=True, type=click.Choice(FORMATS), help="The log's format.")
@_options
def command(**options: Any) -> int:
    return import_log(**options)


@click.command("import-mcp", help=HELP)
@_options
def import_mcp(**options: Any) -> int:
    return import_log(source_format="mcp", **options)
