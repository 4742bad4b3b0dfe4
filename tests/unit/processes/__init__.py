"""Unit tests of toolreplay.processes."""
