"""Unit tests of toolreplay.commands."""
