"""A model's price by the longest prefix of its id, and what a run cost."""

from __future__ import annotations

import pytest

from toolreplay.agents.base import Usage
from toolreplay.replay.prices import Price, cost_of, price_of, tokens_of


def test_the_longest_prefix_prices_a_model_and_a_configs_own_prices_win_a_tie() -> None:
    assert price_of("claude-opus-4-5-20251101") == Price(5.0, 25.0, 0.5, 6.25)  # not claude-opus-4's
    assert price_of("claude-opus-4-1") == Price(15.0, 75.0, 1.5, 18.75)
    assert price_of("gpt-5") is None
    assert price_of("claude-opus-4-5", (("claude-opus-4-5", (1.0, 2.0, 0.0, 0.0)),)) == Price(1.0, 2.0, 0.0, 0.0)


def test_a_runs_cost_is_its_programs_word_else_its_tokens_at_the_price() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=200_000, cache_read_tokens=500_000, cache_write_tokens=0)
    assert tokens_of(usage) == 1_700_000
    assert cost_of(usage, Price(3.0, 15.0, 0.3, 3.75)) == pytest.approx(3.0 + 3.0 + 0.15)
    assert cost_of(Usage(cost_usd=0.42, input_tokens=9), None) == 0.42
    assert cost_of(usage, None) is None  # tokens spent at a price nobody knows: not free
    assert cost_of(Usage(), None) == 0.0


def test_each_provider_prices_by_its_own_table_and_a_prefix_may_name_its_provider() -> None:
    from toolreplay.agent_spec import ModelSpec  # noqa: PLC0415

    assert price_of(ModelSpec("gpt-4.1-mini-2025-04-14", "openai")) == Price(0.4, 1.6, 0.1, 0.0)  # not gpt-4.1's
    assert price_of(ModelSpec("gpt-4.1", "openai")) == Price(2.0, 8.0, 0.5, 0.0)
    assert price_of(ModelSpec("claude-sonnet-4-5", "openai")) is None  # a server of its own: no list price
    assert price_of(ModelSpec("gpt-4.1")) is None  # a bare id is Anthropic's, which has no gpt
    bedrock = ModelSpec("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock")
    assert price_of(bedrock) == price_of("claude-sonnet-4-5") == price_of(ModelSpec("claude-sonnet-4-5@2025", "vertex"))
    own = (("openai/llama3", (0.0, 0.0, 0.0, 0.0)), ("llama3", (1.0, 1.0, 1.0, 1.0)))
    assert price_of(ModelSpec("llama3.1", "openai"), own) == Price(1.0, 1.0, 1.0, 1.0)  # both match: the last given
    assert price_of(ModelSpec("llama3.1", "openai"), own[:1]) == Price(0.0, 0.0, 0.0, 0.0)
    assert price_of(ModelSpec("llama3.1", "vertex"), own[:1]) is None  # named for openai alone
    assert price_of(ModelSpec("gpt-4.1", "openai"), (("gpt-4.1", (9.0, 9.0, 9.0, 9.0)),)) == Price(9.0, 9.0, 9.0, 9.0)
