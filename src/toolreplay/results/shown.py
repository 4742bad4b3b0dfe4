"""What a command's report is drawn from, where its analysis's result alone is not all the report says: a replay
with the prompt and tools it was given, a signature with the file it is in, an audit of one of several files, a
tool surface's changes with the sources compared. Each is one outcome the registry
(:mod:`toolreplay.report.registry`) renders."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeAlias

from toolreplay.core.model import Call
from toolreplay.core.records import record
from toolreplay.core.wording import format_call

if TYPE_CHECKING:  # records only: each command loads just the analysis it runs
    from toolreplay.analysis.audit import AuditReport
    from toolreplay.analysis.classify import Classifier
    from toolreplay.formats.session.shape import Outline
    from toolreplay.integrity.signing import SignatureCheck
    from toolreplay.replay.noise import NoiseReport
    from toolreplay.replay.report import ReplayReport
    from toolreplay.surface.drift import Drift
    from toolreplay.surface.lint import LintFinding


@record
class ReplayShown:
    """A replay without a noise baseline, with the prompt and tools files given (None: the recorded ones) and how
    the tools given differ from the recorded ones."""

    report: ReplayReport
    system: str | None
    tools: str | None
    given: tuple[Drift, ...] = ()


@record
class NoiseShown:
    """A replay with a noise baseline, or (``command`` compare) a comparison of recorded sessions, with the line that
    names what was compared."""

    report: NoiseReport
    system: str | None
    tools: str | None
    given: tuple[Drift, ...] = ()
    candidate_line: str | None = None
    command: str = "replay"


@record
class FileAudit:
    """One file's audit, the ``number``-th (from 0) of ``total`` given: of several, each is headed by its file."""

    path: str
    report: AuditReport
    number: int = 0
    total: int = 1


@record
class SignatureShown:
    """A signature's check (None: there is no signature) and the file it was read from."""

    checked: SignatureCheck | None
    path: str


@record
class SurfaceChanges:
    """How a tool surface changed between two sources: each source as named and how many tools it lists."""

    old: str
    new: str
    old_tools: int
    new_tools: int
    changes: tuple[Drift, ...]


@record
class LintShown:
    """What ``tools lint`` found, in order."""

    findings: tuple[LintFinding, ...]


def class_label(call: Call, classifier: Classifier) -> str:
    """A call's class as ``show`` prints it, with any disagreement spelled out."""
    found = classifier.classify(call)
    label = found.klass.value
    if found.origin == "strict":
        label += " (unknown, --strict)"
    if found.mismatch:
        label += " (annotations say read-only)"
    return label


ShowRow: TypeAlias = "tuple[int, int, str, str]"  # a call's index, turn, text and class, as show prints them


def show_row(call: Call, klass: str) -> ShowRow:
    """What ``show`` prints of a call, before the width of the column is known."""
    return call.index, call.turn, format_call(call), klass + ("  (error result)" if call.is_error else "")


@record
class ShowHead:
    """What ``show`` prints around a recording's rows, and the longest call text, once every call is read."""

    path: str
    calls: int
    widest: int
    outline: Outline | None  # None for a transcript


@record
class ShownRecording:
    """What ``show`` prints of one recording: what goes around its rows, and the rows as they are read back."""

    head: ShowHead
    rows: Iterable[ShowRow]
