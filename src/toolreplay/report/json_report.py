"""Reports as JSON data, for tools that would rather parse than read."""

from __future__ import annotations

import json

from toolreplay.canonical import JSONObject, JSONValue
from toolreplay.diff import DiffResult, FieldChange, Pair, PairKind
from toolreplay.model import Call

DIFF_SCHEMA = "toolreplay-diff"
DIFF_VERSION = 1


def _call(call: Call | None) -> JSONValue:
    if call is None:
        return None
    return {"index": call.index, "tool": call.tool, "args": call.args, "line": call.line}


def _field(change: FieldChange) -> JSONObject:
    field: JSONObject = {"path": change.path}
    if change.in_before:
        field["before"] = change.before
    if change.in_after:
        field["after"] = change.after
    return field


def _pair(result: DiffResult, pair: Pair) -> JSONObject:
    data: JSONObject = {"kind": pair.kind.value, "a": _call(pair.a), "b": _call(pair.b)}
    if pair.b is not None:
        data["class"] = result.classes_b[pair.b.index].value
    elif pair.a is not None:
        data["class"] = result.classes_a[pair.a.index].value
    if pair.fields:
        data["fields"] = [_field(change) for change in pair.fields]
    return data


def diff_document(result: DiffResult) -> JSONObject:
    """The diff as data (see docs/formats.md, "Diff report")."""
    return {
        "schema": DIFF_SCHEMA,
        "version": DIFF_VERSION,
        "a": {"path": result.a.path, "calls": len(result.a.calls)},
        "b": {"path": result.b.path, "calls": len(result.b.calls)},
        "counts": {kind.value: result.count(kind) for kind in PairKind},
        "differences": [_pair(result, pair) for pair in result.differences],
        "new_destructive": [pair.b.index for pair in result.new_destructive if pair.b is not None],
        "final_reply_similarity": None if result.similarity is None else round(result.similarity, 4),
        "fail_on": result.fail_on.value,
        "verdict": result.verdict.value,
    }


def render_diff_json(result: DiffResult) -> str:
    return json.dumps(diff_document(result), indent=2, ensure_ascii=False) + "\n"
