"""A scripted agent run in a worker process of its own: the same answers as in process, its failures its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from toolreplay.agents.remote import RemotePolicy, ScriptWorker, WorkerFailure
from toolreplay.core.errors import UsageError

AGENT = ROOT / "samples" / "ops" / "agent.py"


def test_the_worker_answers_as_the_agent_does() -> None:
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.spec_from_file_location("ops_agent", AGENT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    messages = [{"role": "user", "content": "The disk on build-04 is nearly full."}]
    worker = ScriptWorker(str(AGENT), timeout=30)
    try:
        remote = RemotePolicy(worker, seed=3)
        assert remote.respond("prompt", [], messages) == module.Agent(3).respond("prompt", [], messages)
    finally:
        worker.close()


def test_an_agent_that_fails_fails_its_request_and_one_that_cannot_load_is_refused(tmp_path: Path) -> None:
    failing = tmp_path / "failing.py"
    failing.write_text(
        "class Agent:\n    def __init__(self, seed):\n        pass\n"
        "    def respond(self, system, tools, messages):\n        raise RuntimeError('no')\n"
    )
    worker = ScriptWorker(str(failing), timeout=30)
    try:
        with pytest.raises(WorkerFailure, match="no"):
            RemotePolicy(worker, seed=1).respond("", [], [])
    finally:
        worker.close()
    broken = tmp_path / "broken.py"
    broken.write_text("raise SystemExit(3)\n")
    with pytest.raises(UsageError, match="scripted agent"):
        ScriptWorker(str(broken), timeout=30)
