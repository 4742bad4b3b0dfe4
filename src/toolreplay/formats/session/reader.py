"""Reading a session file strictly, with the line of every value.

Loading is strict about the session's own structure: unknown or missing fields,
wrong types, turns out of order, a ``tool_use`` without its ``tool_result``. Inside
a content block, only the fields toolreplay reads are checked; any others are the
Messages API's and are kept verbatim. Every error names the file, the line and
the place in the document (``messages[3].content[1]``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.files import read_text
from toolreplay.core.model import Call, McpServer, Session, SessionContext, ToolDef
from toolreplay.formats.parsing.json_text import parse_json
from toolreplay.formats.parsing.node import Node
from toolreplay.formats.parsing.positions import Pos
from toolreplay.formats.session.shape import (
    ANNOTATION_TYPES,
    EXCHANGE_FIELDS,
    FIELDS,
    FORMAT,
    OPTIONAL,
    READS,
    REQUEST_FIELDS,
    SERVER_FIELDS,
    SERVERS_VERSION,
    TOOL_FIELDS,
    TURN_FIELDS,
    VERSION,
    Use,
)

_KIND_NAMES = {int: "a number", dict: "an object", list: "an array"}
_PLAIN_ASSISTANT = frozenset(("role", "content", *TURN_FIELDS))
_TEXT_OR_NULL = (str, type(None))
_NO_USAGE: JSONObject = {}  # never changed: what a message without usage is taken to hold
_TEXT_OR_BLOCKS = (str, list)


class SessionReader:
    """Validates one session document; every error names the line and place of the offending value."""

    def __init__(self) -> None:
        self.version = VERSION  # the document's, once its header is read
        self.servers: tuple[McpServer, ...] = ()
        self.answered_by: dict[str, Node] = {}  # a server's result not yet matched to a call, by tool_use id

    def session(self, top: Node) -> Session:
        model, source, system, tools = self.header(top)
        top.require("messages", "final_reply")
        final_reply = self.final_reply(top.member("final_reply"))
        conversation = Conversation(self, top.path)
        calls = [call for message in top.member("messages").array().elements() for call in conversation.add(message)]
        conversation.finish(top.member("messages"))
        request = top.value.get("request")  # checked with the header
        context = SessionContext(
            model, source, system, tools, conversation.messages, final_reply, request, self.servers
        )
        return Session(top.path, tuple(calls), context)

    def header(self, top: Node) -> tuple[str, JSONObject, JSONValue, tuple[ToolDef, ...]]:
        """What a session says before its conversation: the model, the source, the system prompt and the tools."""
        top.called("a session").object().called("").only(FIELDS, "a session")
        top.require(*(name for name in FIELDS if name not in ("messages", "final_reply", *OPTIONAL)))
        header = top.member("format")
        if header.value != FORMAT:
            raise header.fail(f"must be {FORMAT!r}, found {json.dumps(header.value)}")
        version = top.member("version")
        if type(version.value) is not int or version.value not in READS:
            raise version.fail(f"this toolreplay reads versions 1 to 3, found {json.dumps(version.value)}")
        self.version = version.value
        if "request" in top.value:
            if self.version < 2:
                raise top.member("request").fail("request settings need a version 2 session")
            self.request(top.member("request"))
        if "servers" in top.value:
            if self.version < SERVERS_VERSION:
                raise top.member("servers").fail("MCP servers need a version 3 session")
            self.servers = self.read_servers(top.member("servers"))
        model = top.member("model").string()
        source = top.member("source").object().require("kind")
        source.member("kind").string()
        return model, source.value, self.system(top.member("system")), self.tools(top.member("tools"))

    def request(self, node: Node) -> JSONObject:
        """The request settings: known keys, each of its type."""
        for key, item in node.object().members():
            expected = REQUEST_FIELDS.get(key)
            if expected is None:
                raise item.fail(f"unknown request setting '{key}'; expected one of: {', '.join(REQUEST_FIELDS)}")
            if type(item.value) not in expected:
                raise item.fail(f"must be {_KIND_NAMES[expected[0]]}, found {item.describe()}")
        if "server_tools" in node.value:
            for tool in node.member("server_tools").elements():
                tool.object().require("type")
        value: JSONObject = node.value
        return value

    def read_servers(self, node: Node) -> tuple[McpServer, ...]:
        """The MCP servers the calls went to, each message as the server sent it: checked for what a replay
        serves from it (a response is a result or an error, as JSON-RPC has it), never rewritten."""
        servers: list[McpServer] = []
        for item in node.array().elements():
            item.object().only(SERVER_FIELDS, "an MCP server").require(*SERVER_FIELDS)
            name = item.member("name").string(non_empty=True)
            if any(server.name == name for server in servers):
                raise item.member("name").fail(f"server '{name}' is listed twice")
            for exchange in item.member("exchanges").array().elements():
                exchange.object().only(EXCHANGE_FIELDS, "an exchange").require("request", "response")
                method = exchange.member("request").object().member("method")
                if method.string(non_empty=True) == "tools/call":
                    raise method.fail("a call is answered in the server's results, by its tool_use id")
                self.check_answer(exchange)
                result = exchange.value["response"].get("result")
                if method.value == "initialize" and isinstance(result, dict):
                    version = exchange.member("response").member("result").get("protocolVersion")
                    if version is None:
                        raise exchange.member("response").member("result").fail("names no 'protocolVersion'")
                    version.string(non_empty=True)
            results = item.member("results")
            for tool_use_id, said in results.object().members():
                if tool_use_id in self.answered_by:
                    raise said.fail(f"tool_use '{tool_use_id}' is answered by two servers")
                self.answered_by[tool_use_id] = said
                said.object().only(EXCHANGE_FIELDS[1:], "a call's answer").require("response")
                self.check_answer(said)
            servers.append(McpServer(name, tuple(item.value["exchanges"]), tuple(results.value.items())))
        return tuple(servers)

    @staticmethod
    def check_answer(node: Node) -> None:
        """A response and the notifications before it: a result object, or an error with its code and message
        (a recorded failure must never be served as a success)."""
        response = node.member("response").object()
        if len(response.value) != 1 or not response.value.keys() <= {"result", "error"}:
            raise response.fail("a response holds either a 'result' or an 'error'")
        if "result" in response.value:
            response.member("result").object()
        else:
            failure = response.member("error").object().require("code", "message")
            failure.member("code").integer()
            failure.member("message").string()
        if "notifications" in node.value:
            for heard in node.member("notifications").array().elements():
                heard.object().member("method").string(non_empty=True)

    def final_reply(self, final: Node) -> str | None:
        if final.value is not None and type(final.value) is not str:
            raise final.fail(f"must be a string or null, found {final.describe()}")
        return final.value

    def system(self, node: Node) -> JSONValue:
        if isinstance(node.value, str):
            return node.value
        if not isinstance(node.value, list):
            raise node.fail(f"must be a string or an array of text blocks, found {node.describe()}")
        for block in node.elements():
            block.object().require("type", "text")
            if block.value["type"] != "text":
                raise block.member("type").fail(f"a system block must be a text block, found {block.value['type']!r}")
            block.member("text").string()
        return node.value

    def tools(self, node: Node) -> tuple[ToolDef, ...]:
        tools: list[ToolDef] = []
        seen: set[str] = set()
        for item in node.array().elements():
            item.object().only(TOOL_FIELDS, "a tool definition")
            name_node = item.get("name")
            if name_node is None:
                raise item.fail("missing field 'name'")
            name = name_node.string(non_empty=True)
            if name in seen:
                raise name_node.fail(f"tool '{name}' is defined twice")
            seen.add(name)
            description = item.member("description").string() if "description" in item.value else ""
            schema_node = item.get("input_schema")
            if schema_node is None:
                raise item.fail("missing field 'input_schema'")
            schema = schema_node.object().value
            annotations = item.get("annotations")
            tools.append(ToolDef(name, description, schema, self.annotations(annotations) if annotations else None))
        return tuple(tools)

    def annotations(self, node: Node) -> JSONObject:
        for key, item in node.object().members():
            expected = ANNOTATION_TYPES.get(key)
            if expected is None:
                raise item.fail(f"unknown annotation '{key}'")
            if type(item.value) is not expected:
                noun = "a boolean" if expected is bool else "a string"
                raise item.fail(f"must be {noun}, found {item.describe()}")
        value: JSONObject = node.value
        return value

    def content(self, message: Node) -> list[Node]:
        """A message's content blocks (a plain string is one text block)."""
        content = message.member("content")
        if isinstance(content.value, str):
            return [Node({"type": "text", "text": content.value}, content.pos, content.path, content.where)]
        blocks: list[Node] = []
        for block in content.array().elements():
            block.object().require("type").member("type").string()
            blocks.append(block)
        return blocks

    def assistant_blocks(self, blocks: list[Node]) -> dict[str, Node]:
        pending: dict[str, Node] = {}
        for block in blocks:
            kind = block.value["type"]
            if kind == "tool_result":
                raise block.fail("an assistant turn cannot hold a tool_result")
            if kind != "tool_use":
                continue
            for key in ("id", "name", "input"):
                if key not in block.value:
                    raise block.fail(f"missing field '{key}'")
            block_id = block.member("id").string(non_empty=True)
            if block_id in pending:
                raise block.member("id").fail(f"tool_use id '{block_id}' is used twice")
            block.member("name").string(non_empty=True)
            block.member("input").object()
            pending[block_id] = block
        return pending

    def user_blocks(self, message: Node, blocks: list[Node], pending: dict[str, Node]) -> None:
        answered: set[str] = set()
        for block in blocks:
            if block.value["type"] != "tool_result":
                again = "a version 2 session" if self.version < 2 else "a message of its own after the agent's reply"
                raise block.fail(
                    f"the person speaks in a tool-result message ({block.value['type']} block); use {again}"
                )
            answers = block.get("tool_use_id")
            tool_use_id = answers.value if answers is not None else None
            if type(tool_use_id) is not str or tool_use_id not in pending:
                raise (answers or block).fail(f"answers no tool_use of the turn before: {json.dumps(tool_use_id)}")
            if tool_use_id in answered:
                raise (answers or block).fail(f"tool_use '{tool_use_id}' is answered twice")
            answered.add(tool_use_id)
            if (content := block.get("content")) is not None and not isinstance(content.value, (str, list)):
                raise content.fail(f"must be a string or an array, found {content.describe()}")
            if (is_error := block.get("is_error")) is not None:
                is_error.boolean()
        for tool_use_id, use in pending.items():
            if tool_use_id not in answered:
                raise use.fail(f"tool_use '{tool_use_id}' has no tool_result in the next turn")


