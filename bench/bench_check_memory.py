"""Benchmark: the peak memory of `check` on one large session and one large transcript.

    python bench/bench_check_memory.py [--calls 100000]

Writes a session of N calls (each with the build-host tools' shape of arguments
and results) and a transcript of N calls into a temporary repository, names
both in a config (audited, and the transcript also sealed and verified), runs
`toolreplay check` as a child process and prints its peak resident memory
(the kernel's ru_maxrss for the child), next to `python -c "import toolreplay.cli"`
as the floor. Target: at most 300 MB for 100,000 calls of each.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synthetic import synthetic_call, write_transcript
from toolreplay.core.canonical import JSONObject, JSONValue


def write_session(path: Path, calls: int, seed: int = 3) -> None:
    """A session of ``calls`` tool calls, one per assistant turn, as toolreplay writes them."""
    rng = random.Random(seed)
    messages: list[JSONValue] = [{"role": "user", "content": "Tidy the repository."}]
    names: set[str] = set()
    for index in range(calls):
        tool, args, result = synthetic_call(rng, index)
        names.add(tool)
        use_id = f"toolu_{index:06d}"
        messages.append(
            {"role": "assistant", "content": [{"type": "tool_use", "id": use_id, "name": tool, "input": args}]}
        )
        block: JSONObject = {"type": "tool_result", "tool_use_id": use_id, "content": json.dumps(result)}
        messages.append({"role": "user", "content": [block]})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    session = {
        "format": "toolreplay-session",
        "version": 1,
        "model": "claude-test",
        "source": {"kind": "bench"},
        "system": "",
        "tools": [{"name": name, "description": "", "input_schema": {"type": "object"}} for name in sorted(names)],
        "messages": messages,
        "final_reply": "Done.",
    }
    path.write_text(json.dumps(session, indent=2), encoding="utf-8")


_MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.stderr[-300:])\n"
)


def peak_mb(command: list[str], cwd: Path) -> float:
    """The peak resident memory of ``command``, run as the only child of a fresh process (so no other counts)."""
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, *command], cwd=cwd, capture_output=True, text=True, check=True
    )
    code, peak, stderr = out.stdout.split(" ", 2)
    if int(code) not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed: {stderr}")
    return int(peak) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=100_000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        (root / ".git").mkdir()
        write_session(root / "session.json", options.calls)
        write_transcript(root / "transcript.jsonl", options.calls)
        sealed = subprocess.run(
            [sys.executable, "-m", "toolreplay", "seal", "transcript.jsonl", "-o", "sealed.jsonl"],
            cwd=root,
            check=False,
        )
        if sealed.returncode:
            raise SystemExit("sealing the transcript failed")
        (root / ".toolreplay.yml").write_text(
            "sessions: session.json\ntranscripts: transcript.jsonl\nsealed: sealed.jsonl\n", encoding="utf-8"
        )
        sizes = {name: (root / name).stat().st_size / 1e6 for name in ("session.json", "transcript.jsonl")}
        check = peak_mb([sys.executable, "-m", "toolreplay", "check", "--json", "report.json"], root)
        floor = peak_mb([sys.executable, "-c", "import toolreplay.cli"], root)
    print(
        f"{options.calls:,} calls each: session {sizes['session.json']:.0f} MB, "
        f"transcript {sizes['transcript.jsonl']:.0f} MB"
    )
    print(f"  check (audit all three, verify the sealed one, every report): peak {check:.0f} MB")
    print(f"  python -c 'import toolreplay.cli':                            peak {floor:.0f} MB")


if __name__ == "__main__":
    main()
