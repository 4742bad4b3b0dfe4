"""Assembling a session's conversation from a log's events, whatever the format: the importers' one interface.

An importer reads its format and says, in order, what happened: the person
spoke, the agent said or called something, a call got its result. The
:class:`ConversationBuilder` turns that into messages a session holds
(Messages API form, version 2): the person's messages open turns; an agent's
consecutive blocks are one assistant turn; a turn's results follow it in one
message, in the order the calls were made. Tool call ids are kept. A call with
no result is left out of the session and reported (never given a made-up
result), and so is a result that answers no call; blocks of a kind toolreplay
does not know are kept verbatim.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.model import content_text

# What the person said, when a log starts with the agent.
NO_OPENING = "(the person's first message is not in the file)"


@dataclass(slots=True)
class Notes:
    """What an import could not carry over, for the command to report."""

    unanswered: list[str] = field(default_factory=list)  # calls with no result, by tool and id
    orphans: list[str] = field(default_factory=list)  # results that answer no call, by id
    left_out: list[str] = field(default_factory=list)  # anything else, in words

    def lines(self) -> list[str]:
        said = [f"left out a call with no result: {call}" for call in self.unanswered]
        said += [f"left out a result that answers no call: {result}" for result in self.orphans]
        return said + self.left_out


@dataclass(slots=True)
class _Turn:
    blocks: list[JSONValue] = field(default_factory=list)
    results: dict[str, JSONObject] = field(default_factory=dict)


class ConversationBuilder:
    """Events in, session messages out."""

    def __init__(self, notes: Notes) -> None:
        self.notes = notes
        self.messages: list[JSONObject] = []
        self.turn: _Turn | None = None
        self.events = 0  # what the file said, in all: none is a file with nothing to import

    @property
    def empty(self) -> bool:
        return self.events == 0

    def person(self, content: str | list[JSONValue]) -> None:
        """The person speaks: a new turn of the conversation (two messages in a row are one)."""
        self.events += 1
        self._close()
        if self.messages and _has_results(self.messages[-1]):
            # the person spoke before the agent replied to the results: an empty reply keeps the turns in order
            self.messages.append({"role": "assistant", "content": []})
            self.notes.left_out.append(
                "the person spoke before the agent replied to its calls' results: an empty reply stands in"
            )
        blocks: list[JSONValue] = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        if self.messages and self.messages[-1]["role"] == "user" and not _has_results(self.messages[-1]):
            earlier = self.messages[-1]["content"]
            before = [{"type": "text", "text": earlier}] if isinstance(earlier, str) else list(earlier or [])  # type: ignore[arg-type]
            self.messages[-1] = {"role": "user", "content": [*before, *blocks]}
            return
        self.messages.append({"role": "user", "content": content if isinstance(content, str) else blocks})

    def agent(self, blocks: list[JSONValue]) -> None:
        """The agent says or calls something; a turn whose calls were answered is over first.

        A call without a string id, a name or an object of arguments, or with an id the turn already used,
        is left out and reported.
        """
        self.events += 1
        if self.turn is not None and self.turn.results:
            self._close()
        if self.turn is None:
            if not self.messages:
                self.person(NO_OPENING)
                self.notes.left_out.append("the conversation starts with the agent: its opening was not recorded")
            self.turn = _Turn()
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                use_id, name, args = block.get("id"), block.get("name"), block.get("input")
                if not (isinstance(use_id, str) and use_id and isinstance(name, str) and name):
                    self.notes.left_out.append(f"left out a call without a string id and name: {_short(block)}")
                    continue
                if not isinstance(args, dict):
                    self.notes.left_out.append(f"left out a call whose arguments are not an object: {name} ({use_id})")
                    continue
                if use_id in _use_ids(self.turn.blocks):
                    self.notes.left_out.append(f"left out a second call with the id {use_id} in one turn: {name}")
                    continue
            self.turn.blocks.append(block)

    def result(self, tool_use_id: JSONValue, content: JSONValue, is_error: bool = False) -> None:
        """A call's result (content that is neither text nor blocks is kept as its JSON text)."""
        self.events += 1
        uses = _use_ids(self.turn.blocks) if self.turn is not None else []
        if self.turn is None or not isinstance(tool_use_id, str) or tool_use_id not in uses:
            self.notes.orphans.append(str(tool_use_id))
            return
        if tool_use_id in self.turn.results:
            self.notes.left_out.append(f"left out a second result for the call {tool_use_id}")
            return
        if content is None:
            content = ""
        elif not isinstance(content, (str, list)):
            content = json.dumps(content, ensure_ascii=False)
        block: JSONObject = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
        if is_error:
            block["is_error"] = True
        self.turn.results[tool_use_id] = block

    def finish(self) -> tuple[tuple[JSONObject, ...], str | None]:
        """The messages, and the agent's final reply (None when the log ends on calls)."""
        self._close()
        if not self.messages:
            self.person(NO_OPENING)
        final = None
        last = self.messages[-1]
        if last["role"] == "assistant":
            final = content_text(last["content"] if isinstance(last["content"], list) else [], "")
        return tuple(self.messages), final

    def _close(self) -> None:
        turn, self.turn = self.turn, None
        if turn is None:
            return
        kept: list[JSONValue] = []
        for block in turn.blocks:
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("id") not in turn.results:
                self.notes.unanswered.append(f"{block.get('name')} ({block.get('id')})")
                continue
            kept.append(block)
        if not kept:
            return
        self.messages.append({"role": "assistant", "content": kept})
        answers = [turn.results[use] for use in _use_ids(kept)]
        if answers:
            self.messages.append({"role": "user", "content": list(answers)})


def _short(value: JSONValue) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:79] + "…"


def _use_ids(blocks: list[JSONValue]) -> list[str]:
    return [str(b["id"]) for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use" and "id" in b]


def _has_results(message: JSONObject) -> bool:
    content = message["content"]
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
