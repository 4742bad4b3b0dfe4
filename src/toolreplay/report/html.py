"""The check report as one self-contained HTML page: the verdict, the run grid, each run's calls, a diff.

A pure function of a :class:`CheckReport` (``replay``, ``compare`` and ``diff``
build one of a single unit), through one Jinja2 template with autoescaping on:
everything from a recording is hostile text, escaped once by the engine after
:func:`~toolreplay.core.escape.for_html` has written out what HTML cannot carry.
The page loads nothing (its Content-Security-Policy forbids it), runs no
script, and is the same bytes for the same report.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Sequence
from importlib.resources import files
from typing import TYPE_CHECKING

from toolreplay.core.canonical import JSONObject, JSONValue, canonical_bytes
from toolreplay.core.escape import for_html
from toolreplay.core.model import Call, Origin
from toolreplay.core.outcome import (
    Analysis,
    CallView,
    ChangeRow,
    CheckReport,
    DiffView,
    PolicyRow,
    RunView,
    Side,
    UnitResult,
)
from toolreplay.core.records import record
from toolreplay.core.wording import count, format_call, p_value, tally
from toolreplay.report.check_text import scope_line, statement

if TYPE_CHECKING:
    from jinja2 import Template

TITLE_LIMIT = 300  # characters of a call shown on hover; the tables show changed calls whole
# A page's size is held under 5 MB however many runs it draws: past PAGE_BUDGET / blocks, each run's hover text is
# cut shorter (never below TITLE_FLOOR characters, as escaped), while the recording's calls keep TITLE_LIMIT.
PAGE_BUDGET = 4_000_000
BLOCK_MARKUP = 40  # <li class=r tabindex=0 title="">R, in bytes
TITLE_FLOOR = 24
_ESCAPED = {"&": 5, "<": 4, ">": 4, '"': 5, "'": 5}
# class -> (letter, CSS class, words): the letter and the pattern carry the class without colour
CLASSES = {
    "read-only": ("R", "r", "read-only"),
    "write": ("W", "w", "write"),
    "destructive": ("D", "d", "destructive"),
    "unknown": ("?", "u", "unknown"),
}


@record
class Block:
    """One call of a timeline: its letter, its CSS classes, and what hovering or focusing it says."""

    letter: str
    css: str  # one token (r, w, d, u; rx, wx, dx, ux when never recorded), written unquoted
    title: str


@record
class Timeline:
    """Runs that made exactly the same calls and ended the same way, drawn once."""

    label: str
    ending: str
    blocks: tuple[Block, ...]
    calls: int


@record
class GridRow:
    """One behaviour of the grid (its changes were made in the same runs): a cell per run, filled where that run
    made it, then its counts and its test."""

    behaviour: int
    changes: tuple[tuple[str, str, str], ...]  # kind, call, class
    klass: str  # the most serious class of its changes
    edited: tuple[bool, ...]
    unchanged: tuple[bool, ...]
    counts: str
    p: str
    q: str
    verdict: str


@record
class UnitPage:
    """What the page shows of one replay, comparison or diff."""

    title: str
    summary: str
    recording: Timeline | None
    timelines: tuple[Timeline, ...]
    edited_runs: tuple[int, ...]
    unchanged_runs: tuple[int, ...]
    grid: tuple[GridRow, ...]
    diff: DiffView | None
    unrecorded: tuple[tuple[str, str, str, str], ...]
    endings: tuple[str, ...]
    tools: tuple[tuple[str, str, str, str, str], ...] = ()  # the tools given: tool, change, level, detail, called


def call_text(tool: str, args: JSONObject) -> str:
    """A call with its arguments whole: the page has room, and a reviewer needs every byte of them."""
    return format_call(Call(0, tool, args, None, 0), None)


def _size(char: str) -> int:
    """The bytes a character takes in an attribute: escaped, or in UTF-8."""
    return _ESCAPED.get(char) or len(char.encode("utf-8", "surrogatepass"))


def _cut(text: str, limit: int) -> str:
    """``text``, or as much of it as fits in ``limit`` bytes once escaped into an attribute, and an ellipsis."""
    whole = len(text.encode("utf-8", "surrogatepass")) + 4 * (text.count('"') + text.count("'") + text.count("&"))
    if whole + 3 * (text.count("<") + text.count(">")) <= limit:
        return text
    size = len("…".encode())
    for index, char in enumerate(text):
        size += _size(char)
        if size > limit:
            return text[:index] + "…"
    return text


def _title(call: CallView, limit: int = TITLE_LIMIT) -> str:
    text = _cut(call_text(call.tool, call.args), limit)
    where = f" line {call.line}" if call.line else ""
    answered = "" if call.answered is Origin.RECORDED else f" (not recorded: answered by {call.answered.words})"
    return f"{text}{where}{answered}"


def block(call: CallView, limit: int = TITLE_LIMIT) -> Block:
    letter, css, _ = CLASSES[call.klass.value]
    if call.answered is not Origin.RECORDED:  # a star and a dashed edge: never recorded, whatever the colour
        letter += "*"
        css += "x"
    return Block(letter, css, _title(call, limit))


def run_ranges(numbers: Sequence[int]) -> str:
    """``1-3, 5, 7-9``."""
    parts: list[str] = []
    start = previous = None
    for number in sorted(numbers):
        if previous is not None and number == previous + 1:
            previous = number
            continue
        if start is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = number
    if start is not None:
        parts.append(str(start) if start == previous else f"{start}-{previous}")
    return ", ".join(parts)


def run_groups(runs: Iterable[RunView]) -> list[list[RunView]]:
    """Runs grouped by side, then by exactly what they did, in order of each group's first run."""
    groups: dict[tuple[Side, str, bytes], list[RunView]] = {}
    for run in runs:
        made: list[JSONValue] = [
            [call.tool, call.args, call.klass.value, call.line, call.answered.value] for call in run.calls
        ]
        groups.setdefault((run.side, run.ending, canonical_bytes(made)), []).append(run)
    return list(groups.values())


