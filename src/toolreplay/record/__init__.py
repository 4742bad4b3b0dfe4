"""Recording sessions: from the Anthropic SDK, from toolreplay's own agent loop, from MCP traffic."""

from __future__ import annotations

from toolreplay.record.anthropic_client import AsyncRecordingClient, RecordingClient

__all__ = ["AsyncRecordingClient", "RecordingClient"]
