"""Text from a recording, made safe for where it is shown: one function per kind of output.

A tool name, an argument, a response or a file name is whatever the recorded
agent or server wrote. Shown on a terminal it must not move the cursor, change
colours or rewrite the line (escape sequences, carriage returns), and an error
message must stay one line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# C0 controls except tab and newline, DEL, C1 controls (which some terminals obey like ESC sequences), the
# Unicode line and paragraph separators (which some readers take for line ends), and the characters that change
# how text reads without being seen: bidirectional overrides, embeddings and isolates, zero-width and other
# invisible format characters (a soft hyphen, the joiners and marks, the byte-order mark), and the tag
# characters. Two arguments that differ only by one of these must not look the same.
_INVISIBLE = "\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f"
# A lone surrogate (a file name's byte that is not UTF-8) is written out too: it cannot be printed at all.
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}\ud800-\udfff]")
_CONTROL_OR_NEWLINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_INVISIBLE}\ud800-\udfff]")


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# What a GitHub runner obeys in a step's output: a line that starts with ``::`` once leading whitespace is
# trimmed (``::error::``, ``::add-mask::``, ``::stop-commands::``), and ``##[`` anywhere in a line (the first
# form of the same commands). A backslash in front makes each plain text.
_COMMAND_START = re.compile(r"^(\s*):(?=:)", re.MULTILINE)


def _no_workflow_command(text: str) -> str:
    if "::" in text:
        text = _COMMAND_START.sub(r"\1\\:", text)
    return text.replace("##[", "##\\[") if "##[" in text else text


def for_terminal(text: str) -> str:
    """``text`` for a terminal or a CI log: every control character but tab and newline written out
    (``\\x1b``), and no line a workflow runner would take for a command."""
    return _no_workflow_command(_CONTROL.sub(_visible, text) if _CONTROL.search(text) else text)


# Characters valid unescaped inside a JSON string that a terminal may obey (DEL, C1 controls, line and
# paragraph separators): JSON written to a terminal or a log spells them as \u escapes, which read back the same.
_JSON_RAW_CONTROL = re.compile(f"[\x7f-\x9f{_INVISIBLE}\ud800-\udfff]")


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)  # JSON's surrogate pair
    return f"\\u{high:04x}\\u{low:04x}"


def json_for_terminal(text: str) -> str:
    """JSON text for a terminal or a CI log, still the same JSON: what a terminal would obey becomes a ``\\u``
    escape, and so does the ``#`` that would start a runner's ``##[`` command. (A line of JSON never starts with
    ``::``: a string starts with a quote, and a JSON string holds no line break.)"""
    if _JSON_RAW_CONTROL.search(text):
        text = _JSON_RAW_CONTROL.sub(_json_escape, text)
    return text.replace("##[", "#\\u0023[") if "##[" in text else text


def _flat(text: str) -> str:
    """``text`` as one line: newlines and every other control character written out."""
    return _CONTROL_OR_NEWLINE.sub(_visible, text) if _CONTROL_OR_NEWLINE.search(text) else text


def one_line(text: str) -> str:
    """``text`` as one line for a terminal or a CI log: :func:`for_terminal`, with newlines written out too."""
    return _no_workflow_command(_flat(text))


def lines_for_terminal(lines: Sequence[str]) -> str:
    """A report's lines for a terminal or a CI log, each kept one line (a recorded name's own line break written
    out, so no text can forge a line of the report) with nothing a terminal or a runner obeys."""
    text = "\n".join(lines) + "\n" if lines else ""
    if text.count("\n") == len(lines) and "\t" not in text:  # nothing one_line alone writes out: all at once
        return for_terminal(text)
    return "".join(one_line(line) + "\n" for line in lines)


# What can change a table cell's meaning in GitHub-flavoured markdown: a backslash makes each literal. Other
# punctuation matters only at the start of a line, which a cell never is; an underscore inside a word is
# never emphasis, so only one at a word's edge is escaped.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]|<>&~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")


def _no_comment(text: str) -> str:
    """Text that cannot open an HTML comment, or copy the sticky comment's marker, even as raw bytes."""
    return text.replace("<!--", "<\u200b!--")


def for_markdown(text: str) -> str:
    """``text`` as literal markdown inline text, fit for a table cell: one line, no markup, no HTML, no mention.

    Every markdown and HTML character is backslash-escaped (so ``<!--``, ``<img>``
    and ``|`` are text, and the sticky comment's marker cannot be copied), and a
    word joiner after ``@`` keeps ``@user`` and ``@org/team`` from notifying anyone.
    """
    return _MENTION.sub("@\u2060", _MARKDOWN_SPECIAL.sub(r"\\\1", _no_comment(_flat(text))))


def markdown_code(text: str) -> str:
    """``text`` as a markdown code span fit for a table cell: one line, its pipes escaped, fenced past its backticks."""
    flat = _no_comment(_flat(text)).replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith(("`", " ")) or flat.endswith(("`", " ")) or longest else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def workflow_data(text: str) -> str:
    """``text`` as the data of a GitHub workflow command (after ``::``): it cannot end the command or start another.

    The command itself is already parsed when its data is read, so only what
    could end the line (or reach the terminal as a control) is encoded.
    """
    visible = _CONTROL.sub(_visible, text) if _CONTROL.search(text) else text
    return visible.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """``text`` as a property value of a workflow command (``file=...``)."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


# What HTML cannot carry or should not show as it is, beyond its own markup (which the templates escape): control
# characters (a parse error, or invisible), the invisible and bidirectional characters above, and lone surrogates
# (not encodable as UTF-8 at all).
_HTML_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}\ud800-\udfff]")


def for_html(text: str) -> str:
    """``text`` fit to be escaped into HTML: every character HTML cannot carry or should not obey written out
    (``\\x1b``, ``\\u202e``, ``\\ud800``). Markup is the template engine's to escape."""
    return _HTML_UNSAFE.sub(_visible, text) if _HTML_UNSAFE.search(text) else text
