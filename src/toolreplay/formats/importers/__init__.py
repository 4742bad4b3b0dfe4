"""Importers: sessions from what other agents and tools record (one module per format, one interface).

Each module reads its format into the events :class:`~toolreplay.formats.importers.builder.ConversationBuilder`
turns into a session; :func:`read_transcript` picks the module by the format's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolreplay.core.errors import InputError
from toolreplay.core.model import SessionContext, ToolDef
from toolreplay.formats.importers.builder import Notes


def read_transcript(
    kind: str, path: str | Path, model: str | None, notes: Notes, tools: Sequence[ToolDef] = ()
) -> SessionContext:
    """The session in a transcript of ``kind`` (``claude-code``, ``otel`` or ``openai``)."""
    _refuse_other(kind, path)
    if kind == "claude-code":
        from toolreplay.formats.importers.claude_code import import_claude_code  # noqa: PLC0415

        return import_claude_code(path, model, notes, tools)
    if kind == "otel":
        from toolreplay.formats.importers.otel import import_otel  # noqa: PLC0415

        context = import_otel(path, model, notes)
    elif kind == "openai":
        from toolreplay.formats.importers.openai import import_openai  # noqa: PLC0415

        context = import_openai(path, model, notes)
    else:
        raise ValueError(f"no importer for {kind!r}")
    if tools:  # definitions given by hand replace the file's
        given = {tool.name: tool for tool in tools}
        kept = tuple(given.pop(tool.name, tool) for tool in context.tools)
        from dataclasses import replace  # noqa: PLC0415

        context = replace(context, tools=kept + tuple(given.values()))
    return context


_NAMES = {
    "claude-code": "a Claude Code transcript",
    "otel": "an OpenTelemetry trace",
    "openai": "an OpenAI conversation",
}


def _refuse_other(kind: str, path: str | Path) -> None:
    """A file of another kind, named for what it is, with the way to read it: a record-mcp log, a Claude Code
    transcript given as another format, or a toolreplay recording, which needs no import."""
    from toolreplay.formats.kinds import foreign_format, sniff_kind  # noqa: PLC0415
    from toolreplay.formats.parsing.jsonl import first_object  # noqa: PLC0415

    found = first_object(path)
    other = foreign_format(found[1]) if found is not None and found[1] is not None else None
    if other == "mcp":
        raise InputError(f"a record-mcp log, not {_NAMES[kind]}: import it with --from mcp", path)
    if other == "claude-code" and kind != "claude-code":
        raise InputError(f"a Claude Code transcript, not {_NAMES[kind]}: import it with --from claude-code", path)
    if other is None and found is not None:
        recording = sniff_kind(path)
        if recording is not None:
            raise InputError(
                f"a toolreplay {recording.value}, not {_NAMES[kind]}: a {recording.value} needs no import", path
            )
