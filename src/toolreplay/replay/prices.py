"""What a model's tokens cost: one small table of list prices, by the longest prefix of the model id, and a run's
cost from its usage (what a program said it spent, else its tokens at its model's price)."""

from __future__ import annotations

from collections.abc import Sequence

from toolreplay.agents.base import Usage
from toolreplay.core.records import record


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


def price_of(model: str, own: Sequence[tuple[str, tuple[float, float, float, float]]] = ()) -> Price | None:
    """The price of ``model``, by the longest prefix of its id the table knows, or a config's ``own`` prices
    (which win a tie)."""
    table = {**PRICES, **{prefix: Price(*dollars) for prefix, dollars in own}}
    known = [prefix for prefix in table if model.startswith(prefix)]
    return table[max(known, key=len)] if known else None


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
