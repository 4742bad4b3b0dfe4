"""The --rules and --strict options, shared by the commands that classify calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from toolreplay.classify import Classification, Classifier, Policy
from toolreplay.formats.rules import read_rules
from toolreplay.model import Call


def policy_options(function: Callable[..., Any]) -> Callable[..., Any]:
    function = click.option(
        "--strict", is_flag=True, help="Treat calls no rule or annotation classifies as destructive."
    )(function)
    return click.option(
        "--rules",
        "rules_file",
        metavar="FILE",
        help="A rules file (TOML): classification rules and argument matching. See docs/formats.md.",
    )(function)


def load_policy(rules_file: str | None, strict: bool) -> Policy:
    return read_rules(rules_file, strict) if rules_file else Policy(strict=strict)


def class_label(call: Call, classifier: Classifier) -> str:
    """A call's class as ``show`` prints it, with any disagreement spelled out."""
    found: Classification = classifier.classify(call)
    label = found.klass.value
    if found.origin == "strict":
        label += " (unknown, --strict)"
    if found.mismatch:
        label += " (annotations say read-only)"
    return label
