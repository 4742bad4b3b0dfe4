"""One replay run: the candidate agent against the recorded answers, nothing executed.

The run starts from the recording's opening (the person's first message), with
the recorded system prompt and tools or their replacements; each later message
of the person's is sent once the candidate has replied to the one before. Every tool call
the candidate makes is answered from the recording (see
:mod:`toolreplay.answers`); parallel calls are answered in one message,
in the order asked. The run ends when the agent stops calling tools, refuses,
runs out of tokens, reaches the turn limit, hits an unrecorded call under
``stop``, or when the model cannot be reached; each ending is reported.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import field

from toolreplay.agents.base import Agent, AsyncAgent, Turn, Usage
from toolreplay.agents.loop import AgentFailure, ToolResult, converse
from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.analysis.matching import EXACT, Matcher
from toolreplay.answers import RecordedAnswers, answer_call
from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import ToolreplayError
from toolreplay.core.model import Call, Origin, Session, ToolDef
from toolreplay.core.records import record
from toolreplay.formats.session.shape import person_messages
from toolreplay.formats.stubs import Stub
from toolreplay.settings import Unrecorded


@record
class ReplaySetup:
    """What every run of one replay shares."""

    recording: Session
    system: JSONValue
    tools: tuple[ToolDef, ...]
    on_unrecorded: Unrecorded
    stubs: tuple[Stub, ...] | None  # None: no stubs file (a stub is then a default by the call's class)
    max_turns: int
    matcher: Matcher = EXACT
    run_timeout: float = 1800.0  # seconds; a run past it ends at its next turn, in an error
    request: JSONObject = field(default_factory=dict)  # the model's request settings (max_tokens, thinking...)
    policy: Policy = field(default_factory=Policy)  # how the candidate's calls are classified, for defaults


@record
class Run:
    """What the candidate did in one run."""

    number: int
    seed: int | None
    calls: tuple[Call, ...]
    origins: tuple[Origin, ...]  # how each call was answered
    ending: str
    final_reply: str | None
    usage: Usage = field(default_factory=Usage)
    error: str | None = None
    cached: bool = False  # given back by the run cache, not driven now: what it spent was spent before
    traceback: str | None = None  # where a python: agent's function raised, as Python tells it

    @property
    def answered(self) -> bool:
        """Whether the agent took part: a run that ended in an error (a model that never answered) is no evidence."""
        return self.ending != "error"

    @property
    def unrecorded(self) -> tuple[Call, ...]:
        return tuple(
            call for call, origin in zip(self.calls, self.origins, strict=True) if origin is not Origin.RECORDED
        )

    def as_session(self) -> Session:
        return Session(f"run {self.number}", self.calls)


RunConversation = Generator[list[JSONObject], "Turn | AgentFailure", Run]


def conversation(setup: ReplaySetup, answers: RecordedAnswers, number: int, seed: int | None) -> RunConversation:
    """One run as a generator: the shared turn loop, each call answered from the recording."""
    context = setup.recording.context
    if context is None:
        raise ToolreplayError("only a session can be replayed", setup.recording.path)
    calls: list[Call] = []
    origins: list[Origin] = []
    classify = Classifier.of(setup.policy, context, setup.tools) if setup.stubs is None else None

    def answer(name: str, args: JSONObject, turn: int) -> ToolResult | None:
        call = Call(len(calls), name, args, None, 0, False, turn)
        found = answer_call(answers, call, setup.on_unrecorded, setup.stubs, classify)
        if found is None:  # unrecorded, and the policy is to stop here
            calls.append(call)
            origins.append(Origin.STOPPED)
            return None
        calls.append(Call(call.index, name, args, found.content, 0, found.is_error, turn))
        origins.append(found.origin)
        return ToolResult(found.content, found.is_error)

    ended = yield from converse(person_messages(context.messages), setup.max_turns, answer)
    return Run(number, seed, tuple(calls), tuple(origins), ended.ending, ended.final_reply, ended.usage, ended.error)


TurnHook = Callable[["Turn | AgentFailure"], None]


def _ignore(_: Turn | AgentFailure) -> None:
    return None


def _advance(run: RunConversation, turn: Turn | AgentFailure) -> list[JSONObject] | Run:
    """Hand the run the agent's turn: the next messages to send, or the finished run."""
    try:
        return run.send(turn)
    except StopIteration as done:
        finished: Run = done.value
        return finished


def _out_of_time(setup: ReplaySetup, started: float) -> AgentFailure | None:
    """The failure that ends a run past its timeout, checked before each turn."""
    if time.monotonic() - started > setup.run_timeout:
        return AgentFailure(f"the run took longer than {setup.run_timeout:g} s (--run-timeout)")
    return None


