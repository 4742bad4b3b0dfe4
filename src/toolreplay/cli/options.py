"""The options several commands share, each defined once: replay settings, rules, --fail-on, redaction."""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from toolreplay.core.errors import UsageError
from toolreplay.core.verdict import FailOn
from toolreplay.core.wording import agree, count
from toolreplay.settings import REPLAY_POLICIES, ReplaySettings, SettingError, Unrecorded, parse_settings, setting_key

if TYPE_CHECKING:
    from toolreplay.redact import Redactor

Command = Callable[..., Any]

FAIL_ON = click.Choice([choice.value for choice in FailOn])

_DEFAULTS = ReplaySettings()

# Each replay setting as an option: its extra names, and what --help says. Defaults come from ReplaySettings.
_SETTING_OPTIONS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "system": ((), {"metavar": "FILE", "help": "A replacement system prompt."}),
    "tools": ((), {"metavar": "FILE", "help": "Replacement tool definitions (a JSON array)."}),
    "task_file": (
        (),
        {
            "metavar": "FILE",
            "help": "The person's first message, from a file, for a recording that lacks it: a record-mcp log, "
            "or a session imported without --task. Both sides are sent it; it is not an edit.",
        },
    ),
    "agent": (
        ("--model",),
        {
            "metavar": "SPEC",
            "help": "A model (a Claude id, or PROVIDER/MODEL: anthropic/, openai/, bedrock/, vertex/), "
            "scripted:FILE, or cmd:'COMMAND' (docs/agents.md).",
        },
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
    "server_name": (
        (),
        {
            "metavar": "[OLD=]NEW",
            "help": "Serve a recorded server under another name, the one the agent's configuration gives it (a log "
            "recorded without --name calls it as the server calls itself); several: OLD=NEW,OLD=NEW.",
        },
    ),
    "mcp_transport": (
        (),
        {
            "metavar": "[stdio|http]",
            "help": "How a cmd: program reaches the servers it is served: started by it over stdio ({mcp_config} "
            "names commands), or over Streamable HTTP on the loopback ({mcp_config} names URLs; {mcp_url} is the "
            "first).",
        },
    ),
    "stubs": (
        (),
        {
            "metavar": "FILE",
            "help": "Canned results for unrecorded calls (with stub; without a file, stub answers by the call's "
            "class: writes and deletions succeed, the rest get an error result).",
        },
    ),
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
    "cache": (
        (),
        {
            "metavar": "DIR",
            "help": "Keep each run in DIR, keyed by everything that decides it, and reuse it instead of driving the "
            "agent again (docs/verdicts.md, 'The run cache'). Off unless given; --no-cache turns a config's off.",
        },
    ),
    "cache_key": (
        (),
        {
            "metavar": "TEXT",
            "help": "With --cache: more of what decides a run, that toolreplay cannot see (the installed version "
            "of a program, a model behind an alias).",
        },
    ),
    "cache_days": ((), {"metavar": "DAYS", "help": "With --cache: how long a cached run is trusted."}),
    "max_cost": (
        (),
        {
            "metavar": "USD",
            "help": "Start no run that would take the replay past this many dollars, on the estimate (what its "
            "runs so far cost each; prices in docs/verdicts.md). A replay it stops is never a pass.",
        },
    ),
    "max_tokens_total": (
        (),
        {"metavar": "N", "help": "Likewise, in tokens (input, output and cache reads and writes, all runs)."},
    ),
    "batch": (
        (),
        {
            "help": "A model's runs in step, each turn of them all sent as one batch (Anthropic's Message Batches, "
            "OpenAI's Batch API; half the price; answered within hours): for the runs nobody waits on, such as a "
            "nightly refresh of the baseline.",
        },
    ),
    "allow_new_prompt": (
        (),
        {
            "help": "Replay --system against a session that recorded no system prompt (all of it is then the edit; "
            "refused without this).",
        },
    ),
    "prompt_cache": (
        (),
        {
            "metavar": "[5m|1h]",
            "help": "How long a Claude model's prompt cache (the system prompt and the tools) lives between "
            "requests, on Anthropic, Bedrock and Vertex: 1h for a replay whose runs are further apart than five "
            "minutes (its writes cost twice the input price). OpenAI caches prompts on its own: nothing is sent.",
        },
    ),
    "base_url": (
        (),
        {
            "metavar": "URL",
            "help": "Where the candidate's model is asked: an OpenAI-compatible server (vLLM, Ollama, LiteLLM) "
            "for openai/MODEL, a proxy for the others. Default: the SDK's own (OPENAI_BASE_URL, "
            "ANTHROPIC_BASE_URL...). The key comes from the environment only.",
        },
    ),
    "baseline_base_url": (
        (),
        {
            "metavar": "URL",
            "help": "Where the unchanged agent's model is asked (default: --base-url when it is on the "
            "candidate's provider, else its SDK's own).",
        },
    ),
    "api": (
        (),
        {
            "metavar": "[chat|responses]",
            "help": "Which OpenAI API an openai/ model is asked through: chat (Chat Completions, which every "
            "OpenAI-compatible server speaks) or responses (OpenAI's Responses API).",
        },
    ),
}


