"""Unit tests of toolreplay.analysis."""
