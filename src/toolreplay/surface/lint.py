"""Description lint: text in a tool surface that speaks to the model rather than to the person reading it.

Applied to every tool's description and title, every description inside its input schema, and each server's
instructions. Before matching, the text is *unmasked*: HTML entities decoded, NFKC-normalized, case-folded,
invisible and bidirectional characters removed and whitespace collapsed, so an instruction hidden with escapes,
zero-width characters or odd case is still seen. Each rule has an id and a rationale (docs/checks.md); a config
accepts one finding with a reason.
"""

from __future__ import annotations

import enum
import functools
import html
import re
import unicodedata
from collections.abc import Iterator

from toolreplay.core.canonical import JSONValue
from toolreplay.core.records import record
from toolreplay.surface.model import Surface, SurfaceTool


class LintRule(enum.Enum):
    """A kind of text a description should not hold."""

    INVISIBLE = "invisible-character"
    BIDI = "bidi-control"
    INSTRUCTION = "model-instruction"
    MARKUP = "hidden-markup"
    SENSITIVE_PATH = "sensitive-path"
    ADDRESS = "unexpected-address"
    SHADOWING = "cross-server-reference"
    BLOB = "encoded-blob"


RATIONALE: dict[LintRule, str] = {
    LintRule.INVISIBLE: "zero-width, tag and other format characters a person never sees but a model reads",
    LintRule.BIDI: "bidirectional controls reorder what a person sees, so the text read is not the text shown",
    LintRule.INSTRUCTION: "phrases aimed at the model (ignore previous instructions, do not tell the user, before "
    "using this tool...), the shape of tool poisoning",
    LintRule.MARKUP: "tags such as <IMPORTANT> or <system>, and HTML comments, that a client's display hides",
    LintRule.SENSITIVE_PATH: "paths of secrets (~/.ssh, id_rsa, .env, credentials) a tool has no reason to name",
    LintRule.ADDRESS: "URLs and e-mail addresses, where a description needs none: where data may be sent",
    LintRule.SHADOWING: "a reference to another server's tool, the shape of a server that steers calls to others",
    LintRule.BLOB: "long base64 or hex runs: instructions or data no reviewer can read",
}

_PATTERNS: dict[LintRule, str] = {
    LintRule.INVISIBLE: (  # format characters, fillers, variation selectors, tag characters
        "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u3164\ufe00-\ufe0f"
        "\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
    ),
    LintRule.BIDI: ("[\u200e\u200f\u202a-\u202e\u2066-\u2069]"),
    LintRule.INSTRUCTION: (
        r"ignore (?:all |any |the )?(?:previous|prior|above|earlier|other) (?:instructions|rules|prompts?)"
        r"|disregard (?:all |any |the )?(?:previous|prior|above|earlier) "
        r"|do not (?:tell|inform|mention|reveal|notify) (?:this to )?the user"
        r"|don'?t (?:tell|inform|mention) the user"
        r"|without (?:telling|informing|asking) the user"
        r"|before (?:using|calling|you use|you call) (?:this|any) tool"
        r"|you (?:must|should) (?:always |first |also )?(?:call|use|read|send|include|pass)"
        r"|(?:always|first) (?:call|read|send|pass) .{0,40}(?:before|first)"
        r"|(?:system|developer) prompt"
        r"|this is (?:very |extremely )?important"
        r"|(?:keep|it is) (?:this )?(?:a )?secret"
    ),
    LintRule.MARKUP: (
        r"<!--|<\s*/?\s*(?:important|system|instructions?|secret|hidden|note|assistant|user|admin)\b[^>]*>"
    ),
    LintRule.SENSITIVE_PATH: (
        r"~/\.ssh|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|(?:^|[\s/'\"`])\.env\b|\.aws/credentials|\.netrc|/etc/shadow|\.git-credentials"
    ),
    # Possessive runs: a long text of dots, dashes or letters never makes either pattern go back over itself.
    LintRule.ADDRESS: (r"\b(?:https?|ftp|wss?)://[^\s)>\]]++|(?<![\w.+-])[\w.+-]++@[\w-]++(?:\.[\w-]++)++"),
    LintRule.BLOB: (r"[A-Za-z0-9+/_-]{64,}+={0,2}|\b[0-9a-fA-F]{64,}+\b"),
}


@functools.cache
def _pattern(rule: LintRule) -> re.Pattern[str]:
    """A rule's pattern, compiled on first use (a check without a tools analysis never compiles one)."""
    return re.compile(_PATTERNS[rule])


