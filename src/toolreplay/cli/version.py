"""``toolreplay version``."""

from __future__ import annotations

import click

from toolreplay import __version__
from toolreplay.cli.output import write_text


@click.command("version", help="Print the version.")
def command() -> int:
    write_text(f"toolreplay {__version__}\n")
    return 0
