"""Unit tests of toolreplay.replay."""
