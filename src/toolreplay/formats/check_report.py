"""A check report as JSON, and back: the form shards are merged from.

The document holds every unit's result in full, so reading it back gives the
same :class:`~toolreplay.core.outcome.CheckReport`, and every other report rendered
from it is the same as the unsharded run's. Its fields are the records' own
(:mod:`toolreplay.core.outcome`), in their order, each enum as its value: the
writer is derived from the records, and the reader asks for exactly their
fields.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes
from toolreplay.core.files import read_text
from toolreplay.core.findings import ChangeVerdict, Level, Rule
from toolreplay.core.model import CallClass, Origin, PairKind
from toolreplay.core.outcome import (
    Analysis,
    CallView,
    ChangeRow,
    CheckFinding,
    CheckReport,
    DiffRow,
    DiffView,
    FieldView,
    Location,
    PolicyInfo,
    PolicyRow,
    RunView,
    Side,
    ToolChange,
    UnitResult,
    UnrecordedRow,
    parse_shard,
)
from toolreplay.core.verdict import FailOn
from toolreplay.core.wording import count
from toolreplay.formats.parsing.json_text import JSON_DEPTH, parse_json
from toolreplay.formats.parsing.node import Node

FORMAT = "toolreplay-check"
# 3: each change's turn and runs, each replay's runs and calls (what the HTML page draws); 4: each finding's
# absent_from (a call the recording never made has no recorded line); 5: a replay's tools, against the recorded
# ones; 7: the policies the check judged by, each replay's and comparison's policies, the policy a finding is about
VERSION = 7
REPORT_WRAPPING = 16  # levels a check report adds around a call's arguments, with room to spare
_T = TypeVar("_T")
_E = TypeVar("_E", bound=enum.Enum)
_UNWRITTEN = frozenset({"severity"})  # a finding's level is written as "level", its rule's or its own
_NAMES = {"klass": "class"}  # a field whose JSON name is not its own (class is Python's)
_ORIGINS = {origin.words: origin for origin in Origin}  # a report says how a call was answered in words


def _fields(record: type) -> tuple[str, ...]:
    """A record's fields by their JSON names, in its order; a finding adds its level (its rule's) after its rule."""
    names = tuple(_NAMES.get(f.name, f.name) for f in dataclasses.fields(record) if f.name not in _UNWRITTEN)
    return ("rule", "level", *names[1:]) if record is CheckFinding else names


def _encode(value: object) -> JSONValue:
    """A record as a JSON object of its fields, an enum as its value, a tuple as an array; JSON as it is."""
    if isinstance(value, Origin):
        return value.words
    if isinstance(value, enum.Enum):
        encoded: JSONValue = value.value
        return encoded
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {
            _NAMES.get(f.name, f.name): _encode(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.name not in _UNWRITTEN
        }
        if isinstance(value, CheckFinding):
            fields = {"rule": fields.pop("rule"), "level": value.level.value, **fields}
        return fields
    if isinstance(value, tuple):
        return [_encode(item) for item in value]
    if value is None or isinstance(value, str | int | float | dict | list):
        return value
    raise TypeError(f"a check report holds no {type(value).__name__}")


def results_digest(document: JSONObject) -> str:
    """The SHA-256 of the report's canonical bytes, all but what is derived from them (the verdict, the counts
    and the digest itself): a shard edited by hand no longer matches. It catches edits, not forgers: whoever
    edits a report can compute the digest again, as with a sealed file."""
    covered = {key: value for key, value in document.items() if key not in ("verdict", "counts", "results_digest")}
    return hashlib.sha256(canonical_bytes(covered)).hexdigest()


def check_document(report: CheckReport) -> JSONObject:
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
        "policies": _encode(report.policies),
        "results": _encode(report.results),
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


def _shape(node: Node, record: type, what: str) -> None:
    """The node is an object with exactly the record's fields."""
    fields = _fields(record)
    node.object().only(fields, what).require(*fields)


def _origin(node: Node) -> Origin:
    words = node.string()
    if words not in _ORIGINS:
        raise node.fail(f"must be one of {', '.join(_ORIGINS)}, found '{words}'")
    return _ORIGINS[words]


def _read_location(node: Node) -> Location:
    _shape(node, Location, "a location")
    line = node.member("line").integer()
    if line < 1:
        raise node.member("line").fail(f"must be 1 or more, found {line}")
    return Location(_text(node, "path"), line)


def _read_finding(node: Node) -> CheckFinding:
    _shape(node, CheckFinding, "a finding")
    rule = _enum(node.member("rule"), Rule)
    levels = {level.value: level for level in (rule.level, *rule.info.levels)}
    if node.value["level"] not in levels:
        raise node.member("level").fail(f"must be {' or '.join(repr(v) for v in levels)} for {rule.value}")
    level = levels[node.value["level"]]
    return CheckFinding(
        severity=None if level is rule.level else level,
        rule=rule,
        message=_text(node, "message"),
        location=_read_location(node.member("location")),
        related=tuple(_read_location(place) for place in node.member("related").array().elements()),
        absent_from=_optional(node, "absent_from", Node.string),
        fingerprint=_text(node, "fingerprint"),
        policy=_optional(node, "policy", Node.string),
    )


