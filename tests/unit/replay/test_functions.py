"""A python: agent's runs seen from the replay: each run's servers made fresh here, its calls kept as serve logs
them, and read back as a program's log is read."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import ROOT
from toolreplay.agent_spec import FunctionSpec
from toolreplay.agents.function import FunctionWorker
from toolreplay.core.model import Origin
from toolreplay.formats.recording import load_session
from toolreplay.replay.command import prepare
from toolreplay.replay.engine import ReplaySetup
from toolreplay.replay.functions import FunctionRuns
from toolreplay.settings import Unrecorded

OPS = ROOT / "samples" / "ops"


def test_a_runs_calls_are_kept_as_serve_logs_them_and_read_back_so(tmp_path: Path) -> None:
    agent = tmp_path / "agent.py"
    agent.write_text(
        "async def run(task, session):\n"
        "    await session.call_tool('disk_usage', {'host': 'build-04'})\n"
        "    await session.call_tool('delete_path', {'host': 'build-04', 'path': '/etc'})\n"
        "    return task\n",
        encoding="utf-8",
    )
    session = load_session(str(OPS / "session.json"))
    assert session.context is not None
    setup = ReplaySetup(session, "", session.context.tools, Unrecorded.STUB, None, 50, run_timeout=30)
    worker = FunctionWorker(FunctionSpec(str(agent), "run"), str(tmp_path), None, None, False)
    try:
        runs = FunctionRuns(worker, setup, prepare(setup, Unrecorded.STUB, None), tmp_path, "edited", 30)
        made = runs.run(3, 7)
    finally:
        worker.close()
    assert (made.number, made.seed, made.ending) == (3, 7, "final reply")
    assert made.final_reply == (OPS / "task.txt").read_text(encoding="utf-8").removesuffix("\n")
    assert [(call.tool, origin) for call, origin in zip(made.calls, made.origins, strict=True)] == [
        ("disk_usage", Origin.RECORDED),
        ("delete_path", Origin.DEFAULT),  # no stubs file: a default by the call's class
    ]
    assert not (tmp_path / "edited-0003").exists()  # the calls are kept in memory: no run writes a log


def test_a_function_is_cached_by_its_file_and_those_beside_it(tmp_path: Path) -> None:
    """A module of one file imports its neighbours: a change to one of them is a change to the agent."""
    from toolreplay.replay.cache import agent_identity  # noqa: PLC0415

    (tmp_path / "myagent.py").write_text("from helpers import act\nasync def run(task):\n    return act()\n")
    helpers = tmp_path / "helpers.py"
    helpers.write_text("def act():\n    return 'archive'\n")
    spec = FunctionSpec("myagent", "run", str(tmp_path))
    before = agent_identity(spec, str(tmp_path), "stdio", None)
    helpers.write_text("def act():\n    return 'delete'\n")
    after = agent_identity(spec, str(tmp_path), "stdio", None)
    assert before["function"] == after["function"] == "python:myagent:run"
    assert before != after
    assert str(tmp_path) not in str(before)  # never a path of this machine
