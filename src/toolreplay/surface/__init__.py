"""A tool surface, every tool each server listed as it listed it: read from a session, a log, a tools file or a
lock, or asked of a live server; pinned into a lock, diffed by effect and linted for text aimed at the model.
"""
