"""The settings of a replay: one record, with its defaults, its parser and its range checks.

``replay``'s options and a config's ``replay:`` entries are both turned into a
:class:`ReplaySettings` by :func:`parse_settings`, from the text the user wrote
(an option's value, a YAML scalar as written), so a value means the same and is
refused with the same words on the command line and in ``.toolreplay.yml``:
``010`` is ten in both, ``1e-3`` a number in both, ``0x10`` refused by both. A
refused value is a :class:`SettingError` naming the setting; the command line
says ``--max-tokens``, a config says ``'max-tokens'`` with its file and line.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Mapping
from dataclasses import fields

from toolreplay.agent_spec import AgentSpec, AgentSpecError, parse_agent
from toolreplay.core.records import record
from toolreplay.stats.design import DEFAULT_ALPHA, DEFAULT_ROUNDS, MAX_EXACT_RUNS, ExactTest

DEFAULT_MAX_TOKENS = 4096


class Unrecorded(enum.Enum):
    """What a call the recording never made gets: the run stops, an error result, a canned stub, or (``serve``
    only, which has a real server to ask) the real server's answer."""

    STOP = "stop"
    ERROR = "error"
    STUB = "stub"
    LIVE = "live"


class McpTransport(enum.Enum):
    """How a ``cmd:`` program reaches the servers a replay serves it: started by it over stdio, or by URL."""

    STDIO = "stdio"
    HTTP = "http"


class Api(enum.Enum):
    """Which of OpenAI's APIs an ``openai/`` model is asked through. Chat Completions is the default: it is the one
    every server that speaks OpenAI's API offers (vLLM, Ollama, LiteLLM, llama.cpp); the Responses API is
    OpenAI's own, newer one."""

    CHAT = "chat"
    RESPONSES = "responses"


REPLAY_POLICIES = tuple(policy for policy in Unrecorded if policy is not Unrecorded.LIVE)


class SettingError(ValueError):
    """A setting's value is refused; ``key`` is its name in a config (``max-tokens``)."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key} {problem}")
        self.key = key
        self.problem = problem


# Each whole-number setting's range. Runs are capped at 10,000 because the
# baseline's seeds start 10,000 above the candidate's and must never meet them.
RANGES: dict[str, tuple[int, int]] = {
    "repeat": (1, 10_000),
    "seed": (0, 2**32 - 1),
    "noise": (0, 10_000),
    "rounds": (1, 100),
    "concurrency": (1, 256),
    "max_turns": (1, 10_000),
    "max_tokens": (1, 1_000_000),
    "min_runs": (1, 10_000),
    "max_tokens_total": (1, 10**12),
}
# Each timeout's range, in seconds.
TIMEOUTS: dict[str, tuple[float, float]] = {"request_timeout": (1.0, 3600.0), "run_timeout": (1.0, 86_400.0)}
CACHE_DAYS = (0.0, 3650.0)  # how long a cached run is trusted: at most ten years; 0 trusts none (writes only)
_PATHS = ("system", "tools", "stubs", "task_file", "cache")
_WHOLE = re.compile(r"[+-]?[0-9]+")


def setting_key(name: str) -> str:
    """A field's name as a config key and an option: ``max_turns`` -> ``max-turns``."""
    return name.replace("_", "-")


def check_alpha(value: float) -> float:
    """A false discovery rate: a number strictly between 0 and 1."""
    if not (math.isfinite(value) and 0 < value < 1):
        raise SettingError("alpha", f"must be between 0 and 1, not {value:g}")
    return value


def parse_alpha(text: str) -> float:
    """An alpha as written (``0.05``, ``5e-2``)."""
    try:
        value = float(text.strip())
    except ValueError:
        raise SettingError("alpha", f"must be a number between 0 and 1, not {text!r}") from None
    return check_alpha(value)


def parse_test(text: str) -> ExactTest:
    """An exact test by name (``boschloo``, ``fisher``)."""
    choices = [choice.value for choice in ExactTest]
    if text not in choices:
        raise SettingError("test", f"must be one of {', '.join(choices)}, not {text!r}")
    return ExactTest(text)


def _number(key: str, text: str, what: str) -> float:
    """A number as written (``1800``, ``1e-3``); ``what`` says what it must be when it is not one."""
    try:
        return float(text.strip())
    except ValueError:
        raise SettingError(key, f"must be {what}, not {text!r}") from None


def _seconds(name: str, text: str) -> float:
    return _check_seconds(name, _number(setting_key(name), text, "a number of seconds"))


def _check_seconds(name: str, value: float) -> float:
    low, high = TIMEOUTS[name]
    if not (math.isfinite(value) and low <= value <= high):
        raise SettingError(setting_key(name), f"must be between {low:g} and {high:g} seconds, not {value:g}")
    return value


def _check_days(value: float) -> float:
    low, high = CACHE_DAYS
    if not (math.isfinite(value) and low <= value <= high):
        raise SettingError("cache-days", f"must be between {low:g} and {high:g} days, not {value:g}")
    return value


