"""The tools unit: a recorded (or candidate) tool surface against the lock, and its texts linted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from toolreplay.check.context import Checker
from toolreplay.check.plan import Unit
from toolreplay.core.errors import InputError
from toolreplay.core.findings import Level, Rule
from toolreplay.core.outcome import Analysis, CheckFinding, Location, UnitResult
from toolreplay.core.wording import count
from toolreplay.results.locate import fingerprint

if TYPE_CHECKING:  # the surface is loaded only by a check that has a tools analysis
    from toolreplay.surface.judge import Judge, JudgeVerdict
    from toolreplay.surface.model import Surface, SurfaceTool


def tools_unit(checker: Checker, unit: Unit) -> UnitResult:
    """A tool surface against the lock, and its texts linted."""
    from toolreplay.surface.drift import LEVELS, DriftKind, diff_surfaces  # noqa: PLC0415 - the tools analysis only
    from toolreplay.surface.lint import LintRule, lint_surface  # noqa: PLC0415
    from toolreplay.surface.lock import read_lock  # noqa: PLC0415
    from toolreplay.surface.model import Surface  # noqa: PLC0415
    from toolreplay.surface.sources import read_surface, session_surface  # noqa: PLC0415

    setting = checker.config.tools
    assert setting is not None
    kinds = {kind.value: kind for kind in DriftKind}
    levels = dict(LEVELS)
    for name, level, line in setting.levels:
        if name not in kinds:
            raise InputError(f"'{name}' is no kind of change; the kinds: {', '.join(kinds)}", checker.config.path, line)
        levels[kinds[name]] = Level(level)
    rules = {rule.value for rule in LintRule}
    for rule_name, _, _, line in setting.accept:
        if rule_name not in rules:
            raise InputError(
                f"'{rule_name}' is no lint rule; the rules: {', '.join(sorted(rules))}", checker.config.path, line
            )
    shown = checker.paths.show(unit.path)
    if unit.path in checker.config.sessions:
        surface = session_surface(checker.session(unit.path), unit.path)  # read once, with the replays
    else:
        surface = read_surface(unit.path)
    findings: list[CheckFinding] = []
    inputs: tuple[str, ...] = ()
    if setting.lock is not None:
        if checker.lock is None:
            checker.lock = read_lock(setting.lock)  # once for every surface held to it
        lock = checker.lock
        if unit.path not in checker.config.sessions:  # a candidate's tools file names no server: each tool is
            surface = with_pinned_servers(surface, lock.tools)  # the server's the lock pins it for, matched by name
        servers = {tool.server for tool in surface.tools}
        pinned = Surface(
            lock.path,
            tuple(tool for tool in lock.tools if tool.server in servers),
            listed=tuple(item for item in lock.listed if item.server in servers),
        )
        inputs = (checker.paths.show(setting.lock),)
        for server in sorted(servers - {tool.server for tool in lock.tools}):  # held to nothing: said
            named = f"server {server}" if server else "its tools' server"
            findings.append(
                CheckFinding(
                    rule=Rule.TOOL_CHANGED,
                    message=f"the lock {inputs[0]} pins no tool of {named}: its tools here are held to nothing",
                    location=Location(shown, 1),
                    fingerprint=fingerprint(Rule.TOOL_CHANGED.value, shown, "unpinned", server),
                    severity=Level.WARNING,
                )
            )
        for drift in diff_surfaces(pinned, surface):
            drift_level = levels[drift.kind]
            where = Location(checker.paths.show(drift.path), max(drift.line, 1))
            findings.append(
                CheckFinding(
                    rule=Rule.TOOL_CHANGED,
                    message=f"{drift.kind.value}: {drift.tool}: {drift.detail} (against {inputs[0]})",
                    location=where,
                    fingerprint=fingerprint(Rule.TOOL_CHANGED.value, shown, drift.kind.value, drift.tool),
                    severity=None if drift_level is Rule.TOOL_CHANGED.level else drift_level,
                )
            )
    warned = {LintRule.ADDRESS, LintRule.SHADOWING, LintRule.BLOB, LintRule.JUDGE_FAILED}  # the likelier to be meant
    accepted = {(rule, tool) for rule, tool, _, _ in setting.accept}
    judge = _judge(checker) if setting.judge is not None else None
    asked = judge.asked if judge is not None else 0
    for lint in lint_surface(surface, judge) if setting.lint else []:
        if (lint.rule.value, lint.tool) in accepted:
            continue
        findings.append(
            CheckFinding(
                rule=Rule.TOOL_TEXT,
                message=f"{lint.rule.value}: {lint.tool} {lint.field}: {lint.excerpt}",
                location=Location(shown, max(lint.line, 1)),
                fingerprint=fingerprint(Rule.TOOL_TEXT.value, shown, lint.rule.value, lint.tool, lint.field),
                severity=Level.WARNING if lint.rule in warned else None,
            )
        )
    summary = f"{count(len(surface.tools), 'tool')}" + (
        f", {count(len(findings), 'finding')}" if findings else ", clean"
    )
    if judge is not None and judge.asked > asked:
        held = "not in the lock; tools pin --judge keeps their verdicts" if setting.lock else "none kept"
        summary += f"; {count(judge.asked - asked, 'text')} asked of the judge ({held})"
    return UnitResult(
        key=unit.key,
        analysis=Analysis.TOOLS,
        subject=shown,
        summary=summary,
        inputs=inputs,
        findings=tuple(findings),
    )


def _judge(checker: Checker) -> Judge:
    """The check's judge: the config's model, knowing the verdicts the lock keeps, each text asked once however
    many surfaces hold it. Under ``--base`` they are the base's lock's verdicts whichever policy governs: a verdict
    is the judge's word, and the pull request's lock may hold words no judge said (``safe`` for its own text)."""
    from toolreplay.surface.judge import model_judge  # noqa: PLC0415 - only a check with a judge asks a model

    setting = checker.config.tools
    assert setting is not None
    assert setting.judge is not None
    if checker.tool_judge is None:
        known = checker.lock.verdicts if checker.lock is not None else None
        if checker.base is not None:
            known = _base_verdicts(checker)
        checker.tool_judge = model_judge(setting.judge, setting.judge_url, None, known, deferred=True)
    return checker.tool_judge


def _base_verdicts(checker: Checker) -> Mapping[str, JudgeVerdict]:
    """The verdicts of the base's lock; none where the base had no lock or one the check cannot read (its texts are
    then asked again, never taken from the pull request)."""
    from toolreplay.surface.lock import read_lock  # noqa: PLC0415

    if checker.base_lock is None:
        return {}
    if checker.lock is not None and checker.config.tools is not None and checker.config.tools.lock == checker.base_lock:
        return checker.lock.verdicts or {}  # the base's policy governs: the lock read is the base's already
    try:
        return read_lock(checker.base_lock).verdicts or {}
    except InputError:
        return {}


def with_pinned_servers(surface: Surface, pinned: Sequence[SurfaceTool]) -> Surface:
    """A surface whose tools name no server (a tools file), each given the server the lock pins a tool of its name
    for, where exactly one does, so the lock sees a tool changed, not a tool removed and another added."""
    owners: dict[str, set[str]] = {}
    for tool in pinned:
        owners.setdefault(tool.name, set()).add(tool.server)
    tools = tuple(
        replace(tool, server=next(iter(owners[tool.name])))
        if not tool.server and len(owners.get(tool.name, ())) == 1
        else tool
        for tool in surface.tools
    )
    return replace(surface, tools=tools)
