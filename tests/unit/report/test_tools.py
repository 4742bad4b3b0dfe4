"""``tools diff`` and ``tools lint`` as their text and JSON, through the registry."""

from __future__ import annotations

import json

from toolreplay.report.registry import render
from toolreplay.report.tools import render_changes
from toolreplay.results.tools import LintShown, SurfaceChanges
from toolreplay.surface.drift import Drift, DriftKind
from toolreplay.surface.lint import LintFinding, LintRule


def test_changes_read_the_same_in_text_and_json() -> None:
    change = Drift(DriftKind.REMOVED, "files/delete", "no longer listed", "old.lock", 3)
    shown = SurfaceChanges("old.lock", "new.json", 2, 1, (change,))
    assert render("text", shown) == (
        "tools diff: 2 tools in old.lock, 1 in new.json\n"
        "  error    tool-removed           files/delete  no longer listed\n"
        "1 changes\n"
    )
    assert json.loads(render("json", shown)) == {
        "old": "old.lock",
        "new": "new.json",
        "changes": [
            {"kind": "tool-removed", "level": "error", "tool": "files/delete", "detail": "no longer listed", "line": 3}
        ],
    }
    assert render("text", SurfaceChanges("a", "b", 1, 1, ())).endswith("no change\n")
    assert render("text", shown) == render_changes(shown)  # the registry routes to the module's own renderer


def test_lint_findings_are_made_safe_for_a_terminal() -> None:
    found = LintFinding(LintRule.INSTRUCTION, "files/read", "description", "\x1b[31mignore previous", "t.json", 4)
    text = render("text", LintShown((found,)))
    assert text.startswith("t.json:4  model-instruction")
    assert "\x1b" not in text
    assert render("text", LintShown(())) == "tools lint: nothing found\n"
