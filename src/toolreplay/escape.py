"""Text from a recording, made safe for where it is shown: one function per kind of output.

A tool name, an argument, a response or a file name is whatever the recorded
agent or server wrote. Shown on a terminal it must not move the cursor, change
colours or rewrite the line (escape sequences, carriage returns), and an error
message must stay one line.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and C1 controls (which some terminals obey like ESC sequences).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_OR_NEWLINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def for_terminal(text: str) -> str:
    """``text`` with every control character but tab and newline written out (``\\x1b``), so nothing is obeyed."""
    return _CONTROL.sub(_visible, text) if _CONTROL.search(text) else text


def one_line(text: str) -> str:
    """``text`` as one line for a terminal or a log: newlines and every other control character written out."""
    return _CONTROL_OR_NEWLINE.sub(_visible, text) if _CONTROL_OR_NEWLINE.search(text) else text
