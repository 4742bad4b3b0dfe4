"""Unit tests of toolreplay.formats."""
