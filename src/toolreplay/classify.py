"""What a call can do to the world: read-only, write, destructive, or unknown.

For now the class comes from the tool's MCP annotations, read as the MCP
specification defines them: ``readOnlyHint`` defaults to false and
``destructiveHint`` to true, so an annotated tool that claims neither is
destructive. A tool without annotations is unknown.
"""

from __future__ import annotations

import enum

from toolreplay.model import ToolDef


class CallClass(enum.Enum):
    """How much a call can change, from least to most."""

    READ_ONLY = "read-only"
    WRITE = "write"
    DESTRUCTIVE = "destructive"
    UNKNOWN = "unknown"


def class_from_annotations(tool: ToolDef | None) -> CallClass:
    """The class a tool's MCP annotations give it."""
    if tool is None or tool.annotations is None:
        return CallClass.UNKNOWN
    if tool.annotations.get("readOnlyHint", False) is True:
        return CallClass.READ_ONLY
    if tool.annotations.get("destructiveHint", True) is True:
        return CallClass.DESTRUCTIVE
    return CallClass.WRITE
