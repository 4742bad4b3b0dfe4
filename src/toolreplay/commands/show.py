"""``show``: each recording's calls with their class, its header and the agent's final reply."""

from __future__ import annotations

import contextlib
import json
import shlex
import tempfile
from collections.abc import Iterator
from typing import IO

from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.commands.base import Emitter, load_policy
from toolreplay.core.records import record
from toolreplay.core.verdict import Exit
from toolreplay.formats.kinds import detect_kind
from toolreplay.formats.recording import RecordingStream, read_links
from toolreplay.results.show import ShowHead, ShownRecording, ShowRow, class_label, show_row


@record
class ShowRequest:
    sessions: tuple[str, ...]
    rules: str | None = None
    strict: bool = False


def execute(request: ShowRequest, emitter: Emitter) -> Exit:
    policy = load_policy(request.rules, request.strict)
    # Each file is read once, and every file before anything is printed (so a broken one prints nothing). A
    # file's rows wait in a temporary file until the longest call is known: no file is held in memory.
    with contextlib.ExitStack() as spills:
        read = [_read(path, policy, spills.enter_context(tempfile.TemporaryFile())) for path in request.sessions]
        for path in request.sessions:
            _warn_if_broken(path, emitter)
        for number, (head, spill) in enumerate(read):
            if number:
                emitter.say("\n")
            emitter.stream(ShownRecording(head, _rows(spill)))
    return Exit.CLEAN


def _read(path: str, policy: Policy, spill: IO[bytes]) -> tuple[ShowHead, IO[bytes]]:
    """Read a recording through, its rows written to ``spill``; what is printed around them."""
    recording = RecordingStream(path)
    classifier = Classifier(policy, recording.tools, servers=recording.servers)
    calls = widest = 0
    for call in recording.calls():
        row = show_row(call, class_label(call, classifier))
        spill.write(json.dumps(row).encode("ascii") + b"\n")  # ASCII: any text, a lone surrogate too, reads back
        calls += 1
        widest = max(widest, len(row[2]))
    spill.seek(0)
    return ShowHead(path, calls, widest, recording.outline()), spill


def _warn_if_broken(path: str, emitter: Emitter) -> None:
    """A sealed file whose chain no longer holds is shown, with a word that it is not what was sealed."""
    if not detect_kind(path).sealed:
        return
    from toolreplay.integrity.chain import verify  # noqa: PLC0415 - only a sealed file is verified

    links, last_label = read_links(path)
    broken = verify(links, path, last_label).broken
    if broken is not None:
        part = f" ({broken.label})" if broken.label else ""
        emitter.warn(
            f"{path}: the chain is broken at line {broken.line}{part}: this is not what was sealed "
            f"(toolreplay verify {shlex.quote(path)} says more)"
        )


def _rows(spill: IO[bytes]) -> Iterator[ShowRow]:
    for line in spill:
        index, turn, text, klass = json.loads(line)
        yield index, turn, text, klass
