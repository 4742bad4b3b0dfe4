"""Benchmark: `tools diff` and `tools lint` of a surface of 1,000 tools with long descriptions.

    python bench/bench_tools.py [--tools 1000] [--rounds 3]

Two tools files of ``--tools`` tools each, every description about 2,000 characters of ordinary prose and every
input schema a few described arguments; the second with a tenth of the tools changed (a description reworded, an
argument made required, an annotation dropped). Times the two commands as the CLI runs them (in this process,
output to /dev/null), best of ``--rounds``. Target: each under a second.

Then the samples' check (a copy of samples/ in a scratch repository) with and without a tools analysis (lint and a
lock of the sessions' surfaces) added to its config, alternated, best of each. Target: under 5% added.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from toolreplay.cli import main

WORDS = [
    "the",
    "file",
    "a",
    "directory",
    "path",
    "reads",
    "writes",
    "returns",
    "list",
    "of",
    "entries",
    "with",
    "their",
    "sizes",
    "and",
    "dates",
    "in",
    "order",
]


def _tool(rng: random.Random, index: int, changed: bool) -> dict[str, object]:
    description = " ".join(rng.choice(WORDS) for _ in range(330)).capitalize() + "."
    properties = {f"arg{i}": {"type": "string", "description": " ".join(rng.choice(WORDS) for _ in range(12))}
                  for i in range(4)}  # fmt: skip
    tool: dict[str, object] = {
        "name": f"tool_{index:04d}",
        "description": description,
        "inputSchema": {"type": "object", "properties": properties, "required": ["arg0"]},
        "annotations": {"readOnlyHint": False, "destructiveHint": True},
    }
    if changed:
        tool["description"] = description.replace(" the ", " a ", 3)
        tool["inputSchema"] = {"type": "object", "properties": properties, "required": ["arg0", "arg1"]}
        tool["annotations"] = {"readOnlyHint": False}
    return tool


def _timed(*args: str) -> float:
    started = time.perf_counter()
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(args))
    if code not in (0, 1):
        raise SystemExit(f"toolreplay {' '.join(args)} exited with {code}")
    return time.perf_counter() - started


def _check_overhead(rounds: int) -> None:
    import shutil  # noqa: PLC0415

    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="toolreplay-bench-") as scratch:
        repo = Path(scratch)
        (repo / ".git").mkdir()
        shutil.copytree(root / "samples", repo / "samples", ignore=shutil.ignore_patterns("__pycache__"))
        config = (repo / "samples" / ".toolreplay.yml").read_text(encoding="utf-8")
        plain, tooled = repo / "samples" / "plain.yml", repo / "samples" / "tooled.yml"
        plain.write_text(config, encoding="utf-8")
        here = os.getcwd()
        os.chdir(repo)
        try:
            _timed("tools", "pin", "samples/ops/session.json", "samples/rules/session.json", "-o", "samples/tools.lock")
            tooled.write_text(config + "tools:\n  lock: tools.lock\n", encoding="utf-8")
            without, with_tools = float("inf"), float("inf")
            for _ in range(rounds):
                without = min(without, _timed("check", "--config", str(plain), "--no-cache"))
                with_tools = min(with_tools, _timed("check", "--config", str(tooled), "--no-cache"))
            processes = [_process(str(plain)), _process(str(tooled))]
            for _ in range(rounds):
                processes = [min(processes[0], _process(str(plain))), min(processes[1], _process(str(tooled)))]
        finally:
            os.chdir(here)
    print(f"the samples' check, in this process: {without * 1000:.1f} ms, with a tools analysis "
          f"{with_tools * 1000:.1f} ms: +{(with_tools / without - 1) * 100:.1f}%")  # fmt: skip
    print(f"the samples' check as a command: {processes[0]:.3f} s, with a tools analysis {processes[1]:.3f} s: "
          f"+{(processes[1] / processes[0] - 1) * 100:.1f}% (target: under 5%)")  # fmt: skip


def _process(config: str) -> float:
    import subprocess  # noqa: PLC0415

    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "toolreplay", "check", "--config", config, "--no-cache"],
                          capture_output=True, check=False)  # fmt: skip
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr.decode())
    return time.perf_counter() - started


def _worst_shapes() -> None:
    """The shapes that were quadratic: a description of 200,000 characters of dots or dashes (the address pattern
    going back over itself), and two descriptions of 200,000 words (a word diff of every pair); and the worst for
    the reading of other tools and hidden markup: a sentence naming other tools, an opening tag, a tool's name,
    each 100,000 times."""
    rng = random.Random(2)
    words = [rng.choice(WORDS) for _ in range(200_000)]
    with tempfile.TemporaryDirectory(prefix="toolreplay-bench-") as scratch:
        times: list[str] = []
        shapes = [("a.", 100_000), ("a-", 100_000), ("other tools. ", 100_000), ("<details>", 100_000)]
        shapes += [("send_email ", 100_000), ("a", 200_000), ("QUFB", 50_000)]
        for label, times_over in shapes:
            text = label * times_over
            path = Path(scratch) / "one.json"
            path.write_text(json.dumps([{"name": "t", "description": text, "inputSchema": {}}]), encoding="utf-8")
            times.append(f"lint of '{label}' x {times_over:,}: {_timed('tools', 'lint', str(path)):.2f} s")
        old, new = Path(scratch) / "a.json", Path(scratch) / "b.json"
        old.write_text(json.dumps([{"name": "t", "description": " ".join(words)}]), encoding="utf-8")
        rng.shuffle(words)
        new.write_text(json.dumps([{"name": "t", "description": " ".join(words)}]), encoding="utf-8")
        times.append(f"diff of two 200,000-word descriptions: {_timed('tools', 'diff', str(old), str(new)):.2f} s")
    print("worst shapes: " + "; ".join(times))


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="toolreplay-bench-") as scratch:
        old, new = Path(scratch) / "old.json", Path(scratch) / "new.json"
        for path, every in ((old, 0), (new, 10)):
            rng = random.Random(1)
            tools = [_tool(rng, i, every > 0 and i % every == 0) for i in range(options.tools)]
            path.write_text(json.dumps(tools), encoding="utf-8")
        size = new.stat().st_size
        diff = min(_timed("tools", "diff", str(old), str(new)) for _ in range(options.rounds))
        lint = min(_timed("tools", "lint", str(new)) for _ in range(options.rounds))
    _check_overhead(options.rounds)
    _worst_shapes()
    print(
        f"{options.tools:,} tools, {size / 1e6:.1f} MB: tools diff {diff:.2f} s, tools lint {lint:.2f} s "
        "(target: 1 s each)"
    )


if __name__ == "__main__":
    main_()
