"""A check report as JSON, and back: the form shards are merged from.

The document holds every unit's result in full, so reading it back gives the
same :class:`CheckReport`, and every other report rendered from it is the same
as the unsharded run's.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from toolreplay.canonical import JSONObject, JSONValue, canonical_bytes
from toolreplay.check.model import (
    CallView,
    ChangeRow,
    CheckFinding,
    CheckReport,
    DiffRow,
    DiffView,
    FieldView,
    Location,
    Rule,
    RunView,
    UnitResult,
    UnrecordedRow,
    parse_shard,
)
from toolreplay.formats.files import read_text
from toolreplay.formats.located import JSON_DEPTH, Node, parse_json
from toolreplay.verdict import FailOn
from toolreplay.wording import count

FORMAT = "toolreplay-check"
# 3: each change's turn and runs, each replay's runs and calls (what the HTML page draws); 4: each finding's
# absent_from (a call the recording never made has no recorded line)
VERSION = 4
_CHANGE_FIELDS = (
    "kind",
    "tool",
    "args",
    "class",
    "hits",
    "runs",
    "baseline_hits",
    "baseline_runs",
    "p",
    "q",
    "verdict",
    "behaviour",
    "turn",
    "made_in",
    "baseline_made_in",
)
_CALL_FIELDS = ("tool", "args", "class", "line", "answered")
_RUN_FIELDS = ("side", "number", "ending", "source", "calls")
_SIDES = ("edited", "unchanged", "compared")
REPORT_WRAPPING = 16  # levels a check report adds around a call's arguments, with room to spare
_T = TypeVar("_T")
_E = TypeVar("_E", bound=enum.Enum)


def _location(location: Location) -> JSONObject:
    return {"path": location.path, "line": location.line}


def _finding(finding: CheckFinding) -> JSONObject:
    return {
        "rule": finding.rule.value,
        "level": finding.level.value,
        "message": finding.message,
        "location": _location(finding.location),
        "related": [_location(place) for place in finding.related],
        "absent_from": finding.absent_from,
        "fingerprint": finding.fingerprint,
    }


def _change(row: ChangeRow) -> JSONObject:
    return {
        "kind": row.kind,
        "tool": row.tool,
        "args": row.args,
        "class": row.klass,
        "hits": row.hits,
        "runs": row.runs,
        "baseline_hits": row.baseline_hits,
        "baseline_runs": row.baseline_runs,
        "p": row.p,
        "q": row.q,
        "verdict": row.verdict,
        "behaviour": row.behaviour,
        "turn": row.turn,
        "made_in": list(row.made_in),
        "baseline_made_in": list(row.baseline_made_in),
    }


def _call(call: CallView | None) -> JSONValue:
    if call is None:
        return None
    return {"tool": call.tool, "args": call.args, "class": call.klass, "line": call.line, "answered": call.answered}


def _run(run: RunView) -> JSONObject:
    calls: list[JSONValue] = [_call(call) for call in run.calls]
    return {"side": run.side, "number": run.number, "ending": run.ending, "source": run.source, "calls": calls}


def _diff(diff: DiffView | None) -> JSONValue:
    if diff is None:
        return None
    rows: list[JSONValue] = [
        {
            "kind": row.kind,
            "a": _call(row.a),
            "b": _call(row.b),
            "fields": [{"path": f.path, "before": f.before, "after": f.after} for f in row.fields],
        }
        for row in diff.rows
    ]
    return {"a": diff.a, "b": diff.b, "rows": rows}


def _unrecorded(row: UnrecordedRow) -> JSONObject:
    return {
        "tool": row.tool,
        "args": row.args,
        "class": row.klass,
        "hits": row.hits,
        "runs": row.runs,
        "answered": row.answered,
    }


def results_digest(document: JSONObject) -> str:
    """The SHA-256 of the report's canonical bytes, all but what is derived from them (the verdict, the counts
    and the digest itself): a shard edited by hand no longer matches. It catches edits, not forgers: whoever
    edits a report can compute the digest again, as with a sealed file."""
    covered = {key: value for key, value in document.items() if key not in ("verdict", "counts", "results_digest")}
    return hashlib.sha256(canonical_bytes(covered)).hexdigest()


def check_document(report: CheckReport) -> JSONObject:
    results: list[JSONValue] = [
        {
            "key": result.key,
            "analysis": result.analysis,
            "subject": result.subject,
            "summary": result.summary,
            "inputs": list(result.inputs),
            "findings": [_finding(finding) for finding in result.findings],
            "changes": [_change(row) for row in result.changes],
            "unrecorded": [_unrecorded(row) for row in result.unrecorded],
            "recording": [_call(call) for call in result.recording],
            "runs": [_run(run) for run in result.runs],
            "diff": _diff(result.diff),
        }
        for result in report.results
    ]
    document: JSONObject = {
        "format": FORMAT,
        "version": VERSION,
        "config": report.config,
        "config_digest": report.config_digest,
        "fail_on": report.fail_on.value,
        "shard": f"{report.shard[0]}/{report.shard[1]}" if report.shard else None,
        "verdict": report.verdict.value,
        "counts": {rule.value: count for rule, count in report.counts.items()},
        "units": list(report.units),
        "results": results,
    }
    document["results_digest"] = results_digest(document)
    return document


def render_check_json(report: CheckReport) -> str:
    return json.dumps(check_document(report), indent=2, ensure_ascii=False) + "\n"


def _text(node: Node, key: str) -> str:
    return node.member(key).string()


def _count(node: Node, key: str) -> int:
    value = node.member(key).integer()
    if value < 0:
        raise node.member(key).fail(f"must be 0 or more, found {value}")
    return value


def _optional(node: Node, key: str, read: Callable[[Node], _T]) -> _T | None:
    member = node.member(key)
    return None if member.value is None else read(member)


def _probability(node: Node) -> float:
    value = node.number()
    if not 0 <= value <= 1:
        raise node.fail(f"must be between 0 and 1, found {value:g}")
    return value


def _enum(node: Node, kind: type[_E]) -> _E:
    value = node.string()
    try:
        return kind(value)
    except ValueError:
        raise node.fail(f"must be one of {', '.join(str(m.value) for m in kind)}, found '{value}'") from None


def _read_location(node: Node) -> Location:
    node.object().only(("path", "line"), "a location").require("path", "line")
    line = node.member("line").integer()
    if line < 1:
        raise node.member("line").fail(f"must be 1 or more, found {line}")
    return Location(_text(node, "path"), line)


def _read_finding(node: Node) -> CheckFinding:
    fields = ("rule", "level", "message", "location", "related", "absent_from", "fingerprint")
    node.object().only(fields, "a finding").require(*fields)
    rule = _enum(node.member("rule"), Rule)
    if node.value["level"] != rule.info.level.value:
        raise node.member("level").fail(f"must be '{rule.info.level.value}' for {rule.value}")
    return CheckFinding(
        rule,
        _text(node, "message"),
        _read_location(node.member("location")),
        tuple(_read_location(place) for place in node.member("related").array().elements()),
        _text(node, "fingerprint"),
        _optional(node, "absent_from", Node.string),
    )


def _read_change(node: Node) -> ChangeRow:
    node.object().only(_CHANGE_FIELDS, "a change").require(*_CHANGE_FIELDS)
    row = _change_row(node)
    if row.hits > row.runs:
        raise node.member("hits").fail(f"must be at most runs ({row.runs}), found {row.hits}")
    if len(row.made_in) != row.hits:
        raise node.member("made_in").fail(
            f"must name the {count(row.hits, 'run')} that made it, found {len(row.made_in)}"
        )
    if (row.baseline_hits is None) != (row.baseline_runs is None):
        raise node.member("baseline_hits").fail("and baseline_runs must both be numbers, or both null")
    if row.baseline_hits is not None and row.baseline_runs is not None:
        if not 0 <= row.baseline_hits <= row.baseline_runs:
            where = node.member("baseline_hits")
            raise where.fail(f"must be between 0 and baseline_runs ({row.baseline_runs}), found {row.baseline_hits}")
        if len(row.baseline_made_in) != row.baseline_hits:
            raise node.member("baseline_made_in").fail(
                f"must name the {count(row.baseline_hits, 'unchanged run')} that made it, "
                f"found {len(row.baseline_made_in)}"
            )
    elif row.baseline_made_in:
        raise node.member("baseline_made_in").fail("must be empty without a baseline")
    return row


def _change_row(node: Node) -> ChangeRow:
    return ChangeRow(
        _text(node, "kind"),
        _text(node, "tool"),
        node.member("args").object().value,
        _text(node, "class"),
        _count(node, "hits"),
        _count(node, "runs"),
        _optional(node, "baseline_hits", Node.integer),
        _optional(node, "baseline_runs", _count_node),
        _optional(node, "p", _probability),
        _optional(node, "q", _probability),
        _text(node, "verdict"),
        _count(node, "behaviour"),
        _positive(node, "turn"),
        _numbers(node.member("made_in")),
        _numbers(node.member("baseline_made_in")),
    )


MAX_NUMBER = 1_000_000  # runs a replay can make (10,000 a round, 100 rounds), and turns a conversation can have


def _count_node(node: Node) -> int:
    value = node.integer()
    if value < 0:
        raise node.fail(f"must be 0 or more, found {value}")
    return value


def _positive(node: Node, key: str) -> int:
    value = node.member(key).integer()
    if not 1 <= value <= MAX_NUMBER:
        raise node.member(key).fail(f"must be between 1 and {MAX_NUMBER:,}, found {value}")
    return value


def _numbers(node: Node) -> tuple[int, ...]:
    """Run numbers: each 1 or more, in increasing order."""
    numbers: list[int] = []
    for item in node.array().elements():
        number = item.integer()
        if not 1 <= number <= MAX_NUMBER or (numbers and number <= numbers[-1]):
            raise item.fail(f"must be a run number above the one before it, found {number}")
        numbers.append(number)
    return tuple(numbers)


def _read_call(node: Node) -> CallView:
    node.object().only(_CALL_FIELDS, "a call").require(*_CALL_FIELDS)
    return CallView(
        _text(node, "tool"),
        node.member("args").object().value,
        _text(node, "class"),
        _count(node, "line"),
        _text(node, "answered"),
    )


def _read_run(node: Node) -> RunView:
    node.object().only(_RUN_FIELDS, "a run").require(*_RUN_FIELDS)
    side = _text(node, "side")
    if side not in _SIDES:
        raise node.member("side").fail(f"must be edited, unchanged or compared, found '{side}'")
    return RunView(
        side,
        _positive(node, "number"),
        _text(node, "ending"),
        tuple(_read_call(item) for item in node.member("calls").array().elements()),
        _text(node, "source"),
    )


def _read_field(node: Node) -> FieldView:
    node.object().only(("path", "before", "after"), "a changed argument").require("path", "before", "after")
    return FieldView(_text(node, "path"), _optional(node, "before", Node.string), _optional(node, "after", Node.string))


def _read_diff(node: Node) -> DiffView:
    node.object().only(("a", "b", "rows"), "a diff").require("a", "b", "rows")
    rows = []
    for item in node.member("rows").array().elements():
        item.object().only(("kind", "a", "b", "fields"), "a diff row").require("kind", "a", "b", "fields")
        row = DiffRow(
            _text(item, "kind"),
            _optional(item, "a", _read_call),
            _optional(item, "b", _read_call),
            tuple(_read_field(field) for field in item.member("fields").array().elements()),
        )
        if row.a is None and row.b is None:
            raise item.fail("a diff row needs a call on one side at least")
        rows.append(row)
    return DiffView(_text(node, "a"), _text(node, "b"), tuple(rows))


def _read_unrecorded(node: Node) -> UnrecordedRow:
    fields = ("tool", "args", "class", "hits", "runs", "answered")
    node.object().only(fields, "an unrecorded call").require(*fields)
    return UnrecordedRow(
        _text(node, "tool"),
        node.member("args").object().value,
        _text(node, "class"),
        _count(node, "hits"),
        _count(node, "runs"),
        _text(node, "answered"),
    )


def _read_result(node: Node) -> UnitResult:
    fields = (
        "key",
        "analysis",
        "subject",
        "summary",
        "inputs",
        "findings",
        "changes",
        "unrecorded",
        "recording",
        "runs",
        "diff",
    )
    node.object().only(fields, "a result").require(*fields)
    result = _unit_result(node)
    sides: dict[str, set[int]] = {"edited": set(), "unchanged": set(), "compared": set()}
    for item, run in zip(node.member("runs").array().elements(), result.runs, strict=True):
        if run.number in sides[run.side]:
            raise item.member("number").fail(f"{run.side} run {run.number} appears twice")
        sides[run.side].add(run.number)
    if result.runs:
        for item, row in zip(node.member("changes").array().elements(), result.changes, strict=True):
            for key, side, numbers in (
                ("made_in", "edited", row.made_in),
                ("baseline_made_in", "unchanged", row.baseline_made_in),
            ):
                missing = sorted(set(numbers) - sides[side])
                if missing:
                    raise item.member(key).fail(f"names {side} run {missing[0]}, which the result does not hold")
    return result


def _unit_result(node: Node) -> UnitResult:
    return UnitResult(
        key=_text(node, "key"),
        analysis=_text(node, "analysis"),
        subject=_text(node, "subject"),
        summary=_text(node, "summary"),
        findings=tuple(_read_finding(item) for item in node.member("findings").array().elements()),
        changes=tuple(_read_change(item) for item in node.member("changes").array().elements()),
        unrecorded=tuple(_read_unrecorded(item) for item in node.member("unrecorded").array().elements()),
        inputs=tuple(item.string() for item in node.member("inputs").array().elements()),
        recording=tuple(_read_call(item) for item in node.member("recording").array().elements()),
        runs=tuple(_read_run(item) for item in node.member("runs").array().elements()),
        diff=_optional(node, "diff", _read_diff),
    )


def _read_shard(node: Node) -> tuple[int, int]:
    try:
        return parse_shard(node.string())
    except ValueError as exc:
        raise node.fail(str(exc)) from None


_TOP_FIELDS = (
    "format",
    "version",
    "config",
    "config_digest",
    "fail_on",
    "shard",
    "verdict",
    "counts",
    "units",
    "results",
    "results_digest",
)


def read_check_report(path: str | Path) -> CheckReport:
    """Read a report ``check --json`` wrote, field by field; anything else is an :class:`InputError` at its line.

    The verdict and the counts are derived from the results, so they must be
    what the results give: a shard edited by hand is refused.
    """
    # A recording's arguments sit a few levels deeper here than in the session they came from (results, runs,
    # calls): what a session may hold, a report of it may hold too.
    top = parse_json(read_text(path), path, depth=JSON_DEPTH + REPORT_WRAPPING)
    top = top.called("a check report").object().called("")
    if top.value.get("format") != FORMAT:
        where = top.member("format") if "format" in top.value else top
        raise where.fail(f'not a toolreplay check report (no "format": "{FORMAT}")')
    top.only(_TOP_FIELDS, "a check report").require("version")
    version = top.member("version")
    if type(version.value) is not int or version.value != VERSION:
        raise version.fail(f"check report version {json.dumps(version.value)} is not supported (expected {VERSION})")
    top.require(*_TOP_FIELDS)
    units: tuple[str, ...] = ()
    for item in top.member("units").array().elements():
        if item.string() in units:
            raise item.fail(f"'{item.value}' appears twice in the check's units")
        units += (item.string(),)
    results: list[UnitResult] = []
    seen: set[str] = set()
    for item in top.member("results").array().elements():
        result = _read_result(item)
        if result.key not in units:
            raise item.member("key").fail(f"'{result.key}' is not one of the check's units")
        if result.key in seen:
            raise item.member("key").fail(f"'{result.key}' appears twice in this report")
        seen.add(result.key)
        results.append(result)
    report = CheckReport(
        config=_optional(top, "config", Node.string),
        config_digest=_text(top, "config_digest"),
        fail_on=_enum(top.member("fail_on"), FailOn),
        units=units,
        results=tuple(results),
        shard=_optional(top, "shard", _read_shard),
    )
    derived = check_document(report)
    for name in ("results_digest", "verdict", "counts"):
        if top.value[name] != derived[name]:
            raise top.member(name).fail(
                f"does not match the results ({json.dumps(derived[name])}): the report was edited"
            )
    return report
