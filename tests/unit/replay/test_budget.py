"""A replay's budget: the first run always starts, then only as many as the spend so far says will fit."""

from __future__ import annotations

from toolreplay.replay.budget import Budget


class _Run:
    def __init__(self, input_tokens: int) -> None:
        from toolreplay.agents.base import Usage  # noqa: PLC0415

        self.usage = Usage(input_tokens=input_tokens)


def test_the_first_run_starts_and_then_the_estimate_decides() -> None:
    budget = Budget(None, 1_000)
    assert budget.allows(20) == 1
    budget.spend(_Run(300), None)  # type: ignore[arg-type]
    assert budget.allows(20) == 2  # 700 left at 300 a run
    budget.spend(_Run(300), None)  # type: ignore[arg-type]
    budget.spend(_Run(300), None)  # type: ignore[arg-type]
    assert budget.allows(20) == 0
    budget.stop()
    assert budget.stopped == "stopped by its budget after 3 runs (900 of --max-tokens-total 1,000 tokens spent)"


def test_no_limit_allows_every_run() -> None:
    budget = Budget(None, None)
    budget.spend(_Run(10**9), None)  # type: ignore[arg-type]
    assert budget.allows(40) == 40
