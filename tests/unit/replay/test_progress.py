from __future__ import annotations

import io

from toolreplay.agents.base import Turn, Usage
from toolreplay.agents.loop import AgentFailure
from toolreplay.core.canonical import JSONObject
from toolreplay.replay.engine import Run
from toolreplay.replay.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_runs_calls_and_tokens_on_a_terminal() -> None:
    screen = Terminal()
    progress = Progress(2, screen)
    use: JSONObject = {"type": "tool_use", "id": "a", "name": "t", "input": {}}
    progress.turn(Turn([use, use], "tool_use", Usage(100, 20)))
    progress.run(Run(1, None, (), (), "final reply", "ok"))
    progress.turn(AgentFailure("boom"))
    progress.close()
    shown = screen.getvalue()
    assert "runs 1/2 · calls 2 · tokens 120" in shown
    assert shown.endswith("\r\x1b[K")


def test_progress_stays_silent_off_a_terminal() -> None:
    pipe = io.StringIO()
    progress = Progress(1, pipe)
    progress.turn(Turn([], "end_turn"))
    progress.close()
    assert pipe.getvalue() == ""
