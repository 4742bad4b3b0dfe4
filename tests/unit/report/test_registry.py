"""The one registry of renderers: every report of every command comes from it, and nothing else renders one."""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest

from tests.conftest import ROOT
from toolreplay.analysis.audit import AuditReport
from toolreplay.analysis.diff import DiffResult
from toolreplay.core.model import Finding, FindingKind
from toolreplay.core.outcome import CheckReport
from toolreplay.report.registry import RENDERERS, formats, render
from toolreplay.results.shown import FileAudit
from toolreplay.results.tools import LintShown


@pytest.mark.parametrize("renderer", RENDERERS, ids=lambda r: f"{r.format}:{r.outcome.rsplit('.', 1)[1]}")
def test_every_renderer_loads_a_function_of_the_outcome_it_names(renderer: object) -> None:
    module, name = renderer.outcome.rsplit(".", 1)  # type: ignore[attr-defined]
    assert inspect.isclass(getattr(importlib.import_module(module), name))
    function = renderer.load()  # type: ignore[attr-defined]
    assert len(inspect.signature(function).parameters) >= 1


def test_a_check_is_written_in_every_format_and_a_diff_in_its_two() -> None:
    assert sorted(formats(CheckReport)) == ["annotations", "html", "json", "markdown", "sarif", "text"]
    assert formats(DiffResult) == ("text", "json")


def test_an_outcome_with_no_such_report_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no markdown report of a LintShown"):
        render("markdown", LintShown(()))


def test_one_of_several_files_audited_is_headed_by_its_name() -> None:
    report = AuditReport(3, None, (Finding(2, FindingKind.REDUNDANT_CALL, "read_file called twice", 3),))
    alone, second = render("text", FileAudit("a.jsonl", report)), render("text", FileAudit("b.jsonl", report, 1, 2))
    assert second == "\n== b.jsonl ==\n" + alone
    assert "read_file called twice" in alone


def test_the_commands_render_no_report_but_through_the_registry() -> None:
    """A command's module imports no renderer: it hands its outcome to the emitter, which asks the registry."""
    found = []
    for path in sorted((ROOT / "src" / "toolreplay" / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                registry = node.module == "toolreplay.report.registry"
                renders = node.module.startswith("toolreplay.report.") and not registry
                if renders or (not registry and any(alias.name.startswith("render") for alias in node.names)):
                    found.append(f"{path.name}: from {node.module} import {', '.join(a.name for a in node.names)}")
    assert found == []
