"""Benchmark: what a signature adds to ``verify``, and what ``check --base`` costs against one ``verify``.

    python bench/bench_signing.py [--links 1000000] [--calls 100000] [--rounds 3]

Part 1: a synthetic transcript of ``--links`` calls, sealed and signed with an Ed25519 key made for the run;
``verify`` and ``verify --allowed-signers`` timed as the CLI runs them (in this process, output to /dev/null),
alternated round by round, best of each. Target: the signed verify within 1.3x of the unsigned one (the signature
is one ssh-keygen call over a statement of a hundred bytes, whatever the file's size).

Part 2: a git repository whose base commit holds a sealed transcript of ``--calls`` calls and whose working tree
holds it with ten calls appended (sealed again): the base comparison (reading the base's file from git, and
holding the file now to it link by link) timed against one ``verify`` of the file now. Target: within 2x. Then
the worst shape: every link re-encoded, so each is compared by its canonical JSON, not its bytes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synthetic import write_transcript
from toolreplay.check.base import Base, sealed_departure
from toolreplay.cli import main
from toolreplay.formats.kinds import sniff_kind


def _cli(*args: str) -> float:
    started = time.perf_counter()
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(args))
    if code:
        raise SystemExit(f"toolreplay {' '.join(args)} exited with {code}")
    return time.perf_counter() - started


def _best(rounds: int, *timed: Callable[[], float]) -> list[float]:
    best = [float("inf")] * len(timed)
    for _ in range(rounds):
        for i, measure in enumerate(timed):
            best[i] = min(best[i], measure())
    return best


def _signatures(scratch: Path, links: int, rounds: int) -> None:
    plain, sealed = scratch / "plain.jsonl", scratch / "sealed.jsonl"
    write_transcript(plain, links)
    key = scratch / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    allowed = scratch / "allowed_signers"
    allowed.write_text("bench@example.com " + " ".join(Path(f"{key}.pub").read_text().split()[:2]) + "\n")
    _cli("seal", str(plain), "-o", str(sealed), "--sign", str(key))
    unsigned, signed = _best(
        rounds,
        lambda: _cli("verify", str(sealed)),
        lambda: _cli("verify", str(sealed), "--allowed-signers", str(allowed)),
    )
    print(f"verify, {links:,} links: {unsigned:.2f} s; with its signature checked: {signed:.2f} s")
    print(f"  signed / unsigned: {signed / unsigned:.3f}x (target: 1.3x)")


def _base(scratch: Path, calls: int, rounds: int) -> None:
    repo = scratch / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.email=b@example.com", "-c", "user.name=bench"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    plain, longer = scratch / "calls.jsonl", scratch / "longer.jsonl"
    write_transcript(plain, calls)
    write_transcript(longer, calls + 10)  # the same calls (the same seed), and ten more
    _cli("seal", str(plain), "-o", str(repo / "sealed.jsonl"))
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    _cli("seal", str(longer), "-o", str(repo / "sealed.jsonl"))
    here = os.getcwd()
    os.chdir(repo)
    try:

        def compare() -> float:
            started = time.perf_counter()
            (old,) = Base("HEAD", repo).recordings(["sealed.jsonl"], (), None)
            assert sealed_departure(old, "sealed.jsonl", sniff_kind("sealed.jsonl")) is None
            return time.perf_counter() - started

        verify, against = _best(rounds, lambda: _cli("verify", "sealed.jsonl"), compare)
    finally:
        os.chdir(here)
    print(f"verify, {calls + 10:,} calls: {verify:.2f} s; held to its base of {calls:,}: {against:.2f} s")
    print(f"  base comparison / verify: {against / verify:.3f}x (target: 2x)")
    # The worst shape: every link re-encoded (spaces after the separators), so no line is the base's byte for
    # byte and each is compared by its canonical JSON.
    sealed = repo / "sealed.jsonl"
    lines = sealed.read_bytes().splitlines()
    sealed.write_bytes(b"".join(json.dumps(json.loads(line)).encode() + b"\n" for line in lines))
    os.chdir(repo)
    try:
        verify, against = _best(rounds, lambda: _cli("verify", "sealed.jsonl"), compare)
    finally:
        os.chdir(here)
    print(f"  every link re-encoded: verify {verify:.2f} s, held to its base {against:.2f} s: {against / verify:.3f}x")


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, default=1_000_000)
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="toolreplay-bench-") as scratch:
        _signatures(Path(scratch), options.links, options.rounds)
        _base(Path(scratch), options.calls, options.rounds)


if __name__ == "__main__":
    main_()