def _read_policy_row(node: Node) -> PolicyRow:
    _shape(node, PolicyRow, "a policy's row")
    row = PolicyRow(
        _text(node, "id"),
        _enum(node.member("level"), Level),
        _text(node, "why"),
        _text(node, "says"),
        _count(node, "hits"),
        _count(node, "runs"),
        _optional(node, "baseline_hits", _count_node),
        _optional(node, "baseline_runs", _count_node),
        _optional(node, "p", _probability),
        _optional(node, "q", _probability),
        _enum(node.member("verdict"), ChangeVerdict),
        _numbers(node.member("made_in")),
        _numbers(node.member("baseline_made_in")),
        _text(node, "example"),
    )
    if row.hits > row.runs or len(row.made_in) != row.hits:
        raise node.member("made_in").fail(f"must name the {count(row.hits, 'run')} that broke it, of {row.runs}")
    if (row.baseline_hits is None) != (row.baseline_runs is None):
        raise node.member("baseline_hits").fail("and baseline_runs must both be numbers, or both null")
    if len(row.baseline_made_in) != (row.baseline_hits or 0):
        raise node.member("baseline_made_in").fail("must name the unchanged runs that broke it")
    return row


def _read_policy_info(node: Node) -> PolicyInfo:
    _shape(node, PolicyInfo, "a policy")
    return PolicyInfo(_text(node, "id"), _enum(node.member("level"), Level), _text(node, "why"), _text(node, "says"))


def _read_change(node: Node) -> ChangeRow:
    _shape(node, ChangeRow, "a change")
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
        _enum(node.member("kind"), PairKind),
        _text(node, "tool"),
        node.member("args").object().value,
        _enum(node.member("class"), CallClass),
        _count(node, "hits"),
        _count(node, "runs"),
        _optional(node, "baseline_hits", Node.integer),
        _optional(node, "baseline_runs", _count_node),
        _optional(node, "p", _probability),
        _optional(node, "q", _probability),
        _enum(node.member("verdict"), ChangeVerdict),
        _count(node, "behaviour"),
        _positive(node, "turn"),
        _numbers(node.member("made_in")),
        _numbers(node.member("baseline_made_in")),
        tuple(_read_field(item) for item in node.member("fields").array().elements()),
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
    _shape(node, CallView, "a call")
    return CallView(
        _text(node, "tool"),
        node.member("args").object().value,
        _enum(node.member("class"), CallClass),
        _count(node, "line"),
        _origin(node.member("answered")),
    )


def _read_run(node: Node) -> RunView:
    _shape(node, RunView, "a run")
    return RunView(
        _enum(node.member("side"), Side),
        _positive(node, "number"),
        _text(node, "ending"),
        _text(node, "source"),
        tuple(_read_call(item) for item in node.member("calls").array().elements()),
    )


def _read_field(node: Node) -> FieldView:
    _shape(node, FieldView, "a changed argument")
    return FieldView(_text(node, "path"), _optional(node, "before", Node.string), _optional(node, "after", Node.string))


def _read_diff(node: Node) -> DiffView:
    _shape(node, DiffView, "a diff")
    rows = []
    for item in node.member("rows").array().elements():
        _shape(item, DiffRow, "a diff row")
        row = DiffRow(
            _enum(item.member("kind"), PairKind),
            _optional(item, "a", _read_call),
            _optional(item, "b", _read_call),
            tuple(_read_field(field) for field in item.member("fields").array().elements()),
        )
        if row.a is None and row.b is None:
            raise item.fail("a diff row needs a call on one side at least")
        rows.append(row)
    return DiffView(_text(node, "a"), _text(node, "b"), tuple(rows))


def _read_unrecorded(node: Node) -> UnrecordedRow:
    _shape(node, UnrecordedRow, "an unrecorded call")
    return UnrecordedRow(
        _text(node, "tool"),
        node.member("args").object().value,
        _enum(node.member("class"), CallClass),
        _count(node, "hits"),
        _count(node, "runs"),
        _origin(node.member("answered")),
    )


def _read_tool_change(node: Node) -> ToolChange:
    _shape(node, ToolChange, "a tool's change")
    return ToolChange(
        _text(node, "kind"),
        _enum(node.member("level"), Level),
        _text(node, "tool"),
        _text(node, "detail"),
        _read_location(node.member("location")),
        node.member("called").boolean(),
    )


def _read_result(node: Node) -> UnitResult:
    _shape(node, UnitResult, "a result")
    result = _unit_result(node)
    sides: dict[Side, set[int]] = {side: set() for side in Side}
    for item, run in zip(node.member("runs").array().elements(), result.runs, strict=True):
        if run.number in sides[run.side]:
            raise item.member("number").fail(f"{run.side.value} run {run.number} appears twice")
        sides[run.side].add(run.number)
    if result.runs:
        for item, row in zip(node.member("changes").array().elements(), result.changes, strict=True):
            for key, side, numbers in (
                ("made_in", Side.EDITED, row.made_in),
                ("baseline_made_in", Side.UNCHANGED, row.baseline_made_in),
            ):
                missing = sorted(set(numbers) - sides[side])
                if missing:
                    where = item.member(key)
                    raise where.fail(f"names {side.value} run {missing[0]}, which the result does not hold")
    return result


def _unit_result(node: Node) -> UnitResult:
    return UnitResult(
        key=_text(node, "key"),
        analysis=_enum(node.member("analysis"), Analysis),
        subject=_text(node, "subject"),
        summary=_text(node, "summary"),
        findings=tuple(_read_finding(item) for item in node.member("findings").array().elements()),
        changes=tuple(_read_change(item) for item in node.member("changes").array().elements()),
        unrecorded=tuple(_read_unrecorded(item) for item in node.member("unrecorded").array().elements()),
        tools=tuple(_read_tool_change(item) for item in node.member("tools").array().elements()),
        policies=tuple(_read_policy_row(item) for item in node.member("policies").array().elements()),
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
    "policies",
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
        policies=tuple(_read_policy_info(item) for item in top.member("policies").array().elements()),
    )
    derived = check_document(report)
    for name in ("results_digest", "verdict", "counts"):
        if top.value[name] != derived[name]:
            raise top.member(name).fail(
                f"does not match the results ({json.dumps(derived[name])}): the report was edited"
            )
    return report
