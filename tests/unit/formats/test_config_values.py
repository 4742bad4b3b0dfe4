"""A config's values, each read as the command line's option is, every refusal at the value's line."""

from __future__ import annotations

import pytest

from toolreplay.core.errors import InputError
from toolreplay.formats.config.entries import read_prices
from toolreplay.formats.config.values import cost_limit, setting_text, token_limit
from toolreplay.formats.parsing.node import Node
from toolreplay.formats.parsing.yaml_text import parse_yaml


def _top(text: str) -> Node:
    node = parse_yaml(text, "c.yml")
    assert node is not None
    return node


def test_a_setting_is_its_text_as_written_and_a_list_of_names_is_the_names() -> None:
    top = _top("repeat: 20\nenv: [A_TOKEN, B]\nsystem: {x: 1}\n")
    assert setting_text(top.member("repeat"), "repeat") == "20"
    assert setting_text(top.member("env"), "env") == "A_TOKEN B"
    with pytest.raises(InputError, match=r"c.yml:3: 'system' must be a single value"):
        setting_text(top.member("system"), "system")


def test_the_checks_budgets_are_read_as_a_replays() -> None:
    top = _top("max-cost: 2.5\nmax-tokens-total: 100000\nbad: '3'\n")
    assert cost_limit(top.member("max-cost")) == 2.5
    assert token_limit(top.member("max-tokens-total")) == 100_000


def test_prices_default_the_cache_to_the_apis_ratios() -> None:
    top = _top(
        "prices:\n  my-model: {input: 2, output: 8}\n  other: {input: 1, output: 2, cache-read: 0, cache-write: 0}\n"
    )
    assert read_prices(top.member("prices")) == (
        ("my-model", (2.0, 8.0, 0.2, 2.5)),
        ("other", (1.0, 2.0, 0.0, 0.0)),
    )
    with pytest.raises(InputError, match=r"c\.yml:2"):
        read_prices(_top("prices:\n  m: {input: 1}\n").member("prices"))
