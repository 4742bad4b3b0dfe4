"""Unit tests of toolreplay.core."""
