"""toolreplay: audit, seal and replay the tool calls an AI agent made.

From Python (docs/python.md)::

    import toolreplay

    result = toolreplay.replay("recordings/ops.json", agent="python:myagent:run", system="prompts/v2.txt",
                               repeat=20, noise=20)
    result.assert_no_destructive()

The names below are loaded when first used, so that ``import toolreplay`` (and the command line, which imports it)
costs nothing more.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

__version__ = "0.6.0"

__all__ = [
    "Error",
    "Live",
    "ReplayResult",
    "ReplaySettings",
    "Result",
    "check",
    "compare",
    "diff",
    "load",
    "record",
    "replay",
    "settings",
]

if TYPE_CHECKING:
    from toolreplay.api import Live, ReplayResult, Result, check, compare, diff, load, record, replay, settings
    from toolreplay.core.errors import ToolreplayError as Error
    from toolreplay.settings import ReplaySettings

_WHERE = {
    "Error": ("toolreplay.core.errors", "ToolreplayError"),
    "ReplaySettings": ("toolreplay.settings", "ReplaySettings"),
}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'toolreplay' has no attribute {name!r}")
    import importlib  # noqa: PLC0415 - only once a public name is asked for

    module, attribute = _WHERE.get(name, ("toolreplay.api", name))
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


class _Package(types.ModuleType):
    """The package, whose public names come before its subpackages': ``toolreplay.replay`` and ``toolreplay.check``
    are the functions, and the packages of the same names are imported by their full names, as every module of
    toolreplay imports them (the import system binding a subpackage to its parent leaves a public name alone)."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in __all__ and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
