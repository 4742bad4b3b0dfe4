"""--on-unrecorded and --stubs, shared by replay and serve."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from toolreplay.errors import UsageError
from toolreplay.replay.answers import Stub, Unrecorded, read_stubs


def unrecorded_options(function: Callable[..., Any]) -> Callable[..., Any]:
    function = click.option(
        "--stubs", "stubs_file", metavar="FILE", help="Canned results for unrecorded calls (with stub)."
    )(function)
    return click.option(
        "--on-unrecorded",
        type=click.Choice([choice.value for choice in Unrecorded]),
        default="error",
        show_default=True,
        help="What a call the recording never made gets: stop, an error result, or a stub.",
    )(function)


def load_unrecorded(on_unrecorded: str, stubs_file: str | None) -> tuple[Unrecorded, tuple[Stub, ...]]:
    policy = Unrecorded(on_unrecorded)
    if (stubs_file is not None) != (policy is Unrecorded.STUB):
        raise UsageError("--stubs goes with --on-unrecorded stub, and stub needs --stubs")
    return policy, read_stubs(stubs_file) if stubs_file else ()
