"""toolreplay: audit, seal and replay the tool calls an AI agent made."""

from __future__ import annotations

__version__ = "0.6.0"
