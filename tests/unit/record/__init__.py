"""Unit tests of toolreplay.record."""
