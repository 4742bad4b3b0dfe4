"""An agent is named once, at the edge: what each spelling parses to, how it is written back, the files it names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolreplay.agent_spec import (
    AgentSpecError,
    ModelSpec,
    ProgramSpec,
    ScriptSpec,
    parse_agent,
    shown_from,
)


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("claude-sonnet-4-5", ModelSpec("claude-sonnet-4-5")),
        ("scripted:agents/ops.py", ScriptSpec("agents/ops.py")),
        ("cmd:python agent.py {task}", ProgramSpec(("python", "agent.py", "{task}"), "python agent.py {task}")),
    ],
)
def test_each_kind_is_told_apart_once(text: str, spec: object) -> None:
    assert parse_agent(text) == spec


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "scripted:",
        "cmd:",
        " cmd: ",
        "cmd:''",
        "cmd:a 'b",
        " cmd:echo",
        "CMD:echo",
        "Scripted:a.py",
        "cmd :x",
    ],
)
def test_a_text_that_names_no_agent_is_refused(text: str) -> None:
    with pytest.raises(AgentSpecError):
        parse_agent(text)


@given(st.text())
def test_whatever_parses_is_written_back_as_given(text: str) -> None:
    try:
        spec = parse_agent(text)
    except AgentSpecError:
        return
    assert spec.show() == text
    assert parse_agent(spec.show()) == spec


def test_a_program_names_the_files_its_words_hold_and_here_stands_for_its_directory(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("")
    (tmp_path / "prompt.txt").write_text("")
    spec = parse_agent(f"cmd:python {{here}}/agent.py --system={tmp_path}/prompt.txt {{task}} {tmp_path}/absent")
    assert spec.files(str(tmp_path)) == [f"{tmp_path}/agent.py", f"{tmp_path}/prompt.txt"]
    assert ScriptSpec("a.py").files("/anywhere") == ["a.py"]
    assert ModelSpec("m").files("/anywhere") == []


def test_a_report_names_files_from_the_repository_root() -> None:
    def show(path: str) -> str:
        return path.removeprefix("/repo/")

    assert shown_from(ScriptSpec("/repo/agents/a.py"), "/repo", show) == "scripted:agents/a.py"
    assert shown_from(parse_agent("cmd:python /repo/bin/agent.py"), "/repo", show) == "cmd:python bin/agent.py"
    assert shown_from(ModelSpec("/repo/m"), "/repo", show) == "/repo/m"


@pytest.mark.parametrize(
    ("text", "spec", "shown"),
    [
        ("anthropic/claude-sonnet-4-5", ModelSpec("claude-sonnet-4-5"), "claude-sonnet-4-5"),
        ("openai/gpt-4.1", ModelSpec("gpt-4.1", "openai"), "openai/gpt-4.1"),
        ("openai/meta-llama/Llama-3.1-8B", ModelSpec("meta-llama/Llama-3.1-8B", "openai"),
         "openai/meta-llama/Llama-3.1-8B"),
        ("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
         ModelSpec("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock"),
         "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        ("vertex/claude-sonnet-4-5@20250929", ModelSpec("claude-sonnet-4-5@20250929", "vertex"),
         "vertex/claude-sonnet-4-5@20250929"),
    ],
)  # fmt: skip
def test_a_model_names_its_provider_and_a_claude_id_alone_is_anthropics(text: str, spec: ModelSpec, shown: str) -> None:
    assert parse_agent(text) == spec
    assert spec.show() == shown
    assert parse_agent(shown) == spec  # what a report names parses back to the same model


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("mistral/large", "names no provider toolreplay knows ('mistral')"),
        ("script:x/agent.py", "names no provider toolreplay knows ('script:x')"),
        ("openai/", "names the provider openai but no model"),
    ],
)
def test_a_provider_toolreplay_does_not_know_is_refused_naming_those_it_does(text: str, said: str) -> None:
    with pytest.raises(AgentSpecError, match=re.escape(said)):
        parse_agent(text)