class ReadWords(click.Command):
    """A command whose command line is read without guessing which option a word belongs to.

    ``several`` are options that take every value up to the next option, as if each were given once per
    value: ``--baseline a.json b.json`` (what a shell makes of ``--baseline *.json``) is two baselines, never
    a baseline and a stray argument, and an argument those values leave missing says so. ``before_command``
    is how many arguments may come before ``--`` when it is given (the command to run comes after it): a word
    there is an option's second value, which would otherwise become the start of the command.
    """

    def __init__(self, *args: Any, several: tuple[str, ...] = (), before_command: int | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.several = several
        self.before_command = before_command

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if self.before_command is not None and "--" in args:
            self._check_before_command(ctx, args[: args.index("--")])
        try:
            words, taken = _spread(args, self.several)
        except click.UsageError as exc:
            exc.ctx = ctx
            raise
        try:
            return super().parse_args(ctx, words)
        except click.MissingParameter as exc:
            if not taken or not isinstance(exc.param, click.Argument):
                raise
            option, count = next(iter(taken.items()))
            raise click.UsageError(
                f"{exc.format_message()} {option} takes every file up to the next option (here {count}); give "
                f"{option} after the arguments, or end its files with --",
                ctx,
            ) from None

    def _check_before_command(self, ctx: click.Context, before: list[str]) -> None:
        try:
            values, arguments, _ = self.make_parser(ctx).parse_args(args=list(before))
        except click.UsageError:
            return  # the whole parse says what is wrong
        words: list[str] = []
        for param in self.params:  # the words the parser gave the arguments, in order, then any it left over
            value = values.get(param.name) if isinstance(param, click.Argument) else None
            words += [value] if isinstance(value, str) else list(value) if isinstance(value, (list, tuple)) else []
        arguments = words + [word for word in arguments if isinstance(word, str)]
        allowed = self.before_command or 0
        if len(arguments) > allowed:
            place = (
                "no argument goes"
                if allowed == 0
                else f"only {count(allowed, 'argument')} {agree(allowed, 'goes', 'go')}"
            )
            raise click.UsageError(
                f"{arguments[allowed]!r} comes before '--', where {place}: an option takes one value (repeat the "
                "option for each), and the command to run goes after '--'",
                ctx,
            )


def _spread(args: list[str], several: tuple[str, ...]) -> tuple[list[str], dict[str, int]]:
    """``args`` with each of ``several``'s values given with its own copy of the option; how many each took."""
    end = args.index("--") if "--" in args else len(args)  # after it, arguments, whatever they look like
    words: list[str] = []
    taken: dict[str, int] = {}
    taking: str | None = None
    got = 0  # values of this occurrence of the option
    for word in args[:end]:
        if taking is not None and (word == "-" or not word.startswith("-")):
            words += [taking, word]
            taken[taking] = taken.get(taking, 0) + 1
            got += 1
            continue
        if taking is not None and not got:  # the parser would take the next option for its value
            raise click.UsageError(f"Option '{taking}' requires an argument.")
        taking, got = (word, 0) if word in several else (None, 0)
        if taking is None:
            words.append(word)
    if taking is not None and not got:
        words.append(taking)  # at the end: the parser says so
    return words + args[end:], taken


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
            given = {name: values.pop(name) for name in chosen}
            switched = {name: "true" if value else None for name, value in given.items() if isinstance(value, bool)}
            settings = build_settings({**given, **switched}, live)
            return function(settings=settings, **values)

        for name in reversed(chosen):
            aliases, extra = _SETTING_OPTIONS[name]
            if isinstance(getattr(_DEFAULTS, name), bool):  # a switch: given, or not
                command = click.option(f"--{setting_key(name)}", *aliases, name, is_flag=True, **extra)(command)
                continue
            if live and name == "on_unrecorded":
                extra = {
                    "metavar": "[" + "|".join(choice.value for choice in Unrecorded) + "]",
                    "help": "What a call the recording never made gets: stop, an error result, a stub, or the "
                    "real server's answer (live, with the server's command after --).",
                }
            default = getattr(_DEFAULTS, name)
            default = default.value if isinstance(default, enum.Enum) else None if default == () else default
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


def policies_option(function: Command) -> Command:
    """``--policies FILE``: the policies over the calls the command reads (the command gets ``policies_file``)."""
    return click.option(
        "--policies",
        "policies_file",
        metavar="FILE",
        help="A policy file (TOML): what the calls must never do, must do, in what order, how often, and where a "
        "result may not go. See docs/checks.md.",
    )(function)


EVERY_SHAPE = "\0"  # what a bare --no-redact stands for: no shape's name can be it


def redaction_options(verb: str) -> Callable[[Command], Command]:
    """``--redact REGEX`` and ``--no-redact [SHAPE]`` (a shape's name, or alone every shape); the command gets
    ``redactor=``. ``verb`` says what the command does with what it redacts (``log``, ``write``)."""

    from toolreplay.redact import SHAPE_NAMES  # noqa: PLC0415 - only the commands that record load redaction

    def decorate(function: Command) -> Command:
        @functools.wraps(function)
        def command(**values: Any) -> Any:
            redactor = make_redactor(values.pop("patterns"), values.pop("no_redact"))
            return function(redactor=redactor, **values)

        command = click.option(
            "--no-redact",
            "no_redact",
            multiple=True,
            is_flag=False,
            flag_value=EVERY_SHAPE,
            metavar="[SHAPE]",
            help=f"Leave the secret shape SHAPE alone (repeatable): {', '.join(SHAPE_NAMES)}. Alone (last, or "
            f"before another option, since it takes the next word as SHAPE): {verb} every secret as it is (not "
            "recommended).",
        )(command)
        return click.option(
            "--redact", "patterns", multiple=True, metavar="REGEX", help="Also redact matches of REGEX (repeatable)."
        )(command)

    return decorate


def make_redactor(patterns: tuple[str, ...], no_redact: tuple[str, ...]) -> Redactor:
    """The redactor the options ask for: none at all for a bare ``--no-redact``; else the shapes but those named."""
    from toolreplay.redact import SHAPE_NAMES, Redactor, unknown_shapes  # noqa: PLC0415 - as above

    if EVERY_SHAPE in no_redact:
        return Redactor.disabled()
    unknown = unknown_shapes(no_redact)
    if unknown:
        raise UsageError(
            f"--no-redact {unknown[0]}: no such secret shape; the shapes are {', '.join(SHAPE_NAMES)} "
            "(a bare --no-redact, for every shape, goes last or before another option)"
        )
    return Redactor.default(patterns, no_redact)
