"""Readers and writers of the files toolreplay reads and writes, one module per format."""
