"""``toolreplay import-mcp``: ``import --from mcp`` under its own name."""

from __future__ import annotations

from toolreplay.cli.import_log import import_mcp as command

__all__ = ["command"]