def _timeline(members: Sequence[RunView], limit: int) -> Timeline:
    """One line of calls for runs that made exactly the same ones, labelled with their numbers."""
    side, ending, calls = members[0].side, members[0].ending, members[0].calls
    numbers = [run.number for run in members]
    sources = [run.source for run in members if run.source]
    named = f": {', '.join(sources)}" if sources else ""
    word = "run" if len(numbers) == 1 else "runs"  # a noun before its numbers: "runs 1-3, 5"
    label = f"{side.value} {word} {run_ranges(numbers)}{named}"
    if side is Side.COMPARED:  # the other recording of a diff
        label = ", ".join(sources)
    elif len(numbers) > 1:
        label += f" ({count(len(numbers), 'run')})"
    return Timeline(label, ending, tuple(block(call, limit) for call in calls), len(calls))


_SEVERITY = ("destructive", "write", "unknown", "read-only")


def _grid(rows: Sequence[ChangeRow], edited: Sequence[int], unchanged: Sequence[int]) -> tuple[GridRow, ...]:
    behaviours: dict[int, list[ChangeRow]] = {}
    for row in rows:
        behaviours.setdefault(row.behaviour, []).append(row)
    grid = []
    for number, members in behaviours.items():
        head = members[0]
        made, baseline_made = set(head.made_in), set(head.baseline_made_in)
        counts = f"{head.hits}/{head.runs}"
        if head.baseline_runs is not None:
            counts += f" vs {head.baseline_hits}/{head.baseline_runs}"
        changes = tuple(
            (
                row.kind.value,
                call_text(row.tool, row.args) + (f" (turn {row.turn})" if row.turn > 1 else ""),
                row.klass.value,
            )
            for row in members
        )
        classes = {row.klass.value for row in members}
        grid.append(
            GridRow(
                number,
                changes,
                next((klass for klass in _SEVERITY if klass in classes), head.klass.value),
                tuple(run in made for run in edited),
                tuple(run in baseline_made for run in unchanged),
                counts,
                "-" if head.p is None else p_value(head.p),
                "-" if head.q is None else p_value(head.q),
                head.verdict.value,
            )
        )
    return tuple(grid)


