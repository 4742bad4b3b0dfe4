"""Claude Code transcripts: the JSON Lines file it keeps per session under ``~/.claude/projects/PROJECT/``.

Each line is an entry: ``type`` ``user`` or ``assistant`` with a Messages API
``message``, a ``uuid`` and the ``parentUuid`` of the entry before it; other
types (``summary``, ``system``, snapshots) are not part of the conversation. The
conversation is the chain of parents from the last entry back to the first, so
a branch the person abandoned (an edited message, a retry) is left out. Claude
Code writes one entry per content block of a model turn; entries of one
message (its ``message.id``) are one turn again.

- **Subagents** (the Task tool) run in sidechains (``isSidechain``), which are
  kept apart: the main conversation is imported, and the sidechain entries are
  counted and left out. A transcript of a subagent alone (every entry a
  sidechain) imports as its own conversation.
- **MCP tools** appear as ``mcp__SERVER__TOOL``; the call is imported as
  ``TOOL``, the name ``record-mcp`` logs, so the two compare equal.
- **Tool definitions** are not in a transcript: they come from a ``record-mcp``
  log (with their annotations) or a tools file; a tool seen in a call and
  defined nowhere gets an empty schema and no annotations (classify it with a
  rules file: ``rules init`` writes one, with rules for Claude Code's own tools).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import InputError
from toolreplay.core.model import McpServer, SessionContext, ToolDef
from toolreplay.core.wording import count
from toolreplay.formats.importers.builder import ConversationBuilder, Notes
from toolreplay.formats.parsing.jsonl import iter_objects
from toolreplay.formats.parsing.node import Node
from toolreplay.formats.parsing.positions import Pos

MCP_PREFIX = "mcp__"


def tool_name(name: str) -> str:
    """An MCP tool's own name (``mcp__SERVER__TOOL`` -> ``TOOL``); any other name as it is."""
    return _split(name)[1]


def _split(name: str) -> tuple[str | None, str]:
    """``mcp__SERVER__TOOL`` as its server and its tool; any other name as no server and itself."""
    if name.startswith(MCP_PREFIX):
        server_and_tool = name[len(MCP_PREFIX) :]
        server, _, tool = server_and_tool.partition("__")
        if server and tool:
            return server, tool
    return None, name


def import_claude_code(
    path: str | Path, model: str | None, notes: Notes, tools: Sequence[ToolDef] = ()
) -> SessionContext:
    """The main conversation of a Claude Code transcript, as a session."""
    entries, parents = _entries(path)
    main = [entry for entry in entries if not entry.value.get("isSidechain")]
    chosen = main or entries  # a subagent's own transcript: its sidechain is the conversation
    if len(chosen) < len(entries):
        notes.left_out.append(
            f"{count(len(entries) - len(chosen), 'entry', 'entries')} of subagent sidechains, kept apart"
        )
    chain = _chain(chosen, parents)
    builder = ConversationBuilder(notes)
    servers: dict[str, None] = {}  # the MCP servers the calls went to, by the names Claude Code gave them
    found_model: str | None = None
    for entry in chain:
        message = entry.member("message").object().require("role", "content")
        content = message.member("content")
        if entry.value["type"] == "user":
            _user(content, builder)
        else:  # the entries of one model turn follow each other, and the builder joins them
            found_model = found_model or _model(message)
            builder.agent([_renamed(block, servers) for block in _blocks(content, calls=True)])
    messages, final = builder.finish()
    defined = {tool.name: tool for tool in tools}
    seen = _called(messages)
    for name in seen:
        defined.setdefault(name, ToolDef(name, "", {"type": "object"}))
    session_id = next((e.value.get("sessionId") for e in chain if isinstance(e.value.get("sessionId"), str)), None)
    source: JSONObject = {"kind": "claude-code", "file": Path(path).as_posix()}
    if session_id is not None:
        source["session"] = session_id
    names = dict.fromkeys([*(tool.name for tool in tools), *seen])  # the given tools first, then the others seen
    chosen_tools = tuple(defined[name] for name in names)
    served = tuple(McpServer(name) for name in servers)
    return SessionContext(model or found_model or "unknown", source, "", chosen_tools, messages, final, None, served)


