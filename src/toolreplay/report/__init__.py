"""Renderers: pure functions from a result to the text of one report format."""
