"""Unit tests of toolreplay.integrity."""
