"""Unit tests of toolreplay.mcp."""
