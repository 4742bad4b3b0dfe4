"""An agent as ``--agent`` or ``agent:`` names it, parsed once, at the edge: a model, a scripted file, or a program.

``claude-sonnet-4-5`` is a Claude model id, ``PROVIDER/MODEL`` a model of a
named provider (``anthropic/``, ``openai/``, ``bedrock/``, ``vertex/``: see
:data:`PROVIDERS`), ``scripted:PATH`` a Python policy file run in process,
``python:MODULE:FUNCTION`` (or ``python:FILE.py:FUNCTION``) a Python function
given an MCP session, run in a worker process, ``cmd:COMMAND`` a program that
speaks MCP, run once per run against the served recording (its words split as
a POSIX shell splits them, and never run by one).
Every other module holds an :data:`AgentSpec` and asks it
what it is, which files it names and how it is written; none looks at the text.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterable, Sequence

from toolreplay.core.records import record

SCRIPTED = "scripted:"
PROGRAM = "cmd:"
FUNCTION = "python:"
# What a program's words may hold, filled for each run (replay/command.py).
PLACEHOLDERS = ("mcp_config", "mcp_url", "task", "system", "run", "seed", "workdir", "here")
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")


class AgentSpecError(ValueError):
    """An agent that cannot be named so; ``problem`` says why, in words that follow the setting's name."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


# The providers a model can be named on, each with what it is in words; a bare model id is Anthropic's.
PROVIDERS: dict[str, str] = {
    "anthropic": "the Anthropic API",
    "bedrock": "Claude on Amazon Bedrock",
    "vertex": "Claude on Google Cloud Vertex AI",
    "openai": "the OpenAI API, or any server that speaks it (--base-url)",
}
DEFAULT_PROVIDER = "anthropic"


@record
class ModelSpec:
    """A model of a provider, asked in this process through that provider's SDK."""

    model: str
    provider: str = DEFAULT_PROVIDER

    def show(self) -> str:
        """The model as an agent names it: a Claude model of the Anthropic API by its id alone."""
        return self.model if self.provider == DEFAULT_PROVIDER else f"{self.provider}/{self.model}"

    def files(self, here: str) -> list[str]:
        return []


@record
class ScriptSpec:
    """A scripted agent: a Python file with a policy, run in this process with a seed."""

    path: str

    def show(self) -> str:
        return SCRIPTED + self.path

    def files(self, here: str) -> list[str]:
        return [self.path]


@record
class ProgramSpec:
    """A program that speaks MCP: its words, and its command as written."""

    words: tuple[str, ...]
    text: str

    @classmethod
    def of_words(cls, words: Iterable[str]) -> ProgramSpec:
        chosen = tuple(words)
        return cls(chosen, shlex.join(chosen))

    def show(self) -> str:
        return PROGRAM + self.text

    def files(self, here: str) -> list[str]:
        """The existing files the command names (its program, its prompts): inputs no report may overwrite."""
        return named_files(fill(self.words, {**dict.fromkeys(PLACEHOLDERS, ""), "here": here}))


@record
class FunctionSpec:
    """A Python function, called once per run with the task, the system prompt and an MCP session connected to the
    served recording, in a worker process (:mod:`toolreplay.agents.function`)."""

    target: str  # a module (``myagent.loop``) found from ``home`` and the installed packages, or a ``.py`` file
    function: str
    home: str = ""  # where a module is found and a file's relative path starts: the config's directory; "": here

    @property
    def is_file(self) -> bool:
        return self.target.endswith(".py")

    def show(self) -> str:
        return f"{FUNCTION}{self.target}:{self.function}"

    def files(self, here: str) -> list[str]:
        """A file's path, as an input no report may overwrite; a module names none."""
        if not self.is_file:
            return []
        path = self.target if os.path.isabs(self.target) else os.path.join(self.home or here, self.target)
        return [os.path.normpath(path)]