def _check_cost(value: float) -> float:
    if not (math.isfinite(value) and 0 < value <= 1_000_000):
        raise SettingError("max-cost", f"must be a number of dollars above 0 and at most 1,000,000, not {value:g}")
    return value


def _cost(text: str) -> float:
    return _check_cost(_number("max-cost", text.strip().removeprefix("$"), "a number of dollars"))


def _days(text: str) -> float:
    return _check_days(_number("cache-days", text, "a number of days"))


def _whole(name: str, text: str) -> int:
    low, high = RANGES[name]
    if not _WHOLE.fullmatch(text.strip()):
        raise SettingError(setting_key(name), f"must be a whole number, not {text!r}")
    value = int(text)
    if value < low:
        raise SettingError(setting_key(name), f"must be at least {low}, not {value}")
    if value > high:
        raise SettingError(setting_key(name), f"must be at most {high:,}, not {value}")
    return value


@record
class ReplaySettings:
    """A candidate to replay a session against, and how many runs of it and of the unchanged agent.

    ``system``, ``tools`` and ``stubs`` are paths to files; ``agent`` is a Claude
    model, a scripted file or a program that speaks MCP (:mod:`toolreplay.agent_spec`),
    and None means the agent the session was recorded with. Build it with :func:`parse_settings`; constructing it
    directly checks the same ranges.
    """

    system: str | None = None
    tools: str | None = None
    agent: AgentSpec | None = None
    baseline_agent: AgentSpec | None = None  # the unchanged agent; None: the recorded one (a cmd: agent's own command)
    repeat: int = 1
    seed: int = 1
    noise: int = 0
    alpha: float = DEFAULT_ALPHA
    rounds: int = DEFAULT_ROUNDS
    test: ExactTest = ExactTest.BOSCHLOO
    on_unrecorded: Unrecorded = Unrecorded.ERROR
    stubs: str | None = None
    concurrency: int = 1
    max_turns: int = 50
    max_tokens: int | None = None  # None: the recorded request's, else DEFAULT_MAX_TOKENS
    min_runs: int = 1
    request_timeout: float = 120.0
    run_timeout: float = 1800.0
    task_file: str | None = None  # the person's first message, for a recording that lacks it (a proxy log)
    mcp_transport: McpTransport = McpTransport.STDIO  # how a cmd: program reaches its servers
    cache: str | None = None  # the run cache's directory; None: no cache
    cache_key: str | None = None  # what decides a run that toolreplay cannot see (a program's installed version)
    cache_days: float = 7.0  # how long a cached run is trusted (a model behind an alias can change)
    max_cost: float | None = None  # dollars: no run starts that would take the replay past it, on the estimate
    max_tokens_total: int | None = None  # tokens, likewise
    prompt_cache: str = "5m"  # how long a model's prompt cache lives: 5m, or 1h for runs further apart
    batch: bool = False  # a model's runs in step, each turn of them all one Message Batch
    # a config's own prices, by model-id prefix: dollars per million tokens in, out, read from and written to cache
    prices: tuple[tuple[str, tuple[float, float, float, float]], ...] = ()
    # the variables a program agent is given beyond the allowlist (PATH, the locale ...); None: all of toolreplay's
    env: tuple[str, ...] | None = None
    # the recorded servers renamed, each (old, new), as the agent's configuration calls them; old "" is the one server
    server_name: tuple[tuple[str, str], ...] = ()
    # more files a program's runs depend on than its command shows (a config's cache-files globs, matched)
    cache_files: tuple[str, ...] = ()
    allow_new_prompt: bool = False  # a system prompt given to a session that recorded none is the edit, all of it
    # where the candidate's model is asked (an OpenAI-compatible server, a proxy); None: its SDK's own default
    base_url: str | None = None
    baseline_base_url: str | None = None  # the unchanged agent's; None: base_url when it is on the same provider
    api: Api = Api.CHAT  # which OpenAI API an openai/ model is asked through

    def __post_init__(self) -> None:
        for name in RANGES:
            if getattr(self, name) is not None:
                _whole(name, str(getattr(self, name)))
        for name in TIMEOUTS:
            _check_seconds(name, getattr(self, name))
        check_alpha(self.alpha)
        _check_days(self.cache_days)
        if self.max_cost is not None:
            _check_cost(self.max_cost)
        if self.prompt_cache not in ("5m", "1h"):
            raise SettingError("prompt-cache", f"must be one of 5m, 1h, not {self.prompt_cache!r}")
        for name in _PATHS:
            if getattr(self, name) == "":
                raise SettingError(name, "must name a file, not an empty string")
        if self.noise and self.rounds * max(self.repeat, self.noise) > MAX_EXACT_RUNS:
            raise SettingError(
                "rounds",
                f"times the runs of a round must be at most {MAX_EXACT_RUNS:,} a side (the exact tests' limit), "
                f"not {self.rounds} x {max(self.repeat, self.noise)}",
            )
        if self.min_runs > self.repeat or (self.noise and self.min_runs > self.noise):
            least = min(self.repeat, self.noise) if self.noise else self.repeat
            raise SettingError(
                "min-runs", f"must be at most the runs of each configuration ({least}), not {self.min_runs}"
            )
        for name in ("base_url", "baseline_base_url"):
            if getattr(self, name) is not None:
                check_base_url(setting_key(name), getattr(self, name))
        if self.stubs is not None and self.on_unrecorded is not Unrecorded.STUB:
            raise SettingError("stubs", "are used only with on-unrecorded stub")


