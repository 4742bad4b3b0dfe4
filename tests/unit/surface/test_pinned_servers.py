"""A candidate's tools file names no server; the lock does. Matched by tool name, the lock sees the change."""

from __future__ import annotations

from toolreplay.check.tools import with_pinned_servers
from toolreplay.core.canonical import JSONObject
from toolreplay.surface.drift import DriftKind, diff_surfaces
from toolreplay.surface.model import Surface, SurfaceTool


def _tool(server: str, name: str, destructive: bool) -> SurfaceTool:
    raw: JSONObject = {"name": name, "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": destructive}}
    return SurfaceTool(server, raw, "tools.json", 1)


def test_a_tools_file_is_matched_to_the_locks_servers_by_tool_name() -> None:
    pinned = Surface("tools.lock", (_tool("git", "git_reset", True), _tool("git", "git_status", False)))
    given = Surface("tools.json", (_tool("", "git_reset", False), _tool("", "git_status", False)))
    unmatched = {drift.kind for drift in diff_surfaces(pinned, given)}
    assert unmatched == {DriftKind.REMOVED, DriftKind.ADDED}  # what the lock saw before: nothing it could weigh
    matched = with_pinned_servers(given, pinned.tools)
    assert [tool.server for tool in matched.tools] == ["git", "git"]
    assert [(d.kind, d.tool) for d in diff_surfaces(pinned, matched)] == [
        (DriftKind.ANNOTATION_WEAKENED, "git/git_reset")
    ]


def test_a_name_two_servers_pin_is_left_unmatched() -> None:
    pinned = Surface("tools.lock", (_tool("a", "read", False), _tool("b", "read", False)))
    given = Surface("tools.json", (_tool("", "read", False),))
    assert [tool.server for tool in with_pinned_servers(given, pinned.tools).tools] == [""]
