"""The typed records every analysis works on.

Input of any format is parsed into these frozen records at the edge; no raw
``dict`` travels through the core. A :class:`Call` is one tool invocation with
the result it got, and remembers the 1-based line of the file it came from so a
finding can point at it.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.records import record


@record
class Call:
    """One tool call and its recorded result: a record like the others (a reader makes one per line of a
    transcript, as fast as a plain dataclass, since a record's fields are not guarded at run time)."""

    index: int
    tool: str
    args: JSONObject
    result: JSONValue
    line: int
    is_error: bool = False
    turn: int = 1  # the person's turn of the conversation it was made in (a session's; a transcript has one)


class FindingKind(enum.Enum):
    """What a finding is about. Definition order is the report order within an index."""

    NON_DETERMINISM = "non-determinism"
    REDUNDANT_CALL = "redundant-call"
    PERMISSION_OVERREACH = "permission-overreach"
    ANNOTATION_MISMATCH = "annotation-mismatch"
    POLICY_VIOLATION = "policy-violation"

    @property
    def rank(self) -> int:
        return _KIND_RANK[self]


# What a session holds as the person's message when its recorder never saw one (a proxy sits below the agent).
class Origin(enum.Enum):
    """How a call was answered; the values are what the reports and a served run's log write."""

    RECORDED = "recorded"
    STUB = "stub"
    DEFAULT = "default"  # with no stubs file: a success for a write or a deletion, an error result for the rest
    ERROR = "error"  # the error result an unrecorded call gets
    STOPPED = "none"  # none: the run stopped at it

    @property
    def words(self) -> str:
        """How a report says it."""
        return _WORDS[self]


_WORDS = {
    Origin.RECORDED: "recorded",
    Origin.STUB: "stub",
    Origin.DEFAULT: "default by class",
    Origin.ERROR: "error result",
    Origin.STOPPED: "run stopped",
}


UNRECORDED_TASK = "(the task was not recorded)"

_KIND_RANK = {kind: rank for rank, kind in enumerate(FindingKind)}


@record
class Finding:
    """One audit result tied to a call (an audit can make one per call: a record builds as fast as a plain
    dataclass)."""

    index: int
    kind: FindingKind
    detail: str
    line: int

    @property
    def sort_key(self) -> tuple[int, int]:
        return (self.index, self.kind.rank)


def sorted_findings(findings: list[Finding]) -> tuple[Finding, ...]:
    """Findings in report order: by call index, then by the fixed kind order."""
    return tuple(sorted(findings, key=lambda finding: finding.sort_key))


def content_text(content: JSONValue | Sequence[JSONObject], between: str) -> str:
    """The one rule for the text of a message's content or of a system prompt: a string is its own text; blocks
    give the text of their ``text`` blocks, joined by ``between`` (``""`` for a reply, whose text the API may cut
    into blocks; a line break for a prompt's blocks); anything else has none."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = (block.get("text") for block in content if isinstance(block, dict) and block.get("type") == "text")
    return between.join(text for text in texts if isinstance(text, str))


@record
class ToolDef:
    """A tool as the agent was shown it, plus its MCP annotations.

    ``annotations`` is toolreplay's own field (``readOnlyHint``,
    ``destructiveHint``, ``idempotentHint``, ``openWorldHint``); it is never sent
    to a model.
    """

    name: str
    description: str
    input_schema: JSONObject
    annotations: JSONObject | None = None


@record
class McpServer:
    """An MCP server a session's calls went to, in its own words, so a replay serves it as itself.

    ``name`` is what the agent's configuration called it (Claude Code shows its tools as ``mcp__NAME__TOOL``).
    ``exchanges``: every request the client made of it but its tool calls (the handshake, each ``tools/list``
    page, resources, prompts), each ``{"request", "response", "notifications"}`` as the messages were;
    ``results``: per ``tool_use`` id of the session, ``{"response", "notifications"}`` of that call. Both may be
    empty (a transcript shows a server's name and nothing else).
    """

    name: str
    exchanges: tuple[JSONObject, ...] = ()
    results: tuple[tuple[str, JSONObject], ...] = ()

    def listing(self) -> list[JSONObject]:
        """The tools the server listed, as it listed them: its last listing, pages joined."""
        listed: list[JSONObject] = []
        for exchange in self.exchanges:
            request, said = exchange.get("request"), exchange.get("response")
            if not isinstance(request, dict) or request.get("method") != "tools/list" or not isinstance(said, dict):
                continue
            params, result = request.get("params"), said.get("result")
            if not (isinstance(params, dict) and params.get("cursor")):
                listed = []
            tools = result.get("tools") if isinstance(result, dict) else None
            listed += [tool for tool in tools if isinstance(tool, dict)] if isinstance(tools, list) else []
        return listed


@record
class SessionContext:
    """What a session knows beyond its calls: what the agent was told and said."""

    model: str
    source: JSONObject
    system: JSONValue
    tools: tuple[ToolDef, ...]
    messages: tuple[JSONObject, ...]
    final_reply: str | None
    # The request settings a replay reuses (max_tokens, temperature, thinking, tool_choice, stop_sequences) and
    # the server tools the model was offered, as recorded; None when the recorder saw no request.
    request: JSONObject | None = None
    servers: tuple[McpServer, ...] = ()  # the MCP servers the calls went to, when they were recorded


@record
class Session:
    """One recording: its calls, and for a session file the context around them.

    A flat transcript is a session without context.
    """

    path: str
    calls: tuple[Call, ...]
    context: SessionContext | None = None


class CallClass(enum.Enum):
    """How much a call can change, from least to most (what a classification finds)."""

    READ_ONLY = "read-only"
    WRITE = "write"
    DESTRUCTIVE = "destructive"
    UNKNOWN = "unknown"

    @property
    def mutates(self) -> bool:
        return self in (CallClass.WRITE, CallClass.DESTRUCTIVE)


class PairKind(enum.Enum):
    """How a call of one recording relates to a call of another (what a diff finds)."""

    SAME = "same"
    MOVED = "moved"
    CHANGED = "changed"
    ADDED = "added"
    REMOVED = "removed"
