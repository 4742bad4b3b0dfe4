"""How long importing a large Claude Code transcript takes, against reading its lines with json.loads.

    python bench/bench_import.py --calls 20000 [--rounds 3]

Writes a synthetic transcript in Claude Code's layout (one entry per content
block, an attachment line between turns whose child names it as parent, tool
results as user entries), then times, in one process, the floor (every line
through ``json.loads``) and ``toolreplay import --from claude-code`` as the CLI
runs it (output to a scratch file). Prints the median of each and their ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from toolreplay.cli import main


def transcript(calls: int) -> str:
    lines = []
    parent = None

    def add(kind: str, uuid: str, message: object | None = None, **extra: object) -> None:
        nonlocal parent
        entry = {"parentUuid": parent, "isSidechain": False, "sessionId": "s", "type": kind, "uuid": uuid, **extra}
        if message is not None:
            entry["message"] = message
        lines.append(json.dumps(entry))
        parent = uuid

    add("user", "u0", {"role": "user", "content": "Free some space on build-04."})
    for i in range(calls):
        add("attachment", f"x{i}", None, attachment={"type": "todo_reminder"})
        use = {"type": "tool_use", "id": f"toolu_{i}", "name": "mcp__ops__list_dir", "input": {"path": f"/var/log/{i}"}}
        text = {"type": "text", "text": f"Looking at /var/log/{i}."}
        add("assistant", f"a{i}t", {"id": f"msg_{i}", "role": "assistant", "model": "m", "content": [text]})
        add("assistant", f"a{i}", {"id": f"msg_{i}", "role": "assistant", "model": "m", "content": [use]})
        result = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": '{"entries": ["a", "b"]}'}
        add("user", f"r{i}", {"role": "user", "content": [result]})
    add(
        "assistant",
        "end",
        {"id": "msg_end", "role": "assistant", "model": "m", "content": [{"type": "text", "text": "Done."}]},
    )
    return "\n".join(lines) + "\n"


def main_bench() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp())
    source = work / "transcript.jsonl"
    source.write_text(transcript(args.calls), encoding="utf-8")
    floors, imports = [], []
    for _ in range(args.rounds):
        started = time.perf_counter()
        with source.open(encoding="utf-8") as handle:
            for line in handle:
                json.loads(line)
        floors.append(time.perf_counter() - started)
        out = work / "session.json"
        out.unlink(missing_ok=True)
        started = time.perf_counter()
        code = main(["import", str(source), "--from", "claude-code", "-o", str(out)])
        imports.append(time.perf_counter() - started)
        if code != 0:
            raise SystemExit(f"import failed with exit {code}")
    floor, imported = statistics.median(floors), statistics.median(imports)
    size = source.stat().st_size / 1e6
    print(f"{args.calls:,} calls, {size:.1f} MB; median of {args.rounds} rounds")
    print(f"  floor (json.loads per line)  {floor:7.3f} s")
    print(f"  import --from claude-code    {imported:7.3f} s   {imported / floor:5.1f}x the floor")
    return 0


if __name__ == "__main__":
    sys.exit(main_bench())
