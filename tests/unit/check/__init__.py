"""Unit tests of toolreplay.check."""
