"""One replay run: the candidate agent against the recorded answers, nothing executed.

The run starts from the recording's opening (the person's first message), with
the recorded system prompt and tools or their replacements. Every tool call
the candidate makes is answered from the recording (see
:mod:`toolreplay.replay.answers`); parallel calls are answered in one message,
in the order asked. The run ends when the agent stops calling tools, refuses,
runs out of tokens, reaches the turn limit, hits an unrecorded call under
``stop``, or when the model cannot be reached; each ending is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field

from toolreplay.agents.base import Agent, AsyncAgent, Turn, Usage
from toolreplay.canonical import JSONObject, JSONValue
from toolreplay.errors import ToolreplayError
from toolreplay.matching import EXACT, Matcher
from toolreplay.model import Call, Session, ToolDef
from toolreplay.replay.answers import Answer, RecordedAnswers, Stub, Unrecorded, stub_answer, unrecorded_error

ENDINGS = {
    "end_turn": "final reply",
    "stop_sequence": "final reply",
    "refusal": "refused",
    "max_tokens": "ran out of tokens",
    "pause_turn": "paused",
}


@dataclass(frozen=True, slots=True)
class ReplaySetup:
    """What every run of one replay shares."""

    recording: Session
    system: JSONValue
    tools: tuple[ToolDef, ...]
    on_unrecorded: Unrecorded
    stubs: tuple[Stub, ...]
    max_turns: int
    matcher: Matcher = EXACT


@dataclass(frozen=True, slots=True)
class Run:
    """What the candidate did in one run."""

    number: int
    seed: int | None
    calls: tuple[Call, ...]
    origins: tuple[str, ...]  # per call: "recorded", "stub", "error" or "none" (stopped there)
    ending: str
    final_reply: str | None
    usage: Usage = field(default_factory=Usage)
    error: str | None = None

    @property
    def unrecorded(self) -> tuple[Call, ...]:
        return tuple(call for call, origin in zip(self.calls, self.origins, strict=True) if origin != "recorded")

    def as_session(self) -> Session:
        return Session(f"run {self.number}", self.calls)


def _add(total: Usage, more: Usage) -> Usage:
    return Usage(
        total.input_tokens + more.input_tokens,
        total.output_tokens + more.output_tokens,
        total.cache_read_tokens + more.cache_read_tokens,
        total.cache_write_tokens + more.cache_write_tokens,
    )


@dataclass(frozen=True, slots=True)
class AgentFailure:
    """The model could not be asked (an API error that outlived the SDK's retries)."""

    message: str


Conversation = Generator[list[JSONObject], "Turn | AgentFailure", Run]


def conversation(setup: ReplaySetup, answers: RecordedAnswers, number: int, seed: int | None) -> Conversation:
    """One run as a generator: it yields the messages to send and receives the agent's turn.

    Keeping the run's logic free of how the agent is called lets one loop serve
    a scripted agent, a blocking API client and an async client alike.
    """
    context = setup.recording.context
    if context is None:
        raise ToolreplayError("only a session can be replayed", setup.recording.path)
    messages: list[JSONObject] = [dict(context.messages[0])]
    calls: list[Call] = []
    origins: list[str] = []
    usage = Usage()

    def finish(ending: str, reply: str | None = None, error: str | None = None) -> Run:
        return Run(number, seed, tuple(calls), tuple(origins), ending, reply, usage, error)

    for _ in range(setup.max_turns):
        turn = yield messages
        if isinstance(turn, AgentFailure):
            return finish("error", error=turn.message)
        usage = _add(usage, turn.usage)
        content: list[JSONValue] = list(turn.content)
        messages.append({"role": "assistant", "content": content})
        uses = turn.tool_uses
        if not uses:
            ending = ENDINGS.get(turn.stop_reason, turn.stop_reason)
            return finish(ending, turn.text if ending == "final reply" else None)
        results: list[JSONValue] = []
        for use in uses:
            name, args, use_id = use.get("name"), use.get("input"), use.get("id")
            if not isinstance(name, str) or not isinstance(args, dict) or not isinstance(use_id, str):
                return finish("error", error=f"the agent asked for a malformed tool call: {use!r}")
            call_index = len(calls)
            answer = _answer(setup, answers, Call(call_index, name, args, None, 0))
            if answer is None:  # unrecorded, and the policy is to stop here
                calls.append(Call(call_index, name, args, None, 0))
                origins.append("none")
                return finish("stopped at an unrecorded call")
            calls.append(Call(call_index, name, args, answer.content, 0, answer.is_error))
            origins.append(answer.origin)
            block: JSONObject = {"type": "tool_result", "tool_use_id": use_id, "content": answer.content}
            if answer.is_error:
                block["is_error"] = True
            results.append(block)
        messages.append({"role": "user", "content": results})
    return finish(f"reached the {setup.max_turns}-turn limit")


TurnHook = Callable[["Turn | AgentFailure"], None]


def _ignore(_: Turn | AgentFailure) -> None:
    return None


def _advance(run: Conversation, turn: Turn | AgentFailure) -> list[JSONObject] | Run:
    """Hand the run the agent's turn: the next messages to send, or the finished run."""
    try:
        return run.send(turn)
    except StopIteration as done:
        finished: Run = done.value
        return finished


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
    while not isinstance(step, Run):
        turn: Turn | AgentFailure
        try:
            turn = agent.respond(setup.system, setup.tools, step)
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
    while not isinstance(step, Run):
        turn: Turn | AgentFailure
        try:
            turn = await agent.respond(setup.system, setup.tools, step)
        except ToolreplayError as exc:
            turn = AgentFailure(exc.message)
        on_turn(turn)
        step = _advance(run, turn)
    return step


def _answer(setup: ReplaySetup, answers: RecordedAnswers, call: Call) -> Answer | None:
    recorded = answers.answer(call)
    if recorded is not None:
        return recorded
    if setup.on_unrecorded is Unrecorded.STOP:
        return None
    if setup.on_unrecorded is Unrecorded.STUB:
        stub = stub_answer(call, setup.stubs)
        if stub is not None:
            return stub
    return unrecorded_error()


def _ignore_run(_: Run) -> None:
    return None


def replay_runs(
    setup: ReplaySetup,
    agents: Sequence[tuple[Agent, int | None]],
    on_turn: TurnHook = _ignore,
    on_run: Callable[[Run], None] = _ignore_run,
) -> list[Run]:
    """One run per agent, in order; each run gets fresh recorded answers."""
    runs = []
    for number, (agent, seed) in enumerate(agents, start=1):
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
) -> list[Run]:
    """One run per agent, at most ``concurrency`` at a time; results in run order."""
    import asyncio  # noqa: PLC0415 - only model replays in parallel need it, and it is slow to import

    gate = asyncio.Semaphore(concurrency)

    async def one(number: int, agent: AsyncAgent) -> Run:
        async with gate:
            answers = RecordedAnswers(setup.recording.calls, setup.matcher)
            run = await replay_once_async(setup, agent, answers, number, None, on_turn)
            on_run(run)
            return run

    return list(await asyncio.gather(*(one(number, agent) for number, agent in enumerate(agents, start=1))))
