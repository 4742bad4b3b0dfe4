"""Where a finding is: repository-relative paths, and the line of a candidate input that changed.

A replay's finding is about the candidate, not the recording, so it points at
the input the pull request changed: the candidate's tools file at the tool the
finding is about (when that tool's definition changed), else the system prompt
at its first line that differs from the recorded prompt, else the first tool
that changed, else the config line naming the agent.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import field
from pathlib import Path

from toolreplay.core.canonical import JSONValue
from toolreplay.core.model import ToolDef, content_text
from toolreplay.core.outcome import Location
from toolreplay.core.records import record
from toolreplay.formats.parsing.node import Node


@record
class Paths:
    """Turns a path on this machine into the path a report shows: relative to the root, with '/'."""

    root: Path
    # files the check reads from copies of its own (the base's policy files): each copy and the path it stands for
    copies: tuple[tuple[str, str], ...] = ()

    def show(self, path: str | Path) -> str:
        """The path relative to the root; a name's bytes that are not UTF-8 written out (``x\\xff.json``), as a
        report is text. A copy of a file as committed at the base is shown as that file, ``(base)``."""
        for copy, original in self.copies:
            if os.fspath(path) == copy:
                return f"{self.show(original)} (base)"
        shown = _relative(path, self.root)
        if shown.isascii():
            return shown
        return shown.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _relative(path: str | Path, root: Path) -> str:
    """``path`` from ``root`` as it was named (a link under the root is shown as the link, not as its target), or,
    for a path that only its real location puts under the root, from there."""
    named = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(root))).as_posix()
    if named != ".." and not named.startswith("../"):
        return named
    return Path(os.path.relpath(Path(path).resolve(), root.resolve())).as_posix()


def fingerprint(*parts: str) -> str:
    """A stable identity for a finding, from what it is about rather than where the lines fall."""
    # A file name that is not UTF-8 reaches here with its bytes as lone surrogates: hashed as they are.
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def prompt_text(system: JSONValue) -> str:
    """A recorded system prompt as text: a string, or the text of its blocks."""
    return content_text(system, "\n")  # the text the candidate's prompt file is set beside, line for line


def first_difference(recorded: str, candidate: str) -> int:
    """The 1-based first line of ``candidate`` that differs from ``recorded`` (1 when they are the same)."""
    before, after = recorded.splitlines(), candidate.splitlines()
    for number, (old, new) in enumerate(zip(before, after, strict=False), start=1):
        if old != new:
            return number
    if len(before) == len(after):
        return 1
    return max(1, min(len(before) + 1, len(after)))


@record
class CandidateInputs:
    """The lines a replay's findings point at, worked out once per replay."""

    system: Location | None
    tools: Location | None
    changed_tools: dict[str, Location] = field(default_factory=dict)
    fallback: Location | None = None

    def for_tool(self, tool: str) -> Location:
        """Where a change to a tool's calls points: that tool's changed definition, else the edit."""
        found = self.changed_tools.get(tool) or self.edit
        if found is None:
            raise ValueError("no candidate input to point at")
        return found

    @property
    def edit(self) -> Location | None:
        """Where a finding about the whole edit points: the prompt's changed line, the tools file, the config."""
        return self.system or self.tools or self.fallback


def changed_tool_lines(
    tools: Node, candidates: Sequence[ToolDef], recorded: Sequence[ToolDef]
) -> tuple[dict[str, int], int | None]:
    """Per tool whose definition differs from the recorded one, its line in the tools file; and the first."""
    known = {tool.name: tool for tool in recorded}
    lines: dict[str, int] = {}
    for element, tool in zip(tools.elements(), candidates, strict=False):
        if known.get(tool.name) != tool:
            lines[tool.name] = element.line
    return lines, min(lines.values(), default=None)