def replay_once(
    setup: ReplaySetup,
    agent: Agent,
    answers: RecordedAnswers,
    number: int,
    seed: int | None,
    on_turn: TurnHook = _ignore,
) -> Run:
    """Drive ``agent`` from the recording's opening until the run ends (blocking)."""
    run = conversation(setup, answers, number, seed)
    step: list[JSONObject] | Run = next(run)
    started = time.monotonic()
    while not isinstance(step, Run):
        turn: Turn | AgentFailure
        try:
            turn = _out_of_time(setup, started) or agent.respond(setup.system, setup.tools, step)
        except ToolreplayError as exc:
            turn = AgentFailure(exc.message)
        on_turn(turn)
        step = _advance(run, turn)
    return step


async def replay_once_async(
    setup: ReplaySetup,
    agent: AsyncAgent,
    answers: RecordedAnswers,
    number: int,
    seed: int | None,
    on_turn: TurnHook = _ignore,
) -> Run:
    """The same run, with an agent that answers asynchronously."""
    run = conversation(setup, answers, number, seed)
    step: list[JSONObject] | Run = next(run)
    started = time.monotonic()
    while not isinstance(step, Run):
        turn: Turn | AgentFailure
        try:
            turn = _out_of_time(setup, started) or await agent.respond(setup.system, setup.tools, step)
        except ToolreplayError as exc:
            turn = AgentFailure(exc.message)
        on_turn(turn)
        step = _advance(run, turn)
    return step


def _ignore_run(_: Run) -> None:
    return None


# Each pending run's messages by an id of the caller's; the turn (or failure) each got, by the same id.
Ask = Callable[[Sequence[tuple[str, list[JSONObject]]]], Mapping[str, "Turn | AgentFailure"]]


def replay_runs_batched(
    setup: ReplaySetup,
    ask: Ask,
    count: int,
    on_turn: TurnHook = _ignore,
    on_run: Callable[[Run], None] = _ignore_run,
    start: int = 1,
) -> list[Run]:
    """``count`` runs in step, numbered from ``start``: each turn of every run still going is asked at once
    (``ask``, a Message Batch), and each run takes its answer; results in run order."""
    runs = {number: conversation(setup, RecordedAnswers(setup.recording.calls, setup.matcher), number, None)
            for number in range(start, start + count)}  # fmt: skip
    steps: dict[int, list[JSONObject] | Run] = {number: next(run) for number, run in runs.items()}
    started = time.monotonic()
    while pending := [(f"run-{number}", step) for number, step in steps.items() if not isinstance(step, Run)]:
        late = _out_of_time(setup, started)
        try:
            answers = {} if late is not None else ask(pending)
        except ToolreplayError as exc:
            late = AgentFailure(exc.message)
            answers = {}
        for name, _ in pending:
            number = int(name.removeprefix("run-"))
            turn = late or answers.get(name) or AgentFailure("the batch came back without this run's answer")
            on_turn(turn)
            steps[number] = _advance(runs[number], turn)
            finished = steps[number]
            if isinstance(finished, Run):
                on_run(finished)
    return [step for _, step in sorted(steps.items()) if isinstance(step, Run)]


def replay_runs(
    setup: ReplaySetup,
    agents: Sequence[tuple[Agent, int | None]],
    on_turn: TurnHook = _ignore,
    on_run: Callable[[Run], None] = _ignore_run,
    start: int = 1,
) -> list[Run]:
    """One run per agent, in order, numbered from ``start``; each run gets fresh recorded answers."""
    runs = []
    for number, (agent, seed) in enumerate(agents, start=start):
        answers = RecordedAnswers(setup.recording.calls, setup.matcher)
        runs.append(replay_once(setup, agent, answers, number, seed, on_turn))
        on_run(runs[-1])
    return runs


async def replay_runs_async(
    setup: ReplaySetup,
    agents: Sequence[AsyncAgent],
    concurrency: int,
    on_turn: TurnHook = _ignore,
    on_run: Callable[[Run], None] = _ignore_run,
    start: int = 1,
) -> list[Run]:
    """One run per agent, at most ``concurrency`` at a time, numbered from ``start``; results in run order."""
    import asyncio  # noqa: PLC0415 - only model replays in parallel need it, and it is slow to import

    gate = asyncio.Semaphore(concurrency)

    async def one(number: int, agent: AsyncAgent) -> Run:
        async with gate:
            answers = RecordedAnswers(setup.recording.calls, setup.matcher)
            run = await replay_once_async(setup, agent, answers, number, None, on_turn)
            on_run(run)
            return run

    return list(await asyncio.gather(*(one(number, agent) for number, agent in enumerate(agents, start=start))))
