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
from toolreplay.core.errors import UsageError
from toolreplay.core.wording import count
from toolreplay.replay.engine import ReplaySetup, Run
from toolreplay.replay.prices import Price, cost_of, price_of, tokens_of
from toolreplay.replay.progress import Progress
from toolreplay.replay.runners import Runner


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

    def stop(self) -> None:
        """No more runs start."""
        if self.stopped is None:
            limits = []
            if self.max_cost is not None:
                limits.append(f"${self.cost:.4f} of --max-cost ${self.max_cost:g}")
            if self.max_tokens is not None:
                limits.append(f"{self.tokens:,} of --max-tokens-total {self.max_tokens:,} tokens")
            self.stopped = f"stopped by its budget after {count(self.runs, 'run')} ({', '.join(limits)} spent)"


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
                self.budget.stop()
                break
            offset = len(made)
            for run in self.inner.runs(setup, seeds[offset : offset + room], start + offset, progress):
                self.budget.spend(run, self.price)
                made.append(run)
        return made


def price_for(
    agent: AgentSpec, max_cost: float | None, own: Sequence[tuple[str, tuple[float, float, float, float]]] = ()
) -> Price | None:
    """The price of ``agent``'s tokens (a config's ``own`` prices first); a dollar budget for a model whose price
    is unknown is refused."""
    if not isinstance(agent, ModelSpec):
        return None  # a program says what it spent, or nothing; a scripted agent spends nothing
    price = price_of(agent, own)
    if price is None and max_cost is not None:
        raise UsageError(
            f"max-cost: no price is known for {agent.show()} (docs/verdicts.md, 'Budget'); give max-tokens-total "
            "instead, or its price under prices: in the config"
        )
    return price


class CheckBudget:
    """What a whole check's replays may spend (``max-cost``, ``max-tokens-total`` at the config's top), spread over
    them: each replay may take what is left divided among the replays still to run, so what one leaves unspent goes
    to those after it. Within its share a replay is bounded as by its own budget (its first run always starts)."""

    def __init__(self, max_cost: float | None, max_tokens: int | None, replays: int) -> None:
        self.max_cost = max_cost
        self.max_tokens = max_tokens
        self.left = replays
        self.cost = 0.0
        self.tokens = 0

    def share(self) -> tuple[float | None, int | None]:
        """The next replay's share: dollars and tokens (None where the check sets no such bound)."""
        ways = max(1, self.left)
        cost = None if self.max_cost is None else max(self.max_cost - self.cost, 0.0) / ways
        tokens = None if self.max_tokens is None else max(self.max_tokens - self.tokens, 0) // ways
        # a share spent to nothing still lets a replay start its first run, as any budget does; never below that
        return (None if cost is None else max(cost, 1e-9)), (None if tokens is None else max(tokens, 1))

    def spend(self, runs: Sequence[Run], price: Price | None) -> tuple[float, int]:
        """What one replay's runs driven now spent (a run from the cache spent nothing now), counted; returned."""
        cost = sum(cost_of(run.usage, price) or 0.0 for run in runs if not run.cached)
        tokens = sum(tokens_of(run.usage) for run in runs if not run.cached)
        self.left -= 1
        self.cost += cost
        self.tokens += tokens
        return cost, tokens
