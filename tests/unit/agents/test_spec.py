"""Building the agent a spec names: which ones a command may drive in process, and a recorded program found again."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolreplay.agent_spec import ModelSpec, ProgramSpec
from toolreplay.agents.spec import agent_in_process, read_prompt, recorded_agent
from toolreplay.core.errors import UsageError


def test_run_drives_a_model_or_a_script_never_a_program() -> None:
    assert isinstance(agent_in_process("claude-sonnet-4-5"), ModelSpec)
    with pytest.raises(UsageError, match="run drives a model or a scripted agent"):
        agent_in_process("cmd:./agent.sh {task}")


def test_a_recorded_program_is_found_with_its_here_from_the_session(tmp_path: Path) -> None:
    recording = tmp_path / "recordings" / "s.json"
    found = recorded_agent("m", recording, {"agent": "cmd:python {here}/agent.py {task}", "here": ".."})
    assert isinstance(found, ProgramSpec)
    assert found.words[1] == f"{tmp_path}/agent.py"
    assert recorded_agent("claude-sonnet-4-5", recording, {"kind": "run"}) == ModelSpec("claude-sonnet-4-5")


def test_a_prompt_file_loses_only_the_newline_an_editor_adds(tmp_path: Path) -> None:
    prompt = tmp_path / "p.txt"
    prompt.write_text("Be careful.\n\n", encoding="utf-8")
    assert read_prompt(str(prompt)) == "Be careful.\n"
