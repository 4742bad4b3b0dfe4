"""Unit tests of toolreplay.surface."""
