"""Unit tests of toolreplay.stats."""
