"""``tools diff`` and ``tools lint`` as text and JSON: a surface's changes, each at its level, and the lint's
findings, each at its file and line."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from toolreplay.core.escape import lines_for_terminal
from toolreplay.core.findings import Level

if TYPE_CHECKING:
    from toolreplay.results.tools import LintShown, SurfaceChanges

_LEVELS = {Level.ERROR: "error", Level.WARNING: "warning", Level.NOTE: "note"}


def render_changes(shown: SurfaceChanges) -> str:
    lines = [f"tools diff: {shown.old_tools} tools in {shown.old}, {shown.new_tools} in {shown.new}"]
    lines += [f"  {_LEVELS[c.level]:<8} {c.kind.value:<22} {c.tool}  {c.detail}" for c in shown.changes]
    lines.append("no change" if not shown.changes else f"{len(shown.changes)} changes")
    return lines_for_terminal(lines)


def render_changes_json(shown: SurfaceChanges) -> str:
    rows = [
        {"kind": c.kind.value, "level": _LEVELS[c.level], "tool": c.tool, "detail": c.detail, "line": c.line}
        for c in shown.changes
    ]
    return json.dumps({"old": shown.old, "new": shown.new, "changes": rows}, indent=2, ensure_ascii=False) + "\n"


def render_lint(shown: LintShown) -> str:
    lines = [f"{f.path}:{f.line}  {f.rule.value:<22} {f.tool} {f.field}: {f.excerpt}" for f in shown.findings]
    return lines_for_terminal(lines or ["tools lint: nothing found"])
