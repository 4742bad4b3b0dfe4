"""The agent's turn loop, once: the agent asks for tools, something answers each call, until it stops.

Recording (``run``, where ``execute`` really runs each tool) and replaying
(where the recording answers) differ only in who answers a call, so both drive
this one generator. It yields the messages to send and receives the agent's
turn, which keeps it free of how the agent is called: a scripted agent, a
blocking API client and an async one all drive it the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence

from toolreplay.agents.base import Turn, Usage
from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.records import record

# How a run ended, in the words reports use, by the API's stop reason.
ENDINGS = {
    "end_turn": "final reply",
    "stop_sequence": "final reply",
    "refusal": "refused",
    "max_tokens": "ran out of tokens",
    "pause_turn": "paused",
}


@record
class AgentFailure:
    """The agent could not be asked (an API error that outlived the SDK's retries, a script that failed)."""

    message: str


@record
class ToolResult:
    """What one tool call gets back, as a ``tool_result`` block's content."""

    content: JSONValue
    is_error: bool = False


@record
class Ending:
    """How the conversation ended, and everything said in it."""

    ending: str
    final_reply: str | None
    messages: tuple[JSONObject, ...]
    usage: Usage
    error: str | None = None


# Answers one call (tool name, arguments, the person's turn); None ends the conversation there ("stopped at an
# unrecorded call").
Answerer = Callable[[str, JSONObject, int], "ToolResult | None"]
Conversation = Generator[list[JSONObject], "Turn | AgentFailure", Ending]


def _add(total: Usage, more: Usage) -> Usage:
    return Usage(
        total.input_tokens + more.input_tokens,
        total.output_tokens + more.output_tokens,
        total.cache_read_tokens + more.cache_read_tokens,
        total.cache_write_tokens + more.cache_write_tokens,
    )


def converse(person: Sequence[JSONObject], max_turns: int, answer: Answerer) -> Conversation:
    """One conversation: yields the messages so far before each turn, and returns how it ended.

    ``person`` holds what the person says, in order: the opening, then each
    later message, sent once the agent has replied to the one before (a final
    reply: a turn that calls no tool). Parallel tool calls are answered in one
    message, in the order asked. ``answer`` is told the person's turn too.
    """
    messages: list[JSONObject] = [dict(person[0])]
    spoken = 1
    usage = Usage()

    def finish(ending: str, reply: str | None = None, error: str | None = None) -> Ending:
        return Ending(ending, reply, tuple(messages), usage, error)

    for _ in range(max_turns):
        turn = yield messages
        if isinstance(turn, AgentFailure):
            return finish("error", error=turn.message)
        usage = _add(usage, turn.usage)
        content: list[JSONValue] = list(turn.content)
        messages.append({"role": "assistant", "content": content})
        uses = turn.tool_uses
        if not uses:
            ending = ENDINGS.get(turn.stop_reason, turn.stop_reason)
            if ending == "final reply" and spoken < len(person):  # the person speaks again
                messages.append(dict(person[spoken]))
                spoken += 1
                continue
            return finish(ending, turn.text if ending == "final reply" else None)
        results: list[JSONValue] = []
        for use in uses:
            name, args, use_id = use.get("name"), use.get("input"), use.get("id")
            if not isinstance(name, str) or not name or not isinstance(args, dict) or not isinstance(use_id, str):
                return finish("error", error=f"the agent asked for a malformed tool call: {use!r}")
            result = answer(name, args, spoken)
            if result is None:
                return finish("stopped at an unrecorded call")
            block: JSONObject = {"type": "tool_result", "tool_use_id": use_id, "content": result.content}
            if result.is_error:
                block["is_error"] = True
            results.append(block)
        messages.append({"role": "user", "content": results})
    return finish(f"reached the {max_turns}-turn limit")
