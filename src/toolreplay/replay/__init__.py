"""Replaying a recorded session against a candidate agent, answering every tool call from the recording."""
