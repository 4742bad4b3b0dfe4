"""What ``show`` prints of a recording: each call's row with its class, and what goes around the rows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeAlias

from toolreplay.core.model import Call
from toolreplay.core.records import record
from toolreplay.core.wording import format_call

if TYPE_CHECKING:
    from toolreplay.analysis.classify import Classifier
    from toolreplay.formats.session.shape import Outline


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
