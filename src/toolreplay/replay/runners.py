"""The one seam between a replay and the kind of agent it drives: a :class:`Runner` turns seeds into runs.

A scripted agent runs in this process, one run after another with its seed; a
model runs through its provider's SDK, several at once when asked; a program runs
once per run against the served recording (:mod:`toolreplay.replay.command`),
in directories of the replay's :class:`Workspace`; a Python function runs in the
replay's one worker process for it, served from here (:mod:`toolreplay.replay.functions`). The replay asks for runs and
never looks at which kind it has.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from toolreplay.agent_spec import AgentSpec, FunctionSpec, ModelSpec, ProgramSpec, ScriptSpec
from toolreplay.agents.base import Turn
from toolreplay.agents.loop import AgentFailure
from toolreplay.agents.providers import provider, refusal
from toolreplay.agents.providers.base import Endpoint, endpoint_of
from toolreplay.agents.scripted import ScriptedAgent, load_module, user_code_refused
from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import UsageError

if TYPE_CHECKING:
    from toolreplay.agents.function import FunctionWorker
    from toolreplay.agents.remote import ScriptWorker
    from toolreplay.processes.isolation import RunAs
    from toolreplay.replay.command import Served
from toolreplay.replay.engine import ReplaySetup, Run, replay_runs, replay_runs_async, replay_runs_batched
from toolreplay.replay.progress import Progress
from toolreplay.settings import ReplaySettings


class Runner(Protocol):
    """Runs of one agent: one per seed, numbered from ``start``, in number order."""

    def runs(self, setup: ReplaySetup, seeds: Sequence[int], start: int, progress: Progress) -> list[Run]: ...


class Workspace:
    """Where a replay's program runs keep their directories: created on first use, removed at the end."""

    def __init__(
        self,
        redact_off: tuple[str, ...] = (),
        user: RunAs | None = None,
        isolate: bool = False,
        keep: Path | None = None,
    ) -> None:
        self.redact_off = redact_off  # secret shapes the runs' logs leave alone, as the recording's did
        self.user = user  # the user program runs are started as (check --isolate-user); None: toolreplay's own
        self.isolate = isolate or user is not None  # scripted agents in a worker process, not in this one
        self._workers: dict[str, ScriptWorker] = {}
        self._functions: dict[tuple[FunctionSpec, tuple[str, ...] | None], FunctionWorker] = {}
        self.here = os.getcwd()  # what {here} stands for in a command given on the command line
        self._root: Path | None = None
        self.keep = keep  # where the directory of a run that did not end in a final reply is moved; None: nowhere

    def root(self) -> Path:
        if self._root is None:
            import tempfile  # noqa: PLC0415 - directories only for program runs

            self._root = Path(tempfile.mkdtemp(prefix="toolreplay-runs-"))
            if self.user is not None:
                self._root.chmod(0o711)  # another user reaches its own run's directories, and lists none
        return self._root

    def worker(self, path: str, timeout: float) -> ScriptWorker:
        """The worker process a scripted agent file runs in, started on first use, for every run of the replay."""
        if path not in self._workers:
            from toolreplay.agents.remote import ScriptWorker  # noqa: PLC0415 - only isolated scripted agents

            self._workers[path] = ScriptWorker(path, timeout, self.user)
        return self._workers[path]

    def function_worker(self, spec: FunctionSpec, env: tuple[str, ...] | None) -> FunctionWorker:
        """The worker process a function runs in, for every run of the replay, both sides (started at the first)."""
        key = (spec, env)
        if key not in self._functions:
            from toolreplay.agents.function import FunctionWorker  # noqa: PLC0415 - only python: agents

            self._functions[key] = FunctionWorker(spec, self.here, env, self.user, self.isolate)
        return self._functions[key]

    def close(self) -> None:
        for worker in self._workers.values():
            worker.close()
        self._workers.clear()
        for function in self._functions.values():
            function.close()
        self._functions.clear()
        if self._root is not None:
            import shutil  # noqa: PLC0415 - as above

            shutil.rmtree(self._root, ignore_errors=True)


