"""The line-oriented text reports.

No timestamps, no randomness and a fixed order, so two runs on the same input
print the same bytes and a committed report diffs to nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from toolreplay.audit import AuditReport
from toolreplay.canonical import JSONObject, JSONValue
from toolreplay.chain import Verification
from toolreplay.model import Call, Finding, Session
from toolreplay.scope import ScopeReport


def _finding_lines(findings: Iterable[Finding]) -> list[str]:
    return [f"index {f.index}: {f.kind.value}: {f.detail}" for f in findings]


def _lines(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def render_audit(report: AuditReport) -> str:
    """``calls``, ``divergence`` and ``findings`` header, then one line per finding."""
    divergence = "none" if report.divergence is None else f"index {report.divergence}"
    header = [f"calls: {report.calls}", f"divergence: {divergence}", f"findings: {len(report.findings)}"]
    return _lines(header + _finding_lines(report.findings))


def render_scope(report: ScopeReport) -> str:
    """``calls`` and ``findings`` header, then one line per overreach."""
    header = [f"calls: {report.calls}", f"findings: {len(report.findings)}"]
    return _lines(header + _finding_lines(report.findings))


def render_verification(result: Verification) -> str:
    """``chain: intact``, or the first broken link with the expected and found digests."""
    if result.broken is None:
        return _lines(["chain: intact"])
    broken = result.broken
    return _lines(
        [
            "chain: broken",
            f"first broken link: index {broken.index}" + ("" if broken.label is None else f" ({broken.label})"),
            f"expected: {broken.expected}",
            f"found: {broken.found}",
        ]
    )


_ARG_WIDTH = 60


def format_value(value: JSONValue, width: int = _ARG_WIDTH) -> str:
    """A JSON value on one line, shortened with an ellipsis past ``width`` characters."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= width else text[: width - 1] + "…"


def format_call(call: Call) -> str:
    """``tool(key=value, ...)`` with each value as compact JSON."""
    args = ", ".join(f"{key}={format_value(value)}" for key, value in call.args.items())
    return f"{call.tool}({args})"


def _source(source: JSONObject) -> str:
    details = ", ".join(f"{key}={format_value(value, 40)}" for key, value in sorted(source.items()) if key != "kind")
    kind = str(source.get("kind", "?"))
    return f"{kind} ({details})" if details else kind


def render_show(session: Session, classes: Sequence[str]) -> str:
    """A session's header, one line per call with its class, and the final reply."""
    count = len(session.calls)
    header = f"{session.path}: {count} tool call{'' if count == 1 else 's'}"
    context = session.context
    if context is None:
        header += " · transcript"
    else:
        header += f" · model {context.model} · source {_source(context.source)}"
    lines = [header]
    texts = [format_call(call) for call in session.calls]
    width = min(max((len(text) for text in texts), default=0), 90)
    digits = len(str(max(count - 1, 0)))
    for call, text, klass in zip(session.calls, texts, classes, strict=True):
        error = "  (error result)" if call.is_error else ""
        lines.append(f"  {call.index:>{digits}}  {text:<{width}}  {klass}{error}")
    if context is not None:
        reply = "(none: the run ended without one)" if context.final_reply is None else context.final_reply
        lines.append(f"final reply: {reply}")
    return _lines(lines)
