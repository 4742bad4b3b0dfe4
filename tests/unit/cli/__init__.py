"""Unit tests of toolreplay.cli."""
