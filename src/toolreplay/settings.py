"""The settings of a replay: one record, with its defaults and range checks, however it is given.

``replay``'s options and a config's ``replay:`` entries both build a
:class:`ReplaySettings`, and the replay driver consumes it, so a value means
the same and is refused with the same words on the command line and in
``.toolreplay.yml``. A refused value is a :class:`SettingError` naming the
setting; the command line says ``--max-tokens``, a config says
``'max-tokens'`` with its file and line.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, fields

DEFAULT_ALPHA = 0.05


class Unrecorded(enum.Enum):
    """What a call the recording never made gets: the run stops, an error result, or a canned stub."""

    STOP = "stop"
    ERROR = "error"
    STUB = "stub"


class SettingError(ValueError):
    """A setting's value is out of its range; ``key`` is its name in a config (``max-tokens``)."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key} {problem}")
        self.key = key
        self.problem = problem


# The least value of each whole-number setting.
LEAST = {"repeat": 1, "seed": 0, "noise": 0, "concurrency": 1, "max_turns": 1, "max_tokens": 1}


def setting_key(name: str) -> str:
    """A field's name as a config key and an option: ``max_turns`` -> ``max-turns``."""
    return name.replace("_", "-")


def check_alpha(value: float, key: str = "alpha") -> float:
    """A false discovery rate: a number strictly between 0 and 1."""
    if not (math.isfinite(value) and 0 < value < 1):
        raise SettingError(key, f"must be between 0 and 1, not {value:g}")
    return value


@dataclass(frozen=True, slots=True)
class ReplaySettings:
    """A candidate to replay a session against, and how many runs of it and of the unchanged agent.

    ``system``, ``tools`` and ``stubs`` are paths to files; ``agent`` is a Claude
    model id or ``scripted:PATH``, and None means the model the session was
    recorded with.
    """

    system: str | None = None
    tools: str | None = None
    agent: str | None = None
    repeat: int = 1
    seed: int = 1
    noise: int = 0
    alpha: float = DEFAULT_ALPHA
    on_unrecorded: Unrecorded = Unrecorded.ERROR
    stubs: str | None = None
    concurrency: int = 1
    max_turns: int = 50
    max_tokens: int = 4096

    def __post_init__(self) -> None:
        for name, least in LEAST.items():
            value = getattr(self, name)
            if type(value) is not int:
                raise SettingError(setting_key(name), f"must be a whole number, not {value!r}")
            if value < least:
                raise SettingError(setting_key(name), f"must be at least {least}, not {value}")
        check_alpha(self.alpha)
        if (self.stubs is not None) != (self.on_unrecorded is Unrecorded.STUB):
            raise SettingError("stubs", "goes with on-unrecorded stub, and on-unrecorded stub needs stubs")
        if self.agent is not None and self.agent == "scripted:":
            raise SettingError("agent", "scripted: needs a path, as in scripted:agent.py")


SETTING_NAMES = tuple(field.name for field in fields(ReplaySettings))
