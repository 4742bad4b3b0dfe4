"""Benchmark: what `check` costs over the analyses it runs, and how evenly shards split the work.

    python bench/bench_check.py [--transcripts 200] [--calls 500] [--sessions 8] [--shards 4]

Builds a repository in a temporary directory: synthetic transcripts (half of
them also sealed) and copies of the sample ops session, each replayed 10 times
against the edited prompt with 10 unchanged runs by the scripted agent. Then,
in one process and one run:

- the same analyses called directly (verify, audit, replay with its baseline),
  with no config, planning or reports;
- `check` on the config, through the library as the CLI calls it, with the
  text, markdown, SARIF and JSON reports rendered;
- every shard of `--shard K/N` in turn.

Times are this process's CPU time, best of three, the three kinds interleaved
so a slow spell of the machine weighs on each alike. Prints check's time over
the direct analyses, without and with its reports (target: at most 1.10
without), and the slowest shard's time over an even share of the whole (1.00
is a perfect split).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synthetic import write_transcript
from toolreplay.agent_spec import ScriptSpec
from toolreplay.analysis.audit import audit
from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.check.run import PreparedCheck
from toolreplay.core.verdict import FailOn
from toolreplay.formats.check_report import render_check_json
from toolreplay.formats.config.read import read_config
from toolreplay.formats.recording import iter_calls, load_session, read_links
from toolreplay.integrity.chain import seal, verify
from toolreplay.replay.drive import replay_session
from toolreplay.replay.progress import Progress
from toolreplay.report.check_text import render_check
from toolreplay.report.markdown import render_markdown
from toolreplay.report.sarif import render_sarif
from toolreplay.results.locate import Paths
from toolreplay.settings import ReplaySettings, Unrecorded

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
RUNS = 10


def build(root: Path, transcripts: int, calls: int, sessions: int) -> Path:
    """A repository with recordings and a config naming them; returns the config."""
    (root / ".git").mkdir()
    for name in ("agent.py", "host.py", "prompt-v2.txt", "stubs.json"):
        shutil.copy(SAMPLES / "ops" / name, root / name)
    for number in range(transcripts):
        path = root / "transcripts" / f"t{number:04d}.jsonl"
        path.parent.mkdir(exist_ok=True)
        write_transcript(path, calls, seed=number)
        if number % 2 == 0:
            sealed = root / "sealed" / f"t{number:04d}.sealed.jsonl"
            sealed.parent.mkdir(exist_ok=True)
            sealed.write_bytes(b"".join(line + b"\n" for line in seal(iter_calls(path))))
    text = (SAMPLES / "ops" / "session.json").read_text(encoding="utf-8")
    # the session names its scripted agent by a path from the repository root
    text = text.replace("scripted:samples/ops/agent.py", "scripted:agent.py")
    for number in range(sessions):
        path = root / "sessions" / f"s{number:03d}.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    config = root / ".toolreplay.yml"
    config.write_text(
        "transcripts: transcripts/*.jsonl\n"
        "sessions: sessions/*.json\n"
        "sealed: sealed/*.jsonl\n"
        "replay:\n"
        "  system: prompt-v2.txt\n"
        f"  repeat: {RUNS}\n"
        f"  noise: {RUNS}\n"
        "  on-unrecorded: stub\n"
        "  stubs: stubs.json\n",
        encoding="utf-8",
    )
    return config


def direct(root: Path) -> None:
    """The analyses alone: what check runs, called one by one."""
    policy = Policy()
    for sealed in sorted((root / "sealed").iterdir()):
        links, last_label = read_links(str(sealed))
        verify(links, str(sealed), last_label)
        audit(iter_calls(sealed), Classifier(policy))
    for path in sorted((root / "transcripts").iterdir()):
        audit(iter_calls(path), Classifier(policy))
    settings = ReplaySettings(
        system=str(root / "prompt-v2.txt"),
        agent=ScriptSpec(str(root / "agent.py")),
        repeat=RUNS,
        noise=RUNS,
        on_unrecorded=Unrecorded.STUB,
        stubs=str(root / "stubs.json"),
    )
    for path in sorted((root / "sessions").iterdir()):
        session = load_session(path)
        assert session.context is not None
        audit(session.calls, Classifier(policy, session.context.tools))
        replay_session(session, settings, policy, FailOn.DESTRUCTIVE, progress=Progress(2 * RUNS))


FOUND: list[int] = []


def checked(config: Path, shard: tuple[int, int] | None = None, reports: bool = True) -> None:
    report = PreparedCheck(read_config(str(config)), Paths(config.parent.resolve()), shard).run()
    if reports:
        for render in (render_check, render_markdown, render_sarif, render_check_json):
            render(report)
    FOUND.append(len(report.findings))


def timed(action: Callable[[], None]) -> float:
    """CPU seconds of this process: time the machine spends on others does not count."""
    start = time.process_time()
    action()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transcripts", type=int, default=200)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--shards", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        config = build(root, args.transcripts, args.calls, args.sessions)
        here = Path.cwd()
        os.chdir(root)  # as check runs in CI: from the repository root
        try:
            direct(root)  # warm the caches both sides share (imports, the agent module)
            # interleaved, so a slow spell of the machine weighs on each the same; the best of three
            rounds = [
                (
                    timed(partial(direct, root)),
                    timed(partial(checked, config, None, False)),
                    timed(partial(checked, config)),
                )
                for _ in range(3)
            ]
            alone, bare, whole = (min(column) for column in zip(*rounds, strict=True))
            shards = [
                min(timed(partial(checked, config, (k, args.shards))) for _ in range(3))
                for k in range(1, args.shards + 1)
            ]
        finally:
            os.chdir(here)
    sealed = (args.transcripts + 1) // 2
    print(
        f"{args.transcripts} transcripts of {args.calls} calls ({sealed} also sealed), "
        f"{args.sessions} sessions replayed {RUNS}+{RUNS} times; {FOUND[0]} findings reported"
    )
    print(f"  analyses called directly   {alone * 1000:8.0f} ms")
    print(f"  check, no reports          {bare * 1000:8.0f} ms   {bare / alone:.2f}x the analyses (target <= 1.10)")
    print(f"  check, all four reports    {whole * 1000:8.0f} ms   {whole / alone:.2f}x the analyses")
    print(
        f"  {args.shards} shards: " + ", ".join(f"{s * 1000:.0f}" for s in shards) + " ms; "
        f"slowest {max(shards) / (sum(shards) / len(shards)):.2f}x an even share"
    )


if __name__ == "__main__":
    main()
