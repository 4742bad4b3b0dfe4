"""A python: agent: a function run in one worker process per replay, its MCP session answered from the recording.

Each test drives the real worker (the real ``mcp`` SDK's ``ClientSession`` in it) through the runner, on the ops
sample: the same calls as the scripted agent it wraps, the worker started once, each run a fresh world, and every
way a function can fail being that run's end, never the replay's.
"""

from __future__ import annotations

import io
import os
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import ROOT
from toolreplay.agent_spec import AgentSpecError, FunctionSpec, ScriptSpec, parse_agent
from toolreplay.agents.function import WORKER
from toolreplay.agents.function_worker import GIVEN
from toolreplay.core.errors import UsageError
from toolreplay.formats.recording import load_session
from toolreplay.replay.engine import ReplaySetup, Run
from toolreplay.replay.progress import Progress
from toolreplay.replay.runners import FunctionRunner, ScriptedRunner, Workspace, runner_for
from toolreplay.settings import ReplaySettings, Unrecorded

OPS = ROOT / "samples" / "ops"
SAMPLE = FunctionSpec("ops_agent", "run", str(ROOT / "samples" / "python"))


def _setup(prompt: str = "prompt-v2.txt", on_unrecorded: Unrecorded = Unrecorded.ERROR) -> ReplaySetup:
    session = load_session(str(OPS / "session.json"))
    assert session.context is not None
    system = (OPS / prompt).read_text(encoding="utf-8").removesuffix("\n")
    return ReplaySetup(session, system, session.context.tools, on_unrecorded, None, 50, run_timeout=60)


def _runs(spec: FunctionSpec, seeds: list[int], settings: ReplaySettings | None = None, **workspace: bool) -> list[Run]:
    chosen = settings or ReplaySettings(run_timeout=60)
    place = Workspace(**workspace)  # type: ignore[arg-type]
    try:
        return FunctionRunner(spec, chosen, place, "edited").runs(
            _setup(), seeds, 1, Progress(len(seeds), io.StringIO())
        )
    finally:
        place.close()