class ScriptedRunner:
    """A scripted agent, each run with its seed, one after another: in this process, or under isolation in a worker
    process of its own (one per replay)."""

    def __init__(self, spec: ScriptSpec, workspace: Workspace | None = None, timeout: float = 1800.0) -> None:
        self.spec = spec
        self.workspace = workspace
        self.timeout = timeout

    def runs(self, setup: ReplaySetup, seeds: Sequence[int], start: int, progress: Progress) -> list[Run]:
        if self.workspace is not None and self.workspace.isolate:
            refused = user_code_refused()
            if refused is not None:
                raise UsageError(f"scripted agent {self.spec.path} is not run: {refused}")
            worker = self.workspace.worker(self.spec.path, self.timeout)
            agents = [(ScriptedAgent(self.spec.path, seed, worker=worker), seed) for seed in seeds]
            return replay_runs(setup, agents, progress.turn, progress.run, start)
        module = load_module(self.spec.path, "scripted agent")  # found and loaded once, for every run
        agents = [(ScriptedAgent(self.spec.path, seed, module), seed) for seed in seeds]
        return replay_runs(setup, agents, progress.turn, progress.run, start)


class ModelRunner:
    """A model through its provider's SDK: one run at a time, ``concurrency`` at once through one async client, or
    in step as batches; reached at ``endpoint``."""

    def __init__(self, spec: ModelSpec, settings: ReplaySettings, endpoint: Endpoint | None = None) -> None:
        self.spec = spec
        self.settings = settings
        self.endpoint = endpoint if endpoint is not None else endpoint_of(settings, settings.base_url)

    def runs(self, setup: ReplaySetup, seeds: Sequence[int], start: int, progress: Progress) -> list[Run]:
        """The runs, each with its cost at the model's list price where the table knows it (a batch's at half)."""
        from toolreplay.replay.prices import cost_of, price_of  # noqa: PLC0415 - model runs only

        price = price_of(self.spec, self.settings.prices)
        made = self._runs(setup, seeds, start, progress)
        if price is None:
            return made
        share = 0.5 if self.settings.batch else 1.0
        return [replace(run, usage=replace(run.usage, cost_usd=round(share * (cost_of(run.usage, price) or 0), 6)))
                for run in made]  # fmt: skip

    def _runs(self, setup: ReplaySetup, seeds: Sequence[int], start: int, progress: Progress) -> list[Run]:
        refused = refusal(self.spec, setup.request, self.endpoint, self.settings.batch)
        if refused is not None:  # drive asks before any run; a runner asked directly refuses as it does
            raise UsageError(f"{self.spec.show()} is not run: {refused}")
        chosen = provider(self.spec.provider)
        if self.settings.batch:
            return self._batched(setup, len(seeds), start, progress)
        if self.settings.concurrency == 1:
            agent = chosen.blocking(self.spec.model, setup.request, self.endpoint)  # one client, every run
            agents = [(agent, None) for _ in seeds]
            return replay_runs(setup, agents, progress.turn, progress.run, start)
        import asyncio  # noqa: PLC0415 - only model replays in parallel need it, and it is slow to import

        return asyncio.run(self._at_once(setup, len(seeds), start, progress))

    def _batched(self, setup: ReplaySetup, count: int, start: int, progress: Progress) -> list[Run]:
        """The runs in step, each turn of them all one batch; the runs' timeout bounds the waiting."""
        import time  # noqa: PLC0415

        model = provider(self.spec.provider).batched(self.spec.model, setup.request, self.endpoint)
        deadline = time.monotonic() + setup.run_timeout

        def ask(pending: Sequence[tuple[str, list[JSONObject]]]) -> Mapping[str, Turn | AgentFailure]:
            return model.ask(setup.system, setup.tools, pending, deadline)

        return replay_runs_batched(setup, ask, count, progress.turn, progress.run, start)

    async def _at_once(self, setup: ReplaySetup, repeat: int, start: int, progress: Progress) -> list[Run]:
        clients = provider(self.spec.provider).concurrent(self.endpoint)
        try:
            agents = [clients.agent(self.spec.model, setup.request) for _ in range(repeat)]
            concurrency = self.settings.concurrency
            return await replay_runs_async(setup, agents, concurrency, progress.turn, progress.run, start)
        finally:
            await clients.close()


