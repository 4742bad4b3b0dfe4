"""What judging a recording by a policy file adds to its audit: every kind in one pass, linear in the calls.

    python bench/bench_policies.py [--calls 100000] [--rounds 3]

A synthetic transcript (bench/synthetic.py: reads, searches, listings, writes, commands) is audited alone and
with policy files, each in a process of its own (its wall time and its peak memory), rounds interleaved, medians:

- ``50 policies``: every kind, over the tools the transcript calls, several binding ``{path}`` (about nine calls
  in ten break one: each write's path was never read first);
- ``50 policies no call breaks``: never, require, immediately-before and not-after, over the same tools;
- ``every call a first``: 10 orders whose earlier pattern is ``*`` binding ``{path}`` (each call remembered);
- ``every call a flow source``: 5 flows from ``*`` to ``*`` (every result's long tokens indexed, every call's
  arguments looked up).

Each is also run on a quarter of the calls: linear time makes its cost per call the same at both sizes.

Then the shape an index of a flow's sources grows worst on: calls alternating between a source whose result holds
ten tokens no other result holds and a sink, with a flow from the one to the other (the index grows by ten tokens
a source, and each sink is looked up in all of it), at a quarter of the calls and at all of them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.synthetic import write_transcript  # noqa: E402

_KINDS = [
    'never = {{ tool = "run_command", args = {{ command = "rm -rf *{n}" }} }}',
    'require = {{ tool = "read_file" }}',
    'before = {{ first = {{ tool = "read_file", args = {{ path = "{{path}}" }} }}, then = {{ tool = "write_file", '
    'args = {{ path = "{{path}}" }} }} }}',
    'immediately-before = {{ first = {{ tool = "search" }}, then = {{ tool = "run_command", args = {{ command = '
    '"git*{n}" }} }} }}',
    'not-after = {{ first = {{ tool = "run_command", args = {{ command = "pytest*" }} }}, then = {{ tool = '
    '"write_file", args = {{ path = "src/pkg{n}/*" }} }} }}',
    'at-most = {{ tool = "list_dir", args = {{ path = "{{path}}" }}, count = {n} }}',
    'flow = {{ from = {{ tool = "read_file" }}, to = {{ tool = "run_command" }}, min-length = {length} }}',
]


def _file(policies: list[str]) -> str:
    return "".join(f'[[policy]]\nid = "p{n}"\nwhy = "w"\n{body}\n\n' for n, body in enumerate(policies))


def shapes() -> dict[str, str]:
    mixed = [_KINDS[n % len(_KINDS)].format(n=n, length=12 + n % 8) for n in range(50)]
    first = [
        f'before = {{ first = {{ tool = "*", args = {{ path = "{{path}}" }} }}, then = {{ tool = "write_file{n}", '
        f'args = {{ path = "{{path}}" }} }} }}'
        for n in range(10)
    ]
    flows = [f'flow = {{ from = {{ tool = "*" }}, to = {{ tool = "*" }}, min-length = {12 + n} }}' for n in range(5)]
    kept = [_KINDS[(0, 1, 3, 4)[n % 4]].format(n=n, length=12) for n in range(50)]  # what no call of the file breaks
    return {
        "50 policies": _file(mixed),
        "50 policies no call breaks": _file(kept),
        "every call a first": _file(first),
        "every call a flow source": _file(flows),
    }


_CHILD = """
import json, resource, sys, time
from toolreplay.commands.audit import AuditRequest, execute
from toolreplay.commands.base import Quiet
start = time.perf_counter()
execute(AuditRequest((sys.argv[1],), None, False, sys.argv[2] or None), Quiet())
print(json.dumps([time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss]))
"""


def measure(transcript: Path, policies: Path | None) -> tuple[float, float]:
    """One audit in a process of its own: seconds, and peak memory in MiB."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(transcript), str(policies or "")], capture_output=True, text=True, check=True
    )
    seconds, peak = json.loads(done.stdout)
    return float(seconds), peak / 1024


_FLOW = '[[policy]]\nid = "f"\nwhy = "w"\nflow = { from = { tool = "get_secret" }, to = { tool = "http_*" } }\n'


def write_sources(path: Path, calls: int) -> None:
    """Calls alternating between a source of ten tokens of its own and a sink that carries none of them."""
    with path.open("w", encoding="utf-8") as out:
        for pair in range(calls // 2):
            tokens = " ".join(f"secret-{pair}-{k:04d}-abcdefgh" for k in range(10))
            source = {"index": 2 * pair, "tool": "get_secret", "args": {}, "response": {"text": tokens}}
            sink = {"index": 2 * pair + 1, "tool": "http_post", "args": {"body": "nothing here"}, "response": {}}
            out.write(json.dumps(source) + "\n" + json.dumps(sink) + "\n")


def growing_index(here: Path, calls: int, rounds: int) -> None:
    """The flow's worst index, at a quarter of the calls and at all of them: its cost per call the same at both."""
    policies = here / "flow.toml"
    policies.write_text(_FLOW)
    for size in (calls // 4, calls):
        transcript = here / f"s{size}.jsonl"
        write_sources(transcript, size)
        plain = statistics.median(measure(transcript, None)[0] for _ in range(rounds))
        judged = [measure(transcript, policies) for _ in range(rounds)]
        took = statistics.median(seconds for seconds, _ in judged)
        print(
            f"{size:,} calls, a source of ten tokens of its own then a sink: audit {plain:.2f} s, with the flow "
            f"{took:.2f} s = {took / plain:.2f}x ({max(peak for _, peak in judged):.0f} MiB), "
            f"{took / size * 1e6:.1f} us a call"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        here = Path(scratch)
        files: dict[str, Path] = {}
        for name, text in shapes().items():
            files[name] = here / f"{len(files)}.toml"
            files[name].write_text(text)
        for calls in (options.calls // 4, options.calls):
            transcript = here / f"t{calls}.jsonl"
            write_transcript(transcript, calls)
            times: dict[str, list[float]] = {"audit": [], **{name: [] for name in files}}
            peaks: dict[str, float] = {}
            for _ in range(options.rounds):
                for name, taken in times.items():
                    seconds, peak = measure(transcript, files.get(name))
                    taken.append(seconds)
                    peaks[name] = max(peaks.get(name, 0.0), peak)
            plain = statistics.median(times["audit"])
            print(
                f"{calls:,} calls: audit {plain:.2f} s ({peaks['audit']:.0f} MiB), {plain / calls * 1e6:.1f} us a call"
            )
            for name in files:
                took = statistics.median(times[name])
                print(
                    f"  + {name:<27} {took:.2f} s = {took / plain:.2f}x audit ({peaks[name]:.0f} MiB),"
                    f" {took / calls * 1e6:.1f} us a call"
                )
        growing_index(here, options.calls // 2, options.rounds)


if __name__ == "__main__":
    main()
