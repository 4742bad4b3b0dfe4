"""Entry point for ``python -m toolreplay``."""

from __future__ import annotations

from toolreplay.cli import run

if __name__ == "__main__":
    run()
