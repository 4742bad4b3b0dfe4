"""Synthetic transcripts with realistic argument and response sizes, for benchmarks.

The mix follows what coding agents do: mostly reads and searches with responses
of a few hundred bytes to a few kilobytes, some writes carrying file content,
the occasional shell command, and about one call in ten repeating an earlier
one, so the audit's identity map sees both new and known calls.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.model import SessionContext, ToolDef
from toolreplay.formats.session.writer import write_session as write_session_file

_WORDS = [
    "agent",
    "tool",
    "call",
    "replay",
    "seal",
    "chain",
    "digest",
    "index",
    "record",
    "response",
    "args",
    "path",
    "docs",
    "intro",
    "guide",
    "install",
    "config",
    "build",
    "test",
    "deploy",
    "log",
    "error",
    "warning",
    "info",
    "debug",
    "module",
    "function",
    "class",
    "return",
    "value",
]


def _text(rng: random.Random, low: int, high: int) -> str:
    target = rng.randint(low, high)
    words: list[str] = []
    size = 0
    while size < target:
        word = rng.choice(_WORDS)
        words.append(word)
        size += len(word) + 1
    return " ".join(words)


def synthetic_call(rng: random.Random, index: int) -> tuple[str, JSONObject, JSONObject]:
    roll = rng.random()
    path = f"src/pkg{rng.randint(0, 40)}/module_{rng.randint(0, 300)}.py"
    if roll < 0.40:
        # A file reads the same every time (writes go to fresh paths), so rereads are not noise.
        content = _text(random.Random(path), 200, 3000)
        return "read_file", {"path": path}, {"content": content, "bytes": len(content)}
    if roll < 0.65:
        query = _text(rng, 5, 30)
        found = random.Random(query)  # the same query finds the same hits
        hits: list[JSONValue] = [
            {
                "path": f"src/pkg{found.randint(0, 40)}/module_{found.randint(0, 300)}.py",
                "line": found.randint(1, 900),
                "text": _text(found, 30, 120),
            }
            for _ in range(found.randint(0, 8))
        ]
        return "search", {"query": query, "limit": 20}, {"hits": hits}
    if roll < 0.80:
        folder = path.rsplit("/", 1)[0]
        listing = random.Random(folder)
        entries: list[JSONValue] = [f"file_{listing.randint(0, 999)}.py" for _ in range(listing.randint(1, 30))]
        return "list_dir", {"path": folder}, {"entries": entries}
    if roll < 0.93:
        text = _text(rng, 100, 2000)
        target = f"out/gen_{index}.py"
        return "write_file", {"path": target, "text": text}, {"ok": True, "bytes": len(text)}
    command = rng.choice(["pytest -q", "ruff check .", "git status", f"python -m pkg{index % 7}"])
    return (
        "run_command",
        {"command": command, "timeout": 600},
        {"exit": rng.randint(0, 1), "stdout": _text(rng, 50, 1500)},
    )


def synthetic_calls(calls: int, seed: int = 1) -> Iterator[tuple[str, JSONObject, JSONObject]]:
    """``calls`` calls as (tool, arguments, response), about one in ten repeating an earlier one."""
    rng = random.Random(seed)
    history: list[tuple[str, JSONObject, JSONObject]] = []
    for index in range(calls):
        if history and rng.random() < 0.1:
            tool, args, response = rng.choice(history)
        else:
            tool, args, response = synthetic_call(rng, index)
            if len(history) < 5000:
                history.append((tool, args, response))
        yield tool, args, response


def write_transcript(path: Path, calls: int, seed: int = 1) -> int:
    """Write a transcript of ``calls`` calls; returns its size in bytes."""
    size = 0
    with path.open("w", encoding="utf-8") as out:
        for index, (tool, args, response) in enumerate(synthetic_calls(calls, seed)):
            line = json.dumps({"index": index, "tool": tool, "args": args, "response": response}) + "\n"
            size += len(line)
            out.write(line)
    return size


def write_session(path: Path, calls: int, seed: int = 1) -> int:
    """Write, as toolreplay writes a session, the calls :func:`write_transcript` writes with the same seed: one per
    assistant turn, each result as its JSON text; returns the file's size in bytes."""
    messages: list[JSONObject] = [{"role": "user", "content": "Tidy the repository."}]
    names: set[str] = set()
    for index, (tool, args, response) in enumerate(synthetic_calls(calls, seed)):
        names.add(tool)
        use_id = f"toolu_{index:06d}"
        use: JSONObject = {"type": "tool_use", "id": use_id, "name": tool, "input": args}
        result: JSONObject = {"type": "tool_result", "tool_use_id": use_id, "content": json.dumps(response)}
        messages.append({"role": "assistant", "content": [use], "stop_reason": "tool_use"})
        messages.append({"role": "user", "content": [result]})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"})
    tools = tuple(ToolDef(name, "", {"type": "object"}) for name in sorted(names))
    context = SessionContext("claude-test", {"kind": "bench"}, "", tools, tuple(messages), "Done.")
    write_session_file(path, context)
    return path.stat().st_size
