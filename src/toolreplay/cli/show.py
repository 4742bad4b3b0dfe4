"""``toolreplay show``: a session's calls, each with its class."""

from __future__ import annotations

import contextlib
import json
import shlex
import tempfile
from collections.abc import Iterator
from typing import IO

import click

from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.cli.options import policy_options
from toolreplay.cli.output import emit_stream, warn, write_text
from toolreplay.commands.base import load_policy
from toolreplay.formats.kinds import detect_kind
from toolreplay.formats.recording import RecordingStream, read_links
from toolreplay.results.show import ShowHead, ShownRecording, ShowRow, class_label, show_row


@click.command(
    "show",
    help="""Print each SESSION: a header (calls, model, source), one line per call with
    its arguments and its class, and the agent's final reply.

    The class is read-only, write, destructive or unknown: from the first
    matching rule of --rules, else from the tool's MCP annotations. Where the
    annotations say read-only and a rule disagrees, the line says so. SESSION
    may be a session file, a transcript, or either sealed.
    """,
)
@click.argument("sessions", metavar="SESSION...", nargs=-1, required=True)
@policy_options
def command(sessions: tuple[str, ...], rules_file: str | None, strict: bool) -> int:
    policy = load_policy(rules_file, strict)
    # Each file is read once, and every file before anything is printed (so a broken one prints nothing). A
    # file's rows wait in a temporary file until the longest call is known: no file is held in memory.
    with contextlib.ExitStack() as spills:
        read = [_read(path, policy, spills.enter_context(tempfile.TemporaryFile())) for path in sessions]
        for path in sessions:
            _warn_if_broken(path)
        for number, (head, spill) in enumerate(read):
            if number:
                write_text("\n")
            emit_stream(ShownRecording(head, _rows(spill)))
    return 0


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


def _warn_if_broken(path: str) -> None:
    """A sealed file whose chain no longer holds is shown, with a word that it is not what was sealed."""
    if not detect_kind(path).sealed:
        return
    from toolreplay.integrity.chain import verify  # noqa: PLC0415 - only a sealed file is verified

    links, last_label = read_links(path)
    broken = verify(links, path, last_label).broken
    if broken is not None:
        part = f" ({broken.label})" if broken.label else ""
        warn(
            f"{path}: the chain is broken at line {broken.line}{part}: this is not what was sealed "
            f"(toolreplay verify {shlex.quote(path)} says more)"
        )


def _rows(spill: IO[bytes]) -> Iterator[ShowRow]:
    for line in spill:
        index, turn, text, klass = json.loads(line)
        yield index, turn, text, klass
