"""Importers: sessions from what other agents and tools record (one module per format, one interface).

Each module reads its format into the events :class:`~toolreplay.formats.importers.builder.ConversationBuilder`
turns into a session; :func:`read_transcript` picks the module by the format's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolreplay.formats.importers.builder import Notes
from toolreplay.model import SessionContext, ToolDef


def read_transcript(
    kind: str, path: str | Path, model: str | None, notes: Notes, tools: Sequence[ToolDef] = ()
) -> SessionContext:
    """The session in a transcript of ``kind`` (``claude-code``, ``otel`` or ``openai``)."""
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