def _policy_grid(
    rows: Sequence[PolicyRow], edited: Sequence[int], unchanged: Sequence[int], after: int
) -> tuple[GridRow, ...]:
    """A row for each policy a run broke, below the behaviours (numbered on from them): a filled cell where that
    run broke it."""
    grid = []
    for number, row in enumerate((row for row in rows if row.hits or row.baseline_hits), start=after + 1):
        made, baseline_made = set(row.made_in), set(row.baseline_made_in)
        counts = f"{row.hits}/{row.runs}"
        if row.baseline_runs is not None:
            counts += f" vs {row.baseline_hits}/{row.baseline_runs}"
        grid.append(
            GridRow(
                number,
                (("policy", f"{row.id}: {row.says}", row.level.value),),
                "policy",
                tuple(run in made for run in edited),
                tuple(run in baseline_made for run in unchanged),
                counts,
                "-" if row.p is None else p_value(row.p),
                "-" if row.q is None else p_value(row.q),
                row.words,
            )
        )
    return tuple(grid)


def _endings(runs: Sequence[RunView]) -> tuple[str, ...]:
    lines = []
    for side in (Side.EDITED, Side.UNCHANGED):
        endings = [run.ending for run in runs if run.side is side]
        if endings:
            lines.append(f"{side.value}: {tally(endings)}")
    return tuple(lines)


def unit_page(result: UnitResult, groups: Sequence[Sequence[RunView]], limit: int = TITLE_LIMIT) -> UnitPage:
    edited = tuple(sorted({run.number for run in result.runs if run.side is Side.EDITED}))
    unchanged = tuple(sorted({run.number for run in result.runs if run.side is Side.UNCHANGED}))
    recording = None
    if result.recording:
        blocks = tuple(block(call) for call in result.recording)
        name = result.inputs[0] if result.analysis is Analysis.DIFF and result.inputs else f"recording {result.subject}"
        recording = Timeline(name, "", blocks, len(blocks))
    unrecorded = tuple(
        (call_text(row.tool, row.args), row.klass.value, f"{row.hits}/{row.runs}", row.answered.words)
        for row in result.unrecorded
    )
    return UnitPage(
        f"{result.analysis.value} {result.subject}",
        result.summary,
        recording,
        tuple(_timeline(members, limit) for members in groups),
        edited,
        unchanged,
        _grid(result.changes, edited, unchanged)
        + _policy_grid(result.policies, edited, unchanged, len(result.changes)),
        result.diff,
        unrecorded,
        _endings(result.runs),
        tuple((c.tool, c.kind, c.level.value, c.detail, "yes" if c.called else "no") for c in result.tools),
    )


def _drawn(result: UnitResult) -> bool:
    return bool(result.recording or result.runs or result.diff or result.changes or result.policies)


def _finalize(value: object) -> object:
    """What the page prints of a value: text made safe for HTML; an enum is refused, since it would print its
    Python name (a page says a kind by its value)."""
    if isinstance(value, enum.Enum):
        raise TypeError(f"the page printed {value!r}, not its value")
    return for_html(value) if isinstance(value, str) else value


@functools.cache
def _template() -> Template:
    """The page's template, compiled once per process."""
    from jinja2 import Environment, StrictUndefined  # noqa: PLC0415 - loaded only when a page is asked for

    environment = Environment(
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=StrictUndefined,
        finalize=_finalize,
        keep_trailing_newline=True,
    )
    return environment.from_string(files("toolreplay.report").joinpath("report.html.j2").read_text("utf-8"))


def render_html(report: CheckReport) -> str:
    """The page: the verdict and findings, then a section per replay, comparison or diff, then every analysis; it
    says what the report's command said (:func:`~toolreplay.report.check_text.statement`)."""
    said = statement(report)
    command = said.command
    template = _template()
    drawn = [(result, run_groups(result.runs)) for result in report.results if _drawn(result)]
    blocks = sum(len(members[0].calls) for _, groups in drawn for members in groups)
    limit = max(TITLE_FLOOR, min(TITLE_LIMIT, PAGE_BUDGET // max(blocks, 1) - BLOCK_MARKUP))
    units = [unit_page(result, groups, limit) for result, groups in drawn]
    starred = any(b.css.endswith("x") for u in units for t in u.timelines for b in t.blocks)
    return template.render(
        command=command,
        starred=starred,
        verdict=report.verdict.value,
        verdict_line=said.sentence,
        scope_line=scope_line(report) if command == "check" else "",
        findings=report.findings,
        counts=report.counts,
        units=units,
        results=report.results,
        classes=CLASSES,
        call_text=call_text,
        count=count,
    )