class Conversation:
    """The messages of a session, checked one at a time in order; each call is given once its result is read.

    The person opens the conversation, and (from version 2) may speak again
    after any agent turn that called no tool: each time opens a new turn of the
    conversation, and every call carries the number of the turn it was made in.
    ``keep`` holds on to every message (for a whole session); a stream of calls keeps only the person's.
    Without ``calls``, every message is checked just the same but no call is made (a result completes none): for
    a reader of the messages alone.

    A message in the shape toolreplay writes (content blocks, nothing missing or
    out of place) is checked on its values alone (:meth:`plain`); any other goes
    through its nodes, which name the line and place of what is wrong. The first
    takes only what the second takes, so both give the same calls.
    """

    def __init__(self, reader: SessionReader, path: str, keep: bool = True, calls: bool = True) -> None:
        self.reader = reader
        self.path = path
        self.keep = keep
        self.make_calls = calls
        self.kept: list[JSONObject] = []
        self.said: list[JSONObject] = []  # the person's messages: the opening and each new turn
        self.count = 0
        self.calls = 0
        self.pending: dict[str, Use] = {}  # tool_use id -> its block, awaiting its result
        self.uses: list[Use] = []  # the same, in the order of the calls
        self.turn = 1  # the person's turns so far

    @property
    def messages(self) -> tuple[JSONObject, ...]:
        return tuple(self.kept)

    def add(self, message: Node) -> list[Call]:
        """Check the next message against the turns before it; the calls it completes, in order."""
        calls = self.add_fast(message.value, lambda blocks: _lines_of(message.pos, blocks))
        if calls is not None:
            return calls
        i = self.count
        self.count += 1
        message.object().only(("role", "content", *TURN_FIELDS), "a message").require("role", "content")
        role = message.member("role")
        extra = [key for key in TURN_FIELDS if key in message.value]
        if extra and (role.value != "assistant" or self.reader.version < 2):
            raise message.member(extra[0]).fail(f"'{extra[0]}' belongs to an assistant message of a version 2 session")
        if "stop_reason" in message.value and message.value["stop_reason"] is not None:
            message.member("stop_reason").string()
        if "usage" in message.value:
            message.member("usage").object()
        expected_role = "user" if i % 2 == 0 else "assistant"
        if role.value != expected_role:
            raise role.fail(f"expected '{expected_role}' (turns alternate), found {json.dumps(role.value)}")
        if self.keep:
            self.kept.append(message.value)
        blocks = self.reader.content(message)
        if role.value == "assistant":
            self.reader.assistant_blocks(blocks)
            uses = [
                (block.value, block.line, i, k) for k, block in enumerate(blocks) if block.value["type"] == "tool_use"
            ]
            self.uses, self.pending = uses, {use[0]["id"]: use for use in uses}
            return []
        if i == 0 or (not self.uses and self.reader.version >= 2):
            # the person speaks: the opening, or after an agent turn that called no tool, a new turn
            for block in blocks:
                if block.value["type"] in ("tool_result", "tool_use"):
                    where = "first message" if i == 0 else "message after the agent's reply"
                    raise block.fail(f"the person's {where} cannot hold tool blocks")
            self.said.append(message.value)
            self.turn += i > 0
            return []
        self.reader.user_blocks(message, blocks, {key: self._node(use) for key, use in self.pending.items()})
        return self.answered({block.value["tool_use_id"]: block.value for block in blocks})

    def _node(self, use: Use) -> Node:
        block, line, message, number = use
        return Node(block, Pos(line), self.path, f"messages[{message}].content[{number}]")

    def answered(self, results: dict[str, JSONObject]) -> list[Call]:
        """The calls of the turn before, each with its result (by tool_use id)."""
        calls: list[Call] = []
        if self.make_calls:
            index, turn = self.calls, self.turn
            for block, line, _, _ in self.uses:
                if self.reader.answered_by:
                    self.reader.answered_by.pop(block["id"], None)
                result = results[block["id"]]
                is_error = result.get("is_error", False) is True
                calls.append(
                    Call(index, block["name"], block["input"], result.get("content", ""), line, is_error, turn)
                )
                index += 1
            self.calls = index
        else:
            if self.reader.answered_by:
                for block, _, _, _ in self.uses:
                    self.reader.answered_by.pop(block["id"], None)
            self.calls += len(self.uses)
        self.pending, self.uses = {}, []
        return calls

    def add_fast(self, value: Any, place: Callable[[int], list[int]]) -> list[Call] | None:
        """:meth:`add` for a message whose every check passes on its values alone; None (nothing taken) for any
        other, which :meth:`add` checks node by node. ``place(n)`` gives the lines of the message's first n
        content blocks: asked only of a message that makes calls, for their lines.
        """
        if type(value) is not dict or type(content := value.get("content")) is not list:
            return None
        i = self.count
        if i % 2:  # the agent's turn: beside role and content, only how a turn of a version 2 session ended
            if value.get("role") != "assistant" or (
                len(value) != 2
                and not (
                    self.reader.version >= 2
                    and value.keys() <= _PLAIN_ASSISTANT
                    and type(value.get("stop_reason")) in _TEXT_OR_NULL
                    and type(value.get("usage", _NO_USAGE)) is dict
                )
            ):
                return None
            pending: dict[str, int] = {}
            last, one = 0, ""
            for number, block in enumerate(content):
                if type(block) is not dict:
                    return None
                kind = block.get("type")
                if kind == "tool_use":
                    use_id, name = block.get("id"), block.get("name")
                    if type(use_id) is not str or not use_id or use_id in pending or type(name) is not str or not name:
                        return None
                    if type(block.get("input")) is not dict:
                        return None
                    pending[use_id] = last = number
                    one = use_id
                elif type(kind) is not str or kind == "tool_result":
                    return None
            if len(pending) == 1:  # a turn's one call (the most common by far)
                use = (content[last], place(last + 1)[last], i, last)
                self.uses, self.pending = [use], {one: use}
            elif pending:
                lines = place(last + 1)
                self.pending = {use_id: (content[k], lines[k], i, k) for use_id, k in pending.items()}
                self.uses = list(self.pending.values())
            else:
                self.uses, self.pending = [], {}
        elif value.get("role") != "user" or len(value) != 2:
            return None
        elif i == 0 or (not self.uses and self.reader.version >= 2):  # the person speaks
            for block in content:
                if type(block) is not dict or type(kind := block.get("type")) is not str:
                    return None
                if kind in ("tool_result", "tool_use"):
                    return None
            self.said.append(value)
            self.turn += i > 0
        else:
            return self._plain_results(value, content)
        self.count = i + 1
        if self.keep:
            self.kept.append(value)
        return []

    def _plain_results(self, message: JSONObject, content: list[Any]) -> list[Call] | None:
        """:meth:`plain` for the person's message that answers the agent's calls."""
        pending = self.pending
        results: dict[str, JSONObject] = {}
        for block in content:
            if type(block) is not dict or block.get("type") != "tool_result":
                return None
            use_id = block.get("tool_use_id")
            if type(use_id) is not str or use_id not in pending or use_id in results:
                return None
            if type(block.get("content", "")) not in _TEXT_OR_BLOCKS or type(block.get("is_error", False)) is not bool:
                return None
            results[use_id] = block
        if not results or len(results) != len(pending):
            return None
        self.count += 1
        if self.keep:
            self.kept.append(message)
        return self.answered(results)

    def finish(self, messages: Node) -> None:
        """Check that the conversation is whole: it started, and every tool_use got its result."""
        if self.count == 0:
            raise messages.fail("must hold at least the person's first message")
        if self.pending:
            tool_use_id, use = next(iter(self.pending.items()))
            raise self._node(use).fail(f"tool_use '{tool_use_id}' has no tool_result")
        for tool_use_id, response in self.reader.answered_by.items():
            raise response.fail(f"answers tool_use '{tool_use_id}', which the conversation does not make")


def _lines_of(message: Pos, blocks: int) -> list[int]:
    """The lines of a message's first ``blocks`` content blocks."""
    content = message.member("content")
    return [content.member(number).line for number in range(blocks)]


def parse_tools(node: Node) -> tuple[ToolDef, ...]:
    """Validate a list of tool definitions (as a session holds them) from any source."""
    return SessionReader().tools(node)


def validate_session(top: Node) -> Session:
    """Validate a parsed session document and read its calls out."""
    return SessionReader().session(top)


def parse_session(text: str, path: str | Path) -> Session:
    """Parse and validate the text of a session file."""
    return validate_session(parse_json(text, path))


def read_located(path: str | Path) -> Session:
    """Read and validate a session file with the line of every value: the reader that names the line of any
    error, and takes any layout."""
    return parse_session(read_text(path), path)