class ProgramRunner:
    """A program that speaks MCP, once per run against what this side serves, ``concurrency`` at a time."""

    def __init__(self, spec: ProgramSpec, settings: ReplaySettings, workspace: Workspace, side: str) -> None:
        self.spec = spec
        self.settings = settings
        self.workspace = workspace
        self.side = side  # "edited" or "unchanged": the runs' directories are named by it

    def runs(self, setup: ReplaySetup, seeds: Sequence[int], start: int, progress: Progress) -> list[Run]:
        from toolreplay.replay.command import CommandRuns, command_runs  # noqa: PLC0415 - programs only

        chosen, served = self.settings, _served(self.spec, self.settings, self.workspace, setup)
        programs = CommandRuns(
            self.spec.words,
            setup,
            served,
            self.workspace.root(),
            self.side,
            chosen.run_timeout,
            self.workspace.here,
            chosen.mcp_transport,
            env=chosen.env,
            user=self.workspace.user,
            keep=self.workspace.keep,
        )
        return command_runs(programs, seeds, start, chosen.concurrency, progress.run)


class FunctionRunner:
    """A Python function, once per run in the replay's worker process for it, ``concurrency`` at a time."""

    def __init__(self, spec: FunctionSpec, settings: ReplaySettings, workspace: Workspace, side: str) -> None:
        self.spec = spec
        self.settings = settings
        self.workspace = workspace
        self.side = side

    def runs(self, setup: ReplaySetup, seeds: Sequence[int], start: int, progress: Progress) -> list[Run]:
        from toolreplay.replay.command import command_runs  # noqa: PLC0415 - functions only
        from toolreplay.replay.functions import FunctionRuns  # noqa: PLC0415

        chosen, served = self.settings, _served(self.spec, self.settings, self.workspace, setup)
        worker = self.workspace.function_worker(self.spec, chosen.env)
        worker.ready()  # a function that cannot be loaded stops the replay before any run, in one line
        made = FunctionRuns(worker, setup, served, self.workspace.root(), self.side, chosen.run_timeout)
        return command_runs(made, seeds, start, chosen.concurrency, progress.run)


def _served(
    spec: ProgramSpec | FunctionSpec, settings: ReplaySettings, workspace: Workspace, setup: ReplaySetup
) -> Served:
    """What a side of a program's or a function's replay serves, once no refusal of user code stands in the way."""
    from toolreplay.replay.command import prepare  # noqa: PLC0415 - programs and functions only

    refused = user_code_refused()
    if refused is not None:
        raise UsageError(f"agent {spec.show()} is not run: {refused}")
    return prepare(setup, settings.on_unrecorded, settings.stubs, workspace.redact_off)


def runner_for(
    spec: AgentSpec, settings: ReplaySettings, workspace: Workspace, side: str, endpoint: Endpoint | None = None
) -> Runner:
    """The runner of the agent ``spec`` names, under ``settings``; ``side`` names a program's run directories, and
    ``endpoint`` says where a model is reached (None: at ``settings.base_url``)."""
    if isinstance(spec, ScriptSpec):
        return ScriptedRunner(spec, workspace, settings.run_timeout)
    if isinstance(spec, ProgramSpec):
        return ProgramRunner(spec, settings, workspace, side)
    if isinstance(spec, FunctionSpec):
        return FunctionRunner(spec, settings, workspace, side)
    return ModelRunner(spec, settings, endpoint)
