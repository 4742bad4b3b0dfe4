"""Error types.

Every error a user can cause is a :class:`ToolreplayError` that knows the file
and line it is about. The CLI turns it into one line on stderr and exit code 2;
library code never prints or exits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path


class ToolreplayError(Exception):
    """Base of every error toolreplay reports to the user (exit code 2)."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        return where + self.message


class InputError(ToolreplayError):
    """A file could not be read or does not follow its format."""


class InputErrors(InputError):
    """Several errors in one input, each said on a line of its own; it reads as the first of them."""

    def __init__(self, errors: Sequence[ToolreplayError]) -> None:
        first = errors[0]
        super().__init__(first.message, first.path, first.line)
        self.errors = tuple(errors)


class OutputError(ToolreplayError):
    """A file the command was asked to write could not be written."""


class UsageError(ToolreplayError):
    """The command line asks for something that cannot be done."""