AgentSpec = ModelSpec | ScriptSpec | ProgramSpec | FunctionSpec
SHAPES = (
    "a Claude model id, PROVIDER/MODEL, scripted:FILE, python:MODULE:FUNCTION or cmd:COMMAND, as in openai/gpt-4.1 "
    "or python:myagent:run"
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def parse_agent(text: str) -> AgentSpec:
    """An agent from the text that names it; :class:`AgentSpecError` when it names none."""
    if not text.strip() or text.strip() in (SCRIPTED, PROGRAM, FUNCTION):
        raise AgentSpecError(f"must be {SHAPES}")
    if text.startswith(FUNCTION):
        return _function(text[len(FUNCTION) :])
    if text.startswith(SCRIPTED):
        return ScriptSpec(text[len(SCRIPTED) :])
    if text.startswith(PROGRAM):
        command = text[len(PROGRAM) :]
        try:
            words = tuple(shlex.split(command))
        except ValueError as exc:
            raise AgentSpecError(f"{text!r}: {exc}") from None
        if not words or not words[0]:  # no program to run
            raise AgentSpecError("needs a command, as in cmd:'claude -p {task} --mcp-config {mcp_config}'")
        return ProgramSpec(words, command)
    near = text.strip().lower()
    for prefix in (SCRIPTED, PROGRAM, FUNCTION):
        if near.startswith(prefix):
            raise AgentSpecError(f"must start with {prefix} exactly (lower case, nothing before it), not {text!r}")
    if any(character.isspace() for character in text):
        raise AgentSpecError(f"must be {SHAPES}: a model id holds no spaces, not {text!r}")
    provider, slash, model = text.partition("/")
    if not slash:
        return ModelSpec(text)
    if provider not in PROVIDERS:
        known = ", ".join(f"{name}/" for name in PROVIDERS)
        raise AgentSpecError(
            f"names no provider toolreplay knows ({provider!r}); a model is MODEL or PROVIDER/MODEL with one of "
            f"{known} (a server that speaks OpenAI's API: openai/MODEL with base-url), not {text!r}"
        )
    if not model:
        raise AgentSpecError(f"names the provider {provider} but no model, as in {provider}/MODEL, not {text!r}")
    return ModelSpec(model, provider)


def _function(text: str) -> FunctionSpec:
    target, colon, function = text.rpartition(":")
    shape = "python:MODULE:FUNCTION or python:FILE.py:FUNCTION, as in python:myagent.loop:run"
    if not colon or not target or not _IDENTIFIER.fullmatch(function):
        raise AgentSpecError(f"must be {shape}, not {FUNCTION + text!r}")
    if not target.endswith(".py") and not _MODULE.fullmatch(target):
        raise AgentSpecError(f"names no module ({target!r}: dotted names) and no .py file; must be {shape}")
    return FunctionSpec(target, function)


def shown_from(spec: AgentSpec, root: str, show: Callable[[str], str]) -> str:
    """How a report names the agent: a scripted file as ``show`` names files, a program's command with the
    repository's root (``root``, as a POSIX path) left out of the words that name its files."""
    if isinstance(spec, ScriptSpec):
        return SCRIPTED + show(spec.path)
    if isinstance(spec, FunctionSpec) and spec.is_file:
        return f"{FUNCTION}{show(spec.files(os.getcwd())[0])}:{spec.function}"
    if isinstance(spec, ProgramSpec):
        return spec.show().replace(f"{root}/", "")
    return spec.show()


def fill(words: Sequence[str], values: dict[str, str]) -> list[str]:
    """Each word with its placeholders replaced; anything else in braces is left as written."""
    return [_PLACEHOLDER.sub(lambda m: values[m.group(1)], word) for word in words]


def named_files(words: Iterable[str]) -> list[str]:
    """The existing files a command's words name (a word, or what follows ``=`` in one), each once."""
    found: dict[str, None] = {}
    for word in words:
        for candidate in (word, word.partition("=")[2]):
            if candidate and os.path.isfile(candidate):
                found[candidate] = None
    return list(found)
