"""The options several commands share, each defined once: replay settings, rules, --fail-on."""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from typing import Any

import click

from toolreplay.classify import Policy
from toolreplay.errors import UsageError
from toolreplay.formats.rules import read_rules
from toolreplay.settings import REPLAY_POLICIES, ReplaySettings, SettingError, Unrecorded, parse_settings, setting_key
from toolreplay.verdict import FailOn

Command = Callable[..., Any]

FAIL_ON = click.Choice([choice.value for choice in FailOn])

_DEFAULTS = ReplaySettings()

# Each replay setting as an option: its extra names, and what --help says. Defaults come from ReplaySettings.
_SETTING_OPTIONS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "system": ((), {"metavar": "FILE", "help": "A replacement system prompt."}),
    "tools": ((), {"metavar": "FILE", "help": "Replacement tool definitions (a JSON array)."}),
    "agent": (
        ("--model",),
        {"metavar": "SPEC", "help": "A Claude model id, scripted:FILE, or cmd:'COMMAND' (docs/agents.md)."},
    ),
    "baseline_agent": (
        (),
        {
            "metavar": "SPEC",
            "help": "The unchanged agent, for --noise (default: the recorded model or script; for a cmd: agent, the "
            "same command).",
        },
    ),
    "repeat": ((), {"metavar": "N", "help": "How many runs."}),
    "seed": ((), {"metavar": "N", "help": "A scripted agent's seed (the first run's, when there are several)."}),
    "on_unrecorded": (
        (),
        {
            "metavar": "[" + "|".join(choice.value for choice in REPLAY_POLICIES) + "]",
            "help": "What a call the recording never made gets: stop, an error result, or a stub.",
        },
    ),
    "stubs": ((), {"metavar": "FILE", "help": "Canned results for unrecorded calls (with stub)."}),
    "max_turns": ((), {"metavar": "N", "help": "End a run after this many agent turns."}),
    "max_tokens": (
        (),
        {"metavar": "N", "help": "Output token limit per model request (default: the recorded request's, else 4096)."},
    ),
    "concurrency": (
        (),
        {
            "metavar": "N",
            "help": "Model or cmd: runs in flight at once; scripted runs are in-process, one at a time.",
        },
    ),
    "noise": (
        (),
        {
            "metavar": "N",
            "help": "Also replay the unchanged configuration this many times, and test each change against it.",
        },
    ),
    "alpha": (
        (),
        {
            "metavar": "Q",
            "help": "The false-FAIL rate: how often, at most, a change the edit did not cause is called the edit's.",
        },
    ),
    "rounds": (
        (),
        {
            "metavar": "N",
            "help": "With --noise: the most rounds of --repeat and --noise runs. Another round runs only while a "
            "destructive call is undecided; 1 is a fixed number of runs.",
        },
    ),
    "test": (
        (),
        {"metavar": "[boschloo|fisher]", "help": "The exact test of 'more frequent with the edit'."},
    ),
    "min_runs": (
        (),
        {"metavar": "N", "help": "Runs of each configuration that must be answered; fewer is exit 2, not a verdict."},
    ),
    "request_timeout": ((), {"metavar": "SECONDS", "help": "Give up on one model request after this long."}),
    "run_timeout": (
        (),
        {
            "metavar": "SECONDS",
            "help": "End a run that takes longer than this: a model's run is an error (not counted); a cmd: "
            "program's process group is ended, and the calls it made count.",
        },
    ),
}


def refused(exc: SettingError) -> UsageError:
    """A refused setting, named as its option."""
    return UsageError(f"--{exc.key} {exc.problem}")


def build_settings(values: dict[str, str | None], live: bool = False) -> ReplaySettings:
    """Replay settings from the options' text, read by the same parser as a config's."""
    try:
        return parse_settings({name: text for name, text in values.items() if text is not None}, live)
    except SettingError as exc:
        raise refused(exc) from None


def settings_options(*names: str, live: bool = False) -> Callable[[Command], Command]:
    """Options for the named replay settings (all of them by default); the command gets ``settings=``.

    ``live``: the unrecorded-call policy may also be ``live`` (``serve``, which has a real server to ask).
    """
    chosen = names or tuple(_SETTING_OPTIONS)

    def decorate(function: Command) -> Command:
        @functools.wraps(function)
        def command(**values: Any) -> Any:
            settings = build_settings({name: values.pop(name) for name in chosen}, live)
            return function(settings=settings, **values)

        for name in reversed(chosen):
            aliases, extra = _SETTING_OPTIONS[name]
            if live and name == "on_unrecorded":
                extra = {
                    "metavar": "[" + "|".join(choice.value for choice in Unrecorded) + "]",
                    "help": "What a call the recording never made gets: stop, an error result, a stub, or the "
                    "real server's answer (live, with the server's command after --).",
                }
            default = getattr(_DEFAULTS, name)
            default = default.value if isinstance(default, enum.Enum) else default
            # Every value reaches parse_settings as the text given, as a config's does.
            command = click.option(
                f"--{setting_key(name)}",
                *aliases,
                name,
                type=str,
                default=None if default is None else str(default),
                show_default=default is not None,
                **extra,
            )(command)
        return command

    return decorate


def fail_on_option(function: Command) -> Command:
    return click.option(
        "--fail-on", type=FAIL_ON, default=FailOn.DESTRUCTIVE.value, show_default=True, help="What fails the check."
    )(function)


def policy_options(function: Command) -> Command:
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
