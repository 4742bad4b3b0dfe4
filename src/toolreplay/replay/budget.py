"""A replay's budget: no run starts that would take it past ``max-cost`` dollars or ``max-tokens-total`` tokens, on
the estimate.

The estimate is what the replay's runs driven so far spent, each, on average
(both sides: the unchanged runs cost what the edited ones do); before the first
run there is none, so the first run of a replay always starts. A run's cost is
what a program said it spent (Claude Code does), else its tokens at the price
of its model (:data:`PRICES`), else unknown, which a dollar budget refuses
before any run. Runs are started in blocks of the replay's concurrency, each
block cut to what the budget still allows; the runs the budget stops are not
made, and the replay says so (``budget-spent``), never reading as a pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolreplay.agent_spec import AgentSpec, ModelSpec
from toolreplay.agents.base import Usage
from toolreplay.errors import UsageError
from toolreplay.records import record
from toolreplay.replay.engine import ReplaySetup, Run
from toolreplay.replay.progress import Progress
from toolreplay.replay.runners import Runner
from toolreplay.wording import count


@record
class Price:
    """Dollars per million tokens: input, output, cache reads, cache writes (the five-minute lifetime)."""

    input: float
    output: float
    cache_read: float
    cache_write: float


# By the longest prefix of the model id. Anthropic's list prices, per million tokens.
PRICES: dict[str, Price] = {
    "claude-opus-4-5": Price(5.0, 25.0, 0.5, 6.25),
    "claude-opus-4": Price(15.0, 75.0, 1.5, 18.75),
    "claude-sonnet-4": Price(3.0, 15.0, 0.3, 3.75),
    "claude-3-7-sonnet": Price(3.0, 15.0, 0.3, 3.75),
    "claude-haiku-4-5": Price(1.0, 5.0, 0.1, 1.25),
    "claude-3-5-haiku": Price(0.8, 4.0, 0.08, 1.0),
}


def price_of(model: str) -> Price | None:
    """The price of ``model``, by the longest prefix of its id the table knows."""
    known = [prefix for prefix in PRICES if model.startswith(prefix)]
    return PRICES[max(known, key=len)] if known else None


def tokens_of(usage: Usage) -> int:
    return usage.input_tokens + usage.output_tokens + usage.cache_read_tokens + usage.cache_write_tokens


def cost_of(usage: Usage, price: Price | None) -> float | None:
    """What a run cost: what its program said, else its tokens at ``price``; None when neither is known."""
    if usage.cost_usd:
        return usage.cost_usd
    if price is None:
        return None if tokens_of(usage) else 0.0
    return (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * price.cache_read
        + usage.cache_write_tokens * price.cache_write
    ) / 1_000_000


class Budget:
    """What one replay may spend, and what its runs driven so far did."""

    def __init__(self, max_cost: float | None, max_tokens: int | None) -> None:
        self.max_cost = max_cost
        self.max_tokens = max_tokens
        self.cost = 0.0
        self.tokens = 0
        self.runs = 0
        self.stopped: str | None = None  # why, once it stopped a run

    def spend(self, run: Run, price: Price | None) -> None:
        self.runs += 1
        self.tokens += tokens_of(run.usage)
        self.cost += cost_of(run.usage, price) or 0.0

    def allows(self, wanted: int) -> int:
        """How many of ``wanted`` more runs fit, on the estimate; the first run of the replay always does."""
        if not self.runs:
            return min(wanted, 1)
        fitting = wanted
        for limit, spent in ((self.max_cost, self.cost), (self.max_tokens, float(self.tokens))):
            if limit is None:
                continue
            each = spent / self.runs
            if each > 0:
                fitting = min(fitting, max(0, int((limit - spent) / each)))
        return fitting

    def stop(self, left: int) -> None:
        """``left`` runs are not made."""
        if self.stopped is None:
            limits = []
            if self.max_cost is not None:
                limits.append(f"${self.cost:.4f} of --max-cost ${self.max_cost:g}")
            if self.max_tokens is not None:
                limits.append(f"{self.tokens:,} of --max-tokens-total {self.max_tokens:,} tokens")
            self.stopped = (
                f"stopped by its budget after {count(self.runs, 'run')} driven, {left} more not started "
                f"({', '.join(limits)} spent)"
            )


class BudgetedRunner:
    """A runner that starts runs only while the budget allows, in blocks of at most ``block`` runs."""

    def __init__(self, inner: Runner, budget: Budget, price: Price | None, block: int) -> None:
        self.inner = inner
        self.budget = budget
        self.price = price
        self.block = block

    def runs(self, setup: ReplaySetup, seeds: Sequence[int], start: int, progress: Progress) -> list[Run]:
        made: list[Run] = []
        while len(made) < len(seeds):
            if self.budget.stopped is not None:
                break
            room = self.budget.allows(min(self.block, len(seeds) - len(made)))
            if not room:
                self.budget.stop(len(seeds) - len(made))
                break
            offset = len(made)
            for run in self.inner.runs(setup, seeds[offset : offset + room], start + offset, progress):
                self.budget.spend(run, self.price)
                made.append(run)
        return made


def price_for(agent: AgentSpec, max_cost: float | None) -> Price | None:
    """The price of ``agent``'s tokens; a dollar budget for a model whose price is unknown is refused."""
    if not isinstance(agent, ModelSpec):
        return None  # a program says what it spent, or nothing; a scripted agent spends nothing
    price = price_of(agent.model)
    if price is None and max_cost is not None:
        raise UsageError(
            f"max-cost: no price is known for {agent.model} (docs/verdicts.md, 'Budget'); give max-tokens-total instead"
        )
    return price