def unmask(text: str) -> str:
    """The text as a model reads it, whatever a display hides: entities decoded, normalized, folded."""
    text = _decoded(text)
    text = _FILLERS.sub(" ", unicodedata.normalize("NFKC", text))  # a filler stands where a space would
    text = _pattern(LintRule.BIDI).sub("", _pattern(LintRule.INVISIBLE).sub("", text))
    return re.sub(r"\s+", " ", text.casefold()).strip()


_FILLERS = re.compile("[\u115f\u1160\u3164\uffa0]")


def _decoded(text: str) -> str:
    """HTML entities decoded until none is left (at most eight rounds: an entity of an entity of ...)."""
    for _ in range(8):
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    return text


@record
class LintFinding:
    """One rule matched in one text of a surface."""

    rule: LintRule
    tool: str  # the tool (server/name), or the server whose instructions hold it
    field: str  # description, title, inputSchema.properties.x.description, instructions
    excerpt: str
    path: str
    line: int


def _texts(tool: SurfaceTool) -> Iterator[tuple[str, str]]:
    yield "description", tool.description
    if tool.title:
        yield "title", tool.title
    yield from _schema_texts(tool.input_schema, "inputSchema")
    if tool.output_schema is not None:
        yield from _schema_texts(tool.output_schema, "outputSchema")


def _schema_texts(value: JSONValue, at: str) -> Iterator[tuple[str, str]]:
    """Every description and title in a schema, however deep (walked with a stack: the reader bounds the depth)."""
    stack: list[tuple[JSONValue, str]] = [(value, at)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            stack.extend((inner, f"{where}.{key}") for key, inner in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((inner, f"{where}[{i}]") for i, inner in reversed(list(enumerate(node))))
        elif isinstance(node, str) and where.endswith((".description", ".title")):
            yield where, node


def _excerpt(text: str, start: int, end: int) -> str:
    piece = text[max(0, start - 20) : end + 20]
    return ("…" if start > 20 else "") + piece + ("…" if end + 20 < len(text) else "")


def lint_text(text: str, others: frozenset[str] = frozenset()) -> Iterator[tuple[LintRule, str]]:
    """Each rule ``text`` breaks, with an excerpt; ``others``: the other servers' tool names (and server names)."""
    shown = _decoded(text)  # a character written as an entity is the character, to a model
    for rule in (LintRule.INVISIBLE, LintRule.BIDI):
        found = _pattern(rule).search(shown)
        if found:
            yield rule, f"U+{ord(found.group()):04X} at character {found.start()}"
    unmasked = unmask(text)
    for rule in (LintRule.INSTRUCTION, LintRule.MARKUP, LintRule.SENSITIVE_PATH, LintRule.ADDRESS):
        found = _pattern(rule).search(unmasked)
        if found:
            yield rule, _excerpt(unmasked, found.start(), found.end())
    found = _pattern(LintRule.BLOB).search(shown)
    if found:
        yield LintRule.BLOB, f"{len(found.group())} characters at character {found.start()}"
    for name in sorted(others):
        # A name alone, or as a client prefixes it (mcp__server__tool): letters, digits or a dash around it are
        # another word's.
        if len(name) >= 4 and re.search(rf"(?<![a-z0-9-]){re.escape(name.casefold())}(?![a-z0-9-])", unmasked):
            yield LintRule.SHADOWING, f"names '{name}', another server's"
            break


def lint_surface(surface: Surface) -> list[LintFinding]:
    """Every lint finding of a surface, tool by tool, then each server's instructions."""
    servers = {tool.server for tool in surface.tools} | {item.server for item in surface.instructions}
    names_of = {server: {tool.name for tool in surface.tools if tool.server == server} for server in servers}
    found: list[LintFinding] = []
    for tool in surface.tools:
        others = frozenset(
            name
            for server, names in names_of.items()
            if server != tool.server and server
            for name in (*names, server)
            if name not in names_of.get(tool.server, set())
        )
        for field, text in _texts(tool):
            found += [
                LintFinding(rule, tool.shown, field, said, tool.path, tool.line)
                for rule, said in lint_text(text, others)
            ]
    for item in surface.instructions:
        others = frozenset(
            name for server, names in names_of.items() if server != item.server and server for name in names
        )
        found += [
            LintFinding(rule, item.server or "(server)", "instructions", said, item.path, item.line)
            for rule, said in lint_text(item.text, others)
        ]
    return found
