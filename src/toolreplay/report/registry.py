"""Every report toolreplay writes, in one table: a format and the outcome it is drawn from name one renderer.

A renderer is a pure function of one outcome to its text, loaded only when its report is asked for. The formats:
``text`` (what a command prints; the first seed's texts among them, byte for byte), ``json``, ``markdown``,
``sarif``, ``html`` and ``annotations`` (GitHub workflow commands). A command hands its outcome and the formats
asked for to the one emitter (``toolreplay.cli.output.emit``); nothing else renders a report.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator

from toolreplay.core.records import record


@record
class Renderer:
    """One report: its format, the outcome it renders (a class's ``module.Name``) and its function."""

    format: str
    outcome: str
    function: str  # module:function, a pure function of the outcome to its text
    streams: bool = False  # the function yields the text a batch at a time (what a recording of any size prints)

    def load(self) -> Callable[[object], str]:
        module, name = self.function.split(":")
        function: Callable[[object], str] = getattr(importlib.import_module(module), name)
        return function


def _table(outcome: str, **functions: str) -> tuple[Renderer, ...]:
    return tuple(Renderer(format, outcome, function) for format, function in functions.items())


_R = "toolreplay.report"
RENDERERS: tuple[Renderer, ...] = (
    *_table(
        "toolreplay.core.outcome.CheckReport",
        text=f"{_R}.check_text:render_check",
        json="toolreplay.formats.check_report:render_check_json",
        markdown=f"{_R}.markdown:render_markdown",
        sarif=f"{_R}.sarif:render_sarif",
        html=f"{_R}.html:render_html",
        annotations=f"{_R}.github:render_annotations",
    ),
    *_table("toolreplay.results.shown.FileAudit", text=f"{_R}.text:render_file_audit"),
    *_table("toolreplay.analysis.scope.ScopeReport", text=f"{_R}.text:render_scope"),
    *_table("toolreplay.integrity.chain.Verification", text=f"{_R}.text:render_verification"),
    *_table("toolreplay.results.shown.SignatureShown", text=f"{_R}.text:render_signature_shown"),
    *_table(
        "toolreplay.analysis.diff.DiffResult", text=f"{_R}.text:render_diff", json=f"{_R}.json_report:render_diff_json"
    ),
    *_table(
        "toolreplay.results.shown.ReplayShown", text=f"{_R}.text:replay_text", json=f"{_R}.json_report:replay_json"
    ),
    *_table("toolreplay.results.shown.NoiseShown", text=f"{_R}.text:noise_text", json=f"{_R}.json_report:noise_json"),
    *_table(
        "toolreplay.results.tools.SurfaceChanges",
        text=f"{_R}.tools:render_changes",
        json=f"{_R}.tools:render_changes_json",
    ),
    *_table("toolreplay.results.tools.LintShown", text=f"{_R}.tools:render_lint"),
    *_table("toolreplay.replay.drive.ReplayOutcome", runs=f"{_R}.json_report:render_runs"),
    Renderer("text", "toolreplay.results.show.ShownRecording", f"{_R}.text:render_shown", streams=True),
)
_BY_KEY = {(renderer.format, renderer.outcome): renderer for renderer in RENDERERS}


def formats(outcome: type) -> tuple[str, ...]:
    """The formats an outcome of this class can be written in."""
    name = f"{outcome.__module__}.{outcome.__qualname__}"
    return tuple(renderer.format for renderer in RENDERERS if renderer.outcome == name)


def _renderer(format: str, outcome: object, streams: bool) -> Renderer:
    kind = type(outcome)
    renderer = _BY_KEY.get((format, f"{kind.__module__}.{kind.__qualname__}"))
    if renderer is None or renderer.streams != streams:
        raise ValueError(f"no {format} report of a {kind.__qualname__}{' as a stream' if streams else ''}")
    return renderer


def render(format: str, outcome: object) -> str:
    """``outcome`` as its ``format`` report."""
    return _renderer(format, outcome, streams=False).load()(outcome)


def render_stream(format: str, outcome: object) -> Iterator[str]:
    """``outcome`` as its ``format`` report, a batch of text at a time."""
    stream: Callable[[object], Iterator[str]] = _renderer(format, outcome, streams=True).load()  # type: ignore[assignment]
    return stream(outcome)