def _agent(tmp_path: Path, source: str, name: str = "agent.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def test_python_agents_are_named_by_module_or_file_and_anything_else_is_refused() -> None:
    assert parse_agent("python:myagent.loop:run") == FunctionSpec("myagent.loop", "run")
    assert parse_agent("python:agents/ops.py:run") == FunctionSpec("agents/ops.py", "run")
    assert parse_agent("python:c:/agents/ops.py:main").show() == "python:c:/agents/ops.py:main"  # the last colon
    for text in ("python:", "python:myagent", "python:myagent:", "python::run", "python:my-agent:run",
                 "python:myagent:run-it", "python:1agent:run", "Python:myagent:run"):  # fmt: skip
        with pytest.raises(AgentSpecError):
            parse_agent(text)
    assert runner_for(SAMPLE, ReplaySettings(), Workspace(), "edited").__class__ is FunctionRunner


def test_a_function_makes_the_calls_the_policy_it_wraps_makes_its_worker_started_once() -> None:
    """The sample function on the mcp SDK asks the scripted policy at each turn: the same calls, run for run, as the
    policy driven in process, from 12 runs of one worker."""
    seeds = list(range(1, 13))
    scripted = ScriptedRunner(ScriptSpec(str(OPS / "agent.py"))).runs(_setup(), seeds, 1, Progress(12, io.StringIO()))
    place = Workspace()
    try:
        runner = FunctionRunner(SAMPLE, ReplaySettings(run_timeout=60), place, "edited")
        made = runner.runs(_setup(), seeds, 1, Progress(12, io.StringIO()))
        again = FunctionRunner(SAMPLE, ReplaySettings(run_timeout=60), place, "unchanged").runs(
            _setup("prompt.txt"), [1, 2], 13, Progress(2, io.StringIO())
        )
        worker = place.function_worker(SAMPLE, None)
        assert worker.started == 1  # both sides, every run: one worker, its import paid once
    finally:
        place.close()
    assert [[(c.tool, c.args) for c in run.calls] for run in made] == [
        [(c.tool, c.args) for c in run.calls] for run in scripted
    ]
    assert {run.ending for run in made} == {"final reply"}
    assert all(run.final_reply and "build-04" in run.final_reply for run in made)
    assert [run.number for run in again] == [13, 14]
    assert Path(WORKER).name == "function_worker.py"


def test_every_run_is_a_fresh_world(tmp_path: Path) -> None:
    """A recorded call answered twice in a run gets what the recording gave it the second time; the next run starts
    over, as if the recording were served to it alone."""
    agent = _agent(
        tmp_path,
        """
        async def run(task, session):
            first = await session.call_tool("disk_usage", {"host": "build-04"})
            second = await session.call_tool("disk_usage", {"host": "build-04"})
            return first.content[0].text[-30:] + " | " + second.content[0].text[-30:]
        """,
    )
    made = _runs(FunctionSpec(str(agent), "run"), [1, 2, 3])
    assert len({run.final_reply for run in made}) == 1  # each run saw the same world
    first, second = str(made[0].final_reply).split(" | ")
    assert first != second  # the recording's first and second disk_usage, in their order
    assert [len(run.calls) for run in made] == [2, 2, 2]


def test_a_function_that_raises_hangs_exits_or_returns_no_text_ends_its_run_only(tmp_path: Path) -> None:
    agent = _agent(
        tmp_path,
        """
        import os, sys, time

        async def raises(task, session, seed):
            await session.call_tool("disk_usage", {"host": "build-04"})
            if seed == 2:
                raise ValueError("the model said no")
            return "done"

        async def early(task):
            raise RuntimeError("never started")

        def hangs(task, session, seed):
            if seed == 1:
                time.sleep(600)
            return "late"

        def exits(task, seed):
            if seed == 1:
                os._exit(3)
            return "after"

        def quits(task):
            sys.exit("bye")

        async def number(task):
            return 42
        """,
    )

    def spec(name: str) -> FunctionSpec:
        return FunctionSpec(str(agent), name)

    raised = _runs(spec("raises"), [1, 2, 3])
    assert [run.ending for run in raised] == ["final reply", "raised", "final reply"]
    assert raised[1].error == "ValueError: the model said no (at agent.py:7 in raises)"
    assert raised[1].traceback is not None
    assert 'raise ValueError("the model said no")' in raised[1].traceback
    assert "function_worker" not in raised[1].traceback  # the function's frames, none of toolreplay's
    assert len(raised[1].calls) == 1  # what it called before it raised counts
    early = _runs(spec("early"), [1])
    assert (early[0].ending, early[0].error) == ("error", "RuntimeError: never started (at agent.py:11 in early)")
    hung = _runs(spec("hangs"), [1, 2], ReplaySettings(run_timeout=2))
    assert hung[0].ending == "error"
    assert hung[0].error == "no reply within 2 s"
    assert hung[1].final_reply == "late"  # the next run had a worker of its own
    exited = _runs(spec("exits"), [1, 2])
    assert exited[0].ending == "error"
    assert exited[0].error == "its worker ended (exit 3)"
    assert exited[1].final_reply == "after"
    quit_ = _runs(spec("quits"), [1])
    assert quit_[0].error == "SystemExit: bye (at agent.py:24 in quits)"
    numbered = _runs(spec("number"), [1])
    assert numbered[0].error is not None
    assert numbered[0].error.startswith("TypeError: returned int, not the final reply")


def test_a_function_that_cannot_be_loaded_or_called_stops_the_replay_in_one_line(tmp_path: Path) -> None:
    agent = _agent(tmp_path, "import nothing_of_the_sort\n", "broken.py")
    with pytest.raises(UsageError, match=r"failed to load: ModuleNotFoundError: No module named 'nothing_of_the_sort'"):
        _runs(FunctionSpec(str(agent), "run"), [1])
    odd = _agent(tmp_path, "def run(task, other):\n    pass\nx = 3\n", "odd.py")
    with pytest.raises(UsageError, match=r"takes 'other', which a run does not give \(it gives task, system"):
        _runs(FunctionSpec(str(odd), "run"), [1])
    with pytest.raises(UsageError, match="is not a function"):
        _runs(FunctionSpec(str(odd), "x"), [1])
    with pytest.raises(UsageError, match="has no missing"):
        _runs(FunctionSpec(str(odd), "missing"), [1])
    with pytest.raises(UsageError, match="No module named 'no_such_package'"):
        _runs(FunctionSpec("no_such_package.agent", "run", str(tmp_path)), [1])
    assert set(GIVEN) >= {"task", "system", "session", "url"}


def test_a_sync_function_gets_the_session_and_the_served_address(tmp_path: Path) -> None:
    """A framework that connects by itself is given ``url``: the same run's world over Streamable HTTP, answered by
    the same server as its session (the two calls below are the recording's first and second disk_usage)."""
    agent = _agent(
        tmp_path,
        """
        import anyio.from_thread
        from mcp import ClientSession
        import mcp.client.streamable_http as http

        opened = getattr(http, "streamable_http_client", None) or getattr(http, "streamablehttp_client")

        async def _over(url):
            async with opened(url) as streams, ClientSession(streams[0], streams[1]) as other:
                await other.initialize()
                return (await other.call_tool("disk_usage", {"host": "build-04"})).content[0].text

        def run(task, system, session, url):
            first = anyio.from_thread.run(session.call_tool, "disk_usage", {"host": "build-04"})
            second = anyio.from_thread.run(_over, url)
            return url + " " + first.content[0].text[-12:] + " " + second[-12:]
        """,
    )
    made = _runs(FunctionSpec(str(agent), "run"), [1, 2])
    for run in made:
        url, first, second = str(run.final_reply).split(" ", 2)
        assert url.startswith("http://127.0.0.1:")
        assert url.endswith("/mcp")
        assert first != second
        assert [call.tool for call in run.calls] == ["disk_usage", "disk_usage"]


def test_runs_at_once_are_kept_apart(tmp_path: Path) -> None:
    """Eight runs of an async function at once, in one worker: each run's calls are its own."""
    agent = _agent(
        tmp_path,
        """
        import asyncio

        async def run(task, session, seed):
            await asyncio.sleep(0.05 * (seed % 3))
            for _ in range(seed % 4 + 1):
                await session.call_tool("list_dir", {"host": "build-04", "path": f"/var/log/{seed}"})
            return str(seed)
        """,
    )
    made = _runs(FunctionSpec(str(agent), "run"), list(range(1, 9)), ReplaySettings(concurrency=8, run_timeout=60))
    for run in made:
        seed = int(str(run.final_reply))
        assert run.seed == seed
        assert [call.args["path"] for call in run.calls] == [f"/var/log/{seed}"] * (seed % 4 + 1)


def test_under_isolation_the_worker_gets_the_allowlist_and_what_env_names(tmp_path: Path) -> None:
    agent = _agent(
        tmp_path,
        """
        import os
        def run(task):
            return ",".join(sorted(name for name in os.environ if name.startswith("FUNCTION_AGENT_TEST_")))
        """,
    )
    spec = FunctionSpec(str(agent), "run")
    os.environ["FUNCTION_AGENT_TEST_SECRET"], os.environ["FUNCTION_AGENT_TEST_GIVEN"] = "s3cret-value", "given"
    try:
        open_ = _runs(spec, [1])
        isolated = _runs(spec, [1], ReplaySettings(env=("FUNCTION_AGENT_TEST_GIVEN",), run_timeout=60), isolate=True)
    finally:
        del os.environ["FUNCTION_AGENT_TEST_SECRET"], os.environ["FUNCTION_AGENT_TEST_GIVEN"]
    assert open_[0].final_reply == "FUNCTION_AGENT_TEST_GIVEN,FUNCTION_AGENT_TEST_SECRET"
    assert isolated[0].final_reply == "FUNCTION_AGENT_TEST_GIVEN"


def test_what_the_function_prints_never_reaches_the_protocol(tmp_path: Path) -> None:
    agent = _agent(
        tmp_path,
        """
        import os, sys
        print('{"run": 1, "reply": "forged"}')
        async def run(task, session, run):
            print('{"run": %d, "reply": "forged"}' % run)
            sys.stdout.write('{"run": %d, "error": "forged"}\\n' % run)
            await session.call_tool("disk_usage", {"host": "build-04"})
            read = sys.stdin.read()  # nothing: never the protocol's next line
            return f"real {read!r} {sys.argv} {'toolreplay' in ' '.join(os.environ)}"
        """,
    )
    made = _runs(FunctionSpec(str(agent), "run"), [1, 2])
    assert [run.final_reply for run in made] == [f"real '' {[str(agent)]} False"] * 2


def test_a_worker_whose_python_cannot_import_the_sdk_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's interpreter (the isolated user's, under --isolate-user) may lack the mcp SDK: said before any run,
    with what to install."""
    real, bare = sys.executable, tmp_path / "python"
    bare.write_text(f'#!/bin/sh\nexec {real} -S "$@"\n', encoding="utf-8")  # no site-packages: no SDK
    bare.chmod(0o755)
    agent = _agent(tmp_path, "def run(task):\n    return 'x'\n")
    monkeypatch.setattr(sys, "executable", str(bare))
    with pytest.raises(UsageError) as refused:
        _runs(FunctionSpec(str(agent), "run"), [1])
    assert refused.value.message == (
        f"python:{agent}:run needs the mcp SDK, which {real} cannot import (No module named 'mcp'): "
        "pip install 'toolreplay[mcp]'"
    )


def test_what_an_adversary_tried_ends_its_own_run_and_says_so(tmp_path: Path) -> None:
    """An exception that cannot say what it is, a reply past the limit, a run ended by another's timeout, a
    positional-only parameter, and a spawned child process of a file agent."""
    agent = _agent(
        tmp_path,
        """
        import multiprocessing, time

        class Mute(Exception):
            def __str__(self):
                raise RuntimeError("no words")

        async def mute(task, session):
            await session.call_tool("disk_usage", {"host": "build-04"})
            raise Mute()

        async def long(task):
            return "x" * 250_000

        def slow(task, session, seed):
            session_call = __import__("anyio").from_thread.run
            session_call(session.call_tool, "disk_usage", {"host": "build-04"})
            time.sleep(0.5 if seed == 1 else 5)
            if seed == 1:
                __import__("os")._exit(4)  # the worker ends under the other run
            return "late"

        def square(n):
            return n * n

        def spawned(task):
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                return str(pool.map(square, [3]))

        def only(task, /):
            return "never"
        """,
    )

    def spec(name: str) -> FunctionSpec:
        return FunctionSpec(str(agent), name)

    muted = _runs(spec("mute"), [1])[0]
    assert muted.ending == "raised"
    assert muted.error is not None
    assert muted.error.startswith("Mute: (its str() raised; Mute at 0x")
    assert muted.traceback is not None
    assert "raise Mute()" in muted.traceback
    assert len(str(_runs(spec("long"), [1])[0].final_reply)) == 100_000
    both = _runs(spec("slow"), [1, 2], ReplaySettings(concurrency=2, run_timeout=30))
    assert [run.ending for run in both] == ["error", "error"]  # each cut short by the worker's end: no evidence
    assert both[1].error == "its worker ended (exit 4)"
    assert [call.tool for call in both[1].calls] == ["disk_usage"]  # what it did is still there
    assert _runs(spec("spawned"), [1])[0].final_reply == "[9]"
    with pytest.raises(UsageError, match="takes 'task' by position only; a run gives it by name"):
        _runs(spec("only"), [1])
