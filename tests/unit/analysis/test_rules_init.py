"""A starter rules file from sessions: every tool with the class its annotations give, the unannotated to review."""

from __future__ import annotations

from tests.conftest import ROOT
from toolreplay.analysis.rules_init import claude_code_rules, starter_rules
from toolreplay.formats.recording import load_session


def test_every_tool_gets_a_rule_and_the_unannotated_ones_ask_for_a_review() -> None:
    session = load_session(str(ROOT / "samples" / "ops" / "session.json"))
    assert session.context is not None
    document, header = starter_rules([session])
    rules = {rule["tool"]: rule["class"] for rule in document["rules"]}
    assert set(rules) == {tool.name for tool in session.context.tools}
    assert rules["delete_path"] == "destructive"
    assert header
    assert not any(rule["tool"] == "Bash" for rule in document["rules"])  # not a Claude Code session


def test_claude_codes_own_tools_come_with_rules_of_their_own() -> None:
    shipped = claude_code_rules()
    assert {"Read", "Edit", "Bash"} <= {rule["tool"] for rule in shipped}
    assert any(rule["tool"] == "Bash" and rule["class"] == "destructive" for rule in shipped)
