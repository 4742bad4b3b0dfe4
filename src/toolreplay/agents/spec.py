"""Naming an agent on the command line or in a config: which agent, and what it is told."""

from __future__ import annotations

from toolreplay.agents.base import Agent
from toolreplay.agents.scripted import PREFIX, ScriptedAgent
from toolreplay.errors import UsageError
from toolreplay.formats.files import read_text


def make_agent(spec: str, seed: int, max_tokens: int = 4096) -> Agent:
    """``scripted:PATH`` builds a scripted agent with ``seed``; anything else is a Claude model id."""
    if spec.startswith(PREFIX):
        path = spec[len(PREFIX) :]
        if not path:
            raise UsageError("--agent scripted: needs a path, as in scripted:agent.py")
        return ScriptedAgent(path, seed)
    from toolreplay.agents.claude import ClaudeAgent, make_client  # noqa: PLC0415 - the optional SDK

    return ClaudeAgent(make_client(), spec, max_tokens)


def read_prompt(path: str) -> str:
    """A prompt file's text, without the final newline an editor adds."""
    return read_text(path).removesuffix("\n")
