"""A one-line progress display on stderr, shown only on a terminal."""

from __future__ import annotations

import sys
from typing import TextIO

from toolreplay.agents.base import Turn
from toolreplay.agents.loop import AgentFailure
from toolreplay.replay.engine import Run


class Progress:
    """Runs done, calls made and tokens spent, redrawn in place after every turn."""

    def __init__(self, runs: int, stream: TextIO | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = self.stream.isatty()
        self.runs = runs
        self.done = 0
        self.calls = 0
        self.tokens = 0

    def more(self, runs: int) -> None:
        """Another round: ``runs`` more runs to do."""
        self.runs += runs
        self._draw()

    def turn(self, turn: Turn | AgentFailure) -> None:
        if isinstance(turn, Turn):
            self.calls += len(turn.tool_uses)
            self.tokens += turn.usage.input_tokens + turn.usage.output_tokens
        self._draw()

    def run(self, _: Run) -> None:
        self.done += 1
        self._draw()

    def _draw(self) -> None:
        if self.enabled:
            width = 24
            filled = width * self.done // max(self.runs, 1)
            bar = "#" * filled + "." * (width - filled)
            self.stream.write(f"\r[{bar}] runs {self.done}/{self.runs} · calls {self.calls} · tokens {self.tokens:,}")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
