"""Unit tests of toolreplay.results."""