def _entries(path: str | Path) -> tuple[list[Node], dict[str, str | None]]:
    """The transcript's user and assistant entries, each checked, with its line; and every line's parent."""
    entries: list[Node] = []
    parents: dict[str, str | None] = {}
    for number, value in iter_objects(path):  # each line strict JSON, at the speed of the C scanner
        entry = Node(value, Pos(number), str(path), "")
        kind = entry.value.get("type")
        uuid, parent_uuid = entry.value.get("uuid"), entry.value.get("parentUuid")
        if isinstance(uuid, str):  # every line with an id is a link of the chain, a conversation entry or not
            parents.setdefault(uuid, parent_uuid if isinstance(parent_uuid, str) else None)
        if kind not in ("user", "assistant"):
            continue
        entry.require("uuid", "message")
        entry.member("uuid").string(non_empty=True)
        parent = entry.member("parentUuid") if "parentUuid" in entry.value else None
        if parent is not None and parent.value is not None:
            parent.string()
        entries.append(entry)
    if not entries:
        raise InputError("no user or assistant entries: not a Claude Code transcript", path)
    return entries, parents


def _chain(entries: list[Node], parents: dict[str, str | None]) -> list[Node]:
    """The entries from the first to the last, following each one's parent back from the last; a parent that is
    not a conversation entry (an attachment, a system note) is passed through to its own parent."""
    by_uuid = {entry.value["uuid"]: entry for entry in entries}
    chain: list[Node] = []
    seen: set[str] = set()
    entry: Node | None = entries[-1]
    while entry is not None:
        uuid = entry.value["uuid"]
        if uuid in seen:
            raise entry.fail(f"the chain of parents loops back to {uuid}")
        seen.add(uuid)
        chain.append(entry)
        parent = entry.value.get("parentUuid")
        entry = None
        while isinstance(parent, str) and entry is None:
            entry = by_uuid.get(parent)
            if entry is None:
                if parent in seen:
                    raise chain[-1].fail(f"the chain of parents loops back to {parent}")
                seen.add(parent)
                parent = parents.get(parent)
    chain.reverse()
    return chain


def _blocks(content: Node, calls: bool = False) -> list[JSONValue]:
    """A message's content blocks; with ``calls``, a call's arguments, when given, must be an object, as a session
    holds them (refused at the entry's line, never dropped or repaired)."""
    if isinstance(content.value, str):
        return [{"type": "text", "text": content.value}] if content.value else []
    blocks: list[JSONValue] = []
    for block in content.array().elements():
        value = block.object().value
        if calls and value.get("type") == "tool_use" and "input" in value:
            block.member("input").object()
        blocks.append(value)
    return blocks


def _renamed(block: JSONValue, servers: dict[str, None]) -> JSONValue:
    """A call by its tool's own name, its server noted."""
    if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("name"), str):
        server, tool = _split(str(block["name"]))
        if server is not None:
            servers[server] = None
        return {**block, "name": tool}
    return block


def _user(content: Node, builder: ConversationBuilder) -> None:
    """A user entry: the person's words, or the results of the turn's calls (or both)."""
    said: list[JSONValue] = []
    for block in _blocks(content):
        if isinstance(block, dict) and block.get("type") == "tool_result":
            builder.result(block.get("tool_use_id"), block.get("content", ""), block.get("is_error") is True)
        else:
            said.append(block)
    if said:
        builder.person(content.value if isinstance(content.value, str) else said)


def _model(message: Node) -> str | None:
    model = message.value.get("model")
    return model if isinstance(model, str) and model and not model.startswith("<") else None


def _called(messages: tuple[JSONObject, ...]) -> list[str]:
    names: dict[str, None] = {}
    for message in messages:
        content = message["content"]
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                names[str(block["name"])] = None
    return list(names)
