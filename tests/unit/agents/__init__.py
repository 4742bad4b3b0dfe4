"""Unit tests of toolreplay.agents."""
