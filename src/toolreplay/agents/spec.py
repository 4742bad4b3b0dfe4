"""Naming an agent on the command line or in a config: which agent, and what it is told."""

from __future__ import annotations

import os
from pathlib import Path

from toolreplay.agents.base import Agent
from toolreplay.agents.scripted import PREFIX, ScriptedAgent
from toolreplay.canonical import JSONObject
from toolreplay.errors import UsageError
from toolreplay.formats.files import read_text

# A program that speaks MCP, run once per run against the served recording (replay/command.py runs it).
COMMAND = "cmd:"


def make_agent(spec: str, seed: int, request: JSONObject, request_timeout: float = 120.0) -> Agent:
    """``scripted:PATH`` builds a scripted agent with ``seed``; anything else is a Claude model id, asked with the
    request settings in ``request`` (``max_tokens`` and any of a session's recorded settings)."""
    if spec.startswith(PREFIX):
        path = spec[len(PREFIX) :]
        if not path:
            raise UsageError("a scripted agent needs a path, as in scripted:agent.py")
        return ScriptedAgent(path, seed)
    from toolreplay.agents.claude import ClaudeAgent, make_client  # noqa: PLC0415 - the optional SDK

    return ClaudeAgent(make_client(request_timeout), spec, request)


def recorded_agent(model: str, recording: str | Path) -> str | None:
    """The agent a session was recorded with, as a spec that runs from here; None when it cannot be found.

    A scripted agent's path is written as it was given when recording, which is
    usually from the repository root: it is found from the current directory if
    it is there, else from the nearest directory at or above the recording that
    holds it (the repository root, wherever the repository was copied).
    ``replay`` and ``check`` both find it this way.
    """
    if not model.startswith(PREFIX):
        return model
    script = model[len(PREFIX) :]
    if not script:
        return None
    if os.path.isabs(script) or os.path.isfile(script):
        return model if os.path.isfile(script) else None
    here = Path(recording).resolve().parent
    for directory in (here, *here.parents):
        if (directory / script).is_file():
            return PREFIX + os.path.normpath(directory / script)
    return None


def read_prompt(path: str) -> str:
    """A prompt file's text, without the final newline an editor adds."""
    return read_text(path).removesuffix("\n")
