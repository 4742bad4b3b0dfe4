"""The runner seam: the agent a spec names, run from its seeds, the same runs in process and in a worker."""

from __future__ import annotations

import io
from pathlib import Path

from tests.conftest import ROOT
from toolreplay.agent_spec import ScriptSpec, parse_agent
from toolreplay.agents.remote import WORKER
from toolreplay.agents.worker import main as worker_main
from toolreplay.formats.recording import load_session
from toolreplay.replay.engine import ReplaySetup
from toolreplay.replay.progress import Progress
from toolreplay.replay.runners import ModelRunner, ScriptedRunner, Workspace, runner_for
from toolreplay.settings import ReplaySettings, Unrecorded

OPS = ROOT / "samples" / "ops"


def _setup() -> ReplaySetup:
    session = load_session(str(OPS / "session.json"))
    assert session.context is not None
    system = (OPS / "prompt-v2.txt").read_text(encoding="utf-8").removesuffix("\n")
    return ReplaySetup(session, system, session.context.tools, Unrecorded.ERROR, None, 50)


def test_a_scripted_agent_runs_the_same_in_process_and_in_its_worker() -> None:
    spec = parse_agent(f"scripted:{OPS / 'agent.py'}")
    assert isinstance(spec, ScriptSpec)
    here = ScriptedRunner(spec).runs(_setup(), [1, 2, 3], 1, Progress(3, io.StringIO()))
    workspace = Workspace(isolate=True)
    try:
        isolated = ScriptedRunner(spec, workspace).runs(_setup(), [1, 2, 3], 1, Progress(3, io.StringIO()))
    finally:
        workspace.close()
    assert [run.calls for run in isolated] == [run.calls for run in here]
    assert [run.seed for run in here] == [1, 2, 3]
    assert Path(worker_main.__code__.co_filename) == WORKER  # the worker the runner starts is this module


def test_each_spec_gets_its_runner() -> None:
    workspace = Workspace()
    assert isinstance(
        runner_for(parse_agent(f"scripted:{OPS / 'agent.py'}"), ReplaySettings(), workspace, "candidate"),
        ScriptedRunner,
    )
    assert isinstance(
        runner_for(parse_agent("claude-sonnet-4-5"), ReplaySettings(), workspace, "candidate"), ModelRunner
    )
