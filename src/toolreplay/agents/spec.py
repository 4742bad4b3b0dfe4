"""Building the agent an :data:`~toolreplay.agent_spec.AgentSpec` names, and finding the one a session was
recorded with."""

from __future__ import annotations

import os
from pathlib import Path

from toolreplay.agent_spec import (
    AgentSpec,
    AgentSpecError,
    FunctionSpec,
    ModelSpec,
    ProgramSpec,
    ScriptSpec,
    parse_agent,
)
from toolreplay.agents.base import Agent
from toolreplay.agents.providers import provider, refusal
from toolreplay.agents.providers.base import Endpoint
from toolreplay.agents.scripted import ScriptedAgent
from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import UsageError
from toolreplay.core.files import read_text
from toolreplay.core.model import Session


def make_agent(spec: ModelSpec | ScriptSpec, seed: int, request: JSONObject, endpoint: Endpoint | None = None) -> Agent:
    """A scripted agent with ``seed``, or a model asked through its provider with the request settings in
    ``request`` (``max_tokens`` and any of a session's recorded settings), reached at ``endpoint``."""
    if isinstance(spec, ScriptSpec):
        return ScriptedAgent(spec.path, seed)
    where = endpoint if endpoint is not None else Endpoint()
    refused = refusal(spec, request, where, False)
    if refused is not None:
        raise UsageError(f"{spec.show()} is not run: {refused}")
    return provider(spec.provider).blocking(spec.model, request, where)


OPENAI_SOURCES = ("openai", "openai-sdk")  # the sources whose bare model id is an OpenAI model's


def agent_in_process(text: str) -> ModelSpec | ScriptSpec:
    """The agent ``--agent`` names for a command that drives it in this process (``run``): a model or a scripted
    file, never a program."""
    try:
        spec = parse_agent(text)
    except AgentSpecError as exc:
        raise UsageError(f"--agent {exc.problem}") from None
    if isinstance(spec, ProgramSpec | FunctionSpec):
        raise UsageError("--agent: run drives a model or a scripted agent; record a program's session with record-mcp")
    return spec


def recorded_agent(model: str, recording: str | Path, source: JSONObject | None = None) -> AgentSpec | None:
    """The agent a session was recorded with, as a spec that runs from here; None when it cannot be found.

    A session imported from OpenAI's format or recorded through the OpenAI SDK
    names its model as OpenAI did (``gpt-4.1``): an ``openai/`` model.

    A session ``record`` made keeps its program in its ``source`` (``agent``,
    the command as written, and ``here``, where its ``{here}`` stood, from the
    session's directory): that program, with ``{here}`` standing for the same
    directory wherever the session is read from. Else the agent is its ``model``.

    A scripted agent's path is written as it was given when recording, which is
    usually from the repository root: it is found from the current directory if
    it is there, else from the nearest directory at or above the recording that
    holds it (the repository root, wherever the repository was copied).
    ``replay`` and ``check`` both find it this way.
    """
    program = (source or {}).get("agent")
    if isinstance(program, str):
        return _recorded_program(program, (source or {}).get("here"), recording)
    try:
        spec = parse_agent(model)
    except AgentSpecError:
        return None
    if isinstance(spec, ModelSpec) and "/" not in model and (source or {}).get("kind") in OPENAI_SOURCES:
        return ModelSpec(model, "openai")  # a bare id of a conversation held in OpenAI's form is OpenAI's
    if not isinstance(spec, ScriptSpec):
        return spec
    script = spec.path
    if os.path.isabs(script) or os.path.isfile(script):
        return spec if os.path.isfile(script) else None
    here = Path(recording).resolve().parent
    for directory in (here, *here.parents):
        if (directory / script).is_file():
            return ScriptSpec(os.path.normpath(directory / script))
    return None


def recorded_here(session: Session) -> str:
    """The directory a recorded program's ``{here}`` stands for, as a replay of ``session`` from here uses it
    (empty: the session keeps no program)."""
    source = session.context.source if session.context is not None else {}
    if not isinstance(source.get("agent"), str):
        return ""
    return _here(source.get("here"), session.path)


def _here(here: object, recording: str | Path) -> str:
    return os.path.normpath(Path(recording).absolute().parent / (here if isinstance(here, str) else "."))


def _recorded_program(program: str, here: object, recording: str | Path) -> ProgramSpec | FunctionSpec | None:
    """The program a session's source names, its ``{here}`` the directory the source says, from the session's."""
    try:
        spec = parse_agent(program)
    except AgentSpecError:
        return None
    if isinstance(spec, FunctionSpec):  # a module found, and a file's path taken, from where it was recorded
        return FunctionSpec(spec.target, spec.function, _here(here, recording))
    if not isinstance(spec, ProgramSpec):
        return None
    where = _here(here, recording)
    return ProgramSpec(tuple(word.replace("{here}", where) for word in spec.words), spec.text)


def read_prompt(path: str) -> str:
    """A prompt file's text, without the final newline an editor adds."""
    return read_text(path).removesuffix("\n")