SETTINGS = tuple(field.name for field in fields(ReplaySettings))


def check_base_url(key: str, text: str) -> str:
    """A base URL: ``http://`` or ``https://`` with a host, as an SDK takes it (``http://localhost:8000/v1``)."""
    from urllib.parse import urlsplit  # noqa: PLC0415 - only a setting that names a URL

    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - a port that is no number is refused here, not in the first request
    except ValueError as exc:
        raise SettingError(key, f"must be an http:// or https:// URL, not {text!r} ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in text):
        raise SettingError(key, f"must be an http:// or https:// URL with a host, not {text!r}")
    if parts.username is not None or parts.password is not None:
        raise SettingError(key, "must hold no credentials (the API key comes from the environment only)")
    return text


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_env_names(text: str) -> tuple[str, ...]:
    """``env``: the names of the variables a program is given, separated by spaces or commas."""
    names = [name for name in re.split(r"[\s,]+", text) if name]
    for name in names:
        if not _ENV_NAME.fullmatch(name):
            raise SettingError("env", f"must name environment variables (letters, digits, _), not {name!r}")
    return tuple(dict.fromkeys(names))


def parse_server_names(text: str) -> tuple[tuple[str, str], ...]:
    """``server-name``: ``NEW`` (a session's one server) or ``OLD=NEW``, several separated by commas."""
    pairs: list[tuple[str, str]] = []
    for item in (part.strip() for part in text.split(",")):
        old, equals, new = item.rpartition("=") if "=" in item else ("", "", item)
        if not new.strip() or (equals and not old.strip()) or any(c.isspace() for c in old + new):
            raise SettingError("server-name", f"must be NEW or OLD=NEW (names without spaces), not {item!r}")
        pairs.append((old, new))
    if len(pairs) > 1 and any(not old for old, _ in pairs):
        raise SettingError("server-name", "names several servers, so each must be OLD=NEW")
    olds = [old for old, _ in pairs]
    twice = next((old for old in olds if olds.count(old) > 1), None)
    if twice is not None:
        raise SettingError("server-name", f"renames {twice} twice; give each server one new name")
    return tuple(pairs)


def parse_value(name: str, text: str, live: bool = False) -> object:
    """One setting's value from its text, by field name; a :class:`SettingError` when it is refused."""
    if name in RANGES:
        return _whole(name, text)
    if name in TIMEOUTS:
        return _seconds(name, text)
    if name == "alpha":
        return parse_alpha(text)
    if name == "cache_days":
        return _days(text)
    if name == "max_cost":
        return _cost(text)
    if name in ("batch", "allow_new_prompt"):
        if text.strip().lower() not in ("true", "false", "yes", "no", "on", "off", "1", "0"):
            raise SettingError(setting_key(name), f"must be true or false, not {text!r}")
        return text.strip().lower() in ("true", "yes", "on", "1")
    if name == "prompt_cache":
        if text not in ("5m", "1h"):
            raise SettingError("prompt-cache", f"must be one of 5m, 1h, not {text!r}")
        return text
    if name == "test":
        return parse_test(text)
    if name == "env":
        return parse_env_names(text)
    if name == "server_name":
        return parse_server_names(text)
    if name in ("agent", "baseline_agent"):
        try:
            return parse_agent(text)
        except AgentSpecError as exc:
            raise SettingError(setting_key(name), exc.problem) from None
    if name in ("base_url", "baseline_base_url"):
        return check_base_url(setting_key(name), text.strip())
    if name == "api":
        choices = [choice.value for choice in Api]
        if text not in choices:
            raise SettingError("api", f"must be one of {', '.join(choices)}, not {text!r}")
        return Api(text)
    if name == "mcp_transport":
        choices = [choice.value for choice in McpTransport]
        if text not in choices:
            raise SettingError("mcp-transport", f"must be one of {', '.join(choices)}, not {text!r}")
        return McpTransport(text)
    if name == "on_unrecorded":
        choices = [choice.value for choice in (Unrecorded if live else REPLAY_POLICIES)]
        if text not in choices:
            raise SettingError("on-unrecorded", f"must be one of {', '.join(choices)}, not {text!r}")
        return Unrecorded(text)
    return text


def parse_settings(given: Mapping[str, str], live: bool = False) -> ReplaySettings:
    """Settings from the text of each value given, by field name; the rest keep their defaults (``live``: the
    unrecorded-call policy may be ``live``, for ``serve``).

    The values are read in the record's field order, so when several are wrong
    the same one is named whichever way they were given.
    """
    values = {name: parse_value(name, text, live) for name in SETTINGS if (text := given.get(name)) is not None}
    return ReplaySettings(**values)  # type: ignore[arg-type]
