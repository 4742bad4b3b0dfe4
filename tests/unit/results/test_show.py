"""What ``show`` prints of a call: its text, turn and class, and a read-only claim a rule disagrees with."""

from __future__ import annotations

from pathlib import Path

from toolreplay.analysis.classify import Classifier
from toolreplay.core.model import Call, ToolDef
from toolreplay.formats.rules import read_rules
from toolreplay.results.show import class_label, show_row


def test_a_row_holds_the_call_and_its_class_and_says_an_error_result(tmp_path: Path) -> None:
    call = Call(4, "delete_path", {"path": "/tmp/x"}, "gone", 12, False, 2)
    assert show_row(call, "destructive") == (4, 2, 'delete_path(path="/tmp/x")', "destructive")
    failed = Call(5, "read", {}, "no such file", 13, True, 2)
    assert show_row(failed, "read-only")[3] == "read-only  (error result)"
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rules]]\ntool = "purge"\nclass = "destructive"\n', encoding="utf-8")
    claimed = ToolDef("purge", "", {"type": "object"}, {"readOnlyHint": True})
    classifier = Classifier(read_rules(str(rules)), [claimed])
    assert class_label(Call(0, "purge", {}, None, 1), classifier) == "destructive (annotations say read-only)"
