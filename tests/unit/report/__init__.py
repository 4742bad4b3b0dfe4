"""Unit tests of toolreplay.report."""
