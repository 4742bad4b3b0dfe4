"""The replay engine with small scripted agents: answers, policies, endings."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from toolreplay.agents.base import Turn
from toolreplay.analysis.matching import EXACT, Matcher
from toolreplay.answers import UNRECORDED_ERROR, RecordedAnswers
from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import InputError
from toolreplay.core.model import Call, Origin, Session, SessionContext, ToolDef
from toolreplay.formats.stubs import Stub, read_stubs
from toolreplay.replay.engine import ReplaySetup, replay_once
from toolreplay.settings import Unrecorded


def recording(*calls: tuple[str, JSONObject, str]) -> Session:
    messages: list[JSONObject] = [{"role": "user", "content": "go"}]
    recorded = []
    for i, (tool, args, result) in enumerate(calls):
        messages.append(
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": tool, "input": args}]}
        )
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": result}]}
        )
        recorded.append(Call(i, tool, args, result, 0))
    context = SessionContext("scripted:x", {"kind": "test"}, "sys", (ToolDef("t", "", {}),), tuple(messages), "done")
    return Session("rec.json", tuple(recorded), context)


class ScriptAgent:
    """Asks for the given turns of tool calls, one list per turn, then stops."""

    model = "scripted:test"

    def __init__(self, turns: Sequence[Sequence[tuple[str, JSONObject]]], stop_reason: str = "end_turn") -> None:
        self.turns = list(turns)
        self.seen: list[list[JSONObject]] = []
        self.stop_reason = stop_reason
        self.ids = 0

    def respond(self, system: JSONValue, tools: Sequence[ToolDef], messages: Sequence[JSONObject]) -> Turn:
        self.seen.append([dict(m) for m in messages])
        if not self.turns:
            return Turn([{"type": "text", "text": "finished"}], self.stop_reason)
        blocks: list[JSONObject] = []
        for name, args in self.turns.pop(0):
            self.ids += 1
            blocks.append({"type": "tool_use", "id": f"u{self.ids}", "name": name, "input": args})
        return Turn(blocks, "tool_use")


def setup(
    session: Session, on: Unrecorded = Unrecorded.ERROR, stubs: tuple[Stub, ...] = (), turns: int = 10
) -> ReplaySetup:
    assert session.context is not None
    return ReplaySetup(session, "sys", session.context.tools, on, stubs, turns, EXACT)


def run(session: Session, agent: ScriptAgent, **options: Any) -> Any:
    return replay_once(setup(session, **options), agent, RecordedAnswers(session.calls, EXACT), 1, None)


def test_recorded_calls_get_recorded_results_and_repeats_come_in_order() -> None:
    rec = recording(("read", {"p": 1}, "first"), ("read", {"p": 1}, "second"), ("list", {}, "entries"))
    agent = ScriptAgent([[("list", {})], [("read", {"p": 1})], [("read", {"p": 1})], [("read", {"p": 1})]])
    result = run(rec, agent)
    assert [c.result for c in result.calls] == ["entries", "first", "second", "second"]
    assert result.origins == (Origin.RECORDED,) * 4
    assert (result.ending, result.final_reply) == ("final reply", "finished")


def test_parallel_calls_are_answered_in_one_message_in_the_order_asked() -> None:
    rec = recording(("a", {}, "A"), ("b", {}, "B"))
    agent = ScriptAgent([[("b", {}), ("a", {})]])
    run(rec, agent)
    answer = agent.seen[1][-1]
    assert answer["role"] == "user"
    blocks: Any = answer["content"]
    assert [(b["tool_use_id"], b["content"]) for b in blocks] == [("u1", "B"), ("u2", "A")]


def test_unrecorded_call_policies() -> None:
    rec = recording(("read", {}, "r"))
    stopped = run(rec, ScriptAgent([[("delete", {"p": 1})], [("read", {})]]), on=Unrecorded.STOP)
    assert (stopped.ending, len(stopped.calls), stopped.origins) == (
        "stopped at an unrecorded call",
        1,
        (Origin.STOPPED,),
    )

    errored = run(rec, ScriptAgent([[("delete", {"p": 1})]]), on=Unrecorded.ERROR)
    assert (errored.calls[0].result, errored.calls[0].is_error, errored.origins) == (
        UNRECORDED_ERROR,
        True,
        (Origin.ERROR,),
    )

    stub = Stub("delete", (("p", 1),), '{"deleted": true}', False)
    stubbed = run(rec, ScriptAgent([[("delete", {"p": 1})], [("delete", {"p": 2})]]), on=Unrecorded.STUB, stubs=(stub,))
    assert stubbed.origins == (Origin.STUB, Origin.ERROR)  # no stub matches p=2: an error result
    assert stubbed.calls[0].result == '{"deleted": true}'


def test_endings_are_reported() -> None:
    rec = recording(("read", {}, "r"))
    assert run(rec, ScriptAgent([], stop_reason="refusal")).ending == "refused"
    assert run(rec, ScriptAgent([], stop_reason="max_tokens")).ending == "ran out of tokens"
    looping = ScriptAgent([[("read", {})]] * 10)
    assert run(rec, looping, turns=3).ending == "reached the 3-turn limit"


def test_matching_ignores_configured_arguments() -> None:
    answers = RecordedAnswers([Call(0, "create", {"title": "x", "request_id": "r1"}, "made", 0)], Matcher(("*_id",)))
    found = answers.answer(Call(0, "create", {"title": "x", "request_id": "r2"}, None, 0))
    assert found is not None
    assert found.content == "made"


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([], "the stubs file: must be an object, found an array"),
        ({"stubs": [{"tool": "x"}]}, "stubs[0]: missing field 'result'"),
        ({"stubs": [{"tool": "x", "result": 1, "when": 2}]}, "stubs[0]: unknown field 'when' in a stub"),
        ({"stubs": [{"tool": "", "result": 1}]}, "stubs[0].tool: must be a non-empty string"),
        ({"stubs": [{"tool": "x", "result": 1, "is_error": "no"}]}, "stubs[0].is_error: must be a boolean"),
    ],
)
def test_malformed_stubs_are_refused(tmp_path: Path, doc: object, message: str) -> None:
    path = tmp_path / "stubs.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=re.escape(message)):
        read_stubs(path)
