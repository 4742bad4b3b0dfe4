"""What a model's tokens cost: a small table of list prices per provider, by the longest prefix of the model id,
and a run's cost from its usage (what a program said it spent, else its tokens at its model's price).

Claude on Bedrock and Vertex is priced as on the Anthropic API, by the Claude id inside the provider's
(``us.anthropic.claude-sonnet-4-5-20250929-v1:0``, ``claude-sonnet-4-5@20250929``); a model of an
OpenAI-compatible server that is not OpenAI's has no list price (a config's ``prices:`` gives one)."""

from __future__ import annotations

from collections.abc import Sequence

from toolreplay.agent_spec import PROVIDERS, ModelSpec
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


# OpenAI's list prices, per million tokens; it charges nothing to write its cache.
OPENAI_PRICES: dict[str, Price] = {
    "gpt-5-nano": Price(0.05, 0.4, 0.005, 0.0),
    "gpt-5-mini": Price(0.25, 2.0, 0.025, 0.0),
    "gpt-5": Price(1.25, 10.0, 0.125, 0.0),
    "gpt-4.1-nano": Price(0.1, 0.4, 0.025, 0.0),
    "gpt-4.1-mini": Price(0.4, 1.6, 0.1, 0.0),
    "gpt-4.1": Price(2.0, 8.0, 0.5, 0.0),
    "gpt-4o-mini": Price(0.15, 0.6, 0.075, 0.0),
    "gpt-4o": Price(2.5, 10.0, 1.25, 0.0),
    "o4-mini": Price(1.1, 4.4, 0.275, 0.0),
    "o3": Price(2.0, 8.0, 0.5, 0.0),
}
TABLES = {"anthropic": PRICES, "bedrock": PRICES, "vertex": PRICES, "openai": OPENAI_PRICES}


def price_of(model: ModelSpec | str, own: Sequence[tuple[str, tuple[float, float, float, float]]] = ()) -> Price | None:
    """The price of ``model`` (a bare id is a Claude model's), by the longest prefix of its id its provider's table
    knows, or a config's ``own`` prices (which win a tie), whose prefixes may name the provider
    (``openai/gpt-4o``) or not."""
    spec = model if isinstance(model, ModelSpec) else ModelSpec(model)
    name = spec.model
    if spec.provider in ("bedrock", "vertex") and "claude-" in name:
        name = name[name.index("claude-") :]
    table = dict(TABLES[spec.provider])
    for given, dollars in own:
        provider, slash, rest = given.partition("/")
        if slash and provider in PROVIDERS:  # a prefix that names a provider prices that provider's models only
            if provider == spec.provider:
                table[rest] = Price(*dollars)
        else:
            table[given] = Price(*dollars)
    known = [prefix for prefix in table if name.startswith(prefix)]
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
