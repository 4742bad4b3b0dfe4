"""Importers: sessions from what other agents and tools record (one module per format, one interface).

Each module reads its format into the events :class:`~toolreplay.formats.importers.builder.ConversationBuilder`
turns into a session; :func:`read_transcript` picks the module by the format's name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from toolreplay.core.errors import InputError
from toolreplay.core.model import SessionContext, ToolDef
from toolreplay.core.records import record
from toolreplay.formats.importers.builder import Notes


@record
class Importer:
    """One format ``import --from`` reads: what a file of it is called, and the function that reads one (its
    module is loaded only when a file of that format is imported)."""

    name: str
    module: str
    function: str
    takes_tools: bool = False  # reads definitions given by hand itself, placed as the file names its tools

    def load(self) -> Callable[..., SessionContext]:
        reader: Callable[..., SessionContext] = getattr(importlib.import_module(self.module), self.function)
        return reader


# The formats read into events for the one builder; a record-mcp log (``--from mcp``) is read by
# :mod:`toolreplay.formats.mcp_log.importer`, which builds its session through the same builder.
IMPORTERS: dict[str, Importer] = {
    "claude-code": Importer(
        "a Claude Code transcript", f"{__name__}.claude_code", "import_claude_code", takes_tools=True
    ),
    "otel": Importer("an OpenTelemetry trace", f"{__name__}.otel", "import_otel"),
    "openai": Importer("an OpenAI conversation", f"{__name__}.openai", "import_openai"),
}


def read_transcript(
    kind: str, path: str | Path, model: str | None, notes: Notes, tools: Sequence[ToolDef] = ()
) -> SessionContext:
    """The session in a transcript of ``kind``, one of :data:`IMPORTERS`."""
    importer = IMPORTERS[kind]
    _refuse_other(kind, path)
    if importer.takes_tools:
        return importer.load()(path, model, notes, tools)
    context = importer.load()(path, model, notes)
    if tools:  # definitions given by hand replace the file's
        given = {tool.name: tool for tool in tools}
        kept = tuple(given.pop(tool.name, tool) for tool in context.tools)
        context = replace(context, tools=kept + tuple(given.values()))
    return context


def _refuse_other(kind: str, path: str | Path) -> None:
    """A file of another kind, named for what it is, with the way to read it: a record-mcp log, a Claude Code
    transcript given as another format, or a toolreplay recording, which needs no import."""
    from toolreplay.formats.kinds import foreign_format, sniff_kind  # noqa: PLC0415
    from toolreplay.formats.parsing.jsonl import first_object  # noqa: PLC0415

    found = first_object(path)
    other = foreign_format(found[1]) if found is not None and found[1] is not None else None
    if other == "mcp":
        raise InputError(f"a record-mcp log, not {IMPORTERS[kind].name}: import it with --from mcp", path)
    if other == "claude-code" and kind != "claude-code":
        raise InputError(
            f"a Claude Code transcript, not {IMPORTERS[kind].name}: import it with --from claude-code", path
        )
    if other is None and found is not None:
        recording = sniff_kind(path)
        if recording is not None:
            raise InputError(
                f"a toolreplay {recording.value}, not {IMPORTERS[kind].name}: a {recording.value} needs no import", path
            )
