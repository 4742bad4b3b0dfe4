"""A check report as JSON, and back: the form shards are merged from.

The document holds every unit's result in full, so reading it back gives the
same :class:`CheckReport`, and every other report rendered from it is the same
as the unsharded run's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolreplay.canonical import JSONObject, JSONValue
from toolreplay.check.model import (
    ChangeRow,
    CheckFinding,
    CheckReport,
    Location,
    Rule,
    UnitResult,
    UnrecordedRow,
)
from toolreplay.errors import InputError
from toolreplay.formats.files import read_text
from toolreplay.formats.jsonl import parse_json_text
from toolreplay.verdict import FailOn

FORMAT = "toolreplay-check"
VERSION = 1


def _location(location: Location) -> JSONObject:
    return {"path": location.path, "line": location.line}


def _finding(finding: CheckFinding) -> JSONObject:
    return {
        "rule": finding.rule.value,
        "level": finding.level.value,
        "message": finding.message,
        "location": _location(finding.location),
        "related": [_location(place) for place in finding.related],
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
    }


def _unrecorded(row: UnrecordedRow) -> JSONObject:
    return {
        "tool": row.tool,
        "args": row.args,
        "class": row.klass,
        "hits": row.hits,
        "runs": row.runs,
        "answered": row.answered,
    }


def check_document(report: CheckReport) -> JSONObject:
    return {
        "format": FORMAT,
        "version": VERSION,
        "config": report.config,
        "config_digest": report.config_digest,
        "fail_on": report.fail_on.value,
        "shard": f"{report.shard[0]}/{report.shard[1]}" if report.shard else None,
        "verdict": report.verdict.value,
        "counts": {rule.value: count for rule, count in report.counts.items()},
        "units": list(report.units),
        "results": [
            {
                "key": result.key,
                "analysis": result.analysis,
                "subject": result.subject,
                "summary": result.summary,
                "inputs": list(result.inputs),
                "findings": [_finding(finding) for finding in result.findings],
                "changes": [_change(row) for row in result.changes],
                "unrecorded": [_unrecorded(row) for row in result.unrecorded],
            }
            for result in report.results
        ],
    }


def render_check_json(report: CheckReport) -> str:
    return json.dumps(check_document(report), indent=2, ensure_ascii=False) + "\n"


def _read_location(raw: Any) -> Location:
    return Location(str(raw["path"]), int(raw["line"]))


def _read_result(raw: Any) -> UnitResult:
    return UnitResult(
        key=str(raw["key"]),
        analysis=str(raw["analysis"]),
        subject=str(raw["subject"]),
        summary=str(raw["summary"]),
        findings=tuple(
            CheckFinding(
                Rule(f["rule"]),
                str(f["message"]),
                _read_location(f["location"]),
                tuple(_read_location(place) for place in f["related"]),
                str(f["fingerprint"]),
            )
            for f in raw["findings"]
        ),
        changes=tuple(
            ChangeRow(
                str(c["kind"]),
                str(c["tool"]),
                dict(c["args"]),
                str(c["class"]),
                int(c["hits"]),
                int(c["runs"]),
                c["baseline_hits"],
                c["baseline_runs"],
                c["p"],
                c["q"],
                str(c["verdict"]),
            )
            for c in raw["changes"]
        ),
        unrecorded=tuple(
            UnrecordedRow(
                str(u["tool"]), dict(u["args"]), str(u["class"]), int(u["hits"]), int(u["runs"]), str(u["answered"])
            )
            for u in raw["unrecorded"]
        ),
        inputs=tuple(str(name) for name in raw["inputs"]),
    )


def read_check_report(path: str | Path) -> CheckReport:
    """Read a report ``check --json`` wrote; anything else is an :class:`InputError`."""
    doc: JSONValue = parse_json_text(read_text(path), path)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InputError(f'not a toolreplay check report (no "format": "{FORMAT}")', path)
    if doc.get("version") != VERSION:
        raise InputError(f"check report version {doc.get('version')} is not supported (expected {VERSION})", path)
    raw: Any = doc
    try:
        shard = raw["shard"]
        return CheckReport(
            config=raw["config"],
            config_digest=str(raw["config_digest"]),
            fail_on=FailOn(raw["fail_on"]),
            units=tuple(str(key) for key in raw["units"]),
            results=tuple(_read_result(result) for result in raw["results"]),
            shard=(int(shard.split("/")[0]), int(shard.split("/")[1])) if shard else None,
        )
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InputError(f"a malformed check report ({type(exc).__name__}: {exc})", path) from None
