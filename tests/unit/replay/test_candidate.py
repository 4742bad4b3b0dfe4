"""Who is the candidate and who the baseline: --baseline-agent drives only the unchanged runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES, run_cli
from toolreplay.agent_spec import ScriptSpec
from toolreplay.formats.recording import load_session
from toolreplay.replay.drive import load_candidate
from toolreplay.settings import parse_settings


def test_a_baseline_agent_alone_leaves_the_candidate_the_recorded_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    session = load_session(SAMPLES / "ops" / "session.json")
    other = ScriptSpec(str(Path("samples/ops/mcp_agent.py")))
    settings = parse_settings({"baseline_agent": other.show(), "noise": "2", "repeat": "2"})
    candidate = load_candidate(session, settings)
    assert candidate.agent == ScriptSpec("samples/ops/agent.py")
    assert candidate.baseline_agent == other
    assert candidate.label == "scripted:samples/ops/agent.py"


def test_the_report_names_the_agent_that_made_the_runs(tmp_path: Path) -> None:
    idle = tmp_path / "idle.py"  # makes no call at all: as the candidate, every recorded call would be missing
    idle.write_text(
        "class Agent:\n"
        "    def __init__(self, seed):\n"
        "        pass\n"
        "    def respond(self, system, tools, messages):\n"
        "        return [{'type': 'text', 'text': 'Nothing to do.'}]\n",
        encoding="utf-8",
    )
    recorded = run_cli("replay", "samples/ops/session.json", "--repeat", "3", cwd=ROOT)
    with_other_baseline = run_cli(
        "replay", "samples/ops/session.json", "--repeat", "3", "--baseline-agent", f"scripted:{idle}", cwd=ROOT
    )
    assert with_other_baseline.stdout == recorded.stdout  # the recorded agent's runs, as without the option
    as_candidate = run_cli(
        "replay", "samples/ops/session.json", "--repeat", "3", "--agent", f"scripted:{idle}", cwd=ROOT
    )
    assert as_candidate.stdout != recorded.stdout  # which the idle agent would have changed
