"""Reports as JSON data, for tools that would rather parse than read."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolreplay.analysis.diff import DiffResult, FieldChange, Pair
from toolreplay.core.canonical import JSONObject, JSONValue, json_utf8
from toolreplay.core.model import Call, PairKind
from toolreplay.replay.engine import Run
from toolreplay.replay.noise import NoiseReport
from toolreplay.replay.reading import policy_verdict
from toolreplay.replay.report import ReplayReport
from toolreplay.surface.drift import Drift

if TYPE_CHECKING:
    from toolreplay.analysis.policies import CallPolicy, Violation
    from toolreplay.replay.drive import ReplayOutcome
    from toolreplay.results.shown import NoiseShown, ReplayShown

DIFF_SCHEMA = "toolreplay-diff"
DIFF_VERSION = 1


def _call(call: Call | None) -> JSONValue:
    if call is None:
        return None
    return {"index": call.index, "tool": call.tool, "args": call.args, "line": call.line, "turn": call.turn}


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
        **({"policies_broken": [_violation(found) for found in result.broken]} if result.broken else {}),
        "fail_on": result.fail_on.value,
        "verdict": result.verdict.value,
    }


def _violation(found: Violation) -> JSONObject:
    """A policy B breaks and A keeps, at B's call that broke it."""
    policy = found.policy
    return {
        "id": policy.id,
        "level": policy.level.value,
        "says": policy.text(),
        "why": policy.why,
        "index": found.index,
        "detail": found.detail,
    }


def render_diff_json(result: DiffResult) -> str:
    return json.dumps(diff_document(result), indent=2, ensure_ascii=False) + "\n"


REPLAY_SCHEMA = "toolreplay-replay"
REPLAY_VERSION = 2


def replay_document(report: ReplayReport) -> JSONObject:
    """The replay as data (see docs/formats.md, "Replay report")."""
    total = report.answered
    return {
        "schema": REPLAY_SCHEMA,
        "version": REPLAY_VERSION,
        "recording": {"path": report.setup.recording.path, "calls": len(report.setup.recording.calls)},
        "candidate": report.candidate,
        "ran_on": report.ran_on,
        "runs": [
            {
                "run": run.number,
                "seed": run.seed,
                "calls": len(run.calls),
                "ending": run.ending,
                "error": run.error,
                "traceback": run.traceback,
                "final_reply": run.final_reply,
                "tokens": {
                    "input": run.usage.input_tokens,
                    "output": run.usage.output_tokens,
                    "cache_read": run.usage.cache_read_tokens,
                    "cache_write": run.usage.cache_write_tokens,
                },
                "cost_usd": run.usage.cost_usd,
                "cached": run.cached,
            }
            for run in report.runs
        ],
        "spent": spent([run for run in report.runs if not run.cached]),
        "from_cache": _from_cache(report.runs),
        "changes": [
            {
                "kind": change.kind.value,
                "turn": change.turn,
                "tool": change.tool,
                "args": change.args,
                "class": change.klass.value,
                "runs": list(change.runs),
                "rate": round(len(change.runs) / total, 4) if total else 0.0,
                "fields": [_field(field) for field in change.fields],
            }
            for change in report.changes
        ],
        "lost_destructive": [
            {"tool": made.tool, "args": made.args, "runs": list(made.runs)} for made in report.lost_destructive
        ],
        "unrecorded": [
            {
                "tool": item.tool,
                "args": item.args,
                "class": item.klass.value,
                "runs": list(item.runs),
                "answered": item.answered.words,
            }
            for item in report.unrecorded
        ],
        "on_unrecorded": report.setup.on_unrecorded.value,
        "fail_on": report.fail_on.value,
        "budget": report.budget,
        **(
            {"policies": [_broken(b.policy, b.runs, total, b.example) for b in report.policies]}
            if report.policies
            else {}
        ),
        "verdict": report.verdict.value,
    }


def _broken(policy: CallPolicy, runs: Sequence[int], total: int, example: Violation | None) -> JSONObject:
    """A policy and the runs that broke it, with how the first of them did."""
    return {
        "id": policy.id,
        "level": policy.level.value,
        "kind": policy.kind.value,
        "says": policy.text(),
        "why": policy.why,
        "runs": list(runs),
        "rate": round(len(runs) / total, 4) if total else 0.0,
        "first": None if example is None else {"index": example.index, "detail": example.detail},
    }


def spent(runs: Sequence[Run]) -> JSONObject:
    """What ``runs`` spent, summed: tokens, and the cost a program reported (0 when none did). A report's
    ``spent`` is its runs driven now; what its runs from the cache spent when they were made is ``saved``."""
    return {
        "input": sum(run.usage.input_tokens for run in runs),
        "output": sum(run.usage.output_tokens for run in runs),
        "cache_read": sum(run.usage.cache_read_tokens for run in runs),
        "cache_write": sum(run.usage.cache_write_tokens for run in runs),
        "cost_usd": round(sum(run.usage.cost_usd for run in runs), 6),
    }


def _from_cache(runs: Sequence[Run]) -> JSONObject:
    """How many of ``runs`` the run cache gave back, and what they spent when they were made."""
    return {"runs": sum(run.cached for run in runs), "saved": spent([run for run in runs if run.cached])}


def _with_tools(doc: JSONObject, tools: Sequence[Drift], called: Sequence[str]) -> JSONObject:
    """A replay's document, with how the tools it was given differ from the recorded ones (when they were)."""
    if tools:
        doc["tools_given"] = [
            {
                "kind": change.kind.value,
                "level": change.level.value,
                "tool": change.tool,
                "detail": change.detail,
                "line": change.line,
                "called": change.tool in called,
            }
            for change in tools
        ]
    return doc


def render_replay_json(report: ReplayReport, tools: Sequence[Drift] = ()) -> str:
    doc = _with_tools(replay_document(report), tools, [change.tool for change in report.changes])
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def render_runs(outcome: ReplayOutcome) -> str:
    """Every run's calls as JSON Lines (``replay --runs-out``): the candidate's runs, then the baseline's."""
    lines = run_lines(outcome.runs) + run_lines(outcome.baseline_runs, "baseline")
    return "".join(line.decode("utf-8") + "\n" for line in lines)


def run_lines(runs: Sequence[Run], group: str = "candidate") -> list[bytes]:
    """Every run's calls as JSON Lines: a ``call`` line per call, then a ``run`` line per run."""
    lines: list[bytes] = []
    for run in runs:
        for call, origin in zip(run.calls, run.origins, strict=True):
            entry: JSONObject = {
                "event": "call",
                "group": group,
                "run": run.number,
                "seed": run.seed,
                "index": call.index,
                "tool": call.tool,
                "args": call.args,
                "result": call.result,
                "is_error": call.is_error,
                "answered": origin.value,
            }
            lines.append(json_utf8(json.dumps(entry, sort_keys=True, ensure_ascii=False)))
        summary: JSONObject = {
            "event": "run",
            "group": group,
            "run": run.number,
            "seed": run.seed,
            "calls": len(run.calls),
            "ending": run.ending,
            "final_reply": run.final_reply,
        }
        lines.append(json_utf8(json.dumps(summary, sort_keys=True, ensure_ascii=False)))
    return lines


def _rate(hits: int, runs: int, interval: tuple[float, float]) -> JSONObject:
    return {
        "runs": runs,
        "hits": hits,
        "rate": round(hits / runs, 4) if runs else 0.0,
        "ci95": [round(interval[0], 4), round(interval[1], 4)],
    }


def noise_document(report: NoiseReport) -> JSONObject:
    """A replay with a noise baseline, as data (see docs/formats.md, "Replay report")."""
    doc = replay_document(report.candidate)
    doc["baseline"] = {
        "candidate": report.baseline.candidate,
        "ran_on": report.baseline.ran_on,
        "runs": [
            {
                "run": run.number,
                "seed": run.seed,
                "calls": len(run.calls),
                "ending": run.ending,
                "cached": run.cached,
                "error": run.error,
                "traceback": run.traceback,
            }
            for run in report.baseline.runs
        ],
        "spent": spent([run for run in report.baseline.runs if not run.cached]),
        "from_cache": _from_cache(report.baseline.runs),
    }
    design = report.design
    doc["design"] = {
        "test": design.test.value,
        "alpha": design.alpha,
        "rounds": design.rounds,
        "level": report.level,
        "rounds_run": report.round,
    }
    doc["behaviours"] = [
        {
            "verdict": t.verdict.value,
            "destructive": t.destructive,
            "changes": [
                {"kind": c.kind.value, "turn": c.turn, "tool": c.tool, "args": c.args, "class": c.klass.value}
                for c in t.changes
            ],
            "edited": _rate(t.hits, t.runs, t.interval),
            "unchanged": {
                **_rate(t.baseline_hits, t.baseline_runs, t.baseline_interval),
                "upper95": round(t.baseline_bound, 4),
            },
            "p": t.p,
            "q": t.q,
        }
        for t in report.tested
    ]
    if report.policies:
        doc["policies"] = [
            {
                **_broken(t.policy, t.made_in, t.runs, t.example),
                "verdict": policy_verdict(t.verdict, t.hits),
                "edited": _rate(t.hits, t.runs, t.interval),
                "unchanged": {
                    **_rate(t.baseline_hits, t.baseline_runs, t.baseline_interval),
                    "runs_broken": list(t.baseline_made_in),
                },
                "p": t.p,
                "q": t.q,
            }
            for t in report.policies
        ]
    detectable = report.detectable
    doc["power"] = {
        "detected_80_percent_at": None if detectable is None else round(detectable, 4),
        "never_seen_upper95": round(report.never_seen_bound, 4),
    }
    doc["verdict"] = report.verdict.value
    return doc


def render_noise_json(report: NoiseReport, tools: Sequence[Drift] = ()) -> str:
    doc = _with_tools(noise_document(report), tools, [change.tool for change in report.candidate.changes])
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def replay_json(shown: ReplayShown) -> str:
    return render_replay_json(shown.report, shown.given)


def noise_json(shown: NoiseShown) -> str:
    return render_noise_json(shown.report, shown.given)
